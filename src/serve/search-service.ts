// Every search the API runs goes through here, whoever asks (REST, pages, MCP): its place in the admission gate, the request's store budget, a stop when the client hangs up, the audience its query vector is cached for, and its metrics.
import { isDeepStrictEqual } from 'node:util';
import type { Request, RequestHandler } from 'express';
import type { ChannelAccess } from '../auth/access.js';
import type { KeyLookupGuard } from '../auth/key-lookup-guard.js';
import { abandoned, clientAddress, type Admission } from '../http/admission.js';
import type { EarlyOperation } from '../http/channel-prefetch.js';
import type { ApiMetrics } from '../metrics/api-metrics.js';
import type { SearchQueryValues } from '../openapi/parameters.js';
import { runSearch, type SearchAnswer, type SearchDeps, type SearchOutcome } from '../search/search.js';
import type { SearchParams } from '../search/types.js';
import type { ChannelDoc } from '../store/documents.js';
import { SearchGrants } from '../store/search-grants.js';

/** REST search, the one operation behind the admission gate (after the /api alias is rewritten; a trailing slash routes there too). */
const SEARCH_PATH = /^\/api\/v1\/channels\/[^/]+\/search\/?$/;

type Audience = 'members' | 'anonymous';

export interface SearchServiceDeps {
  search: SearchDeps;
  /** The two shares of the gate: callers whose credential can be valid, and everyone else (anonymous REST, pages, MCP). */
  admission: { members: Admission; anonymous: Admission };
  /** Which share a REST search waits in. */
  guard: Pick<KeyLookupGuard, 'memberShare'>;
  /** The REST search's query parameters: `parse` validates them (throws a 400), `params` is the search they ask for (undefined: a blank query). */
  rest: {
    parse(raw: Record<string, unknown>): SearchQueryValues;
    params(query: SearchQueryValues, publishedOnly: boolean): SearchParams | undefined;
  };
  metrics?: ApiMetrics | undefined;
}

export interface SearchService {
  /**
   * Middleware, before the credential is looked up: a REST search waits for a place in its share, fair by caller (the
   * key presented among members, the address among the rest), and holds it until its response is done. In front of
   * everything that costs a store round trip, so a refused search costs none, and before the request's store budget
   * starts, so the wait for a place does not eat it.
   */
  admit: RequestHandler;
  /** The search's part of the reads started beside a credential's lookup (see {@link createSearchService}). */
  early: EarlyOperation;
  /** The REST search of a caller let into `access.channel`; `query` as validated. */
  answerRest(req: Request, slug: string, access: ChannelAccess, query: SearchQueryValues): Promise<SearchAnswer>;
  /** An anonymous search (a page, an MCP tool call): published episodes only, a place in the anonymous share for its duration. */
  run(req: Request, channel: ChannelDoc, params: SearchParams): Promise<SearchAnswer>;
}

/** A REST search sent beside its request's credential and channel checks. */
interface EarlySearch {
  /** The channel as read when the credential was last let in; the search ran over it. */
  channel: ChannelDoc;
  outcome: Promise<SearchOutcome>;
  /** Set once the route has decided whether to use it; until then a refusal throws it away. */
  settled: boolean;
}

/**
 * The search service. A REST search of a channel its credential was let into here lately (`grants`) starts beside
 * the credential's lookup, over the channel as read then (`early.start`, called by `authenticate`'s `beside` through
 * the channel prefetch): the key GET and the channel read take one round trip, the search need not wait for it.
 * Nothing is decided by it: the route still checks the key, membership and plan at call time, and
 * {@link SearchService.answerRest} uses the early answer only when the channel read then is the one searched;
 * otherwise it searches again. A refused request takes the grant back (all the credential's grants on a 401), so a
 * revoked key or a removed member costs at most one search that is thrown away; a credential never let in (a
 * stranger, a non-member, an unknown slug) never gets one, so those requests do the same work, and their refusals
 * stay alike. Whatever the answer, the early search stops when it is sent.
 */
export function createSearchService({ search, admission, guard, rest, metrics }: SearchServiceDeps): SearchService {
  const grants = new SearchGrants();
  /** REST searches holding a place of the gate for their whole request. */
  const holdingPlace = new WeakSet<Request>();
  const earlySearches = new WeakMap<Request, EarlySearch>();

  /** The search itself: on the request's store budget, stopped when its client hangs up (or by `stop`); a place in the anonymous share unless the request holds one. */
  async function execute(req: Request, channel: ChannelDoc, params: SearchParams, audience: Audience, stop?: AbortSignal): Promise<SearchOutcome> {
    const gone = abandoned(req.res!);
    const signal = stop ? AbortSignal.any([gone, stop]) : gone;
    const release = holdingPlace.has(req) ? undefined : await admission.anonymous.admit(signal, clientAddress(req));
    try {
      return await runSearch({ ...search, storeTimeoutMs: () => req.queries.timeLeftMs(), signal, audience }, channel, params);
    } finally {
      release?.();
    }
  }

  /** What is answered is measured: its phases, or the store failure it met (thrown on to the caller's error handling). */
  async function answered(outcome: Promise<SearchOutcome>): Promise<SearchAnswer> {
    try {
      const { result, timings } = await outcome;
      metrics?.observeSearch(timings);
      return result;
    } catch (err) {
      metrics?.storeError(err);
      throw err;
    }
  }

  return {
    admit: async (req, res, next) => {
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !SEARCH_PATH.test(req.path)) return next();
      const presented = req.presented;
      // Tokens count by address too: a forged but well-formed one is only known after its check, and a flood of them from one place is one caller.
      const [gate, caller] = !guard.memberShare(req)
        ? [admission.anonymous, clientAddress(req)]
        : [admission.members, presented.kind === 'key' && presented.credential ? presented.credential : `token-from-${clientAddress(req)}`];
      const release = await gate.admit(abandoned(res), caller);
      holdingPlace.add(req);
      res.once('finish', release).once('close', release);
      next();
    },

    early: {
      operationId: 'searchChannel',
      channelId: (credential, slug) => grants.get(credential, slug)?.id,
      start(req, credential, slug) {
        const channel = grants.get(credential, slug);
        if (!channel || !req.res) return;
        let params: SearchParams | undefined;
        try {
          // A credential's search: published and unpublished episodes alike.
          params = rest.params(rest.parse(req.query as Record<string, unknown>), false);
        } catch {
          return; // the route answers the 400
        }
        if (!params) return;
        // Once the answer is sent nobody needs it: a refused request's search stops with it, not after its gate place was given back.
        const stop = new AbortController();
        const outcome = execute(req, channel, params, 'members', stop.signal);
        // The route may never await it (a refusal, or a channel that changed).
        outcome.catch(() => undefined);
        const early: EarlySearch = { channel, outcome, settled: false };
        earlySearches.set(req, early);
        const res = req.res;
        res.once('close', () => stop.abort());
        res.once('finish', () => {
          stop.abort();
          if (res.statusCode < 400) return;
          grants.revoke(credential, res.statusCode === 401 ? undefined : slug);
          if (!early.settled) metrics?.earlySearch('refused');
        });
      },
    },

    async answerRest(req, slug, { channel, publishedOnly }, query) {
      if (req.credential) grants.grant(req.credential, slug, channel);
      const early = earlySearches.get(req);
      if (early) {
        early.settled = true;
        // It searched with these very parameters (a credential's, so `publishedOnly` is false): only the channel may differ.
        const outcome = !publishedOnly && isDeepStrictEqual(early.channel, channel) ? await early.outcome.catch(() => undefined) : undefined;
        metrics?.earlySearch(outcome ? 'used' : 'searched_again');
        if (outcome) return answered(Promise.resolve(outcome));
      }
      const params = rest.params(query, publishedOnly);
      if (!params) return { query: '', episodes: [] };
      const audience: Audience = req.principal?.kind === 'anonymous' ? 'anonymous' : 'members';
      return answered(execute(req, channel, params, audience));
    },

    run(req, channel, params) {
      return answered(execute(req, channel, params, 'anonymous'));
    },
  };
}
