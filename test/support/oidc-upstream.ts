// TEST ONLY. A real OpenID Connect provider on loopback for the console's upstream sign-in: oidc-provider with one
// confidential client, the authorization code flow with PKCE S256 required, and a tiny login page (a subject typed in,
// no password) that a test drives over HTTP or Chromium fills in. Consent is implied (a first-party client).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { browser } from './oauth-flow.js';

export interface OidcUpstream {
  /** `http://127.0.0.1:<port>`: CONSOLE_OIDC_ISSUER. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The console's CONSOLE_OIDC_* settings for this provider, shown as `name`. */
  env(name?: string): Record<string, string>;
  /** Gives `subject` an `email` claim (the console must never look at it). */
  setEmail(subject: string, email: string): void;
  /**
   * Plays the browser at the provider: opens `authorizationUrl` (a console's redirect), signs in as `subject` on the
   * login page, and returns the URL the provider sends the browser back to (the console's callback, with code, state
   * and iss). Each call is a fresh browser at the provider, so each signs in anew.
   */
  signIn(authorizationUrl: string, subject: string): Promise<URL>;
  close(): Promise<void>;
}

const LOGIN_PAGE = (uid: string) =>
  `<!doctype html><html lang="en"><head><title>Test provider sign-in</title></head><body><main><h1>Test provider</h1>` +
  `<form method="post" action="/interaction/${uid}/login"><label for="subject">Subject</label><input id="subject" name="subject" required>` +
  `<button type="submit">Continue</button></form></main></body></html>`;

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Starts the provider on 127.0.0.1 (a free port) for a console at `publicBaseUrl`: its client's only redirect URI is
 * `publicBaseUrl/console/oidc/callback`, exactly as an operator registers it.
 */
export async function startOidcUpstream({ publicBaseUrl, clientId = 'creator-console' }: { publicBaseUrl: string; clientId?: string }): Promise<OidcUpstream> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'upstream-test-1', alg: 'RS256', use: 'sig' };
  const clientSecret = randomBytes(24).toString('base64url');
  const emails = new Map<string, string>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${publicBaseUrl.replace(/\/+$/, '')}/console/oidc/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AuthorizationCode: 60, AccessToken: 300, IdToken: 300 },
    claims: { openid: ['sub'], email: ['email'] },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id, ...(emails.has(id) ? { email: emails.get(id) } : {}) }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // A first-party client: every scope asked for is granted without a consent page.
    loadExistingGrant: async (ctx: { oidc: { client: { clientId: string }; session: { accountId?: string }; provider: Provider; params: { scope?: string } } }) => {
      const accountId = ctx.oidc.session.accountId;
      if (!accountId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
      grant.addOIDCScope(ctx.oidc.params.scope ?? 'openid');
      await grant.save();
      return grant;
    },
    features: { devInteractions: { enabled: false } },
  });
  const handle = provider.callback();
  server.on('request', (req, res) => {
    const login = /^\/interaction\/([^/?]+)(\/login)?$/.exec(req.url ?? '');
    if (!login) return handle(req, res);
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        if (details.uid !== login[1]) throw new Error('another interaction');
        if (!login[2]) {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(LOGIN_PAGE(details.uid));
          return;
        }
        const subject = (await formBody(req)).get('subject');
        if (!subject) throw new Error('no subject');
        await provider.interactionFinished(req, res, { login: { accountId: subject } }, { mergeWithLastSubmission: false });
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
    })();
  });

  return {
    issuer,
    clientId,
    clientSecret,
    env: (name = 'Test IdP') => ({ CONSOLE_OIDC_ISSUER: issuer, CONSOLE_OIDC_CLIENT_ID: clientId, CONSOLE_OIDC_CLIENT_SECRET: clientSecret, CONSOLE_OIDC_NAME: name }),
    setEmail: (subject, email) => void emails.set(subject, email),
    async signIn(authorizationUrl, subject) {
      const agent = browser(issuer);
      let res = await agent.request(authorizationUrl);
      for (let hops = 0; hops < 10; hops++) {
        const location = res.headers.get('location');
        if (!location) throw new Error(`the provider answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        const next = new URL(location, issuer);
        if (next.origin !== issuer) return next;
        if (/^\/interaction\/[^/]+$/.test(next.pathname)) {
          const page = await agent.request(next.href);
          if (page.status !== 200) throw new Error(`the login page answered ${page.status}: ${(await page.text()).slice(0, 300)}`);
          res = await agent.request(`${next.pathname}/login`, { method: 'POST', body: new URLSearchParams({ subject }) });
        } else {
          res = await agent.request(next.href);
        }
      }
      throw new Error('the provider never sent the browser back');
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
