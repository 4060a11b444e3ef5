// Opaque keyset cursors: base64url of a versioned payload with the last row's sort key and a digest of the query.
import { createHash } from 'node:crypto';
import { createError } from '../errors.js';

const CURSOR_VERSION = 1;

/** Last row's sort values: the sort field (a number) then the `id` tie-breaker. */
export type SortKey = [number, string];

/**
 * A short digest of everything that shapes the row order and the row set. A cursor
 * carries it, so one replayed with other filters is refused instead of paging wrongly.
 * Lists are sorted and deduplicated first: `a,b` and `b,a` are the same filter.
 */
export function queryDigest(parts: Record<string, unknown>): string {
  const canonical = Object.keys(parts)
    .sort()
    .map((k) => {
      const v = parts[k];
      return [k, Array.isArray(v) ? [...new Set(v.map(String))].sort() : (v ?? null)];
    });
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 16);
}

/** The `nextCursor` for a page that ended on a row with these sort values. */
export function encodeCursor(sortKey: SortKey, digest: string): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, k: sortKey, d: digest })).toString('base64url');
}

function invalid(): never {
  throw createError('invalid_cursor', { parameter: 'cursor' });
}

/** The sort key inside a cursor made for the query with this digest; a 400 `invalid_cursor` otherwise. */
export function decodeCursor(cursor: string, digest: string): SortKey {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) invalid();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    invalid();
  }
  const p = payload as { v?: unknown; k?: unknown; d?: unknown } | null;
  if (!p || typeof p !== 'object' || p.v !== CURSOR_VERSION || p.d !== digest || !Array.isArray(p.k)) invalid();
  const [value, id, ...rest] = p.k as unknown[];
  if (rest.length > 0 || !Number.isSafeInteger(value) || typeof id !== 'string') invalid();
  return [value as number, id];
}
