// Builds the sentence-window index of a loaded prefix ("small to big", an eval experiment): windows of its transcript passages, embedded, in `win-<prefix>windows`.
//
//   npx tsx scripts/eval-windows.ts --prefix eval-tutorialvqa-speech-            # build (re-embeds nothing the vector cache holds)
//   npx tsx scripts/eval-windows.ts --prefix eval-qmsum-speech- --compare 300    # + passages/s vs windows/s on 300 of each, uncached
//   npm run eval -- --queries ../shared/data/tutorialvqa/queries-dev.jsonl --prefix eval-tutorialvqa-speech- --set "windows=replace"
//
// It reads `<prefix>passages` (scroll, read-only), cuts each transcript passage into windows
// (indexer/windows.ts), embeds them with the configured model behind the persistent vector
// cache (EMBED_CACHE_DIR, as the eval's loads), and writes them to a fresh index of its own.
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { createEmbedder, type Embedder } from '../src/embedder.js';
import { withEmbeddingCache } from '../src/embedding-cache.js';
import { createLogger } from '../src/logger.js';
import { evenSubset } from '../src/search/relevance.js';
import { windowsIndexName } from '../src/search/window-query.js';
import type { PassageDoc } from '../src/store/documents.js';
import { createOpenSearchClient, indexAliases, indexSettings, type IndexDefinition } from '../src/store/opensearch.js';
import { bulkWrite, type BulkOp } from '../indexer/bulk.js';
import { createProgress } from '../indexer/progress.js';
import { scrollHits } from '../indexer/scroll.js';
import { WINDOW_FILTER_FIELDS, windowDocs, type WindowDoc } from '../indexer/windows.js';
import { positive } from './cli-args.js';
import { evalConfig } from './eval.js';
import { useProvisionedModel } from './provision/model.js';

const WINDOWS_MAPPING = new URL('../mappings/windows.json', import.meta.url);
const PASSAGE_FIELDS = ['id', 'episodeId', 'kind', 'text', 'startMs', 'endMs', 'marks', ...WINDOW_FILTER_FIELDS];

type SourcePassage = Pick<PassageDoc, 'id' | 'episodeId' | 'kind' | 'text' | 'startMs' | 'endMs' | 'marks' | (typeof WINDOW_FILTER_FIELDS)[number]>;

/** Seconds the model takes for `texts`, one call per text as the indexer embeds (batch size from the config). */
async function timeEmbedding(model: Embedder, texts: readonly string[]): Promise<number> {
  const t = performance.now();
  await model.embedPassages([...texts]);
  return (performance.now() - t) / 1000;
}

async function main(): Promise<void> {
  const opts = new Command()
    .name('eval-windows')
    .description('Builds win-<prefix>windows: sentence windows of the transcript passages of <prefix>passages, embedded (cached), for `npm run eval -- --set windows=replace|add`.')
    .requiredOption('--prefix <prefix>', 'index prefix of a loaded library, e.g. eval-qmsum-speech-')
    .option('--batch <n>', 'windows per embedding call and bulk write', positive, 64)
    .option('--compare <n>', 'also time the model, uncached, on n passages and n windows of this prefix (0: skip)', (v) => (v === '0' ? 0 : positive(v)), 200)
    .parse()
    .opts<{ prefix: string; batch: number; compare: number }>();

  const log = createLogger({ name: 'eval-windows', level: 'info', fd: 2 });
  await useProvisionedModel('eval-windows');
  const config = evalConfig(opts.prefix);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 120_000 });
  const source = indexAliases(config.indexPrefix).passages;
  const target = windowsIndexName(config.indexPrefix);
  try {
    // 1. Passages (read-only) and their windows.
    const passages: SourcePassage[] = [];
    for await (const page of scrollHits<SourcePassage>(client, { index: source, source: PASSAGE_FIELDS, size: 1000 })) {
      for (const h of page) passages.push({ ...h._source!, id: h._id });
    }
    passages.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const windows: WindowDoc[] = passages.flatMap((p) => windowDocs(p));
    const speech = passages.filter((p) => p.kind === 'transcript');
    const speechWindows = windows.filter((w) => w.kind === 'transcript');
    const seconds = (ms: number) => ms / 1000;
    const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length);
    log.info(
      {
        source,
        passages: passages.length,
        transcriptPassages: speech.length,
        windows: windows.length,
        transcriptWindows: speechWindows.length,
        windowsPerTranscriptPassage: +(speechWindows.length / Math.max(1, speech.length)).toFixed(2),
        meanPassageS: +seconds(mean(speech.map((p) => p.endMs - p.startMs))).toFixed(1),
        meanWindowS: +seconds(mean(speechWindows.map((w) => w.endMs - w.startMs))).toFixed(1),
        meanPassageChars: Math.round(mean(speech.map((p) => p.text.length))),
        meanWindowChars: Math.round(mean(speechWindows.map((w) => w.text.length))),
      },
      'windows cut',
    );

    // 2. A fresh index of our own (only `win-` names are ever deleted here).
    if (!target.startsWith('win-')) throw new Error(`refusing to write ${target}`);
    await client.indices.delete({ index: target }, { ignore: [404] });
    const definition = JSON.parse(await readFile(WINDOWS_MAPPING, 'utf8')) as IndexDefinition;
    await client.indices.create({
      index: target,
      // The store's layout (derived vectors unless INDEX_VECTOR_SOURCE=stored), one shard, no replica.
      body: { settings: { ...indexSettings(definition.settings, { ...config.indexLayout, shards: 1, replicas: 0 }), refresh_interval: '-1' }, mappings: definition.mappings } as never,
    });

    // 3. Embed (cache first) and load, batch by batch.
    const model = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize, log });
    const embedder = config.embedCacheDir ? await withEmbeddingCache(model, { dir: config.embedCacheDir }) : undefined;
    const progress = createProgress({ label: target, unit: 'windows', log, intervalMs: 15_000 });
    let embedMs = 0;
    const started = performance.now();
    try {
      for (let i = 0; i < windows.length; i += opts.batch) {
        const batch = windows.slice(i, i + opts.batch);
        const t = performance.now();
        const vectors = await (embedder ?? model).embedPassages(batch.map((w) => w.text));
        embedMs += performance.now() - t;
        const ops: BulkOp[] = batch.map((w, j) => ({ op: 'index', index: target, id: w.id, doc: { ...w, embedding: vectors[j]! } }));
        await bulkWrite(client, ops);
        progress.update(i + batch.length, windows.length, { embedded: model.embeddedCount, cached: embedder?.cacheHits ?? 0 });
      }
    } finally {
      progress.stop();
    }
    await client.indices.putSettings({ index: target, body: { index: { refresh_interval: '1s' } } as never });
    await client.indices.refresh({ index: target });
    const count = Number(((await client.count({ index: target })).body as { count: number }).count);
    log.info(
      { index: target, windows: count, embedSeconds: +seconds(embedMs).toFixed(1), embeddedByModel: model.embeddedCount, fromCache: embedder?.cacheHits ?? 0, totalSeconds: +seconds(performance.now() - started).toFixed(1) },
      'windows index ready',
    );

    const embeddedThisRun = model.embeddedCount;
    // 4. The model's rate on passages vs windows of this library, uncached, in alternating halves (the load drifts).
    let rates: { passagesPerS: number; windowsPerS: number; n: number } | undefined;
    if (opts.compare > 0) {
      const n = Math.min(opts.compare, speech.length, speechWindows.length);
      const p = evenSubset(speech.map((x) => x.text), n);
      const w = evenSubset(speechWindows.map((x) => x.text), n);
      const half = n >> 1;
      let ps = 0;
      let ws = 0;
      ps += await timeEmbedding(model, p.slice(0, half));
      ws += await timeEmbedding(model, w.slice(0, half));
      ps += await timeEmbedding(model, p.slice(half));
      ws += await timeEmbedding(model, w.slice(half));
      rates = { passagesPerS: n / ps, windowsPerS: n / ws, n };
    }
    const lines = [
      `${target}: ${count} windows from ${passages.length} passages of ${source}: ${speechWindows.length} from ${speech.length} transcript passages (${(speechWindows.length / Math.max(1, speech.length)).toFixed(2)} each), one per chapter or moment title`,
      `embedding this run: ${seconds(embedMs).toFixed(1)} s (${embeddedThisRun} by the model, ${embedder?.cacheHits ?? 0} from the vector cache)`,
    ];
    if (rates) {
      lines.push(
        `model rate, uncached, ${rates.n} of each: passages ${rates.passagesPerS.toFixed(2)}/s, windows ${rates.windowsPerS.toFixed(2)}/s`,
        `estimated cold embedding: all ${speech.length} transcript passages ${(speech.length / rates.passagesPerS).toFixed(0)} s, their ${speechWindows.length} windows ${(speechWindows.length / rates.windowsPerS).toFixed(0)} s, as many passages as windows ${(speechWindows.length / rates.passagesPerS).toFixed(0)} s`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await client.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`eval-windows: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
