// Every search the API runs goes through here, whoever asks (REST, pages, MCP): its place in the admission gate, the request's store budget, a stop when the client hangs up, the audience its query vector is cached for, and its metrics.
import { isDeepStrictEqual } from 'node:util';
import type { Request, RequestHandler } from 'express';
import { accessChannel } from '../auth/access.js';
import type { KeyLookupGuard } from '../auth/key-lookup-guard.js';
import { abandoned, clientAddress, type Admission } from '../http/admission.js';
import type { ApiMetrics } from '../metrics/api-metrics.js';
import { runSearch, type SearchAnswer, type SearchDeps, type SearchOutcome } from '../../core/search/search.js';
import type { SearchParams } from '../../core/search/types.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { SearchChannel } from '../openapi/operations.js';
import { SearchGrants } from '../store/search-grants.js';

/** REST search, the one operation behind the admission gate (after the /api alias is rewritten; a trailing slash routes there too). */
/** The search route's path as its operation names it (`SearchChannel`): each `{param}` one path segment, a trailing slash allowed. */
const SEARCH_PATH = new RegExp(`^${SearchChannel.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`);

type Audience = 'members' | 'anonymous';

export interface SearchServiceDeps {
  search: SearchDeps;
  /** The two shares of the gate: callers whose credential can be valid, and everyone else (anonymous REST, pages, MCP). */
  admission: { members: Admission; anonymous: Admission };
  /** Which share a REST search waits in. */
  guard: Pick<KeyLookupGuard, 'memberShare'>;
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
  /**
   * The REST search of `slug` by the request's principal, its credential checked and its parameters validated:
   * membership and plan (404/403, `accessChannel`), then `params` searched; undefined params (a blank query) answer
   * no episodes once access holds.
   */
  answerRest(req: Request, slug: string, params: SearchParams | undefined): Promise<SearchAnswer>;
  /** An anonymous search (a page, an MCP tool call): published episodes only, a place in the anonymous share for its duration. */
  run(req: Request, channel: ChannelDoc, params: SearchParams): Promise<SearchAnswer>;
  /**
   * A search by the request's verified credential (the creator tool server's tool calls), of a channel its caller was
   * let into already: a place in the members' share for its duration, fair by credential, and the members' cached vectors.
   */
  runAsMember(req: Request, channel: ChannelDoc, params: SearchParams): Promise<SearchAnswer>;
}

/**
 * The search service. A credential let into a channel here lately (`grants`) has its next search of that channel
 * start beside the access check, over the channel as read then: the channel and owner reads take no time of the
 * answer's. Nothing is decided by it: the access check runs as for anyone, and the early answer is used only when the
 * channel read now is the one searched; otherwise it is stopped and the search runs again. A refused access takes the
 * grant back, so a removed member or a channel whose owner lost the plan costs at most one search thrown away; a
 * credential never let in gets none, so strangers and non-members do the same work, and their refusals stay alike.
 * It starts after the rate limiter and the parameters' validation, and only for a credential that verified.
 */
export function createSearchService({ search, admission, guard, metrics }: SearchServiceDeps): SearchService {
  const grants = new SearchGrants();
  /** REST searches holding a place of the gate for their whole request. */
  const holdingPlace = new WeakSet<Request>();

  /**
   * The search itself: on the request's store budget, stopped when its client hangs up (or by `stop`); unless the
   * request holds a place already, a place in the anonymous share (by address), or with `memberPlace` in the members'
   * share (by the verified credential).
   */
  async function execute(
    req: Request,
    channel: ChannelDoc,
    params: SearchParams,
    audience: Audience,
    { stop, memberPlace = false }: { stop?: AbortSignal; memberPlace?: boolean } = {},
  ): Promise<SearchOutcome> {
    const gone = abandoned(req.res!);
    const signal = stop ? AbortSignal.any([gone, stop]) : gone;
    const [gate, caller] = memberPlace && req.credential ? [admission.members, req.credential] : [admission.anonymous, clientAddress(req)];
    const release = holdingPlace.has(req) ? undefined : await gate.admit(signal, caller);
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

  /** A search of the channel `credential` was last let into under `slug`, started now; undefined when it was not. */
  function searchGranted(req: Request, credential: string | undefined, slug: string, params: SearchParams | undefined) {
    const channel = credential && params ? grants.get(credential, slug) : undefined;
    if (!channel || !params) return undefined;
    const stop = new AbortController();
    const outcome = execute(req, channel, params, 'members', { stop: stop.signal });
    // Awaited only when it is used.
    outcome.catch(() => undefined);
    return { channel, outcome, stop: () => stop.abort() };
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

    async answerRest(req, slug, params) {
      const { credential, principal } = req;
      // A credential's search reads published and unpublished episodes alike, as the one it was let in for did.
      const early = searchGranted(req, credential, slug, params?.publishedOnly === false ? params : undefined);
      let channel: ChannelDoc;
      try {
        ({ channel } = await accessChannel(req.queries, principal!, slug));
      } catch (refusal) {
        if (credential) grants.revoke(credential, slug);
        if (early) {
          early.stop();
          metrics?.earlySearch('refused');
        }
        throw refusal;
      }
      if (credential) grants.grant(credential, slug, channel);
      if (early) {
        const outcome = isDeepStrictEqual(early.channel, channel) ? await early.outcome.catch(() => undefined) : undefined;
        metrics?.earlySearch(outcome ? 'used' : 'searched_again');
        if (outcome) return answered(Promise.resolve(outcome));
        early.stop();
      }
      if (!params) return { query: '', episodes: [] };
      const audience: Audience = principal?.kind === 'anonymous' ? 'anonymous' : 'members';
      return answered(execute(req, channel, params, audience));
    },

    run(req, channel, params) {
      return answered(execute(req, channel, params, 'anonymous'));
    },

    runAsMember(req, channel, params) {
      if (!req.credential) throw new Error('runAsMember() needs a verified credential (authenticate() sets req.credential)');
      return answered(execute(req, channel, params, 'members', { memberPlace: true }));
    },
  };
}
