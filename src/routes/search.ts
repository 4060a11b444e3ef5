// GET /api/v1/channels/{slug}/search: parameters and access here; ranking is `searchChannel` (src/search).
import type { Request, RequestHandler } from 'express';
import { accessChannel } from '../auth/access.js';
import { runSearch, type EarlySearch, type SearchDeps, type SearchTrace } from '../search/search.js';
import type { SearchParams } from '../search/types.js';
import type { ChannelDoc } from '../store/documents.js';
import type { SearchGrants } from '../store/search-grants.js';
import type { EarlySearchOutcome } from '../metrics/api-metrics.js';
import { abandoned } from '../http/admission.js';
import { filtersFromQuery } from './filters.js';

/** Decision 2: `query` when it is non-blank, else `q`, else `""` (an empty result, not an error). */
export function chooseQuery(query: unknown, q: unknown): string {
  for (const value of [query, q]) if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return '';
}

/** The search a request's validated parameters ask for; undefined when the query is blank (an empty answer). */
function searchParams(q: Record<string, unknown>, publishedOnly: boolean): SearchParams | undefined {
  const query = chooseQuery(q.query, q.q);
  if (query === '') return undefined;
  return { query, fast: q.fast as boolean, limit: q.limit as number, publishedOnly, ...filtersFromQuery(q) };
}

type SearchOutcome = Awaited<ReturnType<typeof runSearch>>;

/**
 * The search's round trips draw on the same store budget as the request's lookups and stop
 * when the client disconnects; its query vector is cached for its audience only (an early
 * search runs for a credential, hence for members).
 */
function run(deps: SearchDeps, req: Request, channel: ChannelDoc, params: SearchParams, stop?: AbortSignal): Promise<SearchOutcome> {
  const audience = req.principal?.kind === 'anonymous' ? 'anonymous' : 'members';
  const gone = req.res && abandoned(req.res);
  const signal = gone && stop ? AbortSignal.any([gone, stop]) : (gone ?? stop);
  return runSearch({ ...deps, storeTimeoutMs: () => req.queries.timeLeftMs(), signal, audience }, channel, params);
}

/**
 * For `resolveCredential`'s `prefetch`, on the search path: when this credential was last
 * let into this channel here (`grants`) and the parameters are valid, sends the search over
 * the channel as read then, beside the credential and channel reads instead of after them
 * (they take one round trip, about 2 ms, a third of a cached search). Nothing is decided
 * by it: the route still checks the key, membership and plan at call time and uses the
 * early answer only if the channel it reads is the one searched and the parameters are the
 * same; otherwise it searches again, and a refused request takes the grant back (all the
 * credential's grants on a 401), so a revoked key or a removed member costs at most one
 * search that is thrown away. A credential never let in (a stranger, a non-member, an
 * unknown slug) never gets one, so those requests do the same work as before, and the
 * refusals stay alike. An early search of a request the limiter refuses is also thrown
 * away, and that refusal takes the grant back too. Whatever the answer, the early search
 * stops when it is sent: a refused request's search costs the store no more from then on.
 */
export function startEarlySearch({
  deps,
  grants,
  parseParams,
  onOutcome,
}: {
  deps: SearchDeps;
  grants: SearchGrants;
  /** The search operation's query parameters, typed as `validateParams` types them; throws when invalid. */
  parseParams: (raw: Record<string, unknown>) => Record<string, unknown>;
  /** Told when a request refused before its answer threw its early search away (the route tells the rest). */
  onOutcome?: ((outcome: EarlySearchOutcome) => void) | undefined;
}): (req: Request, credential: string, slug: string) => void {
  return (req, credential, slug) => {
    const channel = grants.get(credential, slug);
    if (!channel || !req.res) return;
    let params: SearchParams | undefined;
    try {
      params = searchParams(parseParams(req.query as Record<string, unknown>), false);
    } catch {
      return; // the route answers the 400
    }
    if (!params) return;
    // Once the answer is sent nobody needs it: a refused request's search stops with it, not after its gate place was given back.
    const stop = new AbortController();
    const outcome = run(deps, req, channel, params, stop.signal);
    // The route may never await it (a refusal, or a channel that changed).
    outcome.catch(() => undefined);
    const early: EarlySearch = { channel, params, outcome };
    req.earlySearch = early;
    const res = req.res;
    res.once('close', () => stop.abort());
    res.once('finish', () => {
      stop.abort();
      if (res.statusCode < 400) return;
      grants.revoke(credential, res.statusCode === 401 ? undefined : slug);
      if (!early.settled) onOutcome?.('refused');
    });
  };
}

const sameDoc = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * `onTrace` sees every search's trace (the metrics read its phase timings); `grants`
 * remembers who was let in (see {@link startEarlySearch}); `onEarlySearch` is told whether
 * a request's early search was used or the search ran again.
 */
export function search(
  deps: SearchDeps,
  {
    onTrace,
    grants,
    onEarlySearch,
  }: {
    onTrace?: ((trace: SearchTrace) => void) | undefined;
    grants?: SearchGrants | undefined;
    onEarlySearch?: ((outcome: EarlySearchOutcome) => void) | undefined;
  } = {},
): RequestHandler {
  return async (req, res) => {
    const slug = String(req.params.slug);
    // Access first, so 401/403/404 hold for an empty query too.
    const { channel, publishedOnly } = await accessChannel(req.queries, req.principal!, slug);
    if (req.credential) grants?.grant(req.credential, slug, channel);
    const params = searchParams(req.validQuery, publishedOnly);
    if (!params) {
      res.json({ query: '', episodes: [] });
      return;
    }
    const { result, trace } = await answer(req, channel, params);
    onTrace?.(trace);
    res.json(result);
  };

  /** The early search's outcome when it searched this channel with these parameters and succeeded; else a search now. */
  async function answer(req: Request, channel: ChannelDoc, params: SearchParams): Promise<SearchOutcome> {
    const early = req.earlySearch;
    if (!early) return run(deps, req, channel, params);
    early.settled = true;
    if (sameDoc(early.channel, channel) && sameDoc(early.params, params)) {
      const outcome = await early.outcome.catch(() => undefined);
      if (outcome) {
        onEarlySearch?.('used');
        return outcome;
      }
    }
    onEarlySearch?.('searched_again');
    return run(deps, req, channel, params);
  }
}
