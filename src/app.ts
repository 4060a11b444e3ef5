// The Express app: a request's steps in order, every operation of the OpenAPI table routed once, one error renderer.
import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import type { Config } from '../core/config/load.js';
import type { Embedder } from '../core/embedding/embedder.js';
import type { Logger } from '../core/ground/logger.js';
import { indexAliases, type Client } from '../core/store/opensearch.js';
import { createQueries } from './store/queries.js';
import { OwnerHints } from './store/owner-hints.js';
import { createTokenVerifier, type TokenVerifier } from './auth/jwt.js';
import { authenticate, presentCredential, requireCredential } from './auth/authenticate.js';
import { keyLookupGuard } from './auth/key-lookup-guard.js';
import { protectedResourceMetadata } from './auth/challenge.js';
import { OPERATIONS, expressPath } from './openapi/operations.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { unversionedAlias } from './http/api-alias.js';
import { requestId } from './http/request-id.js';
import { responseHeaders } from './http/response-headers.js';
import { requestLog } from './http/request-log.js';
import { allowReadOnly } from './http/methods.js';
import { rateLimiter } from './http/rate-limit.js';
import { createAjv } from './http/validate-params.js';
import { everyOperationOnce, routeHandler, type Route } from './http/route.js';
import { createAdmission, type Admission } from './http/admission.js';
import { renderErrors, routeNotFound } from './http/errors.js';
import { createSearchService, type SearchService } from './serve/search-service.js';
import { listChannels } from './routes/channels.js';
import { listEpisodes } from './routes/episodes.js';
import { listChanges } from './routes/changes.js';
import { search } from './routes/search.js';
import { getChapters, getRelated, getTranscript } from './routes/episode-resources.js';
import { serveOpenApiDocument, serveResourceMetadata } from './routes/meta.js';
import { health, readiness } from './routes/health.js';
import type { SearchDeps } from '../core/search/search.js';
import { createQueryVectorCache, type QueryVectorCache } from '../core/embedding/query-cache.js';
import { createHydrationCache, type HydrationCache } from '../core/search/hydration-cache.js';
import type { ApiMetrics } from './metrics/api-metrics.js';
import { mcpRouter } from './mcp/router.js';
import { creatorMcpRouter } from './mcp/creator/router.js';
import { pagesRouter } from './pages/router.js';
import { consoleRouter, consoleSessionFor } from './console/router.js';
import { signedInUser } from './console/session.js';
import { CONSOLE_SIGN_IN } from './oauth/interactions.js';
import { OAUTH_MOUNT } from './oauth/provider.js';
import { keyUseRecorder } from './auth/key-usage.js';
import { createAuthorizationServer, type AuthorizationServer, type AuthorizationServerOptions } from './oauth/server.js';
import './http/context.js';

export interface AppDeps {
  config: Readonly<Config>;
  client: Client;
  /** Shared with every other API process through the rate-limit counters. */
  redis: Redis;
  /** Undefined: search runs keyword-only. */
  embedder?: Embedder | undefined;
  log: Logger;
  /** Prometheus metrics of this process; undefined: nothing is measured. */
  metrics?: ApiMetrics | undefined;
  /**
   * The search caches, made by the composition root (src/server.ts) so that its metrics read
   * the same ones; when absent the app makes fresh ones (each test app its own).
   */
  caches?: { query?: QueryVectorCache | undefined; hydration?: HydrationCache | undefined };
  /** The authorization server's sign-in (the console) and, in tests, its document fetch; it runs only with signing keys configured. */
  oauth?: Pick<AuthorizationServerOptions, 'interactions' | 'fetchDocument'> | undefined;
}

/**
 * Builds the app; it owns no connection (the caller creates and closes them), so tests
 * run it in-process on port 0 against the real OpenSearch and Redis.
 */
export function createApp({ config, client, redis, embedder, log, metrics, caches = {}, oauth: oauthDeps = {} }: AppDeps): Express {
  const aliases = indexAliases(config.indexPrefix);
  const ajv = createAjv();
  // Sign-in and consent are the console's: the authorization server asks its session who is signed in.
  const oauth = createAuthorizationServer({ config, redis, log, interactions: { ...CONSOLE_SIGN_IN, signedInUser }, ...oauthDeps });
  const verifier = tokenVerifier(config, log, oauth);
  const guard = keyLookupGuard({ max: config.failedKeyLookupsPerIp, windowSeconds: config.rateLimit.windowSeconds, tokenMayBeValid: (token) => verifier.mayBeValid(token) });
  const searchService = createSearchService({
    search: searchDeps({ config, client, embedder, caches }),
    admission: searchGates(config, metrics),
    guard,
    metrics,
  });
  const publicPaths = new Set(OPERATIONS.filter((op) => op.auth === 'none').map((op) => op.path));
  // Matched on the raw path, so an undecodable URL still reaches the limiter.
  const takesCredential = (path: string) => path.startsWith('/api/v1/') && !publicPaths.has(path);
  const ownerHints = new OwnerHints();
  const limit = (name: string, max: number, windowSeconds = config.rateLimit.windowSeconds) =>
    rateLimiter({ redis, max, windowSeconds, prefix: `rl:${config.indexPrefix}${name}`, log });

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // One rule for every path: routes match case-sensitively, as the credential check, the
  // /api alias and the deprecation headers do; `/API/v1/...` is a 404, not a half-routed request.
  app.set('case sensitive routing', true);
  // req.ip, hence the rate-limit bucket of anonymous callers, is the client behind trusted proxies.
  app.set('trust proxy', config.trustProxy);

  // 1. The request is timed, `/api/…` becomes `/api/v1/…`, it gets its id and log, the common headers and an access log line.
  app.use([...(metrics ? [metrics.timeRequests()] : []), unversionedAlias(), requestId({ log }), responseHeaders({ deprecation: config.deprecation }), requestLog()]);
  // The creator console (/console on the API host): its own session, forms and pages; the JSON API never reads its cookie.
  // One session middleware (its cookie secret read once) for the console and the authorization server's sign-in steps.
  const consoleSessions = consoleSessionFor({ config, client, redis });
  app.use(consoleRouter({ config, client, redis, log, sessions: consoleSessions }));
  // 1b. The authorization server on the API host (before any body parser: oidc-provider reads its own bodies), when signing keys are configured.
  // Its sign-in and consent steps read the console's session (the cookie only; no body is parsed here).
  if (oauth) app.use(`${OAUTH_MOUNT}/interaction`, consoleSessions);
  if (oauth) app.use(oauth.router);
  // 2. The credential is read once (req.presented); on a path that takes one, the IP's budget of failed key lookups too. No store yet.
  app.use(presentCredential({ guard, appliesTo: takesCredential }));
  // 3. A REST search waits for its place in its share of the search gate; then the request's store reads start, with one time budget.
  app.use(searchService.admit, (req, _res, next) => {
    req.queries = createQueries({ client, aliases, ownerHints }, { budgetMs: config.opensearchTimeoutMs });
    next();
  });
  // 4. The key is looked up or the token verified; a refusal is decided here and thrown in step 8, after the limiter.
  const keyUsed = keyUseRecorder({ redis, client, index: aliases['api-keys'], prefix: config.indexPrefix, log });
  app.use(authenticate({ verifier, guard, appliesTo: takesCredential, keyUsed: (hash) => void keyUsed(hash) }));
  // 5. A channel's public site on its host (pages, twins, llms.txt), with its own per-IP budget; any other request goes on.
  app.use(
    pagesRouter({
      search: searchService,
      channelSites: config.channelSites,
      publicBaseUrl: config.publicBaseUrl,
      mcpServer: config.mcp.enabled,
      limiter: limit('pages:', config.pages.rateLimitMax, config.pages.rateLimitWindowSeconds),
    }),
  );
  // 6. The rate limiter: per key, token subject or client IP (a refused credential counts against the IP). Liveness is
  // exempt: a slow Redis must not make a probe fail and get a healthy process restarted.
  const limiter = rateLimiter({
    redis,
    max: config.rateLimit.max,
    windowSeconds: config.rateLimit.windowSeconds,
    prefix: `rl:${config.indexPrefix}`,
    exempt: (req) => req.path === '/healthz',
    log,
  });
  // 6a. The creator tool server (BASE/mcp on the API host, decision 31): its own credential check (API keys, tokens for
  // BASE/mcp), then the same limiter and buckets, before the anonymous per-IP limit below counts it.
  if (config.mcp.enabled) app.use(creatorMcpRouter({ config, search: searchService, guard, limiter, verifier, keyUsed: (hash) => void keyUsed(hash), metrics }));
  app.use(limiter);
  // 7. MCP tool servers: POST, anonymous, with their own smaller per-IP budget.
  if (config.mcp.enabled) {
    const { channelSites, publicBaseUrl } = config;
    app.use(mcpRouter({ search: searchService, metrics, channelSites, publicBaseUrl, allowedOrigins: config.mcp.allowedOrigins, limiter: limit('mcp:', config.mcp.rateLimitMax) }));
  }
  // 8. Each operation: the credential's refusal or absence (401), then its route: its query validated (400) and its
  // handler, typed by the operation's schemas (a search: access and the search in the search service, `answerRest`).
  for (const route of everyOperationOnce(routes({ config, client, redis, aliases, ajv, searchService, localIssuer: oauth?.issuer }))) {
    const op = route.operation;
    const gate = op.auth === 'credential' ? [requireCredential({ allowAnonymous: config.anonymousRead === 'published' && op.anonymous })] : [];
    app.get(expressPath(op.path), ...gate, routeHandler(route, ajv));
  }

  // After the routes: other methods on those paths (matched as the routes are, exact case) are a 405, anything else a 404;
  // errors are counted and rendered as the JSON error body.
  app.all(
    OPERATIONS.map((op) => expressPath(op.path)),
    allowReadOnly(),
  );
  app.use(routeNotFound());
  if (metrics) app.use(metrics.countStoreErrors());
  app.use(renderErrors({ publicBaseUrl: config.publicBaseUrl, log }));
  return app;
}

/** Every operation of the OpenAPI table with its handler, each route carrying its operation. */
function routes({
  config,
  client,
  redis,
  aliases,
  ajv,
  searchService,
  localIssuer,
}: Pick<AppDeps, 'config' | 'client' | 'redis'> & {
  aliases: ReturnType<typeof indexAliases>;
  ajv: ReturnType<typeof createAjv>;
  searchService: SearchService;
  localIssuer: string | undefined;
}): Route[] {
  return [
    listChannels(),
    search(searchService),
    listEpisodes({ channelSites: config.channelSites }),
    listChanges({ client, aliases, retentionDays: config.changes.retentionDays }),
    getTranscript({ ajv }),
    getChapters(),
    getRelated({ channelSites: config.channelSites }),
    serveOpenApiDocument(buildOpenApiDocument(config)),
    serveResourceMetadata(protectedResourceMetadata(config, { localIssuer })),
    health(),
    readiness({ client, redis }),
  ];
}

/** The OAuth token verifier (this service's own issuer too, when it runs), with a warning when tokens cannot be accepted or a development-only secret is set. */
function tokenVerifier(config: Readonly<Config>, log: Logger, local: AuthorizationServer | undefined): TokenVerifier {
  const verifier = createTokenVerifier(config, { local });
  if (!verifier.enabled) log.warn('no JWT key or issuer configured: OAuth access tokens are refused, API keys still work');
  if (config.jwt.hsSecret) {
    log.warn('JWT_HS_SECRET is set: HS256 tokens signed with a shared secret are accepted. For development only; never set it in production');
  }
  return verifier;
}

/** What every search of this app needs: the store, the embedder, the configuration and the caches. */
function searchDeps({ config, client, embedder, caches }: Pick<AppDeps, 'config' | 'client' | 'embedder'> & { caches: NonNullable<AppDeps['caches']> }): SearchDeps {
  const fresh = caches.query && caches.hydration ? undefined : createSearchCaches(config);
  return {
    client,
    embedder,
    aliases: indexAliases(config.indexPrefix),
    settings: config.search,
    channelSites: config.channelSites,
    languages: config.languages,
    queryCache: caches.query ?? fresh!.query,
    hydrationCache: caches.hydration ?? fresh!.hydration,
  };
}

/**
 * Searches are admitted in two shares: callers with a credential that can be valid, and everyone else (MCP tool
 * calls, pages, anonymous REST). A flood of either leaves the store room for everything else, and an anonymous flood
 * never takes a place a member's search needs.
 */
function searchGates(config: Readonly<Config>, metrics: ApiMetrics | undefined): { members: Admission; anonymous: Admission } {
  const { concurrency, queue, maxWaitMs, anonymousConcurrency, anonymousQueue } = config.searchAdmission;
  const members = createAdmission({ concurrency, queue, maxWaitMs });
  const anonymous = createAdmission({ concurrency: anonymousConcurrency, queue: anonymousQueue, maxWaitMs });
  metrics?.watchAdmission(combinedCounts(members, anonymous));
  return { members, anonymous };
}

/** What the metrics read of both admission shares together. */
function combinedCounts(...gates: Admission[]): Pick<Admission, 'running' | 'waiting' | 'refused'> {
  const sum = (read: (gate: Admission) => number) => gates.reduce((n, gate) => n + read(gate), 0);
  return {
    get running() {
      return sum((g) => g.running);
    },
    get waiting() {
      return sum((g) => g.waiting);
    },
    get refused() {
      return sum((g) => g.refused);
    },
  };
}

/** A process's search caches, sized by the configuration: query vectors (per channel and audience) and shown passages. */
export function createSearchCaches(config: Pick<Config, 'search'>): { query: QueryVectorCache; hydration: HydrationCache } {
  return {
    query: createQueryVectorCache(config.search.queryCacheSize, { maxScopes: config.search.queryCacheChannels }),
    hydration: createHydrationCache(config.search.hydrationCacheMb * 1024 * 1024),
  };
}
