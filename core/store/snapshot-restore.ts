// Restores of a backup made by snapshots.ts: into an empty prefix, or beside the live indices followed by one atomic
// alias swap; refused for another embedder or mapping version, or another deployment unless named; the ledger's
// revocations and removals applied before the restored indices serve; change counters advanced past anything handed out.
import type { Client } from '@opensearch-project/opensearch';
import type { Logger } from '../ground/logger.js';
import { printable, shellWord } from '../ground/shell-words.js';
import type { ApiKeyDoc } from './documents.js';
import { readIdentity, readLedger, type DeploymentIdentity, type LedgerEntry } from './ledger.js';
import { describeSignature, signatureDifferences, type EmbedderSignature } from '../embedding/signature.js';
import { INDEX_NAMES, type IndexName } from './index-names.js';
import { indexAliases, readIndexDefinition, resolveAliases, swapAliases } from './opensearch.js';
import {
  MANIFEST_FORMAT,
  type BackupErrorCode,
  BackupError,
  type BackupManifest,
  type RepositoryOptions,
  errorReason,
  ensureRepository,
  readManifest,
  type BackupInfo,
  type SnapshotEntry,
  listBackups,
  sleep,
} from './snapshots.js';
/** What a restore must match: the configured embedder and this release's mapping versions. */
export interface RestoreExpectations {
  /** The configured embedder; without a dimension (not loaded yet) only the other fields are compared. */
  embedder: Omit<EmbedderSignature, 'dimension'> & { dimension?: number | undefined };
  mappings: Partial<Record<IndexName, number>>;
}

/** This release's mapping version of every index (mappings/*.json `_meta.version`). */
export async function currentMappingVersions(): Promise<Record<IndexName, number>> {
  const versions = {} as Record<IndexName, number>;
  for (const name of INDEX_NAMES) versions[name] = Number((await readIndexDefinition(name)).mappings._meta?.version ?? 1);
  return versions;
}

/** Why `manifest` cannot be restored by this process (another embedder, other mapping versions), or undefined. */
export function restoreRefusal(snapshot: string, manifest: BackupManifest, expected: RestoreExpectations): { code: BackupErrorCode; message: string } | undefined {
  const rebuild = manifest.libraries.length
    ? `rebuild from the library folders instead (\`npm run ingest -- <folder>\` for ${manifest.libraries.map(shellWord).join(', ')})`
    : 'rebuild from the library folders instead (`npm run ingest -- <folder>` for each)';
  if (manifest.format > MANIFEST_FORMAT) {
    return {
      code: 'not_a_backup',
      message: `snapshot ${printable(snapshot)} has manifest format ${manifest.format}, newer than this release reads (${MANIFEST_FORMAT}): restore it with the release that made it`,
    };
  }
  const configured = manifest.embedder && { ...expected.embedder, dimension: expected.embedder.dimension ?? manifest.embedder.dimension };
  if (manifest.embedder && configured && signatureDifferences(manifest.embedder, configured).length > 0) {
    const fields = signatureDifferences(manifest.embedder, configured).join(', ');
    return {
      code: 'embedder_mismatch',
      message:
        `snapshot ${printable(snapshot)} holds vectors of ${describeSignature(manifest.embedder)}, but the configured embedder is ${describeSignature(configured)} (they differ in ${fields}): ` +
        `restore with the matching model (EMBEDDER, MODEL_ID or EMBEDDINGS_MODEL, MODEL_POOLING, MODEL_QUERY_PREFIX, MODEL_PASSAGE_PREFIX as the snapshot's; then \`npm run reindex\` to move to the new one), or ${rebuild}`,
    };
  }
  const differing = (Object.entries(manifest.mappings) as [IndexName, number][]).filter(([name, v]) => expected.mappings[name] !== undefined && expected.mappings[name] !== v);
  if (differing.length > 0) {
    const list = differing.map(([name, v]) => `${name} v${v} (this release: v${expected.mappings[name]})`).join(', ');
    return {
      code: 'mapping_mismatch',
      message: `snapshot ${printable(snapshot)} was made with other mapping versions: ${list}; restore it with the release that made it (then upgrade, which reindexes), or ${rebuild}`,
    };
  }
  return undefined;
}

/** What `--foreign` takes for a snapshot: its deployment's id, or `unknown` for one made before deployments had ids. */
export const foreignName = (manifest: Pick<BackupManifest, 'deployment'>): string => manifest.deployment?.id ?? 'unknown';

const describeDeployment = (identity: DeploymentIdentity | undefined, prefix: string): string =>
  identity ? `${identity.id} (prefix ${shellWord(identity.prefix)})` : `with no identity (prefix ${shellWord(prefix)})`;

/**
 * Why `manifest`, made by another deployment than `self` (the deployment of INDEX_PREFIX, undefined when its ledger
 * holds no identity), is refused, or undefined: its own snapshot, or one named by `foreign` ({@link foreignName}).
 * The sentence shows both identities.
 */
export function foreignRefusal(
  snapshot: string,
  manifest: Pick<BackupManifest, 'deployment' | 'prefix'>,
  self: DeploymentIdentity | undefined,
  { from, foreign }: { from: string; foreign?: string | undefined },
): { code: BackupErrorCode; message: string } | undefined {
  if (self && manifest.deployment?.id === self.id) return undefined;
  const name = foreignName(manifest);
  if (foreign === name) return undefined;
  const theirs = manifest.deployment
    ? `deployment ${describeDeployment(manifest.deployment, manifest.prefix)}`
    : `a deployment with no id (prefix ${shellWord(manifest.prefix)}, made before snapshots named their deployment)`;
  const ours = self
    ? `this deployment is ${describeDeployment(self, from)}`
    : `this deployment (prefix ${shellWord(from)}) has no identity: its ledger is missing (a new store, or one that lost its data)`;
  const wrong = foreign !== undefined ? ` (--foreign ${shellWord(foreign)} names another)` : '';
  return {
    code: 'foreign_snapshot',
    message:
      `snapshot ${printable(snapshot)} was made by ${theirs}, and ${ours}${wrong}: restoring it brings in that deployment's users, members, keys and webhook endpoints; ` +
      `if that is meant, name it: --foreign ${name}`,
  };
}

/** Escapes `text` for a Java regular expression (the restore's `rename_pattern`). */
const javaQuote = (text: string): string => text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');

/** The restore's renaming: `<from><name>-v<N>-<stamp>` becomes `<to><name>-v<N>-<newStamp>`, beside whatever lives there. */
export function renameRule(from: string, to: string, stamp: number): { rename_pattern: string; rename_replacement: string } {
  return { rename_pattern: `^${javaQuote(from)}(.+)-v(\\d+)-\\d+$`, rename_replacement: `${to}$1-v$2-${stamp}` };
}

/** The logical name and version of a concrete index of `prefix`, or undefined. */
export function parseIndexName(prefix: string, index: string): { name: IndexName; version: number } | undefined {
  if (!index.startsWith(prefix)) return undefined;
  const m = /^(.+)-v(\d+)-\d+$/.exec(index.slice(prefix.length));
  const name = INDEX_NAMES.find((n) => n === m?.[1]);
  return name ? { name, version: Number(m![2]) } : undefined;
}

export interface RestoreOptions extends RepositoryOptions {
  /** A snapshot's name; default the newest good one of `from`. */
  snapshot?: string | undefined;
  /** The prefix whose backups are looked at when no snapshot is named (INDEX_PREFIX). */
  from: string;
  /** Restore into this prefix instead of the snapshot's own. */
  as?: string | undefined;
  /** Restore beside the live indices of the target prefix, then swap its aliases to the restored ones and delete the old. */
  swap?: boolean;
  /** Delete the live indices of the target prefix first, then restore. */
  force?: boolean;
  /** Accept a snapshot of another deployment: its deployment id as the refusal names it ({@link foreignName}). */
  foreign?: string | undefined;
  expected: RestoreExpectations;
  onProgress?: (progress: { bytesDone: number; bytesTotal: number; shardsDone: number; shardsTotal: number }) => void;
  log?: Logger | undefined;
  pollMs?: number;
  timeoutMs?: number;
  /** With `swap`: wait after the alias swap before deleting the old indices, in ms. Default 2000. */
  graceMs?: number;
  /** How far each channel's change counter is advanced (see {@link advanceChangeCounters}). Default 1,000,000. */
  seqMargin?: number;
}

export interface RestoreResult {
  snapshot: string;
  prefix: string;
  indices: Partial<Record<IndexName, string>>;
  /** Documents per index: in the manifest (at backup time) and now. */
  documents: Partial<Record<IndexName, { backup: number | undefined; restored: number }>>;
  /** Live indices the swap (or --force) replaced, deleted. */
  replaced: string[];
  libraries: string[];
  /** This deployment (INDEX_PREFIX's ledger), the snapshot's, and whether it was restored as foreign (`--foreign`). */
  deployment: { self: DeploymentIdentity | null; snapshot: DeploymentIdentity | null; foreign: boolean };
  /** The ledger's revocations and removals that the backup predates, applied before the restored indices served. */
  reapplied: { keysRevoked: string[]; endpointsRemoved: string[] };
  /** What came back active: keys (at most {@link LISTED} of `activeKeys`) and webhook endpoints (URLs shown by origin only). */
  cameBack: {
    activeKeys: number;
    keys: Pick<ApiKeyDoc, 'keyId' | 'userId' | 'name' | 'last4'>[];
    endpoints: { id: string; channelSlug: string; origin: string }[];
  };
  seconds: number;
}

/** Keys and endpoints listed in a restore's result; the count of active keys is exact. */
export const LISTED = 1000;

/** The newest good backup of `prefix`, or the named one; refused when it is not a backup of this tool. */
export async function findBackup(
  client: Client,
  { repository, snapshot, from, deploymentId }: { repository: string; snapshot?: string | undefined; from: string; deploymentId?: string | undefined },
): Promise<BackupInfo> {
  if (snapshot) {
    const res = await client.snapshot.get({ repository, snapshot }, { ignore: [404] });
    const entry = (res.body as { snapshots?: SnapshotEntry[] }).snapshots?.[0];
    if (res.statusCode === 404 || !entry) throw new BackupError('no_snapshot', `no snapshot "${snapshot}" in repository ${repository} (\`npm run backup -- --list\`)`);
    const manifest = readManifest(entry.metadata);
    if (!manifest)
      throw new BackupError('not_a_backup', `snapshot "${snapshot}" carries no backup manifest (it was not made by \`npm run backup\`); restore it with OpenSearch's _restore API`);
    if (entry.state !== 'SUCCESS') throw new BackupError('no_snapshot', `snapshot "${snapshot}" is ${entry.state}, not a good backup`);
    return { name: entry.snapshot, state: entry.state, startedAt: entry.start_time ?? '', durationMs: entry.duration_in_millis ?? 0, indices: entry.indices ?? [], manifest };
  }
  const good = (await listBackups(client, { repository, prefix: from })).filter((b) => b.state === 'SUCCESS');
  // Another deployment under the same prefix in a shared repository: this deployment's own newest backup first.
  const mine = good.filter((b) => deploymentId !== undefined && b.manifest?.deployment?.id === deploymentId);
  const latest = (mine.length > 0 ? mine : good).at(-1);
  if (!latest)
    throw new BackupError(
      'no_snapshot',
      `no good backup of prefix "${from}" in repository ${repository}: make one with \`npm run backup\` (or list them: \`npm run backup -- --list --all\`)`,
    );
  return latest;
}

/**
 * Restores a backup: its indices under fresh names `<target><name>-v<N>-<stamp>`, then the target prefix's aliases
 * pointed at them in one call. Refuses a snapshot of another embedder or mapping version, one of another deployment
 * unless `foreign` names it, and a target prefix with live indices unless `swap` (restored beside them, swapped, the
 * old deleted) or `force` (deleted first). The ledger's revocations and removals are applied before the swap.
 */
export async function restoreBackup(client: Client, options: RestoreOptions): Promise<RestoreResult> {
  const {
    repository,
    from,
    as,
    swap = false,
    force = false,
    foreign,
    expected,
    onProgress,
    log,
    pollMs = 500,
    timeoutMs = 30 * 60_000,
    graceMs = 2000,
    seqMargin = 1_000_000,
  } = options;
  const started = Date.now();
  await ensureRepository(client, options);
  const self = await readIdentity(client, from);
  const backup = await findBackup(client, { repository, snapshot: options.snapshot, from, deploymentId: self?.id });
  const manifest = backup.manifest!;
  const refusal = restoreRefusal(backup.name, manifest, expected) ?? foreignRefusal(backup.name, manifest, self, { from, foreign });
  if (refusal) throw new BackupError(refusal.code, refusal.message);
  const isForeign = !self || manifest.deployment?.id !== self.id;
  if (isForeign) log?.warn({ snapshot: backup.name, deployment: manifest.deployment ?? null, self: self ?? null }, 'restoring a snapshot of another deployment (--foreign)');

  const target = as ?? manifest.prefix;
  const live = await resolveAliases(client, target);
  const liveIndices = Object.values(live);
  if (liveIndices.length > 0 && !swap && !force) {
    throw new BackupError(
      'live_indices',
      `prefix "${target}" has ${liveIndices.length} live indices: restore beside them with --swap (restored under new names, then the aliases swapped in one call), ` +
        'into another prefix with --as <prefix>, or replace them with --force (deleted first)',
    );
  }
  const replaced: string[] = [];
  if (force && !swap && liveIndices.length > 0) {
    log?.warn({ prefix: target, indices: liveIndices }, 'deleting the live indices before the restore (--force)');
    await client.indices.delete({ index: liveIndices.join(',') });
    replaced.push(...liveIndices);
  }

  const sources = backup.indices.filter((i) => parseIndexName(manifest.prefix, i));
  const stamp = Date.now();
  const rule = renameRule(manifest.prefix, target, stamp);
  const restored: Partial<Record<IndexName, string>> = {};
  for (const index of sources) {
    const parsed = parseIndexName(manifest.prefix, index)!;
    restored[parsed.name] = `${target}${parsed.name}-v${parsed.version}-${stamp}`;
  }
  const names = Object.values(restored);
  log?.info({ snapshot: backup.name, prefix: target, indices: names.length }, 'restore started');
  try {
    await client.snapshot.restore({
      repository,
      snapshot: backup.name,
      wait_for_completion: false,
      body: { indices: sources.join(','), include_global_state: false, include_aliases: false, ...rule },
    } as never);
  } catch (error) {
    throw new BackupError('restore_failed', `OpenSearch refused to restore ${backup.name}: ${errorReason(error)}`);
  }
  await waitForRecovery(client, { indices: names, pollMs, timeoutMs, onProgress });

  // Before any alias points at them: from the swap on, the restored keys authenticate and the endpoints are dispatched.
  let reapplied: RestoreResult['reapplied'];
  let cameBack: RestoreResult['cameBack'];
  try {
    const entries = await readLedger(client, [from, target, manifest.prefix]);
    reapplied = await applyLedger(client, entries, { keys: restored['api-keys'], webhooks: restored.webhooks });
    cameBack = await whatCameBack(client, { keys: restored['api-keys'], webhooks: restored.webhooks });
  } catch (error) {
    await client.indices.delete({ index: names.join(',') }, { ignore: [404] }).catch(() => undefined);
    throw new BackupError(
      'restore_failed',
      `the ledger's revocations could not be applied to the restored indices (${errorReason(error)}); they were deleted unserved: run the restore again`,
    );
  }
  if (reapplied.keysRevoked.length + reapplied.endpointsRemoved.length > 0) log?.info({ snapshot: backup.name, ...reapplied }, 'ledger re-applied to the restored indices');

  const retiredIndices = await swapAliases(client, target, restored);
  // Once more after the swap: a revocation made while the restore ran wrote its ledger entry after the first read, or
  // its store write to the indices the swap retired.
  const late = await applyLedger(client, await readLedger(client, [from, target, manifest.prefix]), { keys: restored['api-keys'], webhooks: restored.webhooks });
  reapplied.keysRevoked.push(...late.keysRevoked);
  reapplied.endpointsRemoved.push(...late.endpointsRemoved);
  const lateKeys = new Set(late.keysRevoked);
  const lateEndpoints = new Set(late.endpointsRemoved);
  cameBack.activeKeys -= cameBack.keys.filter((k) => lateKeys.has(k.keyId)).length;
  cameBack.keys = cameBack.keys.filter((k) => !lateKeys.has(k.keyId));
  cameBack.endpoints = cameBack.endpoints.filter((e) => !lateEndpoints.has(e.id));
  if (retiredIndices.length > 0) {
    await sleep(graceMs); // searches already sent to the old indices finish there
    await client.indices.delete({ index: retiredIndices.join(',') }, { ignore: [404] });
    replaced.push(...retiredIndices);
  }
  const aliases = indexAliases(target);
  if (restored.changes) await advanceChangeCounters(client, aliases.changes, seqMargin);
  await client.indices.refresh({ index: names.join(',') });
  const documents: RestoreResult['documents'] = {};
  for (const name of Object.keys(restored) as IndexName[]) {
    documents[name] = { backup: manifest.documents[name], restored: Number((await client.count({ index: aliases[name] })).body.count) };
  }
  const result: RestoreResult = {
    snapshot: backup.name,
    prefix: target,
    indices: restored,
    documents,
    replaced,
    libraries: manifest.libraries,
    deployment: { self: self ?? null, snapshot: manifest.deployment ?? null, foreign: isForeign },
    reapplied,
    cameBack,
    seconds: (Date.now() - started) / 1000,
  };
  log?.info({ snapshot: result.snapshot, prefix: target, seconds: result.seconds, replaced: replaced.length }, 'restore done');
  return result;
}

/**
 * Applies the ledger's entries to restored (not yet served) indices: a revoked key gets its revocation date back, a
 * removed endpoint is deleted (its restored cursor never dispatched). Returns what the backup predated. Every item of
 * each `_bulk` is checked.
 */
export async function applyLedger(
  client: Client,
  entries: readonly LedgerEntry[],
  { keys, webhooks }: { keys?: string | undefined; webhooks?: string | undefined },
): Promise<RestoreResult['reapplied']> {
  const reapplied: RestoreResult['reapplied'] = { keysRevoked: [], endpointsRemoved: [] };
  const revoked = entries.flatMap((e) => (e.kind === 'key_revoked' ? [e] : []));
  const removed = entries.flatMap((e) => (e.kind === 'endpoint_removed' ? [e] : []));
  if (keys && revoked.length > 0) {
    const found = (await client.mget({ index: keys, body: { ids: revoked.map((e) => e.keyHash) } } as never)).body as {
      docs: { _id: string; found?: boolean; _source?: ApiKeyDoc }[];
    };
    const active = new Set(found.docs.filter((d) => d.found && d._source && !d._source.revokedAt).map((d) => d._id));
    const due = revoked.filter((e) => active.has(e.keyHash));
    await bulk(
      client,
      due.flatMap((e) => [{ update: { _index: keys, _id: e.keyHash } }, { doc: { revokedAt: e.at } }]),
    );
    reapplied.keysRevoked = due.map((e) => e.keyId);
  }
  if (webhooks && removed.length > 0) {
    const items = await bulk(
      client,
      removed.flatMap((e) => [{ delete: { _index: webhooks, _id: e.endpointId } }]),
      { absent: true },
    );
    reapplied.endpointsRemoved = removed.filter((_, i) => items[i] === 'deleted').map((e) => e.endpointId);
  }
  await client.indices.refresh({ index: [keys, webhooks].filter(Boolean).join(',') });
  return reapplied;
}

/** Runs one `_bulk` and returns each item's result; throws on an item's error (a 404 of a delete only when not `absent`). */
async function bulk(client: Client, body: object[], { absent = false }: { absent?: boolean } = {}): Promise<string[]> {
  if (body.length === 0) return [];
  const res = (await client.bulk({ body } as never)).body as { items: Record<string, { status: number; result?: string; error?: { type?: string; reason?: string } }>[] };
  return res.items.map((item) => {
    const outcome = Object.values(item)[0]!;
    if (outcome.error && !(absent && outcome.status === 404)) throw new Error(`${outcome.error.type}: ${outcome.error.reason}`);
    return outcome.result ?? String(outcome.status);
  });
}

/** The active keys and the endpoints of restored indices, as a restore reports them (an endpoint's URL by origin only: the path may be a capability). */
async function whatCameBack(client: Client, { keys, webhooks }: { keys?: string | undefined; webhooks?: string | undefined }): Promise<RestoreResult['cameBack']> {
  const out: RestoreResult['cameBack'] = { activeKeys: 0, keys: [], endpoints: [] };
  if (keys) {
    const res = await client.search({
      index: keys,
      body: { size: LISTED, track_total_hits: true, query: { bool: { must_not: { exists: { field: 'revokedAt' } } } }, sort: [{ createdAt: 'asc' }, { keyId: 'asc' }] },
    } as never);
    const body = res.body as { hits: { total: { value: number }; hits: { _source: ApiKeyDoc }[] } };
    out.activeKeys = body.hits.total.value;
    out.keys = body.hits.hits.map(({ _source: k }) => ({ keyId: k.keyId, userId: k.userId, name: k.name, last4: k.last4 }));
  }
  if (webhooks) {
    const res = await client.search({ index: webhooks, body: { size: LISTED, _source: ['id', 'channelSlug', 'url'], sort: [{ createdAt: 'asc' }, { id: 'asc' }] } } as never);
    const hits = (res.body as { hits: { hits: { _source: { id: string; channelSlug: string; url: string } }[] } }).hits.hits;
    out.endpoints = hits.map(({ _source: e }) => ({ id: e.id, channelSlug: e.channelSlug, origin: originOf(e.url) }));
  }
  return out;
}

const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return '(unreadable URL)';
  }
};

/** Waits until every primary shard of `indices` has recovered from the snapshot, reporting bytes; fails on a timeout. */
async function waitForRecovery(
  client: Client,
  { indices, pollMs, timeoutMs, onProgress }: { indices: string[]; pollMs: number; timeoutMs: number; onProgress?: RestoreOptions['onProgress'] },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  type Shard = { primary: boolean; stage: string; type: string; index?: { size?: { total_in_bytes?: number; recovered_in_bytes?: number } } };
  while (Date.now() < deadline) {
    const res = await client.indices.recovery({ index: indices.join(',') }, { ignore: [404] });
    const shards = Object.values((res.body ?? {}) as Record<string, { shards?: Shard[] }>)
      .flatMap((i) => i.shards ?? [])
      .filter((s) => s.primary);
    const done = shards.filter((s) => s.stage === 'DONE').length;
    onProgress?.({
      shardsDone: done,
      shardsTotal: shards.length,
      bytesDone: shards.reduce((n, s) => n + (s.index?.size?.recovered_in_bytes ?? 0), 0),
      bytesTotal: shards.reduce((n, s) => n + (s.index?.size?.total_in_bytes ?? 0), 0),
    });
    if (shards.length > 0 && done === shards.length && new Set(Object.keys(res.body ?? {})).size >= indices.length) {
      await client.cluster.health({ index: indices.join(','), wait_for_status: 'yellow', timeout: '60s' });
      return;
    }
    await sleep(pollMs);
  }
  throw new BackupError('restore_failed', `the restored indices did not recover within ${Math.round(timeoutMs / 1000)} s; see GET _cat/recovery`);
}

/**
 * Advances every channel's change counter by `margin`. Seqs handed out between the backup and the loss are not in
 * the restored log; without this, the changes recorded after the restore would take those seqs again, and a member
 * cursor issued in between would skip them. Past the margin, such a cursor reads on from the first change recorded
 * after the restore (at least once: a change re-derived from the library may repeat one it saw), and the hole below
 * is passed after the feed's gap grace.
 */
export async function advanceChangeCounters(client: Client, index: string, margin: number): Promise<number> {
  // One update per channel: `_update_by_query` lives in the reindex module, which not every distribution carries.
  const res = await client.search({ index, body: { query: { term: { kind: 'counter' } }, size: 10_000, _source: false } } as never);
  const ids = (res.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id);
  for (const id of ids) {
    await client.update({ index, id, retry_on_conflict: 3, body: { script: { lang: 'painless', source: 'ctx._source.seq += params.n', params: { n: margin } } } } as never);
  }
  return ids.length;
}
