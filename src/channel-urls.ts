// A channel's public URLs (decision 15): its host, its episode pages and the cited moments in them; and the channel a host names.

/** What a channel's URLs are made of (a channel document has both). */
export interface ChannelAddress {
  slug: string;
  customDomain?: string | null | undefined;
}

/** The channel's host: its custom domain, else `<slug>.<channelBaseDomain>`. */
export function channelHost(channel: ChannelAddress, channelBaseDomain: string): string {
  return channel.customDomain ?? `${channel.slug}.${channelBaseDomain}`;
}

/** Absolute URL of an episode page. */
export function episodeUrl(host: string, episodeId: string): string {
  return `https://${host}/episodes/${encodeURIComponent(episodeId)}`;
}

/** Citation `url` and `deepLink` of a moment; `t` is in milliseconds. */
export function citation(host: string, episodeId: string, startMs: number): { url: string; deepLink: string } {
  const t = Math.max(0, Math.floor(startMs));
  return {
    url: `${episodeUrl(host, episodeId)}?t=${t}`,
    deepLink: `episodes/${encodeURIComponent(episodeId)}?t=${t}`,
  };
}

/** A channel named by its slug (`<slug>.<base domain>`, `/channels/{slug}/mcp`) or by its custom domain. */
export type ChannelLocator = { slug: string } | { domain: string };

/**
 * The channel a host names: `<slug>.<channelBaseDomain>` names a slug, any other host a
 * custom domain. The base domain itself and deeper subdomains name nothing.
 */
export function locateByHost(hostname: string, channelBaseDomain: string): ChannelLocator | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === '' || host === channelBaseDomain) return undefined;
  if (host.endsWith(`.${channelBaseDomain}`)) {
    const slug = host.slice(0, -channelBaseDomain.length - 1);
    return slug.includes('.') ? undefined : { slug };
  }
  return { domain: host };
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
