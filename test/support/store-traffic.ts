// What an API process asked of the store while a call ran: the client's own request and response events, in order.
import type { ApiResponse as StoreResponse } from '@opensearch-project/opensearch';
import type { Client } from '../../src/store/opensearch.js';

/** One store request sent or answered; `what` is `METHOD /path` with the test prefix cut off, `docs` the indices an `_mget` names. */
export interface StoreEvent {
  event: 'sent' | 'answered';
  what: string;
  docs?: string[];
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
    log.push({ event: 'sent', what, ...(docs ? { docs } : {}) });
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

/** The requests sent, in order, each as `METHOD /path` plus the indices of an `_mget`: what two paths must share to cost the same. */
export const sentRequests = (traffic: StoreEvent[]): string[] => traffic.filter((t) => t.event === 'sent').map((t) => (t.docs ? `${t.what} [${t.docs.join(',')}]` : t.what));
