// The authorization server on the API host: its routes (interactions, the well-knowns, /oauth), the grants the console manages, and what the token verifier needs.
import express, { type RequestHandler, type Router } from 'express';
import type { IncomingMessage } from 'node:http';
import type { Redis } from 'ioredis';
import type { Config } from '../../core/config/load.js';
import type { Logger } from '../../core/ground/logger.js';
import { requestHost } from '../http/host.js';
import { rateLimiter } from '../http/rate-limit.js';
import type { FetchDocument } from './client-documents.js';
import { createGrantStore, type GrantStore } from './grants.js';
import { CONSOLE_SIGN_IN, interactionRoutes, type InteractionHost } from './interactions.js';
import { PAGE_CSP } from './pages.js';
import { createProvider, OAUTH_MOUNT, oauthResources } from './provider.js';
import { readSigningKeys, type SigningKeys } from './signing-keys.js';

/** The two discovery documents, served at the root of the issuer (RFC 8414 and OpenID Connect Discovery). */
const WELL_KNOWN = new Set(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);

/** What the API's token verifier needs of this issuer: its name, its public keys, and the grant check. */
export interface LocalIssuer {
  issuer: string;
  keys: SigningKeys;
  grantActive(grantId: string): Promise<boolean>;
}

export interface AuthorizationServer extends LocalIssuer {
  /** Mount on the API app before any body parser. */
  router: Router;
  grants: GrantStore;
  resources: { rest: string; mcp: string };
}

export interface AuthorizationServerOptions {
  config: Pick<Config, 'publicBaseUrl' | 'indexPrefix' | 'oauth' | 'trustProxy' | 'rateLimit'>;
  redis: Redis;
  log: Logger;
  /** Who is signed in and where to sign in: the console. Default: nobody, and the console's sign-in page. */
  interactions?: InteractionHost | undefined;
  /** Tests: how client ID metadata documents are fetched (default: the safe fetcher). */
  fetchDocument?: FetchDocument | undefined;
}

/**
 * The authorization server, or undefined when no signing keys are configured (`OAUTH_SIGNING_KEYS_FILE`): then its
 * routes are absent and everything else works as without it. A keys file that cannot be used fails the start.
 */
export function createAuthorizationServer({ config, redis, log, interactions = CONSOLE_SIGN_IN, fetchDocument }: AuthorizationServerOptions): AuthorizationServer | undefined {
  if (!config.oauth.keysFile) return undefined;
  const keys = readSigningKeys(config.oauth.keysFile);
  const issuer = config.publicBaseUrl;
  const issuerUrl = new URL(issuer);
  const provider = createProvider({ config, keys, redis, log, fetchDocument });
  const grants = createGrantStore({ redis, indexPrefix: config.indexPrefix });
  const callback = provider.callback();

  /**
   * Hands a request to oidc-provider as the issuer's: its endpoint URLs are built from the request's host and scheme,
   * which are set to the issuer's, so no `Host` or `X-Forwarded-*` header a client sends can name other endpoints.
   */
  const toProvider = (req: IncomingMessage & { baseUrl?: string }, res: Parameters<typeof callback>[1], mountedAt: string) => {
    req.headers.host = issuerUrl.host;
    req.headers['x-forwarded-proto'] = issuerUrl.protocol.slice(0, -1);
    delete req.headers['x-forwarded-host'];
    // oidc-provider takes its mount path from what Express cut off the URL, else from `baseUrl`: the well-knowns at the root name the /oauth endpoints too.
    if (mountedAt === '') req.baseUrl = OAUTH_MOUNT;
    callback(req, res);
  };

  const router = express.Router();
  const onIssuerHost: RequestHandler = (req, _res, next) => (requestHost(req.headers) === issuerUrl.hostname ? next() : next('router'));
  router.use(onIssuerHost);
  router.use([OAUTH_MOUNT, ...WELL_KNOWN], (_req, res, next) => {
    res.set('Content-Security-Policy', PAGE_CSP);
    next();
  });
  router.all([...WELL_KNOWN], (req, res, next) => (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS' ? toProvider(req, res, '') : next()));
  // Browser clients register from their own origin (no credentials are involved: a registration is anonymous).
  router.use(`${OAUTH_MOUNT}/reg`, (req, res, next) => {
    res.set('Access-Control-Allow-Origin', '*');
    if (req.method !== 'OPTIONS') return next();
    res.set({ 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Allow-Headers': 'content-type, authorization', 'Access-Control-Max-Age': '600' });
    res.status(204).end();
  });
  router.post(
    `${OAUTH_MOUNT}/reg`,
    rateLimiter({
      redis,
      max: config.oauth.registration.rateLimitMax,
      windowSeconds: config.oauth.registration.rateLimitWindowSeconds,
      prefix: `rl:${config.indexPrefix}oauth-reg:`,
      log,
    }),
  );
  router.use(`${OAUTH_MOUNT}/interaction`, interactionRoutes({ provider, host: interactions, grants, csrfSecrets: keys.cookieKeys, log }));
  router.use(OAUTH_MOUNT, (req, res) => toProvider(req, res, OAUTH_MOUNT));

  return { issuer, keys, grantActive: (grantId) => grants.grantActive(grantId), router, grants, resources: oauthResources(issuer) };
}
