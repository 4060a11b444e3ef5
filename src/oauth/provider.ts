// The authorization server (decision 30): oidc-provider configured for two resources, PKCE S256 for every client, registration and client ID metadata documents, state in Redis.
import Provider, { errors, interactionPolicy } from 'oidc-provider';
import type { Redis } from 'ioredis';
import type { Config } from '../../core/config/load.js';
import type { Logger } from '../../core/ground/logger.js';
import { REQUIRED_SCOPE } from '../auth/jwt.js';
import { documentFetch, type FetchDocument } from './client-documents.js';
import { isNativeRedirectSet } from './native-clients.js';
import { errorPage } from './pages.js';
import { redisAdapter } from './redis-adapter.js';
import type { SigningKeys } from './signing-keys.js';

/** Where the authorization server's endpoints live on the API host. */
export const OAUTH_MOUNT = '/oauth';
/** The path of an interaction (sign-in and consent), served by this module's own routes. */
export const interactionPath = (uid: string) => `${OAUTH_MOUNT}/interaction/${uid}`;

/** The two resources tokens are issued for: the REST API and the creator tool server, each its own audience. */
export function oauthResources(publicBaseUrl: string): { rest: string; mcp: string } {
  return { rest: publicBaseUrl, mcp: `${publicBaseUrl}/mcp` };
}

/** Lifetimes of what the server stores, in seconds. */
const AUTHORIZATION_CODE_TTL = 60;
const INTERACTION_TTL = 10 * 60;
const SESSION_TTL = 60 * 60;

export interface ProviderOptions {
  config: Pick<Config, 'publicBaseUrl' | 'indexPrefix' | 'oauth' | 'trustProxy'>;
  keys: SigningKeys;
  redis: Redis;
  log: Logger;
  /** How client ID metadata documents are fetched; default the safe fetcher (tests serve one from memory). */
  fetchDocument?: FetchDocument;
}

/**
 * The login prompt always runs: who is signed in is the console's to say, not a session of the authorization server
 * that could outlive a sign-out there. The interaction routes answer it from the console without a page.
 */
function interactionsPolicy() {
  const { base, Check } = interactionPolicy;
  const policy = base();
  policy
    .get('login')
    .checks.add(new Check('console_session', 'the console names the signed-in user', (ctx) => (ctx.oidc.result?.login ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT)));
  return policy;
}

/** Builds the provider; it owns no connection. Its issuer is `PUBLIC_BASE_URL` exactly. */
export function createProvider({ config, keys, redis, log, fetchDocument }: ProviderOptions): Provider {
  const issuer = config.publicBaseUrl;
  const resources = oauthResources(issuer);
  const known = new Set([resources.rest, resources.mcp]);
  const { oauth: settings } = config;

  const provider = new Provider(issuer, {
    adapter: redisAdapter({ redis, indexPrefix: config.indexPrefix, clientIdleSeconds: settings.clientIdleDays * 86_400, clockToleranceSeconds: 15 }),
    jwks: keys.jwks,
    cookies: {
      keys: keys.cookieKeys,
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    scopes: ['openid', 'offline_access', REQUIRED_SCOPE],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: keys.signing.alg,
    },
    // Every client, confidential ones too, proves its code with S256; oidc-provider knows no `plain`.
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets the creator tool server, the one MCP clients sign in to.
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => (oneOf ? (oneOf.includes(resources.mcp) ? resources.mcp : oneOf[0]) : resources.mcp),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (!known.has(resource)) throw new errors.InvalidTarget!(`resource must be ${resources.rest} or ${resources.mcp}`);
          return {
            scope: REQUIRED_SCOPE,
            audience: resource,
            accessTokenTTL: settings.accessTokenTtlSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: keys.signing.alg, kid: keys.signing.kid } },
          };
        },
      },
      clientIdMetadataDocument: {
        enabled: settings.clientIdMetadataDocuments,
        ack: 'draft-02',
        allowFetch: (_ctx: unknown, clientId: string) => {
          const url = URL.parse(clientId);
          if (!url || url.protocol !== 'https:') return false;
          return settings.clientIdMetadataHosts.length === 0 || settings.clientIdMetadataHosts.includes(url.hostname.toLowerCase());
        },
      },
    },
    fetch: documentFetch(fetchDocument),
    // Registered clients may carry these RFC 7591 fields; declaring them also runs the validator below on every client.
    extraClientMetadata: {
      properties: ['software_id', 'software_version'],
      validator(_ctx: unknown, key: string, value: unknown, metadata: Record<string, unknown>) {
        if (value !== undefined && typeof value !== 'string') throw new errors.InvalidClientMetadata!(`${key} must be a string`);
        if (key === 'software_id' && Array.isArray(metadata.redirect_uris) && isNativeRedirectSet(metadata.redirect_uris)) metadata.application_type = 'native';
      },
    },
    clientBasedCORS: (_ctx: unknown, origin: string, client: { redirectUris: string[] }) =>
      origin !== 'null' && client.redirectUris.some((uri) => URL.parse(uri)?.origin === origin),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => interactionPath(interaction.uid), policy: interactionsPolicy() },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    // A refresh token goes to every client allowed the refresh_token grant, without asking for offline_access, and outlives the session.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(grant: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    // Rotated on every use; a rotated one presented again revokes the whole grant (oidc-provider's reuse detection).
    rotateRefreshToken: true,
    // The grant id rides in the access token, so the API refuses a token of a revoked grant on the next request.
    extraTokenClaims: async (_ctx: unknown, token: { kind?: string; grantId?: string }) =>
      token.kind === 'AccessToken' && token.grantId ? { grant_id: token.grantId } : undefined,
    ttl: {
      AccessToken: settings.accessTokenTtlSeconds,
      AuthorizationCode: AUTHORIZATION_CODE_TTL,
      IdToken: settings.accessTokenTtlSeconds,
      RefreshToken: settings.refreshTokenTtlSeconds,
      Grant: settings.grantTtlSeconds,
      Interaction: INTERACTION_TTL,
      Session: SESSION_TTL,
    },
    renderError: async (ctx: { type: string; body: string }, out: { error?: string; error_description?: string }) => {
      ctx.type = 'html';
      ctx.body = errorPage({ error: out.error ?? 'server_error', description: out.error_description });
    },
  });
  // Endpoint URLs are built from the request; the router in front sets its host and scheme to the issuer's.
  provider.proxy = true;
  provider.on('server_error', (_ctx, error) => log.error({ err: error }, 'authorization server error'));
  provider.on('grant.revoked', (_ctx, grantId) => log.info({ grantId }, 'oauth grant revoked'));
  return provider;
}
