// A browser-shaped client of the console for integration tests: one cookie jar, redirects not followed, forms posted
// with the CSRF token of the page they came from and the Origin a browser would send.
import type { IdentityDeps } from '../../src/console/identity.js';
import { inviteAccount } from '../../src/console/identity.js';
import type { AccountRole } from '../../core/store/accounts.js';

export interface ConsoleAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The `Location` of a redirect, as a path. */
  location?: string | undefined;
}

/** The hidden CSRF field of the first form of a page. */
export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no CSRF field in the page:\n${html.slice(0, 400)}`);
  return m[1]!;
}

/** The text of the element with `id`, from a rendered page. */
export function elementText(html: string, id: string): string | undefined {
  return new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1];
}

export class ConsoleClient {
  cookie: string | undefined;
  constructor(readonly baseUrl: string) {}

  private async send(path: string, init: RequestInit): Promise<ConsoleAnswer> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set('cookie', this.cookie);
    const res = await fetch(`${this.baseUrl}${path}`, { ...init, headers, redirect: 'manual' });
    const set = res.headers.getSetCookie().find((c) => c.includes('cca_session='));
    if (set) this.cookie = /Expires=Thu, 01 Jan 1970/.test(set) ? undefined : set.split(';')[0];
    const location = res.headers.get('location') ?? undefined;
    return { status: res.status, headers: res.headers, text: await res.text(), location: location?.replace(this.baseUrl, '') };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<ConsoleAnswer> {
    return this.send(path, { method: 'GET', headers });
  }

  /** Posts `form` as urlencoded, with the Origin of the base URL unless `headers` says otherwise. */
  post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<ConsoleAnswer> {
    return this.send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.baseUrl, ...headers },
      body: new URLSearchParams(form).toString(),
    });
  }

  /** Opens `page`, then posts its form (to `action`, default the same path) with the page's CSRF token. */
  async submit(page: string, form: Record<string, string>, { action = page, headers = {} }: { action?: string; headers?: Record<string, string> } = {}): Promise<ConsoleAnswer> {
    const shown = await this.get(page);
    return this.post(action, { _csrf: csrfOf(shown.text), ...form }, headers);
  }

  async signIn(userId: string, password: string): Promise<ConsoleAnswer> {
    return this.submit('/console/sign-in', { userId, password });
  }
}

/** The path of a one-time link URL. */
export const linkPath = (url: string) => new URL(url).pathname;

/** An account invited and its password set through its link; returns a client signed in as it. */
export async function signedInAs(baseUrl: string, identity: IdentityDeps, userId: string, role: AccountRole, password = 'correct horse battery'): Promise<ConsoleClient> {
  const invitation = await inviteAccount(identity, { userId, role });
  const client = new ConsoleClient(baseUrl);
  const set = await client.submit(linkPath(invitation.url), { password, confirmation: password });
  if (set.status !== 303) throw new Error(`setting the password of ${userId} answered ${set.status}: ${set.text.slice(0, 300)}`);
  return client;
}
