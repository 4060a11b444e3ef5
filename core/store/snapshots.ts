// Backups of one prefix's indices on OpenSearch's own snapshot API: a manifest in the snapshot's metadata, retention per
// prefix, what a backup holds; the restore is in snapshot-restore.ts.
import type { Client } from '@opensearch-project/opensearch';
import { defineErrors, type ErrorCatalogue, type ErrorCode } from '../ground/define-errors.js';
import type { Logger } from '../ground/logger.js';
import { readSignature, type EmbedderSignature } from '../embedding/signature.js';
import { mappingSignature } from '../embedding/index-signature.js';
import { type IndexName } from './index-names.js';
import { resolveAliases } from './opensearch.js';
import { DEPLOYMENT_ID, deploymentIdentity, type DeploymentIdentity } from './ledger.js';

/** Bumped when the manifest's shape changes; a restore refuses a format it does not know. 2: names its deployment. */
export const MANIFEST_FORMAT = 2;

/** OpenSearch refuses snapshot metadata of more than 1024 bytes (as JSON). */
const MAX_METADATA_BYTES = 1024;

/** Every refusal and failure of a backup or a restore; each error says what to do in its own message. Codes never change meaning. */
export const BACKUP_ERRORS = {
  no_path_repo: { message: 'OpenSearch has no path.repo for a snapshot repository on its file system' },
  no_repository: { message: 'no snapshot repository is registered, or it could not be registered' },
  no_indices: { message: 'no index behind the aliases of this prefix: nothing to back up' },
  no_snapshot: { message: 'no good backup to restore' },
  snapshot_failed: { message: 'the snapshot did not succeed; older backups were kept' },
  not_a_backup: { message: 'the snapshot carries no backup manifest' },
  embedder_mismatch: { message: 'the backup was made for another embedder' },
  mapping_mismatch: { message: 'the backup was made for another mapping version' },
  live_indices: { message: 'the target prefix has live indices' },
  foreign_snapshot: { message: 'the backup was made by another deployment' },
  restore_failed: { message: 'the restore failed' },
} as const satisfies ErrorCatalogue;

export type BackupErrorCode = ErrorCode<typeof BACKUP_ERRORS>;

/** A backup or restore refused or failed, with a sentence that says what to do: `new BackupError(code, message)`. */
export class BackupError extends defineErrors('BackupError', BACKUP_ERRORS).Error {}

/** What a backup says about itself, stored as the snapshot's `metadata`. */
export interface BackupManifest {
  format: number;
  /** The INDEX_PREFIX whose indices the snapshot holds. */
  prefix: string;
  /** The deployment that made it (its ledger's identity); absent in snapshots of format 1. */
  deployment?: DeploymentIdentity;
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

export const errorReason = (error: unknown): string => {
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
  const d = m.deployment as { id?: unknown; prefix?: unknown } | undefined;
  // Anything else than a well-formed id reads as no identity: the restore then refuses it as foreign.
  const deployment = typeof d?.id === 'string' && DEPLOYMENT_ID.test(d.id) && typeof d.prefix === 'string' ? { id: d.id, prefix: d.prefix } : undefined;
  return {
    format: m.format,
    prefix: m.prefix,
    ...(deployment ? { deployment } : {}),
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

export interface SnapshotEntry {
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

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
  const deployment = await deploymentIdentity(client, prefix);
  const manifest = fitManifest(
    { format: MANIFEST_FORMAT, prefix, deployment, ...(await describeIndices(client, indices)), libraries: [...libraries], createdAt: at.toISOString() },
    log,
  );
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
