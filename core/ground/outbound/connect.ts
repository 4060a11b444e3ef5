// Where an outbound request may connect: its URL read as http(s), every address its host resolves to checked, and a
// socket lookup pinned to those checked addresses (shared by the fetcher and the webhooks' POST).
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import { literalAddress, refusedReason } from './address.js';
import { FetchError } from './errors.js';

/** Which addresses a request may reach beyond the public ones. */
export interface AddressRules {
  /** Every address allowed (`OUTBOUND_ALLOW_PRIVATE=true`: tests, a local run). */
  allowPrivate?: boolean | undefined;
  /** One refused address allowed anyway (an operator's own service), by address and port. */
  isAllowedAddress?: ((address: string, port: number) => boolean) | undefined;
}

/** `text` as an http(s) URL, resolved against `base` for a redirect's Location; `verb` says what is done with it in the refusal. */
export function parseHttpUrl(text: string, base?: URL, verb = 'fetched'): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new FetchError('bad_url', text, `${text}: not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError('scheme', url.href, `${url.href}: only http and https are ${verb}`);
  if (!url.hostname) throw new FetchError('bad_url', url.href, `${url.href}: no host`);
  return url;
}

export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * The addresses `url`'s host resolves to, every one checked: one refused address refuses the host (a name that
 * resolves to both a public and a private address is how rebinding starts). A literal IP is checked as it is;
 * URL parsing has already turned decimal, octal and hex IPv4 forms into dotted quads.
 */
export async function checkedAddresses(url: URL, { allowPrivate = false, isAllowedAddress }: AddressRules = {}): Promise<LookupAddress[]> {
  const literal = literalAddress(url.hostname);
  let addresses: LookupAddress[];
  if (literal !== undefined) addresses = [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  else {
    addresses = await dnsLookup(url.hostname, { all: true, verbatim: true }).catch((err: NodeJS.ErrnoException) => {
      throw new FetchError('network', url.href, `${url.hostname}: could not be resolved (${err.code ?? err.message})`, { cause: err });
    });
    if (addresses.length === 0) throw new FetchError('network', url.href, `${url.hostname}: resolves to no address`);
  }
  if (allowPrivate) return addresses;
  const port = portOf(url);
  for (const { address } of addresses) {
    const why = refusedReason(address);
    if (why !== undefined && !isAllowedAddress?.(address, port)) throw new FetchError('private_address', url.href, `${url.host} resolves to ${address} (${why}): refused`);
  }
  return addresses;
}

/** A `lookup` for the socket that answers only with the addresses already checked: DNS is not asked twice. */
export function pinnedLookup(addresses: LookupAddress[]) {
  return (_host: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void): void => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
    if (usable.length === 0) return callback(Object.assign(new Error('no checked address of this family'), { code: 'ENOTFOUND' }));
    if (options.all) return callback(null, usable);
    callback(null, usable[0]!.address, usable[0]!.family);
  };
}

/** A response's headers as a fetch `Headers` (repeated headers appended). */
export function toHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}
