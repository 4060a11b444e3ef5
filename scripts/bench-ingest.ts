// `npm run bench:ingest`: passages/s of the whole ingest path vs. the embedder alone on the same passages.
//
//   npm run bench:ingest -- [--episodes 5] [--library ../shared/data/seen-unseen]
//
// The subset is the first N episodes (lines) of the library's episode files, in name
// order — for seen-unseen the first N lines of episodes.jsonl.gz. They are written to a
// temporary library (as a .jsonl.gz, so reading and gunzipping are measured too) and
// loaded into a throw-away prefix whose indices are created before the clock starts:
// read → validate → passages → embed → _bulk. Then the same passages, in the same
// order and chunks, go through the embedder alone. JSON on stdout, a table on stderr.
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Command } from 'commander';
import { loadConfig } from '../src/config.js';
import { createEmbedder } from '../src/embedder.js';
import { createLogger } from '../src/logger.js';
import { createOpenSearchClient, deleteIndices, ensureIndices } from '../src/store/opensearch.js';
import { buildPassages } from '../indexer/passages.js';
import { readEpisodes, readLibraryMeta } from '../indexer/library-reader.js';
import { loadLibrary } from '../indexer/load-library.js';
import { createProgress } from '../indexer/progress.js';
import { positive } from './cli-args.js';
import { useProvisionedModel } from './provision/model.js';

// The real model, local files only (as `npm test` uses it).
await useProvisionedModel('bench:ingest');


const DEFAULT_LIBRARY = fileURLToPath(new URL('../../shared/data/seen-unseen/', import.meta.url));

const program = new Command()
  .name('bench:ingest')
  .description('Passages per second of the whole ingest path vs. the embedder alone, on the first N episodes of a library.')
  .option('--episodes <n>', 'episodes to take from the start of the library', positive, 5)
  .option('--library <dir>', 'library folder', DEFAULT_LIBRARY)
  .parse();

const opts = program.opts<{ episodes: number; library: string }>();
const config = loadConfig(process.env);
const log = createLogger({ name: 'bench-ingest', level: config.logLevel, fd: 2 });

/** Peak RSS seen while `fn` runs, sampled every 100 ms, in MB. */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ value: T; peakRssMB: number; seconds: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  const started = process.hrtime.bigint();
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, peakRssMB: Math.round(peak / 1e6), seconds: Number(process.hrtime.bigint() - started) / 1e9 };
  } finally {
    clearInterval(timer);
  }
}

/** Copies the library's top-level files and its first `n` valid episode records (as one .jsonl.gz) to a temp folder. */
async function subsetLibrary(source: string, n: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-ingest-'));
  for (const f of await readdir(source)) if (f.endsWith('.json')) await copyFile(join(source, f), join(dir, f));
  await mkdir(join(dir, 'episodes'));
  const meta = await readLibraryMeta(source);
  const lines: string[] = [];
  for await (const { record } of readEpisodes(source, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) {
    lines.push(JSON.stringify(record));
    if (lines.length >= n) break;
  }
  await writeFile(join(dir, 'episodes', 'subset.jsonl.gz'), gzipSync(`${lines.join('\n')}\n`));
  return dir;
}

async function main(): Promise<void> {
  const library = resolve(opts.library);
  const dir = await subsetLibrary(library, opts.episodes);
  const prefix = `bench-ingest-${process.pid}-`;
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 120_000 });
  const embedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize, log });
  await embedder.embedPassages(['warm up the model before timing anything']);
  // Index creation is a one-off cost of a fresh prefix, not of ingesting: keep it out of the timing.
  await ensureIndices(client, { prefix, modelId: embedder.modelId, layout: config.indexLayout });
  try {
    // 1. The whole path into a fresh prefix (nothing to re-use).
    const bar = createProgress({ label: 'whole path', log });
    const whole = await withPeakRss(() =>
      loadLibrary({ client, embedder, prefix, dir, log, onProgress: (p) => bar.update(p.done, p.total, { embedded: p.embedded }) }),
    );
    bar.stop();
    const summary = whole.value;
    if (!summary.ok) throw new Error(`the subset did not load cleanly: ${JSON.stringify(summary.failed)}`);

    // 2. The same passages through the embedder alone, grouped and ordered as the indexer does it.
    const meta = await readLibraryMeta(dir);
    const groups: string[][] = [];
    for await (const { record } of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) {
      groups.push(buildPassages(record).map((p) => p.text).sort((a, b) => a.length - b.length));
    }
    const passages = groups.reduce((n, g) => n + g.length, 0);
    const bar2 = createProgress({ label: 'embedder alone', unit: 'passages', log });
    const alone = await withPeakRss(async () => {
      let done = 0;
      for (const texts of groups) {
        for (let i = 0; i < texts.length; i += 64) {
          await embedder.embedPassages(texts.slice(i, i + 64));
          done += Math.min(64, texts.length - i);
          bar2.update(done, passages, { embedded: done });
        }
      }
    });
    bar2.stop();

    const result = {
      library,
      subset: `first ${summary.episodes.read} episodes`,
      episodes: summary.episodes.read,
      passages,
      passagesWritten: summary.passages.written,
      model: embedder.modelId,
      embedBatchSize: config.embedBatchSize,
      wholePath: { seconds: +whole.seconds.toFixed(1), passagesPerSecond: +(passages / whole.seconds).toFixed(2), peakRssMB: whole.peakRssMB },
      embedderAlone: { seconds: +alone.seconds.toFixed(1), passagesPerSecond: +(passages / alone.seconds).toFixed(2), peakRssMB: alone.peakRssMB },
      /** Whole-path throughput as a share of the embedder's: 1 means embedding is all the cost. */
      ratio: +(alone.seconds / whole.seconds).toFixed(3),
      processPeakRssMB: Math.round(process.resourceUsage().maxRSS / 1000),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.stderr.write(
      [
        '',
        `${result.subset} of ${library}: ${passages} passages, ${config.modelId}, batch ${config.embedBatchSize}`,
        '| run            | seconds | passages/s | peak RSS MB |',
        '|----------------|--------:|-----------:|------------:|',
        `| whole path     | ${result.wholePath.seconds} | ${result.wholePath.passagesPerSecond} | ${result.wholePath.peakRssMB} |`,
        `| embedder alone | ${result.embedderAlone.seconds} | ${result.embedderAlone.passagesPerSecond} | ${result.embedderAlone.peakRssMB} |`,
        `whole path runs at ${(result.ratio * 100).toFixed(1)}% of the embedder-alone rate`,
        '',
      ].join('\n'),
    );
  } finally {
    await deleteIndices(client, prefix);
    await client.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log.error({ err }, 'bench failed');
    process.stderr.write(`bench:ingest: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
