// RFC 8252 for registered clients: a redirect set on this machine (loopback, private schemes) makes a native client, whose loopback port may vary.

/** Host names of the loopback interface, as oidc-provider matches them for native clients. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export type RedirectKind = 'loopback' | 'private-scheme' | 'https' | 'other';

/** What a redirect URI points at: a loopback http listener, a private-use scheme (`com.example.app:/cb`), an https site, or anything else. */
export function redirectKind(uri: string): RedirectKind {
  const url = URL.parse(uri);
  if (!url) return 'other';
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname) ? 'loopback' : 'other';
  if (url.protocol === 'https:') return LOOPBACK_HOSTS.has(url.hostname) ? 'other' : 'https';
  // RFC 8252 §7.1: a private-use scheme has a dot in it (reverse domain); javascript:, data: and the like do not.
  return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/i.test(url.protocol) ? 'private-scheme' : 'other';
}

/**
 * Whether a client with these redirect URIs runs on the user's machine (application_type native): every URI is
 * loopback http or a private-use scheme, besides https ones it may also claim (VS Code registers
 * `https://vscode.dev/redirect` beside its loopback ones), and at least one is local. Such a client gets RFC 8252
 * §7.3's leniency on the loopback port, which VS Code needs (it picks another port when 33418 is taken); its https
 * URIs are still matched exactly.
 */
export function isNativeRedirectSet(uris: readonly unknown[]): boolean {
  if (uris.length === 0 || !uris.every((uri) => typeof uri === 'string')) return false;
  const kinds = (uris as string[]).map(redirectKind);
  return kinds.every((kind) => kind !== 'other') && kinds.some((kind) => kind === 'loopback' || kind === 'private-scheme');
}

/** The host a consent page names for a redirect URI (`localhost:33418`, `vscode.dev`, `com.example.app`). */
export function redirectHost(uri: string): string {
  const url = URL.parse(uri);
  if (!url) return uri;
  return url.host || url.protocol.replace(/:$/, '');
}
