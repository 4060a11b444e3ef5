// Backups of one prefix's indices on OpenSearch's own snapshot API: a manifest in the snapshot's metadata, retention per
// prefix, and a restore into an empty prefix or beside the live indices followed by one atomic alias swap.
import type { Client } from '@opensearch-project/opensearch';
import type { Logger } from '../ground/logger.js';
import { describeSignature, readSignature, signatureDifferences, type EmbedderSignature } from '../embedding/signature.js';
import { mappingSignature } from '../embedding/index-signature.js';
import { INDEX_NAMES, type IndexName } from './index-names.js';
import { indexAliases, readIndexDefinition, resolveAliases, swapAliases } from './opensearch.js';

/** Bumped when the manifest's shape changes; a restore refuses a format it does not know. */
export const MANIFEST_FORMAT = 1;

/** OpenSearch refuses snapshot metadata of more than 1024 bytes (as JSON). */
const MAX_METADATA_BYTES = 1024;

export type BackupErrorCode =
  | 'no_path_repo'
  | 'no_repository'
  | 'no_indices'
  | 'no_snapshot'
  | 'snapshot_failed'
  | 'not_a_backup'
  | 'embedder_mismatch'
  | 'mapping_mismatch'
  | 'live_indices'
  | 'restore_failed';

/** A backup or restore refused or failed, with a sentence that says what to do. */
export class BackupError extends Error {
  constructor(
    readonly code: BackupErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BackupError';
  }
}

/** What a backup says about itself, stored as the snapshot's `metadata`. */
export interface BackupManifest {
  format: number;
  /** The INDEX_PREFIX whose indices the snapshot holds. */
  prefix: string;
  /** Mapping version (`_meta.version`) of each index, by logical name. */
  mappings: Partial<Record<IndexName, number>>;
  /** The embedder the passages index was built with; absent when the prefix had no passages index. */
  embedder?: EmbedderSignature;
  /** Documents per index at the start of the snapshot. */
  documents: Partial<Record<IndexName, number>>;
  /** The library folders the content was built from (not in the backup: they are the source of truth). */
  libraries: string[];
  createdAt: string;
}

/** Where snapshots go: a repository registered in OpenSearch, and for a file-system one its folder under `path.repo`. */
export interface RepositoryOptions {
  repository: string;
  /** `fs` location (relative to the node's `path.repo`, or absolute inside it) used to register a missing repository. */
  location?: string | undefined;
}

const errorReason = (error: unknown): string => {
  const body = (error as { meta?: { body?: { error?: { reason?: string; caused_by?: { reason?: string } } } } }).meta?.body;
  const reason = body?.error?.caused_by?.reason ?? body?.error?.reason;
  return reason ?? (error instanceof Error ? error.message : String(error));
};

/**
 * The repository's type, registering an `fs` repository at `location` when it is missing. A node without `path.repo`
 * (or one that does not cover `location`) is refused with what to set.
 */
export async function ensureRepository(client: Client, { repository, location }: RepositoryOptions): Promise<string> {
  const res = await client.snapshot.getRepository({ repository }, { ignore: [404] });
  const found = (res.body as Record<string, { type?: string }> | undefined)?.[repository];
  if (res.statusCode !== 404 && found?.type) return found.type;
  if (!location) {
    throw new BackupError(
      'no_repository',
      `no snapshot repository "${repository}" is registered, and BACKUP_LOCATION is empty: register one (docs/operations.md, Backups and restore)`,
    );
  }
  try {
    await client.snapshot.createRepository({ repository, body: { type: 'fs', settings: { location, compress: true } } as never });
  } catch (error) {
    const reason = errorReason(error);
    if (/path\.repo/.test(reason)) {
      throw new BackupError(
        'no_path_repo',
        `OpenSearch cannot keep snapshots at "${location}": ${reason}. Give its nodes a path.repo (the local services have one since 2026-11-27: ` +
          '`npm run services -- up` restarts an older single node with it, an older cluster needs `npm run services -- down` then `up --nodes 3`; ' +
          'docker compose: the `opensearch-snapshots` volume), or register an S3 repository under this name (docs/operations.md, Backups and restore)',
      );
    }
    throw new BackupError('no_repository', `could not register the snapshot repository "${repository}": ${reason}`);
  }
  return 'fs';
}

/** A snapshot name for `prefix` at `at`: sortable, lower case, unique to the millisecond. */
export function snapshotName(prefix: string, at: Date): string {
  return `${prefix}backup-${at.toISOString().replace(/[-:]/g, '').replace('.', '-').toLowerCase()}`;
}

/** The manifest as it goes into the snapshot metadata, trimmed to fit OpenSearch's limit (libraries first, then counts). */
export function fitManifest(manifest: BackupManifest, log?: Logger): BackupManifest {
  const size = (m: BackupManifest) => Buffer.byteLength(JSON.stringify(m), 'utf8');
  let fitted = manifest;
  while (size(fitted) > MAX_METADATA_BYTES && fitted.libraries.length > 0) fitted = { ...fitted, libraries: fitted.libraries.slice(0, -1) };
  if (size(fitted) > MAX_METADATA_BYTES) fitted = { ...fitted, documents: {} };
  if (fitted !== manifest) log?.warn({ libraries: manifest.libraries, kept: fitted.libraries }, 'backup manifest trimmed to fit the snapshot metadata limit');
  return fitted;
}

/** The manifest of a snapshot's metadata, or undefined when the snapshot was not made by `npm run backup`. */
export function readManifest(metadata: unknown): BackupManifest | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const m = metadata as Record<string, unknown>;
  if (typeof m.format !== 'number' || typeof m.prefix !== 'string' || typeof m.mappings !== 'object' || m.mappings === null) return undefined;
  const embedder = readSignature(m.embedder);
  return {
    format: m.format,
    prefix: m.prefix,
    mappings: m.mappings as BackupManifest['mappings'],
    ...(embedder ? { embedder } : {}),
    documents: (typeof m.documents === 'object' && m.documents !== null ? m.documents : {}) as BackupManifest['documents'],
    libraries: Array.isArray(m.libraries) ? m.libraries.filter((l): l is string => typeof l === 'string') : [],
    createdAt: typeof m.createdAt === 'string' ? m.createdAt : '',
  };
}

/** What a backup holds, as it is described to a restore: mapping versions and documents per logical index. */
async function describeIndices(client: Client, indices: Partial<Record<IndexName, string>>): Promise<Pick<BackupManifest, 'mappings' | 'embedder' | 'documents'>> {
  const entries = Object.entries(indices) as [IndexName, string][];
  const res = await client.indices.getMapping({ index: entries.map(([, index]) => index) });
  const stored = res.body as Record<string, { mappings?: { _meta?: { version?: unknown } } }>;
  const mappings: BackupManifest['mappings'] = {};
  const documents: BackupManifest['documents'] = {};
  for (const [name, index] of entries) {
    mappings[name] = Number(stored[index]?.mappings?._meta?.version ?? 1);
    documents[name] = Number((await client.count({ index })).body.count);
  }
  const embedder = indices.passages ? mappingSignature(stored[indices.passages] as never) : undefined;
  return { mappings, documents, ...(embedder ? { embedder } : {}) };
}

/** One snapshot of the repository, as `backup --list` shows it. */
export interface BackupInfo {
  name: string;
  state: string;
  startedAt: string;
  durationMs: number;
  indices: string[];
  manifest: BackupManifest | undefined;
  /** Bytes of the snapshot's files (only when asked: one status read per snapshot). */
  bytes?: number;
}

interface SnapshotEntry {
  snapshot: string;
  state: string;
  start_time?: string;
  start_time_in_millis?: number;
  duration_in_millis?: number;
  indices?: string[];
  metadata?: unknown;
  failures?: { index?: string; reason?: string }[];
}

/** The snapshots of `repository` made by `npm run backup` (of `prefix` when given), oldest first. */
export async function listBackups(client: Client, { repository, prefix, sizes = false }: { repository: string; prefix?: string; sizes?: boolean }): Promise<BackupInfo[]> {
  const res = await client.snapshot.get({ repository, snapshot: '_all' });
  const entries = ((res.body as { snapshots?: SnapshotEntry[] }).snapshots ?? []).sort((a, b) => (a.start_time_in_millis ?? 0) - (b.start_time_in_millis ?? 0));
  const rows: BackupInfo[] = [];
  for (const s of entries) {
    const manifest = readManifest(s.metadata);
    if (!manifest || (prefix !== undefined && manifest.prefix !== prefix)) continue;
    const row: BackupInfo = { name: s.snapshot, state: s.state, startedAt: s.start_time ?? '', durationMs: s.duration_in_millis ?? 0, indices: s.indices ?? [], manifest };
    if (sizes) row.bytes = await snapshotBytes(client, repository, s.snapshot);
    rows.push(row);
  }
  return rows;
}

async function snapshotBytes(client: Client, repository: string, snapshot: string): Promise<number | undefined> {
  try {
    const res = await client.snapshot.status({ repository, snapshot });
    return (res.body as { snapshots?: { stats?: { total?: { size_in_bytes?: number } } }[] }).snapshots?.[0]?.stats?.total?.size_in_bytes;
  } catch {
    return undefined;
  }
}

/** The snapshots to delete so that the newest `keep` good ones of the prefix remain: every older one, good or not. */
export function retired(backups: readonly BackupInfo[], keep: number): BackupInfo[] {
  const good = backups.filter((b) => b.state === 'SUCCESS');
  if (good.length <= keep) return [];
  const oldestKept = good[good.length - keep]!;
  return backups.filter((b) => b.startedAt < oldestKept.startedAt);
}

/** Deletes the snapshots of `prefix` beyond the newest `keep` good ones; returns their names. */
export async function pruneBackups(client: Client, { repository, prefix, keep }: { repository: string; prefix: string; keep: number }): Promise<string[]> {
  const old = retired(await listBackups(client, { repository, prefix }), keep);
  for (const b of old) await client.snapshot.delete({ repository, snapshot: b.name });
  return old.map((b) => b.name);
}

export interface SnapshotProgress {
  shardsDone: number;
  shardsTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

export interface BackupOptions extends RepositoryOptions {
  prefix: string;
  /** Good snapshots of the prefix kept; older ones are deleted after a good one (BACKUP_KEEP). */
  keep: number;
  /** The library folders to name in the manifest. */
  libraries?: readonly string[];
  onProgress?: (progress: SnapshotProgress) => void;
  log?: Logger | undefined;
  pollMs?: number;
  now?: () => Date;
}

export interface BackupResult {
  snapshot: string;
  repository: string;
  indices: string[];
  documents: number;
  bytes: number | undefined;
  seconds: number;
  /** Older snapshots of the prefix deleted by retention. */
  deleted: string[];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Snapshots every index behind the aliases of `prefix` (no global state), with the manifest as metadata; waits for it,
 * reporting shards and bytes done, then applies retention. Throws {@link BackupError} when there is nothing to back
 * up, the repository cannot be used, or the snapshot ends other than SUCCESS (it is then deleted, retention untouched).
 */
export async function createBackup(client: Client, options: BackupOptions): Promise<BackupResult> {
  const { prefix, repository, keep, libraries = [], onProgress, log, pollMs = 500, now = () => new Date() } = options;
  const started = Date.now();
  await ensureRepository(client, options);
  const indices = await resolveAliases(client, prefix);
  const names = Object.values(indices);
  if (names.length === 0) throw new BackupError('no_indices', `no index behind the aliases of prefix "${prefix}": nothing to back up (is INDEX_PREFIX right?)`);
  const at = now();
  const manifest = fitManifest({ format: MANIFEST_FORMAT, prefix, ...(await describeIndices(client, indices)), libraries: [...libraries], createdAt: at.toISOString() }, log);
  const snapshot = snapshotName(prefix, at);
  log?.info({ repository, snapshot, indices: names.length }, 'backup started');
  await client.snapshot.create({
    repository,
    snapshot,
    wait_for_completion: false,
    body: { indices: names.join(','), include_global_state: false, ignore_unavailable: false, partial: false, metadata: manifest },
  } as never);
  const entry = await waitForSnapshot(client, { repository, snapshot, pollMs, onProgress });
  if (entry.state !== 'SUCCESS') {
    const why = (entry.failures ?? []).map((f) => `${f.index ?? '?'}: ${f.reason ?? '?'}`).join('; ');
    await client.snapshot.delete({ repository, snapshot }, { ignore: [404] }).catch(() => undefined);
    throw new BackupError('snapshot_failed', `snapshot ${snapshot} ended ${entry.state}${why ? ` (${why})` : ''}; older backups were kept`);
  }
  const bytes = await snapshotBytes(client, repository, snapshot);
  const deleted = await pruneBackups(client, { repository, prefix, keep });
  const documents = Object.values(manifest.documents).reduce((n, c) => n + (c ?? 0), 0);
  const result = { snapshot, repository, indices: names, documents, bytes, seconds: (Date.now() - started) / 1000, deleted };
  log?.info(result, 'backup done');
  return result;
}

/** Polls the snapshot until it is no longer running; reports shards and bytes as it goes. */
async function waitForSnapshot(
  client: Client,
  { repository, snapshot, pollMs, onProgress }: { repository: string; snapshot: string; pollMs: number; onProgress?: ((p: SnapshotProgress) => void) | undefined },
): Promise<SnapshotEntry> {
  for (;;) {
    const status = await client.snapshot.status({ repository, snapshot });
    type Status = { state: string; shards_stats?: { done: number; total: number }; stats?: { total?: { size_in_bytes?: number }; processed?: { size_in_bytes?: number } } };
    const s = (status.body as { snapshots?: Status[] }).snapshots?.[0];
    if (s) {
      onProgress?.({
        shardsDone: s.shards_stats?.done ?? 0,
        shardsTotal: s.shards_stats?.total ?? 0,
        bytesDone: s.stats?.processed?.size_in_bytes ?? 0,
        bytesTotal: s.stats?.total?.size_in_bytes ?? 0,
      });
    }
    // The status can read SUCCESS while the snapshot is still being finalised: its own state decides.
    const res = await client.snapshot.get({ repository, snapshot });
    const entry = (res.body as { snapshots: SnapshotEntry[] }).snapshots[0]!;
    if (entry.state !== 'IN_PROGRESS') return entry;
    await sleep(pollMs);
  }
}

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
    ? `rebuild from the library folders instead (\`npm run ingest -- <folder>\` for ${manifest.libraries.join(', ')})`
    : 'rebuild from the library folders instead (`npm run ingest -- <folder>` for each)';
  if (manifest.format > MANIFEST_FORMAT) {
    return {
      code: 'not_a_backup',
      message: `snapshot ${snapshot} has manifest format ${manifest.format}, newer than this release reads (${MANIFEST_FORMAT}): restore it with the release that made it`,
    };
  }
  const configured = manifest.embedder && { ...expected.embedder, dimension: expected.embedder.dimension ?? manifest.embedder.dimension };
  if (manifest.embedder && configured && signatureDifferences(manifest.embedder, configured).length > 0) {
    const fields = signatureDifferences(manifest.embedder, configured).join(', ');
    return {
      code: 'embedder_mismatch',
      message:
        `snapshot ${snapshot} holds vectors of ${describeSignature(manifest.embedder)}, but the configured embedder is ${describeSignature(configured)} (they differ in ${fields}): ` +
        `restore with the matching model (EMBEDDER, MODEL_ID or EMBEDDINGS_MODEL, MODEL_POOLING, MODEL_QUERY_PREFIX, MODEL_PASSAGE_PREFIX as the snapshot's; then \`npm run reindex\` to move to the new one), or ${rebuild}`,
    };
  }
  const differing = (Object.entries(manifest.mappings) as [IndexName, number][]).filter(([name, v]) => expected.mappings[name] !== undefined && expected.mappings[name] !== v);
  if (differing.length > 0) {
    const list = differing.map(([name, v]) => `${name} v${v} (this release: v${expected.mappings[name]})`).join(', ');
    return {
      code: 'mapping_mismatch',
      message: `snapshot ${snapshot} was made with other mapping versions: ${list}; restore it with the release that made it (then upgrade, which reindexes), or ${rebuild}`,
    };
  }
  return undefined;
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
  seconds: number;
}

/** The newest good backup of `prefix`, or the named one; refused when it is not a backup of this tool. */
export async function findBackup(client: Client, { repository, snapshot, from }: { repository: string; snapshot?: string | undefined; from: string }): Promise<BackupInfo> {
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
  const latest = good.at(-1);
  if (!latest)
    throw new BackupError(
      'no_snapshot',
      `no good backup of prefix "${from}" in repository ${repository}: make one with \`npm run backup\` (or list them: \`npm run backup -- --list --all\`)`,
    );
  return latest;
}

/**
 * Restores a backup: its indices under fresh names `<target><name>-v<N>-<stamp>`, then the target prefix's aliases
 * pointed at them in one call. Refuses a snapshot of another embedder or mapping version, and a target prefix with
 * live indices unless `swap` (restored beside them, swapped, the old deleted) or `force` (deleted first).
 */
export async function restoreBackup(client: Client, options: RestoreOptions): Promise<RestoreResult> {
  const { repository, from, as, swap = false, force = false, expected, onProgress, log, pollMs = 500, timeoutMs = 30 * 60_000, graceMs = 2000, seqMargin = 1_000_000 } = options;
  const started = Date.now();
  await ensureRepository(client, options);
  const backup = await findBackup(client, { repository, snapshot: options.snapshot, from });
  const manifest = backup.manifest!;
  const refusal = restoreRefusal(backup.name, manifest, expected);
  if (refusal) throw new BackupError(refusal.code, refusal.message);

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

  const retiredIndices = await swapAliases(client, target, restored);
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
  const result = { snapshot: backup.name, prefix: target, indices: restored, documents, replaced, libraries: manifest.libraries, seconds: (Date.now() - started) / 1000 };
  log?.info({ snapshot: result.snapshot, prefix: target, seconds: result.seconds, replaced: replaced.length }, 'restore done');
  return result;
}

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
