// A real OAuth authorization server in the test process: oidc-provider on loopback issuing RFC 9068 `at+jwt` access tokens (client credentials, resource indicators).
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** Scopes the authorization server knows; a client may ask for any subset. */
export const OIDC_SCOPES = ['creator:read', 'creator:write'] as const;

export interface OidcServer {
  /** The issuer (`http://127.0.0.1:<port>`): the API's `JWT_ISSUER`. */
  issuer: string;
  /** Its JWKS URL, as its discovery document names it: the API's `JWT_JWKS`. */
  jwksUri: string;
  /**
   * An access token from the token endpoint (client credentials grant) for `resource` (RFC 8707), with `scope`
   * (space-separated; omitted: none). Its `sub` is the client id, which is `clientId`, a user id of the test world.
   */
  token(options: { resource: string; scope?: string }): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts oidc-provider on 127.0.0.1 (a free port) with one confidential client, `clientId`, allowed the client
 * credentials grant, and every resource indicator served as a JWT-format resource server: `aud` is the resource,
 * the token is signed RS256 with a key made here and published at the provider's JWKS URL.
 */
export async function startOidcServer({ clientId = 'u_member' }: { clientId?: string } = {}): Promise<OidcServer> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'oidc-test-1', alg: 'RS256', use: 'sig' };
  const clientSecret = `secret-${Math.random().toString(36).slice(2)}`;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: OIDC_SCOPES.join(' ') }],
    jwks: { keys: [signingKey] },
    scopes: [...OIDC_SCOPES],
    cookies: { keys: ['oidc-test-cookie-key'] },
    ttl: { ClientCredentials: 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: OIDC_SCOPES.join(' '),
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  server.on('request', provider.callback());
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { token_endpoint: string; jwks_uri: string };

  return {
    issuer,
    jwksUri: discovery.jwks_uri,
    async token({ resource, scope }) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', resource, ...(scope !== undefined ? { scope } : {}) });
      const res = await fetch(discovery.token_endpoint, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      const answer = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!res.ok || !answer.access_token) throw new Error(`token endpoint answered ${res.status}: ${answer.error ?? ''} ${answer.error_description ?? ''}`);
      return answer.access_token;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
