// A channel's public URLs (decision 15): its host, its episode pages and the cited moments in them; and the channel a host names.

/** What a channel's URLs are made of (a channel document has both). */
export interface ChannelAddress {
  slug: string;
  customDomain?: string | null | undefined;
}

/**
 * Where channel sites live: hosts `<slug>.<baseDomain>` or a channel's custom domain, reached at
 * `https://<host>`. A local run or a staging copy, whose custom domains lead elsewhere, turns
 * custom domains off and may set a scheme and port (the demo: `http://<slug>.localhost:8080`).
 */
export interface ChannelSites {
  baseDomain: string;
  scheme: 'https' | 'http';
  /** Port in the sites' URLs; undefined: the scheme's own. */
  port?: number | undefined;
  /** Whether channels' custom domains are their hosts; off, every channel is `<slug>.<baseDomain>` only. */
  customDomains: boolean;
}

/** The channel's host: its custom domain (when those are on), else `<slug>.<baseDomain>`. */
export function channelHost(channel: ChannelAddress, sites: ChannelSites): string {
  return (sites.customDomains ? channel.customDomain : undefined) ?? `${channel.slug}.${sites.baseDomain}`;
}

/** The origin of the channel's site (`https://<host>` in production): every page, episode `url` and citation is under it. */
export function channelOrigin(channel: ChannelAddress, sites: ChannelSites): string {
  return `${sites.scheme}://${channelHost(channel, sites)}${sites.port === undefined ? '' : `:${sites.port}`}`;
}

/** Absolute URL of an episode page under the channel's origin. */
export function episodeUrl(origin: string, episodeId: string): string {
  return `${origin}/episodes/${encodeURIComponent(episodeId)}`;
}

/** Citation `url` and `deepLink` of a moment; `t` is in milliseconds. */
export function citation(origin: string, episodeId: string, startMs: number): { url: string; deepLink: string } {
  const t = Math.max(0, Math.floor(startMs));
  return {
    url: `${episodeUrl(origin, episodeId)}?t=${t}`,
    deepLink: `episodes/${encodeURIComponent(episodeId)}?t=${t}`,
  };
}

/** A channel named by its slug (`<slug>.<base domain>`, `/channels/{slug}/mcp`) or by its custom domain. */
export type ChannelLocator = { slug: string } | { domain: string };

/**
 * The channel a host names: `<slug>.<baseDomain>` names a slug, any other host a custom
 * domain (when those are on). The base domain itself and deeper subdomains name nothing.
 */
export function locateByHost(hostname: string, { baseDomain, customDomains }: ChannelSites): ChannelLocator | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === '' || host === baseDomain) return undefined;
  if (host.endsWith(`.${baseDomain}`)) {
    const slug = host.slice(0, -baseDomain.length - 1);
    return slug.includes('.') ? undefined : { slug };
  }
  return customDomains ? { domain: host } : undefined;
}

/** `value` as an absolute http(s) URL, or undefined (`javascript:`, `data:`, relative, garbage): the only URLs library text may become. */
export function safeHttpUrl(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
