// The qmsum libraries loaded once per test run with the real model, each into a fixed prefix.
//
// - The compact corpus (test/data/qmsum-cut: twelve qmsum meetings in the repository) is
//   there on every clone; suites that need a realistic library use it:
//
//     before(async function () {
//       this.timeout(QMSUM_LOAD_TIMEOUT_MS);
//       ({ client, prefix } = await ensureCorpusLoaded());
//     });
//
// - The whole qmsum data set (235 meetings) is only beside some clones (datasets.ts); suites
//   that need it (exact counts of the data set, its dev queries) skip without it:
//
//     before(async function () {
//       skipWithoutDataset(this, 'qmsum');
//       this.timeout(QMSUM_LOAD_TIMEOUT_MS);
//       ({ client, prefix } = await ensureQmsumLoaded());
//     });
//
// Suites share them read-only. The first load on a fresh store embeds every passage (the
// corpus in about a minute, qmsum in about ten, see the indexer README) unless the vector
// cache of an earlier run has them; later runs find every episode unchanged (same
// sourceHash) and only re-read the files. Suites that write use their own prefix
// (`test-idx-<random>-`) and delete it afterwards.
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../core/config/load.js';
import type { Embedder } from '../../core/embedding/embedder.js';
import { createLogger } from '../../core/ground/logger.js';
import { createOpenSearchClient, deleteIndices, type Client } from '../../core/store/opensearch.js';
import { passagesIndexModel } from '../../indexer/load-episode.js';
import { createIndexerEmbedder } from '../../core/embedding/indexer-embedder.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { createProgress } from '../../indexer/progress.js';
import { formatSummary, type LoadSummary } from '../../indexer/summary.js';
import { withFileLock } from '../../scripts/ops/provision/file-lock.js';
import { datasetDir, missingDataset } from './datasets.js';
import { openWorld } from './world.js';

/** The qmsum data set: `DATASETS_DIR`/qmsum, by default `<repoRoot>/../shared/data/qmsum`. */
export const QMSUM_DIR = datasetDir('qmsum');
/** `TEST_QMSUM_PREFIX` gives a checkout of its own prefix, so two working copies sharing one node never reload each other's passages. */
export const QMSUM_PREFIX = process.env.TEST_QMSUM_PREFIX || 'test-qmsum-';
/** The compact corpus in the repository (provenance and licence in its README). */
export const CORPUS_DIR = fileURLToPath(new URL('../data/qmsum-cut/', import.meta.url));
/** Follows `TEST_QMSUM_PREFIX` (`test-qmsum-x-` → `test-corpus-x-`) and never starts with it, so neither load can delete the other. */
export const CORPUS_PREFIX = QMSUM_PREFIX.includes('qmsum') ? QMSUM_PREFIX.replace('qmsum', 'corpus') : `test-corpus-${QMSUM_PREFIX}`;
/** Generous: a first load of qmsum on a fresh store embeds ~18,000 passages on CPU. */
export const QMSUM_LOAD_TIMEOUT_MS = 60 * 60 * 1000;

/** A library loaded for the tests: its prefix, the shared client and the real embedder its passages were embedded with. */
export interface QmsumFixture {
  prefix: string;
  /** Shared by every suite: never close it. */
  client: Client;
  summary: LoadSummary;
  /** The real embedder the passages were embedded with (for query vectors). */
  embedder: Embedder;
}

interface Library {
  label: string;
  dir: string;
  prefix: string;
  /** Held while a process loads, so that two test processes never embed the same library at once. */
  lockFile: string;
}

const lockFile = (name: string) => fileURLToPath(new URL(`../../.cache/${name}-fixture-lock`, import.meta.url));
const QMSUM: Library = { label: 'qmsum', dir: QMSUM_DIR, prefix: QMSUM_PREFIX, lockFile: lockFile('qmsum') };
const CORPUS: Library = { label: 'qmsum-cut corpus', dir: CORPUS_DIR, prefix: CORPUS_PREFIX, lockFile: lockFile('corpus') };

const loads = new Map<Library, Promise<QmsumFixture>>();

/** Loads `library` once per process (memoized; a failed load is tried again by the next caller). */
function ensureLoaded(library: Library): Promise<QmsumFixture> {
  let loading = loads.get(library);
  if (!loading) {
    // Another test process loading the same library makes ours a no-op once it is done; a
    // loader that died is taken over after 30 s, generous so that a busy one is not taken for dead.
    loading = withFileLock(library.lockFile, () => load(library), {
      staleMs: 30_000,
      onWait: () => process.stderr.write(`test fixture: waiting for another process to finish loading (${library.lockFile})\n`),
    }).catch((err: unknown) => {
      loads.delete(library);
      throw err;
    });
    loads.set(library, loading);
  }
  return loading;
}

/**
 * Loads the qmsum data set into `QMSUM_PREFIX` once per process (memoized) and
 * idempotently across runs. Rejects when the data set is not there (gate the suite with
 * `skipWithoutDataset(this, 'qmsum')`) or when anything in it was skipped or failed.
 */
export function ensureQmsumLoaded(): Promise<QmsumFixture> {
  const missing = missingDataset('qmsum');
  if (missing) {
    return Promise.reject(new Error(`${missing}; call skipWithoutDataset(this, 'qmsum') first in the suite's before hook, or use ensureCorpusLoaded()`));
  }
  return ensureLoaded(QMSUM);
}

/**
 * Loads the compact corpus (test/data/qmsum-cut, in the repository) into `CORPUS_PREFIX`
 * once per process and idempotently across runs: the realistic library of every clone.
 */
export function ensureCorpusLoaded(): Promise<QmsumFixture> {
  return ensureLoaded(CORPUS);
}

/** One client and one model for both libraries: a second model instance would only cost memory. */
let shared: Promise<{ client: Client; embedder: Embedder }> | undefined;

function sharedDeps(): Promise<{ client: Client; embedder: Embedder }> {
  shared ??= (async () => {
    const config = loadConfig(process.env);
    const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 120_000 });
    // A fresh store (a new clone) re-uses the vectors an earlier run on this machine computed (EMBED_CACHE_DIR).
    return { client, embedder: await createIndexerEmbedder(config) };
  })().catch((err: unknown) => {
    shared = undefined;
    throw err;
  });
  return shared;
}

async function load({ label, dir, prefix }: Library): Promise<QmsumFixture> {
  const log = createLogger({ name: 'qmsum-fixture', level: 'info', fd: 2 });
  const { client, embedder } = await sharedDeps();
  // The library's fixed prefix: loaded once per run, and kept for the next (an unchanged episode is skipped).
  const { aliases } = await openWorld({ client, prefix, modelId: embedder.modelId });
  const indexModel = await passagesIndexModel(client, aliases);
  if (indexModel !== embedder.modelId) {
    // A test prefix built for another model (an older run): start it over rather than mix vectors.
    log.warn({ prefix, model: indexModel, expected: embedder.modelId }, 'test prefix holds another model; rebuilding it');
    await deleteIndices(client, prefix);
  }
  const progress = createProgress({ label: `${label} fixture`, log, tty: false, intervalMs: 30_000 });
  let summary: LoadSummary;
  try {
    summary = await loadLibrary({
      client,
      embedder,
      prefix,
      dir,
      onProgress: (p) => progress.update(p.done, p.total, { embedded: p.embedded }),
    });
  } finally {
    progress.stop();
  }
  if (!summary.ok) throw new Error(`${label} did not load cleanly:\n${formatSummary(summary)}`);
  log.info({ library: label, prefix, seconds: Math.round(summary.durationMs / 1000), episodes: summary.episodes, passages: summary.passages }, 'test library ready');
  return { prefix, client, summary, embedder };
}
