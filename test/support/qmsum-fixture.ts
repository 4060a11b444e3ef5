// The qmsum library loaded once per test run, with the real model, into the fixed prefix `test-qmsum-`.
//
// Suites share it read-only:
//
//   before(async function () {
//     this.timeout(QMSUM_LOAD_TIMEOUT_MS);
//     ({ client, prefix } = await ensureQmsumLoaded());
//   });
//
// The first load of a fresh store embeds every passage (slow, see the indexer README);
// later runs find every episode unchanged (same sourceHash) and only re-read the files.
// Suites that write use their own prefix (`test-idx-<random>-`) and delete it afterwards.
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import type { Embedder } from '../../src/embedder.js';
import { createLogger } from '../../src/logger.js';
import { createOpenSearchClient, deleteIndices, ensureIndices, type Client } from '../../src/store/opensearch.js';
import { passagesIndexModel } from '../../indexer/load-episode.js';
import { createIndexerEmbedder } from '../../indexer/embedder.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { createProgress } from '../../indexer/progress.js';
import { formatSummary, type LoadSummary } from '../../indexer/summary.js';

/** `<repoRoot>/../shared/data/qmsum`. */
export const QMSUM_DIR = fileURLToPath(new URL('../../../shared/data/qmsum/', import.meta.url));
/** `TEST_QMSUM_PREFIX` gives a checkout of its own prefix, so two working copies sharing one node never reload each other's passages. */
export const QMSUM_PREFIX = process.env.TEST_QMSUM_PREFIX || 'test-qmsum-';
/** Held while a process loads, so that two test processes never embed the same library at once. */
const LOCK_FILE = fileURLToPath(new URL('../../.cache/qmsum-fixture.lock', import.meta.url));
/** Generous: a first load on a fresh store embeds ~18,000 passages on CPU. */
export const QMSUM_LOAD_TIMEOUT_MS = 60 * 60 * 1000;

export interface QmsumFixture {
  prefix: string;
  client: Client;
  summary: LoadSummary;
  /** The real embedder the passages were embedded with (for query vectors). */
  embedder: Embedder;
}

let loading: Promise<QmsumFixture> | undefined;

/**
 * Loads /work/shared/data/qmsum into `test-qmsum-` once per process (memoized) and
 * idempotently across runs. Rejects when anything in the library was skipped or failed.
 */
export function ensureQmsumLoaded(): Promise<QmsumFixture> {
  loading ??= withLock(load).catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

/**
 * Runs `fn` holding a lock file (created exclusively, holding our pid). A lock whose
 * process is gone is taken over; otherwise we wait: the other load makes ours a no-op.
 */
async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  await mkdir(dirname(LOCK_FILE), { recursive: true });
  for (let waited = 0; ; waited++) {
    try {
      const handle = await open(LOCK_FILE, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(await readFile(LOCK_FILE, 'utf8').catch(() => ''));
      if (!holder || !alive(holder)) {
        await rm(LOCK_FILE, { force: true });
        continue;
      }
      if (waited % 30 === 0) process.stderr.write(`qmsum fixture: waiting for process ${holder} to finish loading\n`);
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(LOCK_FILE, { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function load(): Promise<QmsumFixture> {
  const config = loadConfig(process.env);
  const log = createLogger({ name: 'qmsum-fixture', level: 'info', fd: 2 });
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 120_000 });
  // A fresh store (a new clone) re-uses the vectors an earlier run on this machine computed (EMBED_CACHE_DIR).
  const embedder = await createIndexerEmbedder(config);
  const aliases = await ensureIndices(client, { prefix: QMSUM_PREFIX, modelId: embedder.modelId });
  const indexModel = await passagesIndexModel(client, aliases);
  if (indexModel !== embedder.modelId) {
    // A test prefix built for another model (an older run): start it over rather than mix vectors.
    log.warn({ prefix: QMSUM_PREFIX, model: indexModel, expected: embedder.modelId }, 'test prefix holds another model; rebuilding it');
    await deleteIndices(client, QMSUM_PREFIX);
  }
  const progress = createProgress({ label: 'qmsum fixture', log, tty: false, intervalMs: 30_000 });
  let summary: LoadSummary;
  try {
    summary = await loadLibrary({
      client,
      embedder,
      prefix: QMSUM_PREFIX,
      dir: QMSUM_DIR,
      onProgress: (p) => progress.update(p.done, p.total, { embedded: p.embedded }),
    });
  } finally {
    progress.stop();
  }
  if (!summary.ok) throw new Error(`qmsum did not load cleanly:\n${formatSummary(summary)}`);
  log.info({ seconds: Math.round(summary.durationMs / 1000), episodes: summary.episodes, passages: summary.passages }, 'qmsum fixture ready');
  return { prefix: QMSUM_PREFIX, client, summary, embedder };
}
