// Measures embedding throughput and peak memory per batch size; prints JSON on stdout.
//
//   MODEL_DIR=.cache/models npm run bench:embed -- --data <folder of episode JSON files>
//
// Each batch size runs in its own process so that its peak RSS is its own.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { x } from 'tinyexec';
import { loadConfig } from '../../core/config/load.js';
import { createEmbedder } from '../../core/embedding/embedder.js';
import { positive } from '../../bin/lib/cli-args.js';
import { useProvisionedModel } from '../ops/provision/model.js';

// The real model, local files only (as `npm test` uses it).
await useProvisionedModel('bench:embed');

interface Options {
  data: string;
  count: number;
  words: number;
  batchSizes: number[];
  intraOpThreads?: number;
}

interface Result {
  batchSize: number;
  intraOpThreads: number | 'default';
  passages: number;
  avgWords: number;
  loadMs: number;
  seconds: number;
  passagesPerSecond: number;
  /** Process CPU time per passage: less sensitive than wall time to other load on the machine. */
  cpuMsPerPassage: number;
  /** Longest the event loop was blocked: onnxruntime-node runs each model call on the main thread. */
  maxEventLoopStallMs: number;
  peakRssMB: number;
}

/** Transcript segments of each episode, joined and cut into chunks of about `words` words. */
async function loadPassages(dir: string, count: number, words: number): Promise<string[]> {
  const passages: string[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.json')).sort()) {
    const episode = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as {
      transcript?: { segments?: { text: string }[] };
    };
    let chunk: string[] = [];
    for (const segment of episode.transcript?.segments ?? []) {
      chunk.push(...segment.text.split(/\s+/).filter(Boolean));
      if (chunk.length >= words) {
        passages.push(chunk.slice(0, words).join(' '));
        chunk = chunk.slice(words);
        if (passages.length === count) return passages;
      }
    }
  }
  throw new Error(`${dir} holds fewer than ${count} passages of ${words} words`);
}

async function measure(options: Options, batchSize: number): Promise<Result> {
  if (options.intraOpThreads !== undefined) await setIntraOpThreads(options.intraOpThreads);
  const config = loadConfig(process.env);
  const passages = await loadPassages(options.data, options.count, options.words);
  const loadStarted = performance.now();
  const embedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize });
  const loadMs = performance.now() - loadStarted;
  // One untimed batch: the first run allocates and optimises.
  await embedder.embedPassages(passages.slice(0, batchSize));
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  await embedder.embedPassages(passages);
  stalls.disable();
  const cpu = process.cpuUsage(cpuStarted);
  const seconds = (performance.now() - started) / 1000;
  return {
    batchSize,
    intraOpThreads: options.intraOpThreads ?? 'default',
    passages: passages.length,
    avgWords: passages.reduce((n, p) => n + p.split(' ').length, 0) / passages.length,
    loadMs: Math.round(loadMs),
    seconds: round(seconds, 2),
    passagesPerSecond: round(passages.length / seconds, 1),
    cpuMsPerPassage: round((cpu.user + cpu.system) / 1000 / passages.length, 1),
    maxEventLoopStallMs: round(stalls.max / 1e6, 0),
    peakRssMB: round(process.resourceUsage().maxRSS / 1024, 0),
  };
}

/**
 * Transformers.js 2.17 creates its onnxruntime-node sessions without session options,
 * so the only way to try another intra-op thread count is to wrap the factory.
 */
async function setIntraOpThreads(threads: number): Promise<void> {
  const module = await import('onnxruntime-node');
  // The same module object Transformers.js picks (`default ?? namespace`).
  const ort = ((module as unknown as { default?: typeof module }).default ?? module) as typeof module;
  const create = ort.InferenceSession.create.bind(ort.InferenceSession) as (...args: unknown[]) => unknown;
  (ort.InferenceSession as { create: unknown }).create = (buffer: unknown, options: object = {}) => create(buffer, { ...options, intraOpNumThreads: threads });
}

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}

/** Runs this script again for one batch size and returns its JSON line. */
async function runChild(options: Options, batchSize: number): Promise<Result> {
  const args = [
    ...process.execArgv,
    fileURLToPath(import.meta.url),
    '--data',
    options.data,
    '--count',
    String(options.count),
    '--words',
    String(options.words),
    '--batch-sizes',
    String(batchSize),
    ...(options.intraOpThreads === undefined ? [] : ['--intra-op-threads', String(options.intraOpThreads)]),
  ];
  const { exitCode, stdout } = await x(process.execPath, args, { nodeOptions: { stdio: ['ignore', 'pipe', 'inherit'] }, nodePath: false });
  if (exitCode !== 0) throw new Error(`batch size ${batchSize}: child exited with ${exitCode ?? 'a signal'}`);
  return JSON.parse(stdout) as Result;
}

const program = new Command('bench-embed')
  .description('Embedding throughput of the configured model (MODEL_ID, MODEL_DIR) per batch size')
  .requiredOption('--data <dir>', 'folder of episode JSON files whose transcript segments become passages')
  .option('--count <n>', 'passages to embed', positive, 512)
  .option('--words <n>', 'words per passage', positive, 100)
  .option('--batch-sizes <list>', 'comma-separated batch sizes', (v) => v.split(',').map(positive), [1, 8, 16, 32, 64])
  .option('--intra-op-threads <n>', 'onnxruntime intra-op threads (default: onnxruntime decides)', positive)
  .parse();

const options = program.opts<Options>();
const [only] = options.batchSizes;
if (options.batchSizes.length === 1 && only !== undefined) {
  process.stdout.write(`${JSON.stringify(await measure(options, only))}\n`);
} else {
  const results: Result[] = [];
  for (const batchSize of options.batchSizes) results.push(await runChild(options, batchSize));
  process.stdout.write(`${JSON.stringify({ modelId: loadConfig(process.env).modelId, results }, null, 2)}\n`);
}
