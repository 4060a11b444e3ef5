// The deployment's ledger, `<prefix>ledger`: its identity and every key revocation and endpoint removal, in one small
// index outside the aliases, so no backup holds it and no restore replaces it (decision 34); a restore re-applies it.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Client } from '@opensearch-project/opensearch';
import { packageFile } from '../ground/package-root.js';
import { storeFailure } from './transient.js';

/** The ledger of `prefix`: a concrete index, never behind an alias, so snapshots of the prefix's aliases leave it out. */
export const ledgerIndex = (prefix: string): string => `${prefix}ledger`;

/**
 * The ledger beside an alias of the same prefix (`<prefix>api-keys` → `<prefix>ledger`): the stores of keys and
 * endpoints are handed their aliases, and the ledger goes with them.
 */
export function ledgerBeside(alias: string, name: string): string {
  if (!alias.endsWith(name)) throw new Error(`alias "${alias}" does not end with "${name}"`);
  return ledgerIndex(alias.slice(0, -name.length));
}

/** Who a deployment is: a random id stored once in its ledger, and the INDEX_PREFIX it runs under. */
export interface DeploymentIdentity {
  /** `dep_` + 16 hex characters. */
  id: string;
  prefix: string;
}

export const DEPLOYMENT_ID = /^dep_[0-9a-f]{16}$/;

/** One entry of the ledger: a revoked key or a removed endpoint. Entries are never deleted (a revocation is final). */
export type LedgerEntry =
  { kind: 'key_revoked'; keyId: string; keyHash: string; userId: string; at: string } | { kind: 'endpoint_removed'; endpointId: string; channelId: string; at: string };

const IDENTITY_DOC = 'deployment';
const entryId = (e: LedgerEntry): string => (e.kind === 'key_revoked' ? `key:${e.keyHash}` : `endpoint:${e.endpointId}`);

/** Creates the ledger of `prefix` when it is missing (two creating at once: the second finds it made). */
export async function ensureLedger(client: Client, prefix: string): Promise<string> {
  const index = ledgerIndex(prefix);
  const exists = await client.indices.exists({ index });
  if (exists.body === true) return index;
  const definition = JSON.parse(await readFile(packageFile('mappings', 'ledger.json'), 'utf8')) as Record<string, unknown>;
  try {
    await client.indices.create({ index, body: definition as never });
  } catch (error) {
    if (storeFailure(error)?.type !== 'resource_already_exists_exception') throw error;
  }
  return index;
}

/** The identity stored in the ledger of `prefix`, or undefined (no ledger yet, or a store that lost it). */
export async function readIdentity(client: Client, prefix: string): Promise<DeploymentIdentity | undefined> {
  const res = await client.get({ index: ledgerIndex(prefix), id: IDENTITY_DOC }, { ignore: [404] });
  const source = (res.body as { found?: boolean; _source?: { deploymentId?: unknown; prefix?: unknown } })._source;
  return typeof source?.deploymentId === 'string' && DEPLOYMENT_ID.test(source.deploymentId) ? { id: source.deploymentId, prefix } : undefined;
}

/**
 * The identity of the deployment of `prefix`, made and stored on first use (`adopt`: this id rather than a new random
 * one, for a store that lost its ledger and takes back its own snapshot). A stored identity is never replaced.
 */
export async function deploymentIdentity(client: Client, prefix: string, { adopt }: { adopt?: string | undefined } = {}): Promise<DeploymentIdentity> {
  const index = await ensureLedger(client, prefix);
  const stored = await readIdentity(client, prefix);
  if (stored) return stored;
  const id = adopt && DEPLOYMENT_ID.test(adopt) ? adopt : `dep_${randomBytes(8).toString('hex')}`;
  try {
    await client.index({
      index,
      id: IDENTITY_DOC,
      op_type: 'create',
      body: { kind: 'deployment', deploymentId: id, prefix, at: new Date().toISOString() },
    } as never);
  } catch (error) {
    if (storeFailure(error)?.status !== 409) throw error;
  }
  return (await readIdentity(client, prefix))!;
}

/**
 * Records an entry in `ledger` before the store is changed: a write that fails after it leaves the entry, which the
 * next restore applies (a revocation made twice is one entry, the first date kept).
 */
export async function recordInLedger(client: Client, ledger: string, entry: LedgerEntry): Promise<void> {
  await ensureLedger(client, ledger.slice(0, -'ledger'.length));
  try {
    // No refresh wait: the restore refreshes the ledger before it reads it.
    await client.index({ index: ledger, id: entryId(entry), op_type: 'create', body: { ...entry, ref: entryId(entry) } as never } as never);
  } catch (error) {
    if (storeFailure(error)?.status !== 409) throw error;
  }
}

/** Every entry of the ledgers of `prefixes` (missing ledgers read as empty), oldest first. */
export async function readLedger(client: Client, prefixes: readonly string[]): Promise<LedgerEntry[]> {
  const indices = [...new Set(prefixes)].map(ledgerIndex);
  await client.indices.refresh({ index: indices.join(','), ignore_unavailable: true } as never, { ignore: [404] });
  const entries: LedgerEntry[] = [];
  let after: unknown[] | undefined;
  for (;;) {
    const res = await client.search(
      {
        index: indices.join(','),
        ignore_unavailable: true,
        body: {
          size: 1000,
          query: { terms: { kind: ['key_revoked', 'endpoint_removed'] } },
          sort: [{ at: 'asc' }, { ref: 'asc' }],
          _source: { excludes: ['ref'] },
          ...(after ? { search_after: after } : {}),
        },
      } as never,
      { ignore: [404] },
    );
    const hits = (res.body as { hits?: { hits: { _source: LedgerEntry; sort: unknown[] }[] } }).hits?.hits ?? [];
    entries.push(...hits.map((h) => h._source));
    if (hits.length < 1000) return entries;
    after = hits.at(-1)!.sort;
  }
}
