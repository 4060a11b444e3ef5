// The API's Prometheus metrics: request durations by route template, search phases, cache, limiter, store errors.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Admission } from '../http/admission.js';
import type { HydrationCache } from '../../core/search/hydration-cache.js';
import type { QueryVectorCache } from '../../core/embedding/query-cache.js';
import type { SearchTimings } from '../../core/search/search.js';
import { storeErrorKind } from './store-errors.js';

/** Seconds; from a cached keyword search (a few ms) to a store budget running out (1.5 s default) and beyond. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface ApiMetrics {
  readonly registry: Registry;
  /** First middleware: times every request and labels it by route template once it is answered. */
  timeRequests(): RequestHandler;
  /** Error middleware just before the renderer: counts store failures by kind, passes the error on. */
  countStoreErrors(): ErrorRequestHandler;
  /** Records a search's phases (embed only when the query was embedded). */
  observeSearch(timings: SearchTimings): void;
  /** A store failure a search met (the search service counts it; the error middleware then does not count it again). */
  storeError(error: unknown): void;
  /** What became of a search sent beside its request's checks (see `src/serve/search-service.ts`). */
  earlySearch(outcome: EarlySearchOutcome): void;
  /** One MCP tool call and whether it answered or gave an error result. */
  toolCall(tool: string, outcome: 'ok' | 'error'): void;
  /** Reports this search admission gate's running and waiting searches and its refusals, read at scrape time. */
  watchAdmission(admission: AdmissionCounts): void;
}

/** `used`: its answer was sent; `searched_again`: the channel read at call time differed (or it failed), so the search ran again; `refused`: the request was refused and the search thrown away. */
export type EarlySearchOutcome = 'used' | 'searched_again' | 'refused';

/** What the metrics read of the search admission gate. */
export type AdmissionCounts = Pick<Admission, 'running' | 'waiting' | 'refused'>;

/**
 * Route label of a request: the Express route template (`/api/v1/channels/:slug/search`),
 * never the raw path, so the label set stays bounded whatever clients send.
 */
export function routeLabel(req: { baseUrl?: string; route?: { path?: unknown } }): string {
  const path = req.route?.path;
  return typeof path === 'string' ? `${req.baseUrl ?? ''}${path}` : 'unmatched';
}

/** `2xx`, `4xx`, … */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/**
 * Creates the API's registry with Node's process metrics (unprefixed, as dashboards expect
 * them) and ours (prefixed `cca_`). `queryCache`, `hydrationCache` and `embedQueue` (the
 * query-embedding worker pool) are read at scrape time.
 */
export function createApiMetrics({
  queryCache,
  hydrationCache,
  embedQueue,
}: {
  queryCache?: QueryVectorCache | undefined;
  hydrationCache?: HydrationCache | undefined;
  embedQueue?: { readonly queued: number; readonly running: number } | undefined;
} = {}): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Histogram({
    name: 'cca_http_request_duration_seconds',
    help: 'API request duration by method, route template and status class.',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const phases = new Histogram({
    name: 'cca_search_phase_duration_seconds',
    help: 'Search time by phase: embed (query vector, cache included), engine (the legs’ _msearch), hydrate (texts and catalog rows).',
    labelNames: ['phase'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  // Counts kept elsewhere (the query cache, the admission gate): a scrape adds what they counted since the last one.
  const mirror = (name: string, help: string, read: () => number | undefined): void => {
    let seen = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const now = read();
        if (now === undefined) return;
        this.inc(Math.max(0, now - seen));
        seen = now;
      },
    });
  };
  // A gauge per state of something counted elsewhere, read at scrape time.
  const states = (name: string, help: string, read: () => Record<string, number> | undefined): void => {
    new Gauge({
      name,
      help,
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        for (const [state, value] of Object.entries(read() ?? {})) this.set({ state }, value);
      },
    });
  };
  let admission: AdmissionCounts | undefined;
  mirror('cca_query_vector_cache_hits_total', 'Query vectors served from the LRU cache (or from an embedding of the same query in flight).', () => queryCache?.hits);
  mirror('cca_query_vector_cache_misses_total', 'Query vectors the model had to compute.', () => queryCache?.misses);
  mirror('cca_hydration_cache_hits_total', 'Passages and catalog rows a search showed from the hydration cache (current record version).', () => hydrationCache?.hits);
  mirror('cca_hydration_cache_misses_total', 'Passages and catalog rows looked up in the hydration cache and read from the store.', () => hydrationCache?.misses);
  new Gauge({
    name: 'cca_hydration_cache_bytes',
    help: 'Estimated bytes held by the hydration cache.',
    registers: [registry],
    collect() {
      if (hydrationCache) this.set(hydrationCache.bytes);
    },
  });
  states('cca_embed_queue_jobs', 'Query embeddings in the worker pool: queued (waiting for a worker) and running.', () =>
    embedQueue ? { queued: embedQueue.queued, running: embedQueue.running } : undefined,
  );
  states('cca_search_admission', 'Searches in the admission gate: running (holding a place) and waiting (queued for one).', () =>
    admission ? { running: admission.running, waiting: admission.waiting } : undefined,
  );
  mirror('cca_search_busy_total', 'Searches refused with 503 search_busy by the admission gate.', () => admission?.refused);
  const rejections = new Counter({
    name: 'cca_rate_limit_rejections_total',
    help: 'Requests refused with 429 by the rate limiter.',
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'cca_store_errors_total',
    help: 'OpenSearch failures seen by requests, by kind: timeout, unreachable, missing_index, overloaded, unavailable, rejected.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const earlySearches = new Counter({
    name: 'cca_early_searches_total',
    help: "Searches sent beside their request's credential and channel checks, by outcome: used, searched_again (the channel changed), refused (thrown away).",
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: 'cca_mcp_tool_calls_total',
    help: 'MCP tool calls by tool and outcome (ok, or error: an error result).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
  });

  /** Errors counted already: a search's failure reaches the error middleware after the search service counted it. */
  const counted = new WeakSet<object>();
  const storeError = (error: unknown) => {
    if (typeof error === 'object' && error !== null) {
      if (counted.has(error)) return;
      counted.add(error);
    }
    const kind = storeErrorKind(error);
    if (kind) storeErrors.inc({ kind });
  };

  return {
    registry,
    timeRequests() {
      return (req, res, next) => {
        const end = requests.startTimer();
        res.once('finish', () => {
          // The only 429 the API gives is the limiter's.
          if (res.statusCode === 429) rejections.inc();
          end({ method: req.method, route: routeLabel(req), status_class: statusClass(res.statusCode) });
        });
        next();
      };
    },
    countStoreErrors() {
      return (err, _req, _res, next) => {
        storeError(err);
        next(err);
      };
    },
    observeSearch(timings) {
      if (timings.embedded) phases.observe({ phase: 'embed' }, timings.embedMs / 1000);
      if (timings.searched) {
        phases.observe({ phase: 'engine' }, timings.msearchMs / 1000);
        phases.observe({ phase: 'hydrate' }, timings.hydrateMs / 1000);
      }
    },
    storeError,
    earlySearch(outcome) {
      earlySearches.inc({ outcome });
    },
    toolCall(tool, outcome) {
      toolCalls.inc({ tool, outcome });
    },
    watchAdmission(gate) {
      admission = gate;
    },
  };
}
