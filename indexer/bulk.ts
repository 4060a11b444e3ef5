// `_bulk` writes cut to a byte budget, with every item's result checked.
import type { Client } from '@opensearch-project/opensearch';
import { isTransient } from '../core/store/transient.js';
import { createIndexError, retryIndexErrors, storeCall } from './errors.js';

/** One write: index a document under `id`, or delete `id` (a missing document is fine). */
export type BulkOp = { op: 'index'; index: string; id: string; doc: object } | { op: 'delete'; index: string; id: string };

export interface BulkResult {
  indexed: number;
  deleted: number;
}

export interface BulkItem {
  status: number;
  result?: string;
  error?: { type?: string; reason?: string; caused_by?: { reason?: string } };
}

/** NDJSON of one op (action line + document line), ending with a newline. */
function serialize(op: BulkOp): string {
  const action = JSON.stringify({ [op.op]: { _index: op.index, _id: op.id } });
  return op.op === 'index' ? `${action}\n${JSON.stringify(op.doc)}\n` : `${action}\n`;
}

/**
 * Checks every item of a `_bulk` answer (it is 200 even when items fail). A refused
 * document (mapping, validation) throws `store_rejected` (never retried); only items
 * failed transiently (overload, a write block: `isTransient` of the store) throw
 * `store_unavailable` (retried). Exported for tests.
 */
export function checkBulkItems(items: Record<string, BulkItem>[], ops: readonly BulkOp[]): BulkResult {
  const result: BulkResult = { indexed: 0, deleted: 0 };
  let retryable: string | undefined;
  items.forEach((entry, i) => {
    const [action, item] = Object.entries(entry)[0] as [string, BulkItem];
    const op = ops[i];
    if (action === 'delete' && item.status === 404) return;
    if (!item.error && item.status < 300) {
      if (action === 'delete') result.deleted++;
      else result.indexed++;
      return;
    }
    const reason = `${action} ${op?.index}/${op?.id}: ${item.status} ${item.error?.type}: ${item.error?.reason}${
      item.error?.caused_by?.reason ? ` (${item.error.caused_by.reason})` : ''
    }`;
    if (!isTransient({ status: item.status, type: item.error?.type })) throw createIndexError('store_rejected', { message: reason });
    retryable ??= reason;
  });
  if (retryable) throw createIndexError('store_unavailable', { message: retryable });
  return result;
}

export interface BulkOptions {
  /** Largest request body; a single larger document is sent alone. Default 8 MB. */
  maxBytes?: number;
  /** Attempts per request on transient failures, with 0.5 s, 1 s, 2 s … between them. Default 3. */
  attempts?: number;
  refresh?: boolean | 'wait_for';
}

/**
 * Writes `ops` in requests of at most `maxBytes`. Writes are idempotent (stable ids),
 * so a request that failed transiently is simply sent again.
 */
export async function bulkWrite(client: Client, ops: readonly BulkOp[], { maxBytes = 8 * 1024 * 1024, attempts = 3, refresh = false }: BulkOptions = {}): Promise<BulkResult> {
  const total: BulkResult = { indexed: 0, deleted: 0 };
  let lines: string[] = [];
  let chunkOps: BulkOp[] = [];
  let bytes = 0;
  const flush = async (): Promise<void> => {
    if (chunkOps.length === 0) return;
    const body = lines.join('');
    const sent = chunkOps;
    lines = [];
    chunkOps = [];
    bytes = 0;
    const counted = await retryIndexErrors(
      async () => {
        const res = await storeCall('bulk', () => client.bulk({ body, refresh } as never));
        return checkBulkItems((res.body as { items: Record<string, BulkItem>[] }).items, sent);
      },
      { attempts, baseDelayMs: 500 },
    );
    total.indexed += counted.indexed;
    total.deleted += counted.deleted;
  };
  for (const op of ops) {
    const line = serialize(op);
    const size = Buffer.byteLength(line);
    if (bytes + size > maxBytes) await flush();
    lines.push(line);
    chunkOps.push(op);
    bytes += size;
  }
  await flush();
  return total;
}
