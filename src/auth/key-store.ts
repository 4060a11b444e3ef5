// API key records in the store: create, revoke and list, for `npm run keys` and the tools (the API reads a key by its hash in store/queries.ts).
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import { PAID_PLAN } from '../../core/contract/plans.js';
import type { ApiKeyDoc, UserDoc } from '../../core/store/documents.js';
import { generateApiKey, generateKeyId, hashApiKey } from './api-keys.js';
import { storeFailure } from '../../core/store/transient.js';
import { ledgerBeside, recordInLedger } from '../../core/store/ledger.js';

export interface KeyStoreDeps {
  client: Client;
  aliases: IndexAliases;
}

/** Why a key could not be created; the CLI prints the message. */
export class KeyStoreError extends Error {
  override name = 'KeyStoreError';
}

async function findUser({ client, aliases }: KeyStoreDeps, userId: string): Promise<UserDoc | undefined> {
  const res = await client.search({
    index: aliases.users,
    body: { size: 1, query: { term: { id: userId } } } as never,
  });
  return (res.body.hits.hits[0]?._source as UserDoc | undefined) ?? undefined;
}

/** A new key and its record, made once so that storing it can be retried without minting a second key. */
export interface NewApiKey {
  key: string;
  record: ApiKeyDoc;
}

/** The lifetimes a key may be given, in days; `null` is a key that never expires. */
export const KEY_EXPIRY_DAYS = [30, 90, 365, null] as const;
export type KeyExpiryDays = (typeof KEY_EXPIRY_DAYS)[number];
/** What the console offers first. */
export const DEFAULT_KEY_EXPIRY_DAYS: KeyExpiryDays = 90;

/** Reads a lifetime as a form or a command line gives it (`30`, `90`, `365`, `never`); undefined when it is none of those. */
export function parseKeyExpiry(raw: string): KeyExpiryDays | undefined {
  if (raw === 'never' || raw === 'none') return null;
  return KEY_EXPIRY_DAYS.find((d) => d !== null && String(d) === raw);
}

/** Options of a new key: its owner, its label, and how many days it lasts (`null`: for ever; default: for ever, as keys always did). */
export interface NewKeyOptions {
  userId: string;
  name?: string | null;
  expiresInDays?: KeyExpiryDays;
  now?: Date;
}

/** Makes a key and its record for `userId`; nothing is stored (see {@link storeApiKey}). */
export function newApiKey({ userId, name = null, expiresInDays = null, now = new Date() }: NewKeyOptions): NewApiKey {
  const key = generateApiKey();
  return {
    key,
    record: {
      keyId: generateKeyId(),
      userId,
      name,
      hash: hashApiKey(key),
      last4: key.slice(-4),
      createdAt: now.toISOString(),
      revokedAt: null,
      expiresAt: expiresInDays === null ? null : new Date(now.getTime() + expiresInDays * 86_400_000).toISOString(),
      lastUsedAt: null,
    },
  };
}

/**
 * Stores a key made by {@link newApiKey} if its user is on the paid plan. The record goes
 * under `_id` = sha256(key), so each API call reads it with a real-time GET (no refresh
 * lag: a revocation counts from the very next request), and with `op_type: create`, so
 * storing the same key again is a no-op: a 409 there means an earlier attempt landed
 * (its answer lost to a timeout), and the record under that id is this very one.
 */
export async function storeApiKey(deps: KeyStoreDeps, created: NewApiKey): Promise<NewApiKey> {
  const { userId } = created.record;
  const user = await findUser(deps, userId);
  if (!user) throw new KeyStoreError(`no user "${userId}"`);
  if (user.plan !== PAID_PLAN) throw new KeyStoreError(`user "${userId}" is on the "${user.plan}" plan; API keys need the ${PAID_PLAN} plan`);
  try {
    await deps.client.index({
      index: deps.aliases['api-keys'],
      id: created.record.hash,
      body: created.record as never,
      op_type: 'create',
      refresh: 'wait_for',
    } as never);
  } catch (error) {
    if (storeFailure(error)?.status !== 409) throw error;
  }
  return created;
}

/** Creates a key for a user on the paid plan and returns it with its record: {@link newApiKey}, then {@link storeApiKey}. */
export async function createApiKey(deps: KeyStoreDeps, options: NewKeyOptions): Promise<NewApiKey> {
  return storeApiKey(deps, newApiKey(options));
}

/**
 * Marks a key revoked and returns its record; undefined when no such key exists. Revoking twice keeps the first date.
 * The revocation goes into the deployment's ledger first, where a restore of an older backup cannot undo it.
 */
export async function revokeApiKey({ client, aliases }: KeyStoreDeps, keyId: string, now = new Date()): Promise<ApiKeyDoc | undefined> {
  const res = await client.search({
    index: aliases['api-keys'],
    body: { size: 1, query: { term: { keyId } } } as never,
  });
  const hit = res.body.hits.hits[0];
  if (!hit) return undefined;
  const record = hit._source as ApiKeyDoc;
  const at = record.revokedAt ?? now.toISOString();
  // Also for a key revoked before the ledger existed: the ledger learns it, the record keeps its date.
  await recordInLedger(client, ledgerBeside(aliases['api-keys'], 'api-keys'), { kind: 'key_revoked', keyId: record.keyId, keyHash: record.hash, userId: record.userId, at });
  if (record.revokedAt) return record;
  const revoked: ApiKeyDoc = { ...record, revokedAt: at };
  await client.index({ index: aliases['api-keys'], id: hit._id, body: revoked as never, refresh: 'wait_for' } as never);
  return revoked;
}

/** A user's key by its id; undefined when it is another user's or none (the console revokes only its user's own). */
export async function apiKeyOfUser(deps: KeyStoreDeps, userId: string, keyId: string): Promise<ApiKeyDoc | undefined> {
  const res = await deps.client.search({
    index: deps.aliases['api-keys'],
    body: { size: 1, query: { bool: { filter: [{ term: { keyId } }, { term: { userId } }] } } } as never,
  });
  return (res.body.hits.hits[0]?._source as ApiKeyDoc | undefined) ?? undefined;
}

/** Every key of a user, newest first, without secrets (only hashes are stored anyway). */
export async function listApiKeys({ client, aliases }: KeyStoreDeps, userId: string): Promise<ApiKeyDoc[]> {
  const res = await client.search({
    index: aliases['api-keys'],
    body: { size: 1000, query: { term: { userId } }, sort: [{ createdAt: 'desc' }, { keyId: 'asc' }] } as never,
  });
  return res.body.hits.hits.map((h) => h._source as ApiKeyDoc);
}
