// Webhook endpoints in the store (the `webhooks` index): register, list, remove, rotate, and the worker's bookkeeping
// (the cursor into the channel's change log, the last delivery, failures). Registered by the operator's CLI, like keys.
import { randomBytes } from 'node:crypto';
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { lastSeq } from '../../core/changes/read.js';
import { storeFailure } from '../../core/store/transient.js';
import { ledgerBeside, recordInLedger } from '../../core/store/ledger.js';
import { checkEndpointUrl } from './endpoint-url.js';
import { WebhookError } from './errors.js';
import { sealSecret, type Keyring } from './sealed.js';
import { newSecret } from './signing.js';

export interface WebhookStoreDeps {
  client: Client;
  aliases: Pick<IndexAliases, 'webhooks' | 'channels' | 'changes'>;
}

/**
 * One registered endpoint as stored (`_id` = `id`). Its secrets are sealed (sealed.ts: `sealed:v1:<key id>:…`, opened
 * with SECRETS_KEY only when a delivery is signed); a clear `whsec_…` is one stored before sealing, until the worker's
 * start or `npm run webhooks -- rotate-key` seals it.
 */
export interface EndpointDoc {
  /** `wh_` + 16 hex characters. */
  id: string;
  channelId: string;
  channelSlug: string;
  url: string;
  /** The signing secret, sealed. */
  secret: string;
  /** The secret before the last rotation (sealed), still signing until `previousSecretUntil` (a grace period); else null. */
  previousSecret: string | null;
  previousSecretUntil: string | null;
  createdAt: string;
  rotatedAt: string | null;
  /** The last seq of the channel's change log whose deliveries are enqueued (durable: nothing is lost on a restart). */
  cursorSeq: number;
  lastDeliveryAt: string | null;
  /** `200`, `500`, `timeout`, `unreachable`, `refused_address`…: the outcome of the last attempt. */
  lastDeliveryStatus: string | null;
  lastDeliveryChangeId: string | null;
  lastSuccessAt: string | null;
  /** Attempts failed in a row (any success resets it). */
  consecutiveFailures: number;
  /** Set when a delivery ran out of retries; cleared by the next success. */
  failingSince: string | null;
}

/** A new endpoint before it is stored: its id and secret made once, so storing can be retried without a second secret. */
export interface NewEndpoint {
  id: string;
  /** The clear secret, shown once to whoever registers the endpoint; never stored. */
  secret: string;
  /** The secret sealed under the keyring's current key: what is stored. */
  sealedSecret: string;
  url: string;
  createdAt: string;
}

/** Makes an endpoint's id and secret for `url` (checked: https, or http on loopback with `allowPrivate`); nothing is stored. */
export function newEndpoint({ url, keyring, allowPrivate = false, now = new Date() }: { url: string; keyring: Keyring; allowPrivate?: boolean; now?: Date }): NewEndpoint {
  const checked = checkEndpointUrl(url, { allowPrivate });
  const id = `wh_${randomBytes(8).toString('hex')}`;
  const secret = newSecret();
  return { id, secret, sealedSecret: sealSecret(keyring, secret, id), url: checked.href, createdAt: now.toISOString() };
}

async function channelBySlug({ client, aliases }: WebhookStoreDeps, slug: string): Promise<ChannelDoc | undefined> {
  const res = await client.search({ index: aliases.channels, body: { size: 1, query: { term: { slug } } } } as never);
  return (res.body as { hits: { hits: { _source: ChannelDoc }[] } }).hits.hits[0]?._source;
}

/**
 * Stores an endpoint made by {@link newEndpoint} for the channel `slug`. Its cursor starts at the channel's last change:
 * an endpoint receives what happens from now on (the change feed has the past). `op_type: create`, so storing the same
 * endpoint again (an attempt whose answer was lost) is a no-op.
 */
export async function storeEndpoint(deps: WebhookStoreDeps, slug: string, created: NewEndpoint): Promise<EndpointDoc> {
  const channel = await channelBySlug(deps, slug);
  if (!channel) throw new WebhookError('unknown_channel', `no channel "${slug}"`);
  // Field by field: the clear secret of `created` must never reach the store.
  const doc: EndpointDoc = {
    id: created.id,
    url: created.url,
    createdAt: created.createdAt,
    secret: created.sealedSecret,
    channelId: channel.id,
    channelSlug: channel.slug,
    previousSecret: null,
    previousSecretUntil: null,
    rotatedAt: null,
    cursorSeq: await lastSeq(deps.client, deps.aliases.changes, channel.id),
    lastDeliveryAt: null,
    lastDeliveryStatus: null,
    lastDeliveryChangeId: null,
    lastSuccessAt: null,
    consecutiveFailures: 0,
    failingSince: null,
  };
  try {
    await deps.client.index({ index: deps.aliases.webhooks, id: doc.id, body: doc as never, op_type: 'create', refresh: 'wait_for' } as never);
  } catch (error) {
    if (storeFailure(error)?.status !== 409) throw error;
    return (await getEndpoint(deps, doc.id))!;
  }
  return doc;
}

/** An endpoint by id (a real-time GET: a removal or rotation counts from the next delivery); undefined when there is none. */
export async function getEndpoint({ client, aliases }: WebhookStoreDeps, id: string): Promise<EndpointDoc | undefined> {
  const res = await client.get({ index: aliases.webhooks, id }, { ignore: [404] });
  const body = res.body as { found?: boolean; _source?: EndpointDoc };
  return body.found ? body._source : undefined;
}

/**
 * Every endpoint, or those of the channel `channelId`, oldest first (at most `size`; an operator registers a handful).
 * The ids come from a search, the documents from a real-time multi-get: cursors and the last delivery are as last
 * written, not as last refreshed. Throws when the store answers a document with an error.
 */
export async function listEndpoints(
  { client, aliases }: WebhookStoreDeps,
  { size = 1000, channelId }: { size?: number; channelId?: string | undefined } = {},
): Promise<EndpointDoc[]> {
  const query = channelId === undefined ? { match_all: {} } : { term: { channelId } };
  const res = await client.search({ index: aliases.webhooks, body: { size, _source: false, query, sort: [{ createdAt: 'asc' }, { id: 'asc' }] } } as never);
  const ids = (res.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id);
  if (ids.length === 0) return [];
  const docs = (await client.mget({ index: aliases.webhooks, body: { ids } } as never)).body as {
    docs: { found?: boolean; _source?: EndpointDoc; error?: { type?: string; reason?: string } }[];
  };
  // A document the store could not read is an error, not an absent endpoint: `rotate-key` must not report "0 of 0".
  const failed = docs.docs.find((d) => d.error);
  if (failed) throw new Error(`reading webhook endpoints failed: ${failed.error?.type}: ${failed.error?.reason}`);
  return docs.docs.flatMap((d) => (d.found && d._source ? [d._source] : []));
}

/**
 * Removes an endpoint; its pending deliveries find it gone and stop. False when there was none. The removal goes into
 * the deployment's ledger first, so a restore of a backup that still holds the endpoint removes it again.
 */
export async function removeEndpoint(deps: WebhookStoreDeps, id: string, now = new Date()): Promise<boolean> {
  const { client, aliases } = deps;
  const endpoint = await getEndpoint(deps, id);
  if (!endpoint) return false;
  await recordInLedger(client, ledgerBeside(aliases.webhooks, 'webhooks'), { kind: 'endpoint_removed', endpointId: id, channelId: endpoint.channelId, at: now.toISOString() });
  const res = await client.delete({ index: aliases.webhooks, id, refresh: 'wait_for' } as never, { ignore: [404] });
  return (res.body as { result?: string }).result === 'deleted';
}

/**
 * Gives an endpoint a new secret, `sealedSecret` (the new clear secret sealed for this endpoint, made once by the caller:
 * a retried attempt finds it in place and changes nothing); deliveries sign with it from the next attempt on. With
 * `graceMs` > 0 the old one signs too until then (two signatures in `webhook-signature`), so a receiver can switch
 * without a gap. Undefined when there is no such endpoint.
 */
export async function rotateSecret(
  { client, aliases }: WebhookStoreDeps,
  id: string,
  { sealedSecret, graceMs = 0, now = new Date() }: { sealedSecret: string; graceMs?: number; now?: Date },
): Promise<EndpointDoc | undefined> {
  const res = await client.update(
    {
      index: aliases.webhooks,
      id,
      retry_on_conflict: 5,
      refresh: 'wait_for',
      _source: true,
      body: {
        script: {
          lang: 'painless',
          source:
            'if (ctx._source.secret == params.secret) { ctx.op = "noop"; return; }' +
            ' if (params.grace) { ctx._source.previousSecret = ctx._source.secret; ctx._source.previousSecretUntil = params.until; }' +
            ' else { ctx._source.previousSecret = null; ctx._source.previousSecretUntil = null; }' +
            ' ctx._source.secret = params.secret; ctx._source.rotatedAt = params.now;',
          params: { grace: graceMs > 0, until: new Date(now.getTime() + graceMs).toISOString(), secret: sealedSecret, now: now.toISOString() },
        },
      },
    } as never,
    { ignore: [404] },
  );
  const body = res.body as { result?: string; get?: { _source?: EndpointDoc } };
  return body.get?._source;
}

/** The secrets (as stored: sealed) that sign a delivery at `now`: the current one, and the previous one during its grace period. */
export function signingSecrets(endpoint: Pick<EndpointDoc, 'secret' | 'previousSecret' | 'previousSecretUntil'>, now: Date): string[] {
  const grace = endpoint.previousSecret && endpoint.previousSecretUntil && Date.parse(endpoint.previousSecretUntil) > now.getTime();
  return grace ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}

/** An update of one endpoint that is a no-op when it has been removed meanwhile (false then). */
async function updateScript({ client, aliases }: WebhookStoreDeps, id: string, source: string, params: Record<string, unknown>): Promise<boolean> {
  const res = await client.update({ index: aliases.webhooks, id, retry_on_conflict: 10, body: { script: { lang: 'painless', source, params } } } as never, {
    ignore: [404],
  });
  return res.statusCode !== 404;
}

/**
 * Moves an endpoint's cursor forward to `seq` (never back: two workers dispatching at once agree on the larger one),
 * or, with `reset`, to `seq` whatever it was (the channel's log was lost and begins again).
 */
export function moveCursor(deps: WebhookStoreDeps, id: string, seq: number, { reset = false }: { reset?: boolean } = {}): Promise<boolean> {
  return updateScript(deps, id, 'if (params.reset || params.seq > ctx._source.cursorSeq) { ctx._source.cursorSeq = params.seq } else { ctx.op = "noop" }', { seq, reset });
}

/** The outcome of one delivery attempt, as recorded on its endpoint. */
export interface AttemptRecord {
  at: Date;
  changeId: string;
  /** The HTTP status, or the failure's code. */
  status: string;
  ok: boolean;
  /** The delivery ran out of retries: the endpoint is failing from now (unless it already was). */
  exhausted?: boolean;
}

/** Records an attempt on its endpoint: last delivery, failures in a row, failing since. False when the endpoint is gone. */
export function recordAttempt(deps: WebhookStoreDeps, id: string, { at, changeId, status, ok, exhausted = false }: AttemptRecord): Promise<boolean> {
  return updateScript(
    deps,
    id,
    'ctx._source.lastDeliveryAt = params.at; ctx._source.lastDeliveryStatus = params.status; ctx._source.lastDeliveryChangeId = params.changeId;' +
      ' if (params.ok) { ctx._source.lastSuccessAt = params.at; ctx._source.consecutiveFailures = 0; ctx._source.failingSince = null; }' +
      ' else { ctx._source.consecutiveFailures = (ctx._source.consecutiveFailures == null ? 0 : ctx._source.consecutiveFailures) + 1;' +
      ' if (params.exhausted && ctx._source.failingSince == null) { ctx._source.failingSince = params.at; } }',
    { at: at.toISOString(), changeId, status, ok, exhausted },
  );
}
