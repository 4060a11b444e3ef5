// `npm run bench:transcribe`: audio seconds per wall second of our client through the local service vs. faster-whisper called directly, on the same speech.
//
//   npm run bench:transcribe -- [--minutes 3] [--rounds 2]
//
// espeak-ng speaks a few minutes of sentences into an MP3 (the format of a podcast
// enclosure), once, under .cache/bench/transcribe. Then, alternating, `--rounds` times:
// the bare engine (services/transcriber/bench_engine.py: faster-whisper with the service's
// own settings, model loaded before the clock) and transcribeFile() through the local
// service (probe, upload, decode, answer, normalise, clean: what a pipeline job pays). The
// best round of each is compared (the machine is shared: the best is the least disturbed).
// Peak memory: the service's VmHWM and the bare engine's max RSS. JSON on stdout, lines on stderr.
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { transcribeFile } from '../../pipeline/transcribe/transcribe.js';
import { speak } from '../../test/support/speech.js';
import { positive } from '../lib/cli-args.js';
import { exec } from '../ops/provision/commands.js';
import { ensureMediaTools } from '../ops/provision/media-tools.js';
import { CACHE_DIR, PROJECT_ROOT } from '../ops/provision/paths.js';
import { ensureTranscriber, ensureWhisperBase, WHISPER_BASE } from '../ops/provision/transcriber.js';

const program = new Command()
  .name('bench:transcribe')
  .description('Audio seconds per wall second: our client through the local transcription service vs. faster-whisper called directly, same audio, same settings.')
  .option('--minutes <n>', 'minutes of generated speech', positive, 3)
  .option('--rounds <n>', 'runs of each side, alternating; the best of each is compared', positive, 2)
  .parse();
const opts = program.opts<{ minutes: number; rounds: number }>();
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
  await ensureMediaTools({ env: process.env, log, tools: ['espeak-ng', 'ffmpeg', 'ffprobe'] });
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
    // Freshness (from `npm run follow -- --poll` to searchable, p50 over several short items,
    // against the transcription time alone; goal at most 10 s more) belongs here: the
    // pipeline's bench adds it once following exists.
    freshness: null,
  };
  say(
    `bare engine ${report.engine.audioSecondsPerSecond}× real time, client through the service ${report.client.audioSecondsPerSecond}×: ratio ${report.ratio} (goal ≥ 0.9: ${report.goal.met ? 'met' : 'NOT met'})`,
  );
  say(`peak memory: service ${report.service.peakRssMb} MB, bare engine ${report.engine.peakRssMb} MB`);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

const round2 = (n: number) => Math.round(n * 100) / 100;

main().catch((err: unknown) => {
  process.stderr.write(`bench:transcribe: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
