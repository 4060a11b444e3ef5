// The Express app: middleware in order, every operation of the OpenAPI table routed once, one error renderer.
import express, { type Express, type Request, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { DEFAULT_HYDRATION_CACHE_MB, type Config } from './config.js';
import type { Embedder } from './embedder.js';
import type { Logger } from './logger.js';
import { indexAliases, type Client } from './store/opensearch.js';
import { createQueries } from './store/queries.js';
import { createTokenVerifier } from './auth/jwt.js';
import { presentedKeyCredential, requireCredential, resolveCredential } from './auth/authenticate.js';
import { protectedResourceMetadata } from './auth/challenge.js';
import { OPERATIONS, expressPath } from './openapi/operations.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { SCHEMAS } from './openapi/schemas.js';
import { unversionedAlias } from './http/api-alias.js';
import { requestId } from './http/request-id.js';
import { responseHeaders } from './http/response-headers.js';
import { requestLog } from './http/request-log.js';
import { allowReadOnly } from './http/methods.js';
import { rateLimiter } from './http/rate-limit.js';
import { keyLookupGuard } from './http/key-lookup-guard.js';
import { channelPrefetch } from './http/channel-prefetch.js';
import { OwnerHints } from './store/owner-hints.js';
import { createAjv, queryParamsParser, validateParams } from './http/validate-params.js';
import { admissionGate, clientAddress, createAdmission, type Admission } from './http/admission.js';
import { renderErrors, routeNotFound } from './http/errors.js';
import { listChannels } from './routes/channels.js';
import { listEpisodes } from './routes/episodes.js';
import { listChanges } from './routes/changes.js';
import { search, startEarlySearch } from './routes/search.js';
import { SearchGrants } from './store/search-grants.js';
import { getChapters, getRelated, getTranscript } from './routes/episode-resources.js';
import { serveDocument } from './routes/meta.js';
import { health, readiness } from './routes/health.js';
import type { SearchDeps } from './search/search.js';
import { createQueryVectorCache, type QueryVectorCache } from './search/query-cache.js';
import { createHydrationCache, type HydrationCache } from './search/hydration-cache.js';
import type { ApiMetrics } from './metrics/api-metrics.js';
import { mcpRouter } from './mcp/router.js';
import { pagesRouter } from './pages/router.js';
import './http/context.js';

/** REST search, the one operation behind the admission gate (after the /api alias is rewritten; a trailing slash routes there too). */
const SEARCH_PATH = /^\/api\/v1\/channels\/[^/]+\/search\/?$/;

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
}

/**
 * Builds the app; it owns no connection (the caller creates and closes them), so tests
 * run it in-process on port 0 against the real OpenSearch and Redis.
 */
export function createApp({ config, client, redis, embedder, log, metrics, caches = {} }: AppDeps): Express {
  const aliases = indexAliases(config.indexPrefix);
  const ajv = createAjv();
  const verifier = createTokenVerifier(config);
  if (!verifier.enabled) log.warn('no JWT key or issuer configured: OAuth access tokens are refused, API keys still work');
  if (config.jwt.hsSecret) {
    log.warn('JWT_HS_SECRET is set: HS256 tokens signed with a shared secret are accepted. For development only; never set it in production');
  }
  const anonymousRead = config.anonymousRead === 'published';
  const fresh = caches.query && caches.hydration ? undefined : createSearchCaches(config);
  const searchDeps: SearchDeps = {
    client,
    embedder,
    aliases,
    settings: config.search,
    channelSites: config.channelSites,
    languages: config.languages,
    queryCache: caches.query ?? fresh!.query,
    hydrationCache: caches.hydration ?? fresh!.hydration,
  };
  // Searches are admitted in two shares: callers with a credential, and anonymous ones (MCP tool
  // calls, anonymous REST). A flood of either leaves the store room for everything else, and an
  // anonymous flood never takes a place a member's search needs.
  const { concurrency, queue, maxWaitMs, anonymousConcurrency, anonymousQueue } = config.searchAdmission;
  const admission = createAdmission({ concurrency, queue, maxWaitMs });
  const anonymousAdmission = createAdmission({ concurrency: anonymousConcurrency, queue: anonymousQueue, maxWaitMs });
  metrics?.watchAdmission(combinedCounts(admission, anonymousAdmission));

  // Who was last let into which channel: their next search starts beside the checks (see startEarlySearch).
  const grants = new SearchGrants();
  const searchOperation = OPERATIONS.find((op) => op.operationId === 'searchChannel')!;
  const earlySearch = startEarlySearch({ deps: searchDeps, grants, parseParams: queryParamsParser(searchOperation, ajv), onOutcome: metrics?.earlySearch });

  const handlers: Record<string, RequestHandler> = {
    listChannels: listChannels(),
    listEpisodes: listEpisodes({ channelSites: config.channelSites }),
    listChanges: listChanges({ client, aliases, retentionDays: config.changes.retentionDays }),
    searchChannel: search(searchDeps, { onTrace: metrics?.observeSearch, grants, onEarlySearch: metrics?.earlySearch }),
    getTranscript: getTranscript({ validateTranscript: ajv.compile(SCHEMAS.TranscriptDocument!) }),
    getChapters: getChapters(),
    getRelated: getRelated({ channelSites: config.channelSites }),
    getOpenApiDocument: serveDocument(buildOpenApiDocument(config)),
    getProtectedResourceMetadata: serveDocument(protectedResourceMetadata(config)),
    getHealth: health(),
    getReadiness: readiness({ client, redis }),
  };

  const app = express();
  if (metrics) app.use(metrics.timeRequests());
  app.disable('x-powered-by');
  app.disable('etag');
  // One rule for every path: routes match case-sensitively, as the credential check, the
  // /api alias and the deprecation headers do; `/API/v1/...` is a 404, not a half-routed request.
  app.set('case sensitive routing', true);
  // req.ip, hence the rate-limit bucket of anonymous callers, is the client behind trusted proxies.
  app.set('trust proxy', config.trustProxy);
  app.use(unversionedAlias());
  app.use(requestId({ log }));
  app.use(responseHeaders({ deprecation: config.deprecation }));
  app.use(requestLog());
  const isSearch = (req: Request) => (req.method === 'GET' || req.method === 'HEAD') && SEARCH_PATH.test(req.path);
  // Before the gate: whether the client's IP is over its budget of failed key lookups (memory only, no store).
  const keyGuard = keyLookupGuard({ max: config.failedKeyLookupsPerIp, windowSeconds: config.rateLimit.windowSeconds, tokenMayBeValid: (token) => verifier.mayBeValid(token) });
  app.use(keyGuard.check);
  // Fair within each share: by the key presented (its hash) among members, by address among the rest. Only credentials
  // that can be valid wait among members (see keyGuard.memberShare). Tokens count by address too: a forged but
  // well-formed one is only known after its check, and a flood of them from one place is one caller.
  app.use(
    admissionGate((req) => {
      if (!isSearch(req)) return undefined;
      if (!keyGuard.memberShare(req)) return { admission: anonymousAdmission, caller: clientAddress(req) };
      return { admission, caller: presentedKeyCredential(req.headers) ?? `token-from-${clientAddress(req)}` };
    }),
  );
  const ownerHints = new OwnerHints();
  app.use((req, _res, next) => {
    req.queries = createQueries({ client, aliases, ownerHints }, { budgetMs: config.opensearchTimeoutMs });
    next();
  });
  // The credential is resolved before the limiter (its bucket is the key or the token
  // subject) but refused only after it, so failed attempts count against the caller's IP.
  const publicPaths = new Set(OPERATIONS.filter((op) => op.auth === 'none').map((op) => op.path));
  const prefetchChannel = channelPrefetch(OPERATIONS, {
    early: { operationId: searchOperation.operationId, channelId: (credential, slug) => grants.get(credential, slug)?.id, start: earlySearch },
  });
  app.use(
    resolveCredential({
      verifier,
      appliesTo: (path) => path.startsWith('/api/v1/') && !publicPaths.has(path),
      // Only a key that verified here lately starts channel reads beside its lookup: a made-up one costs its lookup alone.
      prefetch: (req, credential) => {
        if (keyGuard.vouched(req, credential)) prefetchChannel(req, credential);
      },
    }),
  );
  app.use(keyGuard.count);
  // The channel's public site on its host (pages, twins, llms.txt), with its own per-IP budget; any other request goes on.
  app.use(
    pagesRouter({
      search: searchDeps,
      channelSites: config.channelSites,
      publicBaseUrl: config.publicBaseUrl,
      admission: anonymousAdmission,
      mcpServer: config.mcp.enabled,
      limiter: rateLimiter({ redis, max: config.pages.rateLimitMax, windowSeconds: config.pages.rateLimitWindowSeconds, prefix: `rl:${config.indexPrefix}pages:`, log }),
    }),
  );
  app.use(
    rateLimiter({
      redis,
      max: config.rateLimit.max,
      windowSeconds: config.rateLimit.windowSeconds,
      prefix: `rl:${config.indexPrefix}`,
      // Liveness touches no dependency: a slow Redis must not make a probe fail and get a healthy process restarted.
      exempt: (req) => req.path === '/healthz',
      log,
    }),
  );
  // MCP (POST, anonymous, rate-limited per IP above and by its own smaller budget) before the routes.
  if (config.mcp.enabled) {
    const mcpLimiter = rateLimiter({ redis, max: config.mcp.rateLimitMax, windowSeconds: config.rateLimit.windowSeconds, prefix: `rl:${config.indexPrefix}mcp:`, log });
    app.use(
      mcpRouter({
        search: searchDeps,
        metrics,
        admission: anonymousAdmission,
        channelSites: config.channelSites,
        publicBaseUrl: config.publicBaseUrl,
        allowedOrigins: config.mcp.allowedOrigins,
        limiter: mcpLimiter,
      }),
    );
  }
  for (const op of OPERATIONS) {
    const handler = handlers[op.operationId];
    if (!handler) throw new Error(`no handler for operation ${op.operationId}`);
    const gate = op.auth === 'credential' ? [requireCredential({ allowAnonymous: anonymousRead && op.anonymous })] : [];
    app.get(expressPath(op.path), ...gate, validateParams(op, ajv), handler);
  }
  // Other methods on those paths only, matched as the routes are (exact case): `POST /MCP` or `/API/v1` is a 404 like its GET.
  app.all(
    OPERATIONS.map((op) => expressPath(op.path)),
    allowReadOnly(),
  );
  app.use(routeNotFound());
  if (metrics) app.use(metrics.countStoreErrors());
  app.use(renderErrors({ publicBaseUrl: config.publicBaseUrl, log }));
  return app;
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
    hydration: createHydrationCache((config.search.hydrationCacheMb ?? DEFAULT_HYDRATION_CACHE_MB) * 1024 * 1024),
  };
}
