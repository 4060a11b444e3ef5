// TEST ONLY. Drives the built-in authorization server over HTTP as a browser and a client would: a cookie jar, redirects
// followed by hand (redirect: 'manual'), PKCE, and a stand-in for the console's sign-in (a signed cookie set by the test).
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { Request } from 'express';
import type { InteractionHost } from '../../src/oauth/interactions.js';

/** A free loopback port, so a suite can make PUBLIC_BASE_URL the API's own address before starting it. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** PKCE: a verifier and its S256 challenge (RFC 7636). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const SIGN_IN_COOKIE = 'test_console_user';

/**
 * TEST ONLY: the console's part of a sign-in, the smallest real one. A user is signed in when the request carries
 * `test_console_user=<userId>.<hmac>` signed with this object's secret; the test "signs in" by adding that cookie to
 * its jar (what the console's sign-in page would do). The sign-in path is the console's.
 */
export function testConsole(): InteractionHost & { cookieFor(userId: string): string; readonly name: string } {
  const secret = randomBytes(32);
  const sign = (userId: string) => createHmac('sha256', secret).update(userId).digest('base64url');
  return {
    name: SIGN_IN_COOKIE,
    cookieFor: (userId) => `${userId}.${sign(userId)}`,
    async signedInUser(req: Request) {
      const raw = (req.headers.cookie ?? '')
        .split(';')
        .map((part) => part.trim())
        .find((part) => part.startsWith(`${SIGN_IN_COOKIE}=`))
        ?.slice(SIGN_IN_COOKIE.length + 1);
      if (!raw) return undefined;
      const dot = raw.lastIndexOf('.');
      const userId = raw.slice(0, dot);
      return dot > 0 && sign(userId) === raw.slice(dot + 1) ? { userId, role: 'creator' } : undefined;
    },
    signInPath: (next) => `/console/sign-in?next=${encodeURIComponent(next)}`,
  };
}

interface StoredCookie {
  name: string;
  value: string;
  path: string;
}

/** A browser's cookie jar for one origin: cookies by name and path, sent where their path applies. */
export class CookieJar {
  private cookies: StoredCookie[] = [];

  set(name: string, value: string, path = '/'): void {
    this.cookies = this.cookies.filter((c) => !(c.name === name && c.path === path));
    this.cookies.push({ name, value, path });
  }

  /** Takes a response's Set-Cookie headers (an expired one removes its cookie). */
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const attr = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const path = attr('path') ?? '/';
      const expires = attr('expires');
      const gone = attr('max-age') === '0' || (expires !== undefined && Date.parse(expires) <= Date.now()) || value === '';
      this.cookies = this.cookies.filter((c) => !(c.name === name && c.path === path));
      if (!gone) this.cookies.push({ name, value, path });
    }
  }

  header(path: string): string | undefined {
    const sent = this.cookies.filter((c) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/');
    return sent.length ? sent.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }
}

/** One browser: requests with its jar, never following redirects itself. */
export function browser(base: string) {
  const jar = new CookieJar();
  async function request(url: string, init: { method?: string; body?: URLSearchParams; headers?: Record<string, string> } = {}): Promise<Response> {
    const target = new URL(url, base);
    const cookie = target.origin === new URL(base).origin ? jar.header(target.pathname) : undefined;
    const res = await fetch(target, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(init.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...init.headers },
      ...(init.body ? { body: init.body } : {}),
    });
    if (target.origin === new URL(base).origin) jar.take(res);
    return res;
  }
  return { jar, request };
}

/** The hidden fields and action of the consent page's Allow form. */
export function consentForm(html: string): { action: string; csrf: string } {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!action || !csrf) throw new Error(`no consent form in: ${html.slice(0, 300)}`);
  return { action: action.replace(/&amp;/g, '&'), csrf };
}
