// Which URLs an endpoint may have: https anywhere public; plain http only on loopback and only with
// OUTBOUND_ALLOW_PRIVATE=true (a local receiver in tests and demos). Pure.
import { literalAddress, refusedReason } from '../../core/ground/outbound/address.js';
import { WebhookError } from './errors.js';

/** True for `localhost` (and its subdomains, which resolve to loopback) and loopback IP literals. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const literal = literalAddress(host);
  return literal !== undefined && refusedReason(literal)?.startsWith('loopback') === true;
}

/**
 * `text` as an endpoint URL, or a WebhookError saying why not: `bad_url` (not absolute http(s), credentials in it, a
 * fragment, or a literal private address without `allowPrivate`), `insecure_url` (http elsewhere than on loopback with
 * `allowPrivate`). Names are checked again at each delivery, after resolving (see postBytes).
 */
export function checkEndpointUrl(text: string, { allowPrivate = false }: { allowPrivate?: boolean } = {}): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookError('bad_url', `"${text}" is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WebhookError('bad_url', `${url.protocol} URLs cannot receive webhooks; use https`);
  if (url.username || url.password) throw new WebhookError('bad_url', 'the URL carries credentials; put them nowhere, the signature authenticates deliveries');
  if (url.hash) throw new WebhookError('bad_url', 'the URL has a fragment (#…), which is never sent; remove it');
  if (url.protocol === 'http:' && !(allowPrivate && isLoopbackHost(url.hostname))) {
    throw new WebhookError('insecure_url', 'plain http is refused: use https (http only for loopback, with OUTBOUND_ALLOW_PRIVATE=true)');
  }
  const literal = literalAddress(url.hostname);
  const why = literal === undefined ? undefined : refusedReason(literal);
  if (why !== undefined && !allowPrivate) throw new WebhookError('bad_url', `${url.hostname} is a ${why} address, refused for outbound requests`);
  return url;
}
