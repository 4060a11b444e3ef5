// A test event sent to one endpoint now, signed as every delivery is (Standard Webhooks), so whoever registered it sees
// at once whether their receiver answers and verifies: `npm run webhooks -- test <id>` and the console's "Send a test
// event" call this. It is no change of the channel: it touches no cursor and no failure count, only the journal.
import { randomBytes } from 'node:crypto';
import { FetchError } from '../../core/ground/outbound/safe-fetch.js';
import { postBytes, type SafePostOptions } from '../../core/ground/outbound/post.js';
import { checkEndpointUrl } from './endpoint-url.js';
import { WebhookError } from './errors.js';
import { answerSnippet, type DeliveryJournal, type JournalEntry } from './journal.js';
import { deliveryHeaders } from './payload.js';
import { openSecret, type Keyring } from './sealed.js';
import { getEndpoint, signingSecrets, type WebhookStoreDeps } from './store.js';

/** The type of a test event's body; receivers may ignore it. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** What a test event needs: the registry, the key that opens its secrets, the deliveries' outbound rules, the journal. */
export interface TestEventDeps {
  store: WebhookStoreDeps;
  keyring?: Keyring | undefined;
  outbound: Pick<SafePostOptions, 'allowPrivate' | 'isAllowedAddress' | 'userAgent' | 'timeoutMs' | 'ca' | 'maxResponseBytes'>;
  journal?: DeliveryJournal | undefined;
  now?: () => Date;
}

/** Sends a test event to `endpointId` and returns its outcome (also written to the journal); `unknown_endpoint` when it is gone. */
export async function sendTestEvent({ store, keyring, outbound, journal, now = () => new Date() }: TestEventDeps, endpointId: string): Promise<JournalEntry> {
  const endpoint = await getEndpoint(store, endpointId);
  if (!endpoint) throw new WebhookError('unknown_endpoint', `no endpoint "${endpointId}"`);
  const at = now();
  const eventId = `test_${randomBytes(8).toString('hex')}`;
  const body = JSON.stringify({
    type: TEST_EVENT_TYPE,
    timestamp: at.toISOString(),
    data: { endpointId, channel: endpoint.channelSlug, message: 'A test event: your endpoint is reachable and its signature can be checked.' },
  });
  const secrets = signingSecrets(endpoint, at).map((stored) => openSecret(keyring, stored, endpoint.id));
  const started = performance.now();
  let entry: JournalEntry;
  try {
    checkEndpointUrl(endpoint.url, { allowPrivate: outbound.allowPrivate === true });
    const res = await postBytes(endpoint.url, body, { ...outbound, headers: deliveryHeaders({ change: { id: eventId }, body, secrets, at }) });
    const ok = res.status >= 200 && res.status <= 299;
    entry = { at: at.toISOString(), kind: 'test', eventId, status: String(res.status), ok, latencyMs: Math.round(performance.now() - started), answer: answerSnippet(res.body) };
  } catch (err) {
    if (!(err instanceof FetchError) && !(err instanceof WebhookError)) throw err;
    const status = err instanceof FetchError && err.code === 'timeout' ? 'timeout' : err.code;
    entry = { at: at.toISOString(), kind: 'test', eventId, status, ok: false, latencyMs: Math.round(performance.now() - started), answer: answerSnippet(err.message) };
  }
  await journal?.add(endpointId, entry);
  return entry;
}
