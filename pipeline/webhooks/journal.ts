// The recent attempts of each endpoint, for whoever registered it (the console's webhooks page, `npm run webhooks --
// deliveries`): when, what (a change or a test event), the answer's status, how long it took and the first bytes of
// the answer. A capped Redis list per endpoint: writing one costs the same however many were sent before.
import type { Redis } from 'ioredis';

/** Attempts kept per endpoint. */
export const JOURNAL_LENGTH = 20;
/** A removed endpoint's journal goes this long after its last attempt. */
export const JOURNAL_TTL_SECONDS = 30 * 86_400;
/** Characters kept of an answer's body. */
export const ANSWER_CHARS = 200;

export interface JournalEntry {
  at: string;
  kind: 'change' | 'test';
  /** The change's id, or the test event's. */
  eventId: string;
  /** The HTTP status, or the failure's code (`timeout`, `unreachable`, `refused_address`…). */
  status: string;
  ok: boolean;
  latencyMs: number;
  /** The first {@link ANSWER_CHARS} characters of the answer, control characters replaced: shown as text, never as markup. */
  answer: string;
}

export interface DeliveryJournal {
  add(endpointId: string, entry: JournalEntry): Promise<void>;
  /** Newest first. */
  recent(endpointId: string, n?: number): Promise<JournalEntry[]>;
  /** Forgets an endpoint's attempts (it was removed). */
  drop(endpointId: string): Promise<void>;
}

/** An answer's first characters as plain text: decoded leniently, control characters replaced. */
export function answerSnippet(body: Buffer | string): string {
  const text = Buffer.isBuffer(body) ? body.subarray(0, ANSWER_CHARS * 4).toString('utf8') : body;
  // eslint-disable-next-line no-control-regex
  const controls = /[\u0000-\u001f\u007f-\u009f]/g;
  return [...text].slice(0, ANSWER_CHARS).join('').replace(controls, ' ');
}

export function deliveryJournal(redis: Redis, indexPrefix: string): DeliveryJournal {
  const key = (endpointId: string) => `${indexPrefix}webhook-journal:${endpointId}`;
  return {
    async add(endpointId, entry) {
      await redis
        .multi()
        .lpush(key(endpointId), JSON.stringify(entry))
        .ltrim(key(endpointId), 0, JOURNAL_LENGTH - 1)
        .expire(key(endpointId), JOURNAL_TTL_SECONDS)
        .exec();
    },
    async recent(endpointId, n = JOURNAL_LENGTH) {
      const rows = await redis.lrange(key(endpointId), 0, Math.min(n, JOURNAL_LENGTH) - 1);
      return rows.map((r) => JSON.parse(r) as JournalEntry);
    },
    async drop(endpointId) {
      await redis.del(key(endpointId));
    },
  };
}
