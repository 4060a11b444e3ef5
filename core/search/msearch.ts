// The one I/O step of search: an `_msearch`, every item checked, plus the pure helpers around it.
import { errors } from '@opensearch-project/opensearch';
import type { Client } from '../store/opensearch.js';
import { SearchError } from './errors.js';
import type { QueryClause } from '../store/filters.js';
import type { PassageKind } from '../store/documents.js';
import type { EpisodeMeta, LegHit, PassageHit } from './types.js';

/** One search of an `_msearch`: the index (alias) and the request body. */
export interface SearchRequest {
  index: string;
  body: QueryClause;
}

/** A raw hit of a search response. */
export interface RawHit {
  _id: string;
  _score: number | null;
  _source?: Record<string, unknown>;
  /** Doc values asked for with `docvalue_fields`, each an array. */
  fields?: Record<string, unknown[]>;
  /** Highlighted fragments by field, when the search asked for them. */
  highlight?: Record<string, string[]>;
}

/**
 * What search reads of an `_msearch` answer (OpenSearch's `filter_path`): each item's status
 * and error, and its hits' id, score, doc values, source and highlights. Not the index name
 * of every hit, nor totals, shards and timings: a smaller answer to parse (docs/performance.md,
 * "Choices in the search code"). `status` is always present, so an item with no hits still
 * answers as `{ status }`.
 */
export const MSEARCH_FILTER_PATH = [
  'responses.status',
  'responses.error',
  ...['_id', '_score', 'fields', '_source', 'highlight'].map((field) => `responses.hits.hits.${field}`),
].join(',');

/** Header and body lines of an `_msearch`, in request order. */
export function buildMsearchBody(searches: readonly SearchRequest[]): QueryClause[] {
  return searches.flatMap(({ index, body }) => [{ index }, body]);
}

/**
 * Checks every response item of an `_msearch` (the request answers 200 even when an
 * item failed) and returns the hits of each, in request order. A failed item is a
 * query we built that the engine rejected: a {@link SearchError}.
 */
export function readMsearchResponse(body: unknown, expected: number): RawHit[][] {
  const responses = (body as { responses?: unknown[] } | undefined)?.responses;
  if (!Array.isArray(responses) || responses.length !== expected) {
    throw new SearchError(`_msearch answered ${Array.isArray(responses) ? responses.length : 'no'} items for ${expected} searches`);
  }
  return responses.map((item, i) => {
    const r = item as { error?: unknown; status?: number; hits?: { hits?: RawHit[] } };
    if (r.error !== undefined || (r.status !== undefined && r.status >= 300)) {
      throw new SearchError(`search ${i + 1} of ${expected} failed: ${describe(r.error)}`, r.error, { itemStatus: r.status });
    }
    return r.hits?.hits ?? [];
  });
}

function describe(error: unknown): string {
  if (typeof error === 'string') return error;
  const e = error as { type?: string; reason?: string; root_cause?: Array<{ reason?: string }> } | undefined;
  return [e?.type, e?.root_cause?.[0]?.reason ?? e?.reason].filter(Boolean).join(': ') || 'unknown error';
}

/**
 * Sends the searches as one `_msearch` and returns the hits of each, in order. This is
 * the only function of the pipeline that awaits OpenSearch; `requestTimeout` (ms) is what
 * is left of the request's store budget (default: the client's timeout). A 400 on the whole request
 * becomes a {@link SearchError}; connection errors, timeouts and 5xx propagate unchanged.
 * An aborted `signal` cancels the request in flight (the client's `RequestAbortedError`).
 */
export async function runMsearch(client: Client, searches: readonly SearchRequest[], requestTimeout?: number, signal?: AbortSignal): Promise<RawHit[][]> {
  if (searches.length === 0) return [];
  // The caller went away before this round trip: none is started (the same error as one cancelled in flight).
  if (signal?.aborted) throw new errors.RequestAbortedError('the search was abandoned: its caller went away', null as never);
  let res;
  const request = client.msearch({ body: buildMsearchBody(searches) as never, filter_path: MSEARCH_FILTER_PATH }, requestTimeout === undefined ? {} : { requestTimeout });
  // The client's promise carries `abort()`: a caller that went away takes its request off the engine's connection.
  // `void`: abort() returns the thenable, and an EventTarget listener's returned thenable gets a handler that rethrows its rejection.
  const abort = () => void request.abort();
  signal?.addEventListener('abort', abort, { once: true });
  try {
    res = await request;
  } catch (err) {
    if (err instanceof errors.ResponseError && err.statusCode === 400) {
      throw new SearchError('_msearch rejected the request', err.body);
    }
    throw err;
  } finally {
    signal?.removeEventListener('abort', abort);
  }
  return readMsearchResponse(res.body, searches.length);
}

/**
 * Passage hits of a leg, ranked from 1; `passage` only when the leg fetched `_source`. Built
 * property by property rather than with conditional spreads (`...(kind ? { kind } : {})`):
 * three per hit, a hundred hits per leg (docs/performance.md, "Choices in the search code").
 */
export function toPassageHits(hits: readonly RawHit[]): LegHit[] {
  return hits.map((h, i) => {
    const hit: Extract<LegHit, { type: 'passage' }> = {
      type: 'passage',
      id: h._id,
      episodeId: String(h.fields?.episodeId?.[0] ?? h._source?.episodeId),
      startMs: Number(h.fields?.startMs?.[0] ?? h._source?.startMs),
      rank: i + 1,
      score: h._score ?? 0,
    };
    // What a passage hit carries besides id, episode and start: its kind, end and record version (doc values, or `_source` when the leg read it).
    const kind = h.fields?.kind?.[0] ?? h._source?.kind;
    if (typeof kind === 'string') hit.kind = kind as PassageKind;
    const endMs = h.fields?.endMs?.[0] ?? h._source?.endMs;
    if (endMs !== undefined) hit.endMs = Number(endMs);
    const hash = h.fields?.sourceHash?.[0];
    if (typeof hash === 'string') hit.sourceHash = hash;
    if (h._source) hit.passage = Object.assign({}, h._source as unknown as PassageHit, { id: h._id });
    return hit;
  });
}

/** Episode hits of the title leg, ranked from 1. */
export function toEpisodeHits(hits: readonly RawHit[]): LegHit[] {
  return hits.map((h, i) => {
    const episode = h._source as unknown as EpisodeMeta;
    return { type: 'episode', id: h._id, episodeId: h._id, rank: i + 1, score: h._score ?? 0, episode };
  });
}
