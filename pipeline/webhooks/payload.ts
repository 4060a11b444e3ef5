// What a delivery sends: the Standard Webhooks body `{ type, timestamp, data }` and its headers (pure).
import type { Change, WebhookDelivery } from '../../core/contract/changes.js';
import { signatureHeader, unixSeconds } from './signing.js';

/** The body of a delivery: the change as the API shows it, under its type and the time it occurred. */
export function deliveryBody(change: Change): string {
  const body: WebhookDelivery = { type: change.type, timestamp: change.occurredAt, data: change };
  return JSON.stringify(body);
}

/**
 * The headers of one attempt: `webhook-id` is the change's id (the same on every retry: receivers de-duplicate on it),
 * `webhook-timestamp` this attempt's time, `webhook-signature` one `v1,` signature per secret.
 */
export function deliveryHeaders({ change, body, secrets, at }: { change: Pick<Change, 'id'>; body: string; secrets: readonly string[]; at: Date }): Record<string, string> {
  const timestamp = unixSeconds(at);
  return {
    'webhook-id': change.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, { id: change.id, timestamp, body }),
  };
}
