// `npm run bench:transcribe`: audio seconds per wall second of our client through the local service vs. faster-whisper called directly, on the same speech.
//
//   npm run bench:transcribe -- [--minutes 3] [--rounds 2] [--items 5]
//
// espeak-ng speaks a few minutes of sentences into an MP3 (the format of a podcast
// enclosure), once, under .cache/bench/transcribe. Then, alternating, `--rounds` times:
// the bare engine (services/transcriber/bench_engine.py: faster-whisper with the service's
// own settings, model loaded before the clock) and transcribeFile() through the local
// service (probe, upload, decode, answer, normalise, clean: what a pipeline job pays). The
// best round of each is compared (the machine is shared: the best is the least disturbed).
// Peak memory: the service's VmHWM and the bare engine's max RSS.
//
// Freshness (`--items`, 0 skips it): a channel follows a loopback feed, the pipeline's workers run in this process
// (the model embeds, the local service transcribes), and one short spoken item at a time is added to the feed; the
// clock runs from `npm run follow -- --poll` (a child process, as an operator or a publisher's ping runs it) until
// the episode is published and a search for its sentence finds it. Against it: the same audio transcribed alone
// (transcribeFile through the service). p50 of each, and the difference (goal: at most 10 s).
// JSON on stdout, lines on stderr.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/ground/logger.js';
import { createOpenSearchClient, deleteIndices, ensureIndices, type Client } from '../../src/store/opensearch.js';
import { userDocument } from '../../indexer/documents.js';
import { createIndexerEmbedder } from '../../src/embedding/indexer-embedder.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { followSource } from '../../pipeline/follow/commands.js';
import { createPollQueue, createProcessQueue } from '../../pipeline/follow/queues.js';
import { startPipelineWorkers } from '../../pipeline/follow/worker.js';
import { probeSeconds } from '../../pipeline/transcribe/audio.js';
import { transcribeFile } from '../../pipeline/transcribe/transcribe.js';
import { startFeedServer } from '../../test/support/feed-server.js';
import { speak } from '../../test/support/speech.js';
import { runScript } from '../lib/child.js';
import { positive } from '../../bin/lib/cli-args.js';
import { exec } from '../ops/provision/commands.js';
import { ensureTools } from '../ops/provision/debian-tools.js';
import { ensureModel } from '../ops/provision/model.js';
import { CACHE_DIR, PROJECT_ROOT } from '../ops/provision/paths.js';
import { servicesUp } from '../ops/provision/services.js';
import { ensureTranscriber, ensureWhisperBase, WHISPER_BASE } from '../ops/provision/transcriber.js';

const program = new Command()
  .name('bench:transcribe')
  .description('Audio seconds per wall second: our client through the local transcription service vs. faster-whisper called directly, same audio, same settings.')
  .option('--minutes <n>', 'minutes of generated speech', positive, 3)
  .option('--rounds <n>', 'runs of each side, alternating; the best of each is compared', positive, 2)
  .option('--items <n>', 'short items added to a followed feed one at a time for freshness (0: skip)', nonNegative, 5)
  .parse();
const opts = program.opts<{ minutes: number; rounds: number; items: number }>();

function nonNegative(value: string): number {
  if (!/^\d+$/.test(value)) throw new Error(`expected a whole number, got ${value}`);
  return Number(value);
}
const log = createLogger({ name: 'bench:transcribe', level: 'warn', fd: 2 });
const say = (line: string) => process.stderr.write(`bench:transcribe: ${line}\n`);

/** Sentences to speak, cycled until the audio is long enough: plain English with varied words. */
const SENTENCES = [
  'Yesterday we baked sourdough bread in the village oven.',
  'Fresh flour and clean water make the starter strong.',
  'Every morning the baker folds the dough twice.',
  'Customers arrived early to buy warm bread.',
  'Seven children learned to shape rolls by hand.',
  'Nobody expected the oven to stay hot all night.',
  'Rain fell on the market while the stalls opened.',
  'Morning light filled the quiet kitchen.',
  'Later the neighbours came to taste the crust.',
  'The recipe calls for salt, water, flour and patience.',
  'A long fermentation gives the loaf its sour flavour.',
  'We score the top of the dough with a sharp blade.',
];

interface Round {
  side: 'engine' | 'client';
  audioSeconds: number;
  seconds: number;
  words: number;
  peakRssMb?: number;
}

/** Speaks sentences (about 3.5 s each with their pause) until `minutes` of audio; reused when already made. */
async function makeAudio(minutes: number): Promise<string> {
  const dir = path.join(CACHE_DIR, 'bench', 'transcribe');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `speech-${minutes}min.mp3`);
  try {
    readFileSync(file);
    return file;
  } catch {
    const count = Math.ceil((minutes * 60) / 3.5);
    const sentences = Array.from({ length: count }, (_, i) => SENTENCES[i % SENTENCES.length]!);
    say(`speaking ${count} sentences with espeak-ng into ${path.relative(PROJECT_ROOT, file)}`);
    await speak(sentences, file, { gapMs: 800 });
    return file;
  }
}

async function engineRound(python: string, model: string, audio: string): Promise<Round> {
  const script = path.join(PROJECT_ROOT, 'services', 'transcriber', 'bench_engine.py');
  const result = await exec(python, ['-B', script, '--model', model, audio], { cwd: path.dirname(script) });
  if (result.code !== 0) throw new Error(`the bare engine failed: ${result.stderr.trim().split('\n').at(-1)}`);
  const line = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { audioSeconds: number; seconds: number; words: number; peakRssMb: number };
  return { side: 'engine', ...line };
}

async function clientRound(url: string, audio: string): Promise<Round> {
  const { transcribe } = loadConfig({ ...process.env, TRANSCRIBE_URL: url }).pipeline;
  const t = await transcribeFile(audio, { url, model: transcribe.model, maxUploadBytes: transcribe.maxUploadBytes, timeoutMs: transcribe.timeoutMs, log });
  return { side: 'client', audioSeconds: t.audioSeconds, seconds: t.seconds, words: t.segments.reduce((n, s) => n + s.words.length, 0) };
}

/** Peak resident memory of a process so far (VmHWM), MB. */
function peakRssMb(pid: number): number | undefined {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : undefined;
}

async function main(): Promise<void> {
  await ensureTools({ env: process.env, log, tools: ['espeak-ng', 'ffmpeg', 'ffprobe'] });
  say('provisioning the local transcription service (first run: venv and model into .cache/transcriber)');
  // The local service always: the comparison is with the same engine on this machine, so TRANSCRIBE_URL is not used.
  const service = await ensureTranscriber({ env: { ...process.env, TRANSCRIBE_MODEL: WHISPER_BASE.name }, log });
  const model = await ensureWhisperBase({ log });
  const python = path.join(CACHE_DIR, 'transcriber', 'venv', 'bin', 'python');
  const audio = await makeAudio(opts.minutes);

  say('warming up the service on one sentence');
  const warmUp = path.join(path.dirname(audio), 'warm-up.wav');
  await speak(SENTENCES.slice(0, 1), warmUp);
  await clientRound(service.url, warmUp);
  const rounds: Round[] = [];
  for (let i = 1; i <= opts.rounds; i++) {
    for (const side of ['engine', 'client'] as const) {
      say(`round ${i}/${opts.rounds}: ${side === 'engine' ? 'bare engine (faster-whisper directly)' : 'client through the service'}…`);
      const round = side === 'engine' ? await engineRound(python, model, audio) : await clientRound(service.url, audio);
      rounds.push(round);
      say(`  ${(round.audioSeconds / round.seconds).toFixed(2)}× real time (${round.audioSeconds.toFixed(1)} s of audio in ${round.seconds.toFixed(1)} s, ${round.words} words)`);
    }
  }
  const best = (side: Round['side']) => rounds.filter((r) => r.side === side).reduce((a, b) => (a.audioSeconds / a.seconds >= b.audioSeconds / b.seconds ? a : b));
  const engine = best('engine');
  const client = best('client');
  const engineSpeed = engine.audioSeconds / engine.seconds;
  const clientSpeed = client.audioSeconds / client.seconds;
  const ratio = clientSpeed / engineSpeed;
  const report = {
    date: new Date().toISOString(),
    audioSeconds: Math.round(engine.audioSeconds * 10) / 10,
    rounds: opts.rounds,
    engine: { audioSecondsPerSecond: round2(engineSpeed), words: engine.words, peakRssMb: Math.max(...rounds.flatMap((r) => (r.peakRssMb ? [r.peakRssMb] : []))) },
    client: { audioSecondsPerSecond: round2(clientSpeed), words: client.words },
    ratio: round2(ratio),
    goal: { ratio: 0.9, met: ratio >= 0.9 },
    service: { peakRssMb: peakRssMb(service.pid), model: service.model },
    freshness: opts.items > 0 ? await freshness(service.url, opts.items) : null,
  };
  say(
    `bare engine ${report.engine.audioSecondsPerSecond}× real time, client through the service ${report.client.audioSecondsPerSecond}×: ratio ${report.ratio} (goal ≥ 0.9: ${report.goal.met ? 'met' : 'NOT met'})`,
  );
  say(`peak memory: service ${report.service.peakRssMb} MB, bare engine ${report.engine.peakRssMb} MB`);
  if (report.freshness) {
    const f = report.freshness;
    say(
      `freshness p50 ${f.p50Seconds} s from --poll to searchable vs ${f.transcribeP50Seconds} s transcribing alone: ${f.overheadP50Seconds} s more (goal ≤ 10 s: ${f.goal.met ? 'met' : 'NOT met'}); this process (pipeline workers and model) peaked at ${f.peakRssMb} MB`,
    );
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Short items for freshness: two sentences each, about 6 s of speech, none repeating another's words much. */
const FRESH_ITEMS = [
  ['The ferry leaves the harbour at seven.', 'Passengers buy tickets from the kiosk on the pier.'],
  ['Our orchard grows twelve kinds of apple.', 'The cider press runs every weekend in October.'],
  ['A violin bow is strung with horse hair.', 'Rosin helps the hair grip the strings.'],
  ['Glaciers carve deep valleys over thousands of years.', 'Meltwater carries gravel far down the mountain.'],
  ['The library opens late on Thursdays.', 'Volunteers read stories to children after school.'],
  ['Copper roofs turn green as they weather.', 'The patina protects the metal underneath.'],
  ['Owls hunt by sound as much as by sight.', 'Their feathers make almost no noise in flight.'],
  ['The marathon route crosses four bridges.', 'Runners drink water at every fifth kilometre.'],
];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Whether the episode titled `title` is published and a search for `sentence` finds one of its passages. */
async function searchable(client: Client, aliases: { episodes: string; passages: string }, title: string, sentence: string): Promise<boolean> {
  const res = await client.search({ index: aliases.episodes, body: { size: 1, query: { match_phrase: { title } }, _source: ['id', 'status'] } } as never);
  const episode = (res.body as { hits: { hits: { _source: { id: string; status: string } }[] } }).hits.hits[0]?._source;
  if (episode?.status !== 'published') return false;
  const hit = await client.search({
    index: aliases.passages,
    body: { size: 1, query: { bool: { must: { match: { text: { query: sentence, minimum_should_match: '75%' } } }, filter: { term: { episodeId: episode.id } } } } },
  } as never);
  return (hit.body as { hits: { hits: unknown[] } }).hits.hits.length > 0;
}

/**
 * Freshness: `items` short spoken items added one at a time to a followed loopback feed, each timed from
 * `follow --poll` to searchable, against the transcription of the same audio alone. Uses the services `up` runs
 * (or OPENSEARCH_URL, REDIS_URL), throw-away indices, queues and library folder.
 */
async function freshness(transcribeUrl: string, items: number) {
  const urls = await servicesUp({ log });
  const modelDir = loadConfig(process.env).modelDir ?? (await ensureModel({ cacheDir: CACHE_DIR, log }));
  const prefix = `bench-fresh-${randomBytes(4).toString('hex')}-`;
  const libraryDir = await mkdtemp(path.join(tmpdir(), 'bench-fresh-'));
  const env = {
    ...process.env,
    OPENSEARCH_URL: urls.opensearchUrl,
    REDIS_URL: urls.redisUrl,
    MODEL_DIR: modelDir,
    INDEX_PREFIX: prefix,
    FOLLOW_LIBRARY_DIR: libraryDir,
    OUTBOUND_ALLOW_PRIVATE: 'true',
    TRANSCRIBE_URL: transcribeUrl,
    FOLLOW_POLL_INTERVAL_SECONDS: '3600',
    LOG_LEVEL: 'warn',
  };
  const config = loadConfig(env);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 60_000 });
  const connection = createRedisConnection(config.redisUrl);
  const pollQueue = createPollQueue(connection, prefix);
  const processQueue = createProcessQueue(connection, prefix);
  const feed = await startFeedServer({ title: 'Freshness Radio' });
  let workers: Awaited<ReturnType<typeof startPipelineWorkers>> | undefined;
  try {
    const embedder = await createIndexerEmbedder(config, { log });
    const aliases = await ensureIndices(client, { prefix, modelId: embedder.modelId, layout: config.indexLayout });
    await client.index({ index: aliases.users, id: 'u_bench', body: userDocument({ id: 'u_bench', name: 'Bench', plan: 'paid' }), refresh: true } as never);
    const dir = path.join(CACHE_DIR, 'bench', 'transcribe');
    await mkdir(dir, { recursive: true });
    const list = Array.from({ length: items }, (_, i) => ({ i, sentences: FRESH_ITEMS[i % FRESH_ITEMS.length]!, file: path.join(dir, `fresh-${i % FRESH_ITEMS.length}.mp3`) }));
    for (const item of list) {
      try {
        readFileSync(item.file);
      } catch {
        await speak(item.sentences, item.file, { gapMs: 700 });
      }
      feed.setFile(`/audio/fresh-${item.i}.mp3`, await readFile(item.file), 'audio/mpeg');
    }
    // A first item with its own SRT, so the feed is followed before the timed items come (nothing transcribed).
    feed.setFile('/srt/intro.srt', '1\n00:00:00,000 --> 00:00:03,000\nWelcome to the freshness bench.\n', 'application/srt');
    feed.addItem({ guid: 'intro', title: 'Intro', pubDate: new Date(Date.UTC(2026, 0, 1)), transcript: { path: '/srt/intro.srt', type: 'application/srt' } });
    const ctx = { client, embedder, aliases, log };
    await followSource({ pipeline: config.pipeline, ctx, processQueue, pollQueue, log }, { source: feed.feedUrl, slug: 'freshness-radio', ownerId: 'u_bench' });
    workers = await startPipelineWorkers({ connection, indexPrefix: prefix, pipeline: config.pipeline, ctx, log });
    await until(() => searchable(client, aliases, 'Intro', 'Welcome to the freshness bench.'), 120_000);

    const runs: { freshSeconds: number; pollSeconds: number; transcribeSeconds: number; audioSeconds: number }[] = [];
    for (const item of list) {
      const alone = await transcribeFile(item.file, {
        url: transcribeUrl,
        model: config.pipeline.transcribe.model,
        maxUploadBytes: config.pipeline.transcribe.maxUploadBytes,
        timeoutMs: config.pipeline.transcribe.timeoutMs,
        log,
      });
      const title = `Fresh item ${item.i + 1}`;
      // With its duration, as hosts write it (a feed without one re-indexes transcribed items on its next change).
      const durationSeconds = Math.round(await probeSeconds(item.file));
      feed.addItem({ guid: `fresh-${item.i}`, title, pubDate: new Date(Date.UTC(2026, 0, 2 + item.i)), enclosure: `/audio/fresh-${item.i}.mp3`, durationSeconds });
      const started = performance.now();
      const poll = runScript('bin/follow.ts', ['--poll', 'freshness-radio'], env);
      const code = await poll.exited;
      if (code !== 0) throw new Error(`follow --poll exited ${code}: ${poll.stderr().trim().split('\n').at(-1)}`);
      const pollSeconds = (performance.now() - started) / 1000;
      await until(() => searchable(client, aliases, title, item.sentences[1]!), 300_000);
      const freshSeconds = (performance.now() - started) / 1000;
      runs.push({ freshSeconds, pollSeconds, transcribeSeconds: alone.seconds, audioSeconds: alone.audioSeconds });
      say(
        `freshness ${runs.length}/${items}: searchable ${freshSeconds.toFixed(1)} s after --poll (the poll command itself ${pollSeconds.toFixed(1)} s); the same ${alone.audioSeconds.toFixed(1)} s of audio transcribed alone in ${alone.seconds.toFixed(1)} s`,
      );
    }
    const p50 = median(runs.map((r) => r.freshSeconds));
    const transcribeP50 = median(runs.map((r) => r.transcribeSeconds));
    return {
      items,
      audioSecondsP50: round2(median(runs.map((r) => r.audioSeconds))),
      p50Seconds: round2(p50),
      pollCommandP50Seconds: round2(median(runs.map((r) => r.pollSeconds))),
      transcribeP50Seconds: round2(transcribeP50),
      overheadP50Seconds: round2(p50 - transcribeP50),
      goal: { overheadSeconds: 10, met: p50 - transcribeP50 <= 10 },
      peakRssMb: peakRssMb(process.pid),
      runs: runs.map((r) => ({ freshSeconds: round2(r.freshSeconds), pollSeconds: round2(r.pollSeconds), transcribeSeconds: round2(r.transcribeSeconds) })),
    };
  } finally {
    if (workers) await workers.close();
    for (const q of [pollQueue, processQueue]) {
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
    }
    connection.disconnect();
    await feed.close();
    await deleteIndices(client, prefix).catch(() => undefined);
    await client.close();
    await rm(libraryDir, { recursive: true, force: true });
  }
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not searchable within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:transcribe: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
