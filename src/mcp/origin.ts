// Which browser origins may call a channel's tool server: the channel's own host, the API's host and a configured list.
import { channelHost, type ChannelSites } from '../../core/ground/channel-urls.js';
import type { ChannelDoc } from '../../core/store/documents.js';

/**
 * True when a request with this `Origin` header may use the channel's tool server. No
 * header: not a browser's cross-origin request (MCP clients send none), allowed. Otherwise
 * the origin's host must be the channel's host (any scheme and port: its pages), the API's
 * public host (`/channels/{slug}/mcp` from the API's own site), or the origin must be in
 * `allowedOrigins` exactly. The request's own `Host` is never trusted: under DNS
 * rebinding a hostile page's Host and Origin are both its own name.
 */
export function originAllowed(
  origin: string | undefined,
  channel: Pick<ChannelDoc, 'slug' | 'customDomain'>,
  { channelSites, publicBaseUrl, allowedOrigins }: { channelSites: ChannelSites; publicBaseUrl: string; allowedOrigins: readonly string[] },
): boolean {
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false; // `null` (sandboxed frames, file:) and garbage
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return false;
  if (allowedOrigins.includes(parsed.origin)) return true;
  const host = parsed.hostname.toLowerCase();
  return host === channelHost(channel, channelSites).toLowerCase() || host === new URL(publicBaseUrl).hostname.toLowerCase();
}
