// `npm run bench:enrich`: what enrichment costs, as wall seconds per hour of speech and as a ratio to transcribing the same audio.
//
//   npm run bench:enrich -- [--minutes 6] [--library <dir>] [--episodes 8]
//
// Part 1, the ratio: espeak-ng speaks `--minutes` of sentences on two subjects (cached under .cache/bench/enrich),
// the local transcription service transcribes it through the pipeline's client (transcribeFile), and enrichment runs on
// that transcript as the follow pipeline runs it (chapters, moments, keyphrases, names through the service's NER);
// both timed in this run, so the ratio holds on a busy machine.
// Part 2, the cost per hour on real speech: `--episodes` of a library's longest transcripts (default the QMSum data set
// when ../shared/data is there, else the compact fixture) are enriched with the model in this process and no vector
// cache; per episode its hours of speech and seconds, and the total as seconds per hour (goal: at most 20).
// JSON on stdout, lines on stderr.
import { existsSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../../core/config/load.js';
import { createConfiguredEmbedder } from '../../core/embedding/configured.js';
import { createLogger } from '../../core/ground/logger.js';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import { speechText } from '../../pipeline/enrich/speech.js';
import { speechOf, type GenerateInput, type Stages } from '../../pipeline/enrich/rules.js';
import { createStages } from '../../pipeline/enrich/stages.js';
import type { EnrichSegment } from '../../pipeline/enrich/types.js';
import { transcribeFile } from '../../pipeline/transcribe/transcribe.js';
import { positive } from '../../bin/lib/cli-args.js';
import { speak } from '../lib/fakes/speech.js';
import { DATASETS_DIR } from '../../test/support/datasets.js';
import { ensureTools } from '../ops/provision/debian-tools.js';
import { ensureModel } from '../ops/provision/model.js';
import { CACHE_DIR, PROJECT_ROOT } from '../ops/provision/paths.js';
import { ensureTranscriber } from '../ops/provision/transcriber.js';
import { WHISPER_BASE } from '../ops/provision/transcriber-models.js';

const program = new Command()
  .name('bench:enrich')
  .description('Wall seconds of enrichment per hour of speech, and its ratio to transcribing the same audio (same run).')
  .option('--minutes <n>', 'minutes of generated speech for the ratio to transcription', positive, 6)
  .option('--library <dir>', 'library whose longest transcripts are enriched for the cost per hour')
  .option('--episodes <n>', 'episodes of the library enriched', positive, 8)
  .parse();
const opts = program.opts<{ minutes: number; library?: string; episodes: number }>();
const log = createLogger({ name: 'bench:enrich', level: 'warn', fd: 2 });
const say = (line: string) => process.stderr.write(`bench:enrich: ${line}\n`);

const SUBJECTS = [
  [
    'Cover crops keep the soil covered through the winter and feed the soil biology.',
    'Soil organic matter builds slowly when farmers stop tilling every spring.',
    'No-till planting leaves the crop residue on the surface, and the ground holds more water.',
    'A soil test tells you how much nitrogen is left after the harvest.',
  ],
  [
    'Water rights on the river were allocated a century ago, before anyone measured the aquifer.',
    'The irrigation district pumps groundwater faster than the aquifer can recharge.',
    'Senior rights holders can call the river, and junior irrigators must stop pumping.',
    'A water market lets a district lease its rights to the city in dry years.',
  ],
];

/** Two subjects in turn, half the minutes each (about 4.5 s a sentence with its pause); reused when already made. */
async function makeAudio(minutes: number): Promise<string> {
  const dir = path.join(CACHE_DIR, 'bench', 'enrich');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `two-subjects-${minutes}min.mp3`);
  if (await stat(file).catch(() => undefined)) return file;
  const each = Math.ceil((minutes * 60) / 2 / 4.5);
  const sentences = SUBJECTS.flatMap((s) => Array.from({ length: each }, (_, i) => s[i % s.length]!));
  say(`speaking ${sentences.length} sentences with espeak-ng into ${path.relative(PROJECT_ROOT, file)}`);
  await speak(sentences, file, { gapMs: 800 });
  return file;
}

const input = (episodeId: string, title: string, segments: EnrichSegment[], language = 'en'): GenerateInput => ({
  episodeId,
  title,
  description: null,
  language,
  segments,
  want: { chapters: true, topics: true, people: true, entities: true },
});

/** Enriches one transcript as the pipeline does (its channel statistics from its own text); wall seconds. */
async function enrichOnce(stages: Stages, work: GenerateInput): Promise<{ seconds: number; chapters: number; moments: number; names: number }> {
  const started = performance.now();
  const stats = stages.stats([speechText(work.segments)], work.language);
  const made = await stages.episode(work, stats);
  const seconds = (performance.now() - started) / 1000;
  const chapters = made.chapters ?? [];
  return {
    seconds,
    chapters: chapters.length,
    moments: chapters.reduce((n, c) => n + c.moments.length, 0),
    names: (made.names?.people.length ?? 0) + (made.names?.entities.length ?? 0),
  };
}

const hoursOf = (segments: readonly EnrichSegment[]) => (segments.length ? (Math.max(...segments.map((s) => s.endMs)) - segments[0]!.startMs) / 3_600_000 : 0);

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  await ensureTools({ env: process.env, log, tools: ['espeak-ng', 'ffmpeg', 'ffprobe'] });
  const modelDir = config.modelDir ?? (await ensureModel({ cacheDir: CACHE_DIR, log }));
  say('provisioning the local transcription service (first run: venv and models into .cache/transcriber)');
  const service = await ensureTranscriber({ env: { ...process.env, TRANSCRIBE_MODEL: WHISPER_BASE.name }, log });
  // The model in this process without the vector cache: what a first enrichment of new speech costs.
  const embedder = await createConfiguredEmbedder({ ...config, modelDir });
  // The stages as the worker makes them, with that embedder, the local service's NER and no language model.
  const { stages } = await createStages({ ...config, modelDir, enrich: { ...config.enrich, url: undefined, nerUrl: service.url } }, { log, embedder });
  await embedder.embedPassages(['warm up']);

  const audio = await makeAudio(opts.minutes);
  say('transcribing the two-subject speech through the local service');
  const { transcribe } = loadConfig({ ...process.env, TRANSCRIBE_URL: service.url }).pipeline;
  const t = await transcribeFile(audio, { url: service.url, model: transcribe.model, maxUploadBytes: transcribe.maxUploadBytes, timeoutMs: transcribe.timeoutMs, log });
  const segments: EnrichSegment[] = t.segments.map((s) => ({ startMs: s.startMs, endMs: s.endMs, text: s.text, speakerLabel: null, words: s.words }));
  say('enriching its transcript');
  const spoken = await enrichOnce(stages, input('bench-spoken', 'Soil and water', segments));
  const ratio = {
    audioSeconds: t.audioSeconds,
    transcribeSeconds: t.seconds,
    enrichSeconds: spoken.seconds,
    enrichOverTranscribe: spoken.seconds / t.seconds,
    chapters: spoken.chapters,
    moments: spoken.moments,
  };
  say(
    `${(t.audioSeconds / 60).toFixed(1)} min of speech: transcribed in ${t.seconds.toFixed(1)} s, enriched in ${spoken.seconds.toFixed(2)} s ` +
      `(${(100 * ratio.enrichOverTranscribe).toFixed(1)} % of the transcription; ${spoken.chapters} chapters, ${spoken.moments} moments)`,
  );

  const library = opts.library ?? (existsSync(path.join(DATASETS_DIR, 'qmsum')) ? path.join(DATASETS_DIR, 'qmsum') : path.join(PROJECT_ROOT, 'test', 'data', 'qmsum-cut'));
  const meta = await readLibraryMeta(library);
  const longest: { id: string; title: string; segments: EnrichSegment[]; hours: number }[] = [];
  for await (const { record } of readEpisodes(library, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => {} })) {
    if (!record.transcript?.segments.length) continue;
    const segs = speechOf(record);
    longest.push({ id: record.id, title: record.title, segments: segs, hours: hoursOf(segs) });
    longest.sort((a, b) => b.hours - a.hours || (a.id < b.id ? -1 : 1));
    longest.length = Math.min(longest.length, opts.episodes);
  }
  const rows: { episodeId: string; hours: number; seconds: number; secondsPerHour: number; chapters: number; moments: number; names: number }[] = [];
  for (const e of longest) {
    const r = await enrichOnce(stages, input(e.id, e.title, e.segments));
    rows.push({ episodeId: e.id, hours: e.hours, seconds: r.seconds, secondsPerHour: r.seconds / e.hours, chapters: r.chapters, moments: r.moments, names: r.names });
    say(
      `${e.id}: ${(e.hours * 60).toFixed(0)} min enriched in ${r.seconds.toFixed(1)} s (${(r.seconds / e.hours).toFixed(1)} s per hour; ${r.chapters} chapters, ${r.names} names)`,
    );
  }
  const hours = rows.reduce((n, r) => n + r.hours, 0);
  const seconds = rows.reduce((n, r) => n + r.seconds, 0);
  const perHour = seconds / hours;
  say(`${path.relative(PROJECT_ROOT, library) || library}: ${hours.toFixed(2)} h of speech in ${seconds.toFixed(1)} s: ${perHour.toFixed(1)} s per hour of speech (goal ≤ 20)`);
  say(
    `transcribing one hour costs ${(3600 * (t.seconds / t.audioSeconds)).toFixed(0)} s here: enrichment is ${((100 * perHour) / (3600 * (t.seconds / t.audioSeconds))).toFixed(1)} % of it`,
  );
  process.stdout.write(
    `${JSON.stringify({ date: new Date().toISOString(), ratio, library: path.basename(library), hours, seconds, secondsPerHour: perHour, episodes: rows }, null, 2)}\n`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:enrich: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
