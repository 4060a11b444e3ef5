// Where the console goes after a sign-in: home, or a `next` path of this origin (never another site).

/** Where the console opens after sign-in when nothing asked for another page. */
export const CONSOLE_HOME = '/console/channels';

/**
 * `next` of the sign-in page when it is a path of this origin (`/oauth/auth/…?…`), else undefined: an absolute URL,
 * a scheme-relative `//host`, a backslash trick or a control character is ignored, never followed.
 */
export function safeNext(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || !raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\') || [...raw].some((c) => c <= '\u001f' || c === '\u007f')) return undefined;
  try {
    const url = new URL(raw, 'http://same.invalid');
    return url.origin === 'http://same.invalid' ? `${url.pathname}${url.search}${url.hash}` : undefined;
  } catch {
    return undefined;
  }
}
