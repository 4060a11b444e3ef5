// Drill: OpenSearch's data directory deleted, then restored from the last backup plus the library folders. On a
// throw-away node of its own (backup-node.ts): a library is loaded and API keys made, a backup taken, the node killed
// and its data folder deleted, the node started empty, the backup restored and the library folder read again; the keys
// made before the backup answer, the documents and a search answer are the same as before. A webhook endpoint on a
// loopback receiver, served by the real webhook workers (backup-webhooks.ts): the changes made before the backup are
// delivered before the loss, none of them again after the restore, and a change recorded after the restore exactly once.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { loadConfig } from '../../core/config/load.js';
import { createApiKey } from '../../src/auth/key-store.js';
import { configuredSignature } from '../../core/embedding/configured.js';
import { createIndexerEmbedder } from '../../core/embedding/indexer-embedder.js';
import { createLogger } from '../../core/ground/logger.js';
import { createOpenSearchClient, indexAliases, resolveAliases, type Client, type IndexName } from '../../core/store/opensearch.js';
import { BackupError, createBackup } from '../../core/store/snapshots.js';
import { readIdentity } from '../../core/store/ledger.js';
import { currentMappingVersions, restoreBackup } from '../../core/store/snapshot-restore.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { getEndpoint, newEndpoint, storeEndpoint } from '../../pipeline/webhooks/store.js';
import type { CheckpointedEndpoint } from '../../pipeline/webhooks/recover.js';
import type { WebhookWorkers } from '../../pipeline/webhooks/worker.js';
import { openSecret, type Keyring } from '../../pipeline/webhooks/sealed.js';
import { drillCluster, drillNode, type DrillNode } from './backup-node.js';
import { changesSince, clearHookQueues, deliveryCounts, recordEdit, startHookReceiver, startHookWorkers, waitUntil, type HookReceiver } from './backup-webhooks.js';
import { SAMPLE_LIBRARY } from './ingest-run.js';
import { startLocalApi } from './local-api.js';
import { check, drillResult, probe, type DrillResult } from './request-loop.js';

const PREFIX = 'drill-backup-';
const REPOSITORY = { repository: 'drill-backups', location: 'drill-backups' };
const EPISODES = '/api/v1/channels/long-field/episodes?limit=5';
const SEARCH = '/api/v1/channels/long-field/search?query=how+do+farmers+keep+soil+healthy';

type Counts = Partial<Record<IndexName, number>>;

async function counts(client: Client): Promise<Counts> {
  const live = await resolveAliases(client, PREFIX);
  if (Object.keys(live).length === 0) return {};
  await client.indices.refresh({ index: Object.values(live).join(',') });
  const out: Counts = {};
  for (const name of Object.keys(live).sort() as IndexName[]) out[name] = Number((await client.count({ index: indexAliases(PREFIX)[name] })).body.count);
  return out;
}

const total = (c: Counts) => Object.values(c).reduce((n, v) => n + (v ?? 0), 0);

const CHANGES = '/api/v1/channels/long-field/changes?limit=2';

interface Answers {
  statuses: number[];
  searchIds: string[];
  /** A change-feed cursor after the first page (issued now, or the one given), and the page it leads to. */
  cursor: string;
  next: { status: number; changes: string[] };
}

/** What the API answers with each key: statuses, the episode ids of a search (keyword-only: no model in the API here), a change-feed page. */
async function answers(url: string, keys: readonly string[], cursor?: string): Promise<Answers> {
  const api = await startLocalApi({ prefix: PREFIX, env: { OPENSEARCH_URL: url, RATE_LIMIT_MAX: '10000000' }, keys: 0, embedder: false });
  const get = async (path: string) => {
    const res = await fetch(new URL(path, api.baseUrl), { headers: { 'x-api-key': keys[0]! } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  try {
    const statuses = await Promise.all(keys.map(async (key) => (await probe(api.baseUrl, EPISODES, { 'x-api-key': key })).status));
    const search = await get(SEARCH);
    const issued = cursor ?? String((await get(CHANGES)).body.cursor);
    const next = await get(`${CHANGES}&cursor=${encodeURIComponent(issued)}`);
    const changes = ((next.body.changes ?? []) as { id?: string; episodeId?: string; type?: string }[]).map((c) => `${c.type ?? '?'}:${c.episodeId ?? c.id ?? '?'}`);
    return {
      statuses,
      searchIds: ((search.body.episodes ?? []) as { episodeId: string }[]).map((e) => e.episodeId),
      cursor: issued,
      next: { status: next.status, changes },
    };
  } finally {
    await api.close();
  }
}

/** The drill on a single node of its own. */
export async function backupRestoreDrill({ library = SAMPLE_LIBRARY }: { library?: string } = {}): Promise<DrillResult> {
  const log = createLogger({ name: 'drill', level: 'warn', fd: 2 });
  return restoreAfterDataLoss({ name: 'backup-restore', node: await drillNode({ log }), library, log });
}

/** The drill on a 3-node cluster of its own, as `npm run services -- up --nodes 3` builds one: every node's data deleted. */
export async function backupRestoreClusterDrill({ library = SAMPLE_LIBRARY }: { library?: string } = {}): Promise<DrillResult> {
  const log = createLogger({ name: 'drill', level: 'warn', fd: 2 });
  return restoreAfterDataLoss({ name: 'backup-restore-cluster', node: await drillCluster({ log }), library, log });
}

async function restoreAfterDataLoss({ name, node, library, log }: { name: string; node: DrillNode; library: string; log: ReturnType<typeof createLogger> }): Promise<DrillResult> {
  const say = (line: string) => process.stderr.write(`drill ${name}: ${line}\n`);
  const config = loadConfig({ ...process.env, OPENSEARCH_URL: node.url, INDEX_PREFIX: PREFIX });
  let client: Client | undefined;
  const connection = createRedisConnection(config.redisUrl);
  let receiver: HookReceiver | undefined;
  let workers: WebhookWorkers | undefined;
  try {
    await clearHookQueues(connection, PREFIX);
    receiver = await startHookReceiver();
    await node.start();
    say(`private OpenSearch ${node.url} started; loading ${library}`);
    client = createOpenSearchClient({ url: node.url, timeoutMs: 300_000 });
    const embedder = await createIndexerEmbedder(config, { log });
    await loadLibrary({ client, embedder, prefix: PREFIX, dir: library, log, layout: config.indexLayout });
    const keys = [];
    for (const user of ['u_member', 'u_maya']) keys.push((await createApiKey({ client, aliases: indexAliases(PREFIX) }, { userId: user, name: 'backup drill' })).key);
    // A webhook endpoint on the loopback receiver, its secret sealed under a key of the drill's own; two changes
    // recorded and delivered by the real workers, which are stopped (writing their delivered checkpoint) before the backup.
    const keyring: Keyring = { current: { id: 'drill0001', bytes: randomBytes(32) } };
    const hooks = { client, aliases: indexAliases(PREFIX) };
    const endpoint = newEndpoint({ url: receiver.url, keyring, allowPrivate: true });
    const channelId = (await storeEndpoint(hooks, 'long-field', endpoint)).channelId;
    workers = await startHookWorkers({ connection, prefix: PREFIX, store: hooks, keyring, log });
    const changesBefore = [await recordEdit(hooks, channelId), await recordEdit(hooks, channelId)].map((c) => c.id);
    const deliveredBefore = await waitUntil(() => changesBefore.every((id) => receiver!.deliveries.some((d) => d.id === id)), 60_000);
    await workers.close();
    workers = undefined;
    const hookBefore = (await getEndpoint(hooks, endpoint.id)) as CheckpointedEndpoint | undefined;
    const postsBeforeBackup = receiver.deliveries.length;
    say(
      `webhook: ${changesBefore.length} changes recorded, ${postsBeforeBackup} POSTs received; cursor ${hookBefore?.cursorSeq}, delivered checkpoint ${hookBefore?.deliveredSeq}`,
    );
    const before = await counts(client);
    const answersBefore = await answers(node.url, keys);

    const backup = await createBackup(client, { ...REPOSITORY, prefix: PREFIX, keep: 2, libraries: [library], log });
    say(`backup ${backup.snapshot}: ${backup.documents} documents, ${backup.bytes ?? '?'} bytes in ${backup.seconds} s`);
    // The deployment's identity lives in its ledger, lost with the data: the restore then has to name it (--foreign).
    const identity = (await readIdentity(client, PREFIX))!;
    // Between the backup and the loss: one more change, delivered (Redis keeps its finished job), then lost with the
    // data: the restored cursor and checkpoint are behind what the receiver has seen.
    workers = await startHookWorkers({ connection, prefix: PREFIX, store: hooks, keyring, log });
    const lostChange = (await recordEdit(hooks, channelId)).id;
    const deliveredBetween = await waitUntil(() => receiver!.deliveries.some((d) => d.id === lostChange), 60_000);
    await workers.close();
    workers = undefined;
    const postsBeforeLoss = receiver.deliveries.length;

    await client.close();
    await node.kill();
    for (const dir of node.dataDirs) fs.rmSync(dir, { recursive: true, force: true });
    say(`killed and the data directories deleted (${node.dataDirs.join(', ')}); starting empty`);
    await node.start();
    client = createOpenSearchClient({ url: node.url, timeoutMs: 300_000 });
    const emptied = await counts(client);

    const expected = { embedder: configuredSignature(config), mappings: await currentMappingVersions() };
    const unnamed = await restoreBackup(client, { ...REPOSITORY, from: PREFIX, expected, log }).catch((e: unknown) => e);
    const restoreStarted = Date.now();
    const restored = await restoreBackup(client, { ...REPOSITORY, from: PREFIX, foreign: identity.id, expected, log });
    const restoreSeconds = (Date.now() - restoreStarted) / 1000;
    const catchUpStarted = Date.now();
    const reread = await loadLibrary({ client, embedder, prefix: PREFIX, dir: library, log, layout: config.indexLayout });
    const catchUpSeconds = (Date.now() - catchUpStarted) / 1000;
    const after = await counts(client);
    const hookAfter = await getEndpoint({ client, aliases: indexAliases(PREFIX) }, endpoint.id);
    const opened = hookAfter ? (() => { try { return openSecret(keyring, hookAfter.secret, endpoint.id) === endpoint.secret; } catch { return false; } })() : false; // prettier-ignore
    const answersAfter = await answers(node.url, keys, answersBefore.cursor);
    const answeringSeconds = (Date.now() - restoreStarted) / 1000;
    say(`restored in ${restoreSeconds} s, library re-read in ${catchUpSeconds} s`);

    // The webhook workers again, on the same Redis (only OpenSearch was lost): a change recorded after the restore.
    const hooksAfter = { client, aliases: indexAliases(PREFIX) };
    const restoredCursor = hookAfter?.cursorSeq ?? 0;
    workers = await startHookWorkers({ connection, prefix: PREFIX, store: hooksAfter, keyring, log });
    const edited = await recordEdit(hooksAfter, channelId);
    const editedAt = Date.now();
    const editDelivered = await waitUntil(() => receiver!.deliveries.some((d) => d.id === edited.id), 60_000);
    const editSeconds = editDelivered ? (receiver.deliveries.find((d) => d.id === edited.id)!.at - editedAt) / 1000 : undefined;
    // A few more dispatch runs, in which a second copy of anything would come.
    await new Promise((r) => setTimeout(r, 5000));
    await workers.close();
    workers = undefined;
    const recordedAfter = (await changesSince(hooksAfter, channelId, restoredCursor)).map((c) => c.id);
    const posts = deliveryCounts(receiver.deliveries);
    const duplicates = [...posts.values()].filter((n) => n > 1).length;
    const redelivered = receiver.deliveries.slice(postsBeforeLoss).filter((d) => changesBefore.includes(d.id) || d.id === lostChange).length;
    const missing = recordedAfter.filter((id) => !posts.has(id));
    const hookEnd = await getEndpoint(hooksAfter, endpoint.id);
    say(
      `webhook after the restore: seq ${edited.seq} recorded, delivered in ${editSeconds ?? '—'} s; ${receiver.deliveries.length} POSTs in all, ${duplicates} webhook-ids more than once`,
    );

    const checks = [
      check('the backup named every index of the prefix', backup.indices.length === Object.keys(before).length, `${backup.indices.length} indices, ${backup.documents} documents`),
      check('with its data deleted the cluster held nothing of the prefix', total(emptied) === 0, `${Object.keys(emptied).length} indices`),
      check(
        'with its ledger lost, the restore is refused until the snapshot’s deployment is named',
        unnamed instanceof BackupError && unnamed.code === 'foreign_snapshot',
        unnamed instanceof Error ? unnamed.message : 'restored unnamed',
      ),
      check('the last backup restored into the empty cluster', restored.snapshot === backup.snapshot, `${restored.snapshot} in ${restoreSeconds} s`),
      check('documents per index after = before', JSON.stringify(after) === JSON.stringify(before), `before ${JSON.stringify(before)}; after ${JSON.stringify(after)}`),
      check(
        'the library folder re-read: nothing lost, nothing to redo',
        reread.episodes.failed === 0 && reread.episodes.indexed === 0,
        `${reread.episodes.unchanged} unchanged, ${reread.episodes.indexed} indexed, ${reread.episodes.failed} failed`,
      ),
      check('every API key made before the backup answers 200', answersBefore.statuses.every((s) => s === 200) && answersAfter.statuses.every((s) => s === 200),
        `before ${answersBefore.statuses.join(',')}; after ${answersAfter.statuses.join(',')}`), // prettier-ignore
      check('the same search answer', answersAfter.searchIds.length > 0 && JSON.stringify(answersAfter.searchIds) === JSON.stringify(answersBefore.searchIds),
        `${answersAfter.searchIds.length} results: ${answersAfter.searchIds.join(', ')}`), // prettier-ignore
      check('the webhook endpoint came back with its cursor, its secret sealed (never in clear) and opening with the same key',
        hookAfter !== undefined && hookAfter.cursorSeq === hookBefore?.cursorSeq && opened && !JSON.stringify(hookAfter).includes(endpoint.secret),
        `cursor ${hookBefore?.cursorSeq ?? '—'} → ${hookAfter?.cursorSeq ?? 'missing'}; secret opens: ${opened}`), // prettier-ignore
      check('the changes recorded before the backup (and one between the backup and the loss) were delivered before the loss, none again after the restore',
        deliveredBefore && deliveredBetween && [...changesBefore, lostChange].every((id) => posts.get(id) === 1) && redelivered === 0,
        `${changesBefore.length} + 1 changes, ${postsBeforeBackup} + ${postsBeforeLoss - postsBeforeBackup} POSTs before the loss, ${redelivered} again after the restore`), // prettier-ignore
      check('a change recorded after the restore (its seq past the restored counter) was delivered exactly once', posts.get(edited.id) === 1,
        `seq ${edited.seq} after cursor ${restoredCursor}: ${posts.get(edited.id) ?? 0} POSTs, ${editSeconds ?? '—'} s after it was recorded (the log's gap grace included)`), // prettier-ignore
      check('no change recorded after the restore is missing, no webhook-id delivered twice', missing.length === 0 && duplicates === 0,
        `${recordedAfter.length} recorded after the restore, ${missing.length} missing; ${receiver.deliveries.length} POSTs for ${posts.size} webhook-ids, ${duplicates} duplicated; cursor now ${hookEnd?.cursorSeq ?? '—'}`), // prettier-ignore
      check('a change-feed cursor issued before the backup reads the same page after the restore',
        answersAfter.next.status === 200 && answersBefore.next.changes.length > 0 && JSON.stringify(answersAfter.next) === JSON.stringify(answersBefore.next),
        `before ${answersBefore.next.status} [${answersBefore.next.changes.join(', ')}]; after ${answersAfter.next.status} [${answersAfter.next.changes.join(', ')}]`), // prettier-ignore
    ];
    return drillResult(name, checks, {
      nodes: node.dataDirs.length,
      documentsBefore: total(before),
      documentsAfter: total(after),
      indices: backup.indices.length,
      snapshotBytes: backup.bytes,
      backupSeconds: backup.seconds,
      restoreSeconds,
      libraryRereadSeconds: catchUpSeconds,
      deletedToAnsweringSeconds: answeringSeconds,
      webhookPosts: receiver.deliveries.length,
      webhookDuplicates: duplicates,
      webhookAfterRestoreSeconds: editSeconds,
    });
  } finally {
    await workers?.close().catch(() => undefined);
    await clearHookQueues(connection, PREFIX).catch(() => undefined);
    connection.disconnect();
    await receiver?.close();
    await client?.close();
    await node.remove();
  }
}
