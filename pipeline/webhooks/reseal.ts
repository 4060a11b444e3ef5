// Every stored secret sealed under the current key: the clear ones stored before sealing existed (the worker seals
// them at start), and those sealed under SECRETS_KEY_PREVIOUS (`npm run webhooks -- rotate-key`). Nothing is written
// while any secret names a key this process does not hold; a rotation that lands meanwhile is never overwritten.
// With `--secrets`, every endpoint then gets a new secret, the old one signing beside it for a changeover window.
import type { Logger } from '../../core/ground/logger.js';
import { WebhookError } from './errors.js';
import { heldKeys, isSealed, openSecret, sealSecret, sealedKeyId, type Keyring } from './sealed.js';
import { getEndpoint, listEndpoints, rotateSecret, type EndpointDoc, type WebhookStoreDeps } from './store.js';
import { newSecret } from './signing.js';

/** `clear`: seal only the secrets stored in clear (the worker's start); `all`: those under the previous key too. */
export type ResealScope = 'clear' | 'all';

export interface ResealReport {
  endpoints: number;
  /** Endpoints whose secrets were written again, sealed under the current key. */
  resealed: number;
  /** Endpoints whose secrets were all sealed under the current key already. */
  current: number;
  /** Endpoints whose secret does not open with the key it names (left as they are; each needs a new secret). */
  unreadable: string[];
}

type Secrets = Pick<EndpointDoc, 'secret' | 'previousSecret'>;

/** Whether one stored value is rewritten: a clear one always, one sealed under another key than the current in `all`. */
function stale(stored: string | null, keyring: Keyring, scope: ResealScope): boolean {
  if (stored === null) return false;
  if (!isSealed(stored)) return true;
  return scope === 'all' && sealedKeyId(stored) !== keyring.current.id;
}

/** The endpoint's secrets sealed under the current key, or undefined when nothing needs rewriting. Opens each (throws if it cannot). */
function resealed(endpoint: EndpointDoc, keyring: Keyring, scope: ResealScope): Secrets | undefined {
  const fields = [endpoint.secret, endpoint.previousSecret];
  const opened = fields.map((stored) => (stored === null ? null : openSecret(keyring, stored, endpoint.id)));
  if (!fields.some((stored) => stale(stored, keyring, scope))) return undefined;
  const [secret, previousSecret] = fields.map((stored, i) => (stale(stored, keyring, scope) ? sealSecret(keyring, opened[i]!, endpoint.id) : stored));
  return { secret: secret!, previousSecret: previousSecret ?? null };
}

/**
 * Refuses (WebhookError `secrets_key_unknown`) when stored secrets name keys the keyring lacks, with one sentence
 * naming the keys expected and held, and what to set: before anything is written.
 */
export function refuseUnknownKeys(endpoints: EndpointDoc[], keyring: Keyring): void {
  const held = new Set([keyring.current.id, keyring.previous?.id]);
  const unknown = new Map<string, number>();
  for (const e of endpoints) {
    for (const stored of [e.secret, e.previousSecret]) {
      const id = sealedKeyId(stored);
      if (id !== undefined && !held.has(id)) unknown.set(id, (unknown.get(id) ?? 0) + 1);
    }
  }
  if (unknown.size === 0) return;
  const named = [...unknown].map(([id, n]) => `${n} under key ${id}`).join(', ');
  const ids = [...unknown.keys()].join(' or ');
  throw new WebhookError(
    'secrets_key_unknown',
    `webhook secrets are sealed under a key this process does not hold (${named}), and ${heldKeys(keyring)}: set SECRETS_KEY_PREVIOUS (or SECRETS_KEY) to the key with id ${ids}; nothing was re-sealed`,
  );
}

/** Writes an endpoint's re-sealed secrets if they are still what was read; false when they changed meanwhile (or it is gone). */
async function swapSecrets({ client, aliases }: WebhookStoreDeps, id: string, from: Secrets, to: Secrets): Promise<'done' | 'changed' | 'gone'> {
  const res = await client.update(
    {
      index: aliases.webhooks,
      id,
      retry_on_conflict: 10,
      refresh: 'wait_for',
      body: {
        script: {
          lang: 'painless',
          source:
            'if (ctx._source.secret == params.fromSecret && ctx._source.previousSecret == params.fromPrevious)' +
            ' { ctx._source.secret = params.secret; ctx._source.previousSecret = params.previousSecret; } else { ctx.op = "noop"; }',
          params: { fromSecret: from.secret, fromPrevious: from.previousSecret, secret: to.secret, previousSecret: to.previousSecret },
        },
      },
    } as never,
    { ignore: [404] },
  );
  if (res.statusCode === 404) return 'gone';
  return (res.body as { result?: string }).result === 'noop' ? 'changed' : 'done';
}

/** Attempts per endpoint when its secrets keep changing under the re-sealing (a rotation between the read and the write). */
const ATTEMPTS = 5;

/**
 * Seals every endpoint's secrets under `keyring.current` (`scope`: see {@link ResealScope}). Reads all first and
 * refuses (WebhookError `secrets_key_unknown`) when a secret names a key the keyring lacks; then rewrites each endpoint
 * that needs it, only if its secrets are still those read (a rotation meanwhile is read again). Idempotent: a second run
 * finds nothing to do. An endpoint whose secret does not open with the key it names is logged and left.
 */
export async function resealSecrets(
  deps: WebhookStoreDeps,
  keyring: Keyring,
  { scope = 'all', log }: { scope?: ResealScope; log?: Pick<Logger, 'info' | 'warn' | 'error'> | undefined } = {},
): Promise<ResealReport> {
  const endpoints = await listEndpoints(deps, { size: 10_000 });
  refuseUnknownKeys(endpoints, keyring);
  const report: ResealReport = { endpoints: endpoints.length, resealed: 0, current: 0, unreadable: [] };
  for (const [i, first] of endpoints.entries()) {
    let endpoint: EndpointDoc | undefined = first;
    for (let attempt = 1; endpoint; attempt++) {
      let to: Secrets | undefined;
      try {
        to = resealed(endpoint, keyring, scope);
      } catch (err) {
        if (!(err instanceof WebhookError) || err.code !== 'secret_unreadable') throw err;
        log?.error({ endpointId: endpoint.id, code: err.code }, err.message);
        report.unreadable.push(endpoint.id);
        break;
      }
      if (!to) {
        report.current++;
        break;
      }
      const outcome = await swapSecrets(deps, endpoint.id, endpoint, to);
      if (outcome === 'done') {
        report.resealed++;
        log?.info({ endpointId: endpoint.id, keyId: keyring.current.id, done: i + 1, of: endpoints.length }, 'webhook secret sealed under the current key');
        break;
      }
      if (outcome === 'gone') break;
      if (attempt === ATTEMPTS) throw new WebhookError('store_busy', `the secrets of ${endpoint.id} kept changing while they were re-sealed; run the command again`);
      endpoint = await getEndpoint(deps, endpoint.id);
      if (endpoint) refuseUnknownKeys([endpoint], keyring);
    }
  }
  return report;
}

/**
 * The new secrets of one `rotate-key --secrets` run, made and sealed once per endpoint: an attempt retried after its
 * answer was lost stores the very same ones (a rotation to an equal sealed secret changes nothing), so the secrets
 * printed at the end are the ones stored.
 */
export class SecretRenewals {
  readonly #made = new Map<string, { secret: string; sealedSecret: string }>();
  constructor(
    private readonly keyring: Keyring,
    private readonly make: () => string = newSecret,
  ) {}

  /** The new secret of `endpointId` (clear, and sealed for it under the current key). */
  of(endpointId: string): { secret: string; sealedSecret: string } {
    let made = this.#made.get(endpointId);
    if (!made) {
      const secret = this.make();
      made = { secret, sealedSecret: sealSecret(this.keyring, secret, endpointId) };
      this.#made.set(endpointId, made);
    }
    return made;
  }
}

export interface RenewReport {
  /** The re-sealing done first, so that an old secret still signing in the window opens with the current key. */
  resealed: ResealReport;
  /** Each endpoint with its new clear secret (to hand to its receiver), and until when the old one also signs (null: not at all). */
  renewed: { id: string; channelSlug: string; secret: string; oldSignsUntil: string | null }[];
}

/**
 * Gives every endpoint a new secret ({@link SecretRenewals}), after sealing every stored secret under the current key
 * ({@link resealSecrets}). For `graceMs` the old secret signs beside the new one (two signatures in
 * `webhook-signature`), so receivers switch without a failed delivery; an endpoint whose old secret does not open gets
 * no window. The old secrets are those of every snapshot made before: after a suspected SECRETS_KEY leak, this and the
 * snapshots retired leave nothing the old key opens.
 */
export async function renewSecrets(
  deps: WebhookStoreDeps,
  keyring: Keyring,
  renewals: SecretRenewals,
  { graceMs, now = new Date(), log }: { graceMs: number; now?: Date; log?: Pick<Logger, 'info' | 'warn' | 'error'> | undefined },
): Promise<RenewReport> {
  const resealedReport = await resealSecrets(deps, keyring, { scope: 'all', log });
  const unreadable = new Set(resealedReport.unreadable);
  const renewed: RenewReport['renewed'] = [];
  for (const endpoint of await listEndpoints(deps, { size: 10_000 })) {
    const { secret, sealedSecret } = renewals.of(endpoint.id);
    const window = unreadable.has(endpoint.id) ? 0 : graceMs;
    const rotated = await rotateSecret(deps, endpoint.id, { sealedSecret, graceMs: window, now });
    if (!rotated) continue; // removed meanwhile
    renewed.push({ id: endpoint.id, channelSlug: endpoint.channelSlug, secret, oldSignsUntil: window > 0 ? rotated.previousSecretUntil : null });
    log?.info({ endpointId: endpoint.id, oldSignsUntil: window > 0 ? rotated.previousSecretUntil : null }, 'webhook secret renewed');
  }
  return { resealed: resealedReport, renewed };
}
