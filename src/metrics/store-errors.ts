// What kind of store failure an error was, for the `cca_store_errors_total{kind}` counter.
import { ApiError } from '../errors.js';
import { SearchError } from '../../core/search/errors.js';
import { StoreUnavailableError, isMissingIndex, isTransient, storeFailure, type StoreFailure } from '../../core/store/transient.js';

/**
 * `timeout`: no answer within the budget; `unreachable`: no connection; `missing_index`:
 * the store is not set up; `overloaded`: the engine pushed back (429, rejected execution,
 * circuit breaker); `unavailable`: any other transient failure; `rejected`: the engine
 * refused a query we built (our bug, a 500).
 */
export type StoreErrorKind = 'timeout' | 'unreachable' | 'missing_index' | 'overloaded' | 'unavailable' | 'rejected';

const OVERLOAD_TYPES = new Set(['es_rejected_execution_exception', 'rejected_execution_exception', 'circuit_breaking_exception']);

function kindOfFailure(failure: StoreFailure): StoreErrorKind {
  if (failure.unreachable) return /^TimeoutError/.test(failure.reason ?? '') ? 'timeout' : 'unreachable';
  if (isMissingIndex(failure)) return 'missing_index';
  if (failure.status === 429 || (failure.type !== undefined && OVERLOAD_TYPES.has(failure.type))) return 'overloaded';
  return isTransient(failure) ? 'unavailable' : 'rejected';
}

/**
 * The kind of store failure behind `error` (followed through `cause`), or undefined when
 * it is no store failure at all (bad input, a refused credential, our own bug).
 */
export function storeErrorKind(error: unknown): StoreErrorKind | undefined {
  let e: unknown = error;
  for (let depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (e instanceof SearchError) {
      const type = (e.detail as { type?: unknown } | undefined)?.type;
      return kindOfFailure({ type: typeof type === 'string' ? type : undefined, status: e.status === 503 ? 503 : 400 });
    }
    const failure = storeFailure(e);
    if (failure) return kindOfFailure(failure);
    if (e instanceof StoreUnavailableError) return /budget/.test(e.message) ? 'timeout' : /index_not_found/.test(e.message) ? 'missing_index' : 'unavailable';
    if (e instanceof ApiError && e.code === 'store_unavailable') {
      // The request's reads raise these themselves, with a plain Error saying why.
      const why = String((e.cause as { message?: unknown } | undefined)?.message ?? '');
      if (storeFailure(e.cause)) {
        e = e.cause;
        continue;
      }
      return /budget/.test(why) ? 'timeout' : /index_not_found/.test(why) ? 'missing_index' : 'unavailable';
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
