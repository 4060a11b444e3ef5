// One delivery at a time per endpoint, across every worker: a Redis key per endpoint, taken with SET NX and given back
// only by its holder. A receiver that never answers then holds one of the shared delivery slots, never all of them
// (security review 2026-11-27, item 7).
import type { Redis } from 'ioredis';

// Deleted only when it still holds our token: a slot that expired and was taken by another attempt stays theirs.
const GIVE_BACK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

export interface EndpointSlots {
  /** Takes the endpoint's slot for `holder`; false while another attempt holds it. */
  take(endpointId: string, holder: string): Promise<boolean>;
  /** Gives the slot back, if `holder` still has it. */
  give(endpointId: string, holder: string): Promise<void>;
  /** Milliseconds until the slot frees itself at the latest (0 when free). */
  heldForMs(endpointId: string): Promise<number>;
}

/**
 * Endpoint slots under `<indexPrefix>webhooks-endpoint-slot:<endpointId>`. `holdMs` bounds a slot whose worker died
 * mid-attempt: longer than one attempt (its POST deadline plus the store reads around it).
 */
export function endpointSlots(connection: Redis, indexPrefix: string, { holdMs }: { holdMs: number }): EndpointSlots {
  const key = (endpointId: string) => `${indexPrefix}webhooks-endpoint-slot:${endpointId}`;
  return {
    async take(endpointId, holder) {
      return (await connection.set(key(endpointId), holder, 'PX', holdMs, 'NX')) === 'OK';
    },
    async give(endpointId, holder) {
      await connection.eval(GIVE_BACK, 1, key(endpointId), holder);
    },
    async heldForMs(endpointId) {
      return Math.max(0, await connection.pttl(key(endpointId)));
    },
  };
}
