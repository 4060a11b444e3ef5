// `npm run bench:ingest`: passages/s of the whole ingest path vs. the embedder alone on the same passages.
//
//   npm run bench:ingest -- [--episodes 5] [--library ../shared/data/seen-unseen] [--in-flight 2,1] [--rounds 3] [--path direct,worker]
//
// The subset is the first N episodes (lines) of the library's episode files, in name
// order — for seen-unseen the first N lines of episodes.jsonl.gz. They are written to a
// temporary library (as a .jsonl.gz, so reading and gunzipping are measured too) and
// loaded into a throw-away prefix whose indices are created before the clock starts:
// read → validate → passages → embed → _bulk, once per `--in-flight` value (episodes
// worked on at once; 1 is the path without overlap) and round, each followed by the same
// passages, in the same order and chunks, through the embedder alone. JSON on stdout, a
// table on stderr.
//
// `--path worker` measures the queue instead of `loadLibrary`: the subset's jobs are
// enqueued (before the clock) on a queue of its own, `<QUEUE_NAME>-bench-<pid>`, and a
// worker in this process with `--in-flight` as its concurrency runs them; the clock stops
// when every job has completed (polled every 50 ms). Needs REDIS_URL.
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Command } from 'commander';
import { loadConfig } from '../../core/config/load.js';
import { createEmbedder, type Embedder } from '../../core/embedding/embedder.js';
import { createLogger } from '../../core/ground/logger.js';
import { createOpenSearchClient, deleteIndices, ensureIndices, type IndexAliases } from '../../core/store/opensearch.js';
import { buildPassages } from '../../core/passages/passages.js';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import { libraryJobs } from '../../indexer/jobs.js';
import { loadLibrary } from '../../indexer/load-library.js';
import type { PassageEmbedder } from '../../indexer/load-episode.js';
import { createIngestQueue, createIngestWorker, createRedisConnection, enqueue } from '../../indexer/queue.js';
import { waitForJobs } from '../../indexer/job-wait.js';
import { createProgress } from '../../indexer/progress.js';
import { positive } from '../../bin/lib/cli-args.js';
import { useProvisionedModel } from '../ops/provision/model.js';

// The real model, local files only (as `npm test` uses it).
await useProvisionedModel('bench:ingest');

const DEFAULT_LIBRARY = fileURLToPath(new URL('../../../shared/data/seen-unseen/', import.meta.url));

const program = new Command()
  .name('bench:ingest')
  .description('Passages per second of the whole ingest path vs. the embedder alone, on the first N episodes of a library.')
  .option('--episodes <n>', 'episodes to take from the start of the library', positive, 5)
  .option('--library <dir>', 'library folder', DEFAULT_LIBRARY)
  .option('--in-flight <list>', 'episodes in flight of each whole-path run (loadLibrary episodesInFlight)', '2,1')
  .option('--rounds <n>', 'times each whole-path run is repeated, each followed by the embedder alone', positive, 3)
  .option('--path <list>', 'whole paths to run: direct (loadLibrary), worker (the queue and an in-process worker, --in-flight as its concurrency)', 'direct')
  .parse();

const opts = program.opts<{ episodes: number; library: string; inFlight: string; rounds: number; path: string }>();
const inFlightRuns = opts.inFlight.split(',').map((s) => positive(s.trim()));
type IngestPath = 'direct' | 'worker';
const paths = opts.path.split(',').map((s): IngestPath => {
  const p = s.trim();
  if (p !== 'direct' && p !== 'worker') throw new Error(`--path: expected direct or worker, got "${p}"`);
  return p;
});
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

/**
 * `embedder` with a clock on it: how long at least one embedding call was running. Within one
 * run that share of the wall time needs no second run to compare with, so it holds on a
 * machine whose load drifts.
 */
function timedEmbedder(embedder: Embedder): PassageEmbedder & { busySeconds(): number } {
  let active = 0;
  let since = 0;
  let busyMs = 0;
  return {
    modelId: embedder.modelId,
    dimension: embedder.dimension,
    async embedPassages(texts) {
      if (active++ === 0) since = performance.now();
      try {
        return await embedder.embedPassages(texts);
      } finally {
        if (--active === 0) busyMs += performance.now() - since;
      }
    },
    busySeconds: () => busyMs / 1000,
  };
}

/** The median of `xs` (the lower middle for an even count). */
function median(xs: number[]): number {
  return [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)]!;
}

async function main(): Promise<void> {
  const library = resolve(opts.library);
  const dir = await subsetLibrary(library, opts.episodes);
  const prefix = `bench-ingest-${process.pid}-`;
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 120_000 });
  const embedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize, log });
  await embedder.embedPassages(['warm up the model before timing anything']);

  // The embedder alone: the same passages, grouped and ordered as the indexer does it.
  const meta = await readLibraryMeta(dir);
  const groups: string[][] = [];
  for await (const { record } of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) {
    groups.push(
      buildPassages(record)
        .map((p) => p.text)
        .sort((a, b) => a.length - b.length),
    );
  }
  const passages = groups.reduce((n, g) => n + g.length, 0);
  const embedAlone = () =>
    withPeakRss(async () => {
      const bar = createProgress({ label: 'embedder alone', unit: 'passages', log });
      let done = 0;
      for (const texts of groups) {
        for (let i = 0; i < texts.length; i += 64) {
          await embedder.embedPassages(texts.slice(i, i + 64));
          done += Math.min(64, texts.length - i);
          bar.update(done, passages, { embedded: done });
        }
      }
      bar.stop();
    });

  /** Direct loading (`loadLibrary`) of the subset; the final refresh is timed too. */
  const directRun = async (timed: PassageEmbedder, inFlight: number, label: string) => {
    const bar = createProgress({ label, log });
    const whole = await withPeakRss(() =>
      loadLibrary({ client, embedder: timed, prefix, dir, log, episodesInFlight: inFlight, onProgress: (p) => bar.update(p.done, p.total, { embedded: p.embedded }) }),
    );
    bar.stop();
    if (!whole.value.ok) throw new Error(`the subset did not load cleanly: ${JSON.stringify(whole.value.failed)}`);
    return { seconds: whole.seconds, peakRssMB: whole.peakRssMB, episodes: whole.value.episodes.read, written: whole.value.passages.written };
  };

  /** The subset's jobs enqueued (not timed), then a worker of `concurrency` in this process, timed until every job has completed. */
  const workerRun = async (timed: PassageEmbedder, aliases: IndexAliases, concurrency: number, label: string) => {
    const connection = createRedisConnection(config.redisUrl);
    const queue = createIngestQueue({ connection, name: `${config.queueName}-bench-${process.pid}`, log });
    try {
      const ids: string[] = [];
      for await (const job of libraryJobs(dir, { onIssue: () => undefined })) ids.push((await enqueue(queue, job)).id);
      const bar = createProgress({ label, unit: 'jobs', log });
      const whole = await withPeakRss(async () => {
        const worker = createIngestWorker({ connection, name: queue.name, ctx: { client, embedder: timed, aliases, log }, concurrency });
        try {
          return await waitForJobs(queue, ids, { pollMs: 50, onUpdate: (done, total) => bar.update(done, total) });
        } finally {
          await worker.close();
        }
      });
      bar.stop();
      const failed = whole.value.filter((o) => o.state !== 'completed');
      if (failed.length > 0) throw new Error(`the subset did not load cleanly: ${JSON.stringify(failed)}`);
      const results = whole.value.map((o) => o.result).filter((r) => r?.kind === 'episode');
      const written = results.reduce((n, r) => n + (r.outcome === 'indexed' ? r.passages : 0), 0);
      return { seconds: whole.seconds, peakRssMB: whole.peakRssMB, episodes: results.length, written };
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  };

  try {
    // Each whole-path run loads into a fresh prefix (nothing to re-use; index creation is a
    // one-off cost, kept out of the timing) and is followed at once by the embedder alone:
    // each ratio compares two runs seconds apart, so a drifting load hits both alike.
    const runs: { round: number; path: IngestPath; inFlight: number; seconds: number; embedderBusyShare: number; aloneSeconds: number; peakRssMB: number; ratio: number }[] = [];
    let episodes = 0;
    for (let round = 1; round <= opts.rounds; round++) {
      for (const path of paths) {
        for (const inFlight of inFlightRuns) {
          await deleteIndices(client, prefix);
          const aliases = await ensureIndices(client, { prefix, modelId: embedder.modelId, layout: config.indexLayout });
          const timed = timedEmbedder(embedder);
          const label = `round ${round}: ${path}, ${inFlight} in flight`;
          const whole = path === 'direct' ? await directRun(timed, inFlight, label) : await workerRun(timed, aliases, inFlight, label);
          if (whole.written !== passages) throw new Error(`wrote ${whole.written} passages of ${passages}`);
          episodes = whole.episodes;
          const alone = await embedAlone();
          runs.push({
            round,
            path,
            inFlight,
            seconds: +whole.seconds.toFixed(1),
            embedderBusyShare: +(timed.busySeconds() / whole.seconds).toFixed(3),
            aloneSeconds: +alone.seconds.toFixed(1),
            peakRssMB: whole.peakRssMB,
            ratio: +(alone.seconds / whole.seconds).toFixed(3),
          });
        }
      }
    }

    const result = {
      library,
      subset: `first ${episodes} episodes`,
      episodes,
      passages,
      model: embedder.modelId,
      embedBatchSize: config.embedBatchSize,
      /** Per path and in-flight setting: the median over rounds of whole-path throughput ÷ the embedder's in the run right after (1: embedding is all the cost). */
      wholePath: paths.flatMap((path) =>
        inFlightRuns.map((inFlight) => {
          const mine = runs.filter((r) => r.path === path && r.inFlight === inFlight);
          return {
            path,
            /** Direct: loadLibrary's episodesInFlight; worker: the worker's concurrency. */
            episodesInFlight: inFlight,
            medianRatio: median(mine.map((r) => r.ratio)),
            /** Share of the whole path's time during which the embedder was working. */
            medianEmbedderBusyShare: median(mine.map((r) => r.embedderBusyShare)),
            passagesPerSecond: +(passages / median(mine.map((r) => r.seconds))).toFixed(2),
            embedderAlonePassagesPerSecond: +(passages / median(mine.map((r) => r.aloneSeconds))).toFixed(2),
            peakRssMB: Math.max(...mine.map((r) => r.peakRssMB)),
          };
        }),
      ),
      runs,
      processPeakRssMB: Math.round(process.resourceUsage().maxRSS / 1000),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.stderr.write(
      [
        '',
        `${result.subset} of ${library}: ${passages} passages, ${config.modelId}, batch ${config.embedBatchSize}, ${opts.rounds} rounds`,
        '| round | path | episodes in flight | whole path s | embedder busy | embedder alone s (right after) | whole ÷ alone |',
        '|---|---|--:|--:|--:|--:|--:|',
        ...runs.map(
          (r) => `| ${r.round} | ${r.path} | ${r.inFlight} | ${r.seconds} | ${(r.embedderBusyShare * 100).toFixed(1)}% | ${r.aloneSeconds} | ${(r.ratio * 100).toFixed(1)}% |`,
        ),
        ...result.wholePath.map(
          (w) =>
            `${w.path}, ${w.episodesInFlight} in flight: median ${(w.medianRatio * 100).toFixed(1)}% of the embedder-alone rate, embedder busy ${(w.medianEmbedderBusyShare * 100).toFixed(1)}% of the time, peak RSS ${w.peakRssMB} MB`,
        ),
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
