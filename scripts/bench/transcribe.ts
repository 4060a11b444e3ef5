// `npm run bench:transcribe`: audio seconds per wall second of our client through the local service vs. faster-whisper called directly, on the same speech;
// freshness; the work order under backfill; throughput with one and with two transcription services.
//
//   npm run bench:transcribe -- [--minutes 3] [--rounds 2] [--items 5] [--backfill 40] [--episodes 4] [--parts engine,freshness,backfill,services]
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
//
// Backfill (`--backfill`): a channel follows a feed of that many old spoken items; once a few are published, one new
// item is added and the feed polled: when it is published, how many backfill items were published before it, and its
// wait and latency as ratios to one episode's processing. Then another channel is followed with one new item: how long
// its job waited (goal: at most one episode's processing).
//
// Services (`--episodes`): that many episodes transcribed at once through one local service, then through two (a
// second service started by the bench on another port, the worker's concurrency one per service): audio seconds per
// wall second of each.
// JSON on stdout, lines on stderr.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../../core/config/load.js';
import { createLogger } from '../../core/ground/logger.js';
import { probeSeconds } from '../../pipeline/transcribe/audio.js';
import { transcribeFile, TranscribeServices } from '../../pipeline/transcribe/transcribe.js';
import { speak } from '../lib/fakes/speech.js';
import { freePort } from '../lib/child.js';
import { positive } from '../../bin/lib/cli-args.js';
import { exec } from '../ops/provision/commands.js';
import { ensureTools } from '../ops/provision/debian-tools.js';
import { CACHE_DIR, PROJECT_ROOT } from '../ops/provision/paths.js';
import { ensureTranscriber } from '../ops/provision/transcriber.js';
import { ensureWhisperBase, WHISPER_BASE } from '../ops/provision/transcriber-models.js';
import { backfill, freshness, peakRssMb, round2 } from './transcribe-pipeline.js';
const program = new Command()
  .name('bench:transcribe')
  .description('Audio seconds per wall second: our client through the local transcription service vs. faster-whisper called directly, same audio, same settings.')
  .option('--minutes <n>', 'minutes of generated speech', positive, 3)
  .option('--rounds <n>', 'runs of each side, alternating; the best of each is compared', positive, 2)
  .option('--items <n>', 'short items added to a followed feed one at a time for freshness (0: skip)', nonNegative, 5)
  .option('--backfill <n>', 'old items of the followed feed that a new item must not wait behind', positive, 40)
  .option('--episodes <n>', 'episodes transcribed at once for the throughput of one and of two services', positive, 4)
  .option('--parts <list>', 'what to run, comma-separated: engine, freshness, backfill, services', (v: string) => v.split(',').map((p) => p.trim()), [
    'engine',
    'freshness',
    'backfill',
    'services',
  ])
  .parse();
const opts = program.opts<{ minutes: number; rounds: number; items: number; backfill: number; episodes: number; parts: string[] }>();
const runs = (part: string) => opts.parts.includes(part);

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

async function main(): Promise<void> {
  await ensureTools({ env: process.env, log, tools: ['espeak-ng', 'ffmpeg', 'ffprobe'] });
  // The engine comparison needs the local service (the same engine on this machine); the other parts take a local
  // TRANSCRIBE_URL as given (the first of a list), as the test command does, and never restart what runs there.
  const given = runs('engine') ? undefined : process.env.TRANSCRIBE_URL?.split(',')[0]?.trim();
  if (!given) say('provisioning the local transcription service (first run: venv and model into .cache/transcriber)');
  const service = given
    ? { url: given.replace(/\/+$/, ''), pid: undefined, model: WHISPER_BASE.name }
    : await ensureTranscriber({ env: { ...process.env, TRANSCRIBE_MODEL: WHISPER_BASE.name }, log });
  const model = await ensureWhisperBase({ log });
  const audio = await makeAudio(opts.minutes);

  say('warming up the service on one sentence');
  const warmUp = path.join(path.dirname(audio), 'warm-up.wav');
  await speak(SENTENCES.slice(0, 1), warmUp);
  await clientRound(service.url, warmUp);
  const report = {
    date: new Date().toISOString(),
    engine: runs('engine') ? await engineAgainstClient(service.url, model, audio) : null,
    service: { peakRssMb: service.pid === undefined ? undefined : peakRssMb(service.pid), model: service.model },
    freshness: runs('freshness') && opts.items > 0 ? await freshness(service.url, opts.items) : null,
    backfill: runs('backfill') ? await backfill(service.url, opts.backfill) : null,
    services: runs('services') ? await throughput(service.url, model, opts.episodes) : null,
  };
  if (report.engine) {
    const e = report.engine;
    say(
      `bare engine ${e.engine.audioSecondsPerSecond}× real time, client through the service ${e.client.audioSecondsPerSecond}×: ratio ${e.ratio} (goal ≥ 0.9: ${e.goal.met ? 'met' : 'NOT met'})`,
    );
    say(`peak memory: service ${report.service.peakRssMb} MB, bare engine ${e.engine.peakRssMb} MB`);
  }
  if (report.freshness) {
    const f = report.freshness;
    say(
      `freshness p50 ${f.p50Seconds} s from --poll to searchable vs ${f.transcribeP50Seconds} s transcribing alone: ${f.overheadP50Seconds} s more (goal ≤ 10 s: ${f.goal.met ? 'met' : 'NOT met'}); this process (pipeline workers and model) peaked at ${f.peakRssMb} MB`,
    );
  }
  if (report.backfill) {
    const b = report.backfill;
    say(
      `under a backfill of ${b.backfillItems}: the new item was published after ${b.newItem.backfillPublishedBefore} backfill items (${b.newItem.backfillPublishedWhileWaiting} while it waited), ${b.newItem.latencySeconds} s after its poll = ${b.newItem.latencyRatio}× one episode's processing (${b.episodeSeconds} s); its job waited ${b.newItem.waitSeconds} s (${b.newItem.waitRatio}×). Another channel's new item waited ${b.otherChannel.waitSeconds} s = ${b.otherChannel.waitRatio}× (goal ≤ 1: ${b.goal.met ? 'met' : 'NOT met'})`,
    );
  }
  if (report.services) {
    const t = report.services;
    say(`${t.episodes} episodes at once: one service ${t.one.audioSecondsPerSecond}× real time, two services ${t.two.audioSecondsPerSecond}× (${t.gain}×)`);
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

/** The bare engine against our client through the service, `--rounds` of each alternating, the best of each compared. */
async function engineAgainstClient(url: string, model: string, audio: string) {
  const python = path.join(CACHE_DIR, 'transcriber', 'venv', 'bin', 'python');
  const rounds: Round[] = [];
  for (let i = 1; i <= opts.rounds; i++) {
    for (const side of ['engine', 'client'] as const) {
      say(`round ${i}/${opts.rounds}: ${side === 'engine' ? 'bare engine (faster-whisper directly)' : 'client through the service'}…`);
      const round = side === 'engine' ? await engineRound(python, model, audio) : await clientRound(url, audio);
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
  return {
    audioSeconds: Math.round(engine.audioSeconds * 10) / 10,
    rounds: opts.rounds,
    engine: { audioSecondsPerSecond: round2(engineSpeed), words: engine.words, peakRssMb: Math.max(...rounds.flatMap((r) => (r.peakRssMb ? [r.peakRssMb] : []))) },
    client: { audioSecondsPerSecond: round2(clientSpeed), words: client.words },
    ratio: round2(ratio),
    goal: { ratio: 0.9, met: ratio >= 0.9 },
  };
}

/** Starts another transcription service of the same model on a free loopback port; stopped by the caller (its pid). */
async function secondService(model: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const python = path.join(CACHE_DIR, 'transcriber', 'venv', 'bin', 'python');
  const dir = path.join(PROJECT_ROOT, 'services', 'transcriber');
  const port = await freePort();
  const child = spawn(python, ['-B', path.join(dir, 'server.py'), '--port', String(port), '--model', model, '--name', WHISPER_BASE.name], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the second transcription service exited: ${stderr.trim().split('\n').at(-1)}`);
    const up = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { url, stop };
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error('the second transcription service did not answer /health within 180 s');
}

/**
 * `episodes` copies of a minute of speech transcribed at once, as a worker runs them (its concurrency one per
 * service), through one local service and then through two (the second started here): audio seconds per wall second.
 */
async function throughput(url: string, model: string, episodes: number) {
  const audio = await makeAudio(1);
  say('services: starting a second transcription service on another port');
  const second = await secondService(model);
  try {
    await clientRound(second.url, path.join(path.dirname(audio), 'warm-up.wav'));
    const { transcribe } = loadConfig({ ...process.env, TRANSCRIBE_URL: url }).pipeline;
    const measure = async (urls: string[]) => {
      const pool = new TranscribeServices(urls, { perService: 1 });
      const started = performance.now();
      const all = await Promise.all(
        Array.from({ length: episodes }, () =>
          transcribeFile(audio, { url: urls[0]!, services: pool, model: transcribe.model, maxUploadBytes: transcribe.maxUploadBytes, timeoutMs: transcribe.timeoutMs, log }),
        ),
      );
      const seconds = (performance.now() - started) / 1000;
      const audioSeconds = all.reduce((n, t) => n + t.audioSeconds, 0);
      say(`  ${urls.length} service(s): ${round2(audioSeconds)} s of audio in ${round2(seconds)} s = ${round2(audioSeconds / seconds)}× real time`);
      return { audioSeconds: round2(audioSeconds), seconds: round2(seconds), audioSecondsPerSecond: round2(audioSeconds / seconds) };
    };
    say(`services: ${episodes} episodes of ${round2(await probeSeconds(audio))} s at once through one service, then two`);
    const one = await measure([url]);
    const two = await measure([url, second.url]);
    return { episodes, one, two, gain: round2(two.audioSecondsPerSecond / one.audioSecondsPerSecond), cores: os.cpus().length };
  } finally {
    await second.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:transcribe: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
