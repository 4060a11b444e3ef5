// The eval's libraries: a data set as given or copied without chapters, loaded (idempotently) into a prefix of its own.
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Config } from '../../src/config/load.js';
import { createEmbedder, type Embedder } from '../../src/embedding/embedder.js';
import { withEmbeddingCache } from '../../src/embedding/embedding-cache.js';
import type { Logger } from '../../src/ground/logger.js';
import { createOpenSearchClient } from '../../src/store/opensearch.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { createIndexerEmbedder } from '../../src/embedding/indexer-embedder.js';
import { listEpisodeFiles, readEpisodes, readLibraryMeta } from '../../indexer/library-reader.js';
import { createProgress } from '../../indexer/progress.js';
import { formatSummary } from '../../indexer/summary.js';
import { CACHE_DIR } from '../ops/provision/paths.js';

/** Whether the library keeps its chapters, or is searched on speech alone (`chapters: []` on every episode). */
export type ChapterCondition = 'chapters' | 'speech';

/** One library of an eval run: where its files are and the prefix it is loaded under. */
export interface EvalLibrary {
  /** Data set name (the folder's name). */
  name: string;
  condition: ChapterCondition;
  /** Folder of the library as loaded (a copy without chapters for `speech`). */
  dir: string;
  /** Judged queries of the data set (`queries-dev.jsonl` beside the original). */
  queries: string;
  prefix: string;
}

const META_FILES = ['users.json', 'channels.json', 'topics.json', 'people.json', 'entities.json', 'collections.json'];

/**
 * The library at `source` under a condition. `speech` writes a copy whose episodes carry
 * `chapters: []` (once; redone when the source's episode files are newer), so passages
 * are packed from speech alone and no chapter or moment title is indexed anywhere.
 */
export async function prepareLibrary(source: string, condition: ChapterCondition, { log }: { log?: Logger } = {}): Promise<EvalLibrary> {
  const name = basename(source.replace(/\/+$/, ''));
  const queries = join(source, 'queries-dev.jsonl');
  if (condition === 'chapters') return { name, condition, dir: source, queries, prefix: `eval-${name}-` };
  const dir = join(CACHE_DIR, 'eval', `${name}-speech`);
  const prefix = `eval-${name}-speech-`;
  const files = await listEpisodeFiles(source);
  const newest = Math.max(0, ...(await Promise.all(files.map(async (f) => (await stat(f)).mtimeMs))));
  const done = await readFile(join(dir, '.source-mtime'), 'utf8').catch(() => '');
  if (done === String(newest)) return { name, condition, dir, queries, prefix };

  log?.info({ source, dir }, 'writing a copy of the library without chapters');
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(join(tmp, 'episodes'), { recursive: true });
  for (const f of META_FILES) await copyFile(join(source, f), join(tmp, f)).catch(() => undefined);
  const meta = await readLibraryMeta(source);
  const out = createWriteStream(join(tmp, 'episodes', 'episodes.jsonl'));
  let n = 0;
  for await (const { record } of readEpisodes(source, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) {
    if (!out.write(`${JSON.stringify({ ...record, chapters: [] })}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
    n++;
  }
  out.end();
  await finished(out);
  await writeFile(join(tmp, '.source-mtime'), String(newest));
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir);
  log?.info({ episodes: n }, 'library copy written');
  return { name, condition, dir, queries, prefix };
}

/**
 * Loads a library into its prefix with the configured model behind the passage-vector
 * cache; unchanged episodes are skipped, so a second run costs a re-read of the files.
 */
export async function loadEvalLibrary(lib: EvalLibrary, config: Readonly<Config>, log: Logger): Promise<void> {
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 120_000 });
  try {
    const embedder = await createIndexerEmbedder(config, { log });
    const progress = createProgress({ label: `${lib.name} (${lib.condition})`, log, intervalMs: 15_000 });
    let summary;
    try {
      summary = await loadLibrary({
        client,
        embedder,
        prefix: lib.prefix,
        dir: lib.dir,
        onProgress: (p) => progress.update(p.done, p.total, { embedded: p.embedded }),
      });
    } finally {
      progress.stop();
    }
    if (!summary.ok) throw new Error(`${lib.dir} did not load cleanly:\n${formatSummary(summary)}`);
    log.info(
      { library: lib.name, condition: lib.condition, episodes: summary.episodes, passages: summary.passages, seconds: Math.round(summary.durationMs / 1000) },
      'library ready',
    );
  } finally {
    await client.close();
  }
}

/**
 * The configured model whose query vectors persist in `<EMBED_CACHE_DIR>/queries` (the
 * eval asks the same few thousand questions run after run); the API never uses this.
 */
export async function createEvalEmbedder(config: Readonly<Config>): Promise<Embedder> {
  const model = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize });
  if (!config.embedCacheDir) return model;
  const asPassages: Embedder = {
    modelId: model.modelId,
    dimension: model.dimension,
    embeddedCount: 0,
    embedPassages: async (texts) => {
      const out: number[][] = [];
      for (const t of texts) out.push(await model.embedQuery(t));
      return out;
    },
    embedQuery: (text) => model.embedQuery(text),
  };
  const cached = await withEmbeddingCache(asPassages, { dir: join(config.embedCacheDir, 'queries') });
  return {
    modelId: model.modelId,
    dimension: model.dimension,
    get embeddedCount() {
      return model.embeddedCount;
    },
    embedPassages: (texts) => model.embedPassages(texts),
    embedQuery: async (text) => (await cached.embedPassages([text]))[0]!,
  };
}
