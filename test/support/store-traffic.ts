// What an API process asked of the store while a call ran: the client's own request and response events, in order.
import { createHash } from 'node:crypto';
import type { ApiResponse as StoreResponse } from '@opensearch-project/opensearch';
import type { Client } from '../../core/store/opensearch.js';

/** One store request sent or answered; `what` is `METHOD /path` with the test prefix cut off, `docs` the indices an `_mget` names, `body` what was sent (prefix cut off too). */
export interface StoreEvent {
  event: 'sent' | 'answered';
  what: string;
  docs?: string[];
  body?: string;
}

/**
 * Runs `call` and returns every request `client` sent, and every answer it got, meanwhile.
 * Index names lose `prefix`, so two runs over different prefixes compare equal.
 * Only this client's traffic is seen: start the API under test on its own client (or pass it the suite's).
 */
export async function storeTraffic(client: Client, call: () => Promise<unknown>, { prefix = '' }: { prefix?: string } = {}): Promise<StoreEvent[]> {
  const log: StoreEvent[] = [];
  const strip = (text: string) => (prefix ? text.split(prefix).join('') : text);
  const describe = (res: StoreResponse | null) => {
    const params = res?.meta?.request?.params;
    return { what: `${params?.method} ${strip(String(params?.path ?? ''))}`, body: params?.body };
  };
  const onRequest = (_err: unknown, res: StoreResponse) => {
    const { what, body } = describe(res);
    const docs = what.endsWith('/_mget') ? (JSON.parse(String(body)) as { docs: { _index: string }[] }).docs.map((d) => strip(d._index)) : undefined;
    const text = body === undefined || body === null ? undefined : strip(typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body));
    log.push({ event: 'sent', what, ...(docs ? { docs } : {}), ...(text === undefined ? {} : { body: text }) });
  };
  const onResponse = (_err: unknown, res: StoreResponse) => log.push({ event: 'answered', what: describe(res).what });
  client.on('request', onRequest);
  client.on('response', onResponse);
  try {
    await call();
  } finally {
    client.off('request', onRequest);
    client.off('response', onResponse);
  }
  return log;
}

/**
 * A request body as compared: each JSON line parsed, every document `_id` and every string in `ids` (what the call
 * named: a slug, an episode id) replaced by one placeholder, then written again. Which documents a call reads is
 * the call's business; what it asks of them (the fields, the sizes, the queries) is what two calls must share.
 */
export function normalisedBody(body: string, ids: readonly string[] = []): string {
  const named = new Set(ids);
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string') return key === '_id' || named.has(value) ? '<id>' : value;
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    return value;
  };
  return body
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      try {
        return JSON.stringify(walk(JSON.parse(line) as unknown));
      } catch {
        return line; // not JSON: compared as sent
      }
    })
    .join('\n');
}

/**
 * The requests sent, in order, each as `METHOD /path` plus the indices of an `_mget`: what two paths must share to cost
 * the same. With `bodies`, each also carries a digest of its {@link normalisedBody}: two calls that differ only in the
 * id they name must send the same bodies too.
 */
export function sentRequests(traffic: StoreEvent[], { bodies }: { bodies?: { ids?: readonly string[] } } = {}): string[] {
  const digest = (body: string | undefined) => (body === undefined ? '' : ` #${createHash('sha256').update(normalisedBody(body, bodies?.ids)).digest('hex').slice(0, 12)}`);
  return traffic.filter((t) => t.event === 'sent').map((t) => `${t.docs ? `${t.what} [${t.docs.join(',')}]` : t.what}${bodies ? digest(t.body) : ''}`);
}
