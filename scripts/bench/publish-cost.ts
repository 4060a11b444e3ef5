// `npm run bench:publish`: what publishing one episode costs against the size of its channel.
//
//   npm run bench:publish -- [--sizes 1,50,200] [--runs 3] [--minutes 60]
//
// For each size, a channel folder holds size - 1 published episodes of `--minutes` of synthesized speech (600 worded
// segments an hour of 15 words: 60 % stop words, the rest mostly from the episode's 100-word subject in a 2,000-word
// vocabulary; 2,300 phrase keys an episode, 1,800 of them new to the channel, where the podcast data set has 2,200 and
// 1,000 an hour) and its channel statistics file, as `npm run enrich` leaves it. Then one more episode is published as the
// follower publishes it: enrichment (real stages, a hashed stand-in embedder, no NER or language model), the episode
// written, the statistics saved. Median wall seconds of `--runs`, each on a fresh copy; JSON on stdout, lines on stderr.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { libraryJson, writeEpisodeRecord } from '../../core/library/writer.js';
import { rebuildTally, recordChannelStats, saveTally, STATS_FILE } from '../../pipeline/enrich/channel-stats.js';
import { enrichForPublish } from '../../pipeline/enrich/publish.js';
import { stagesOf } from '../../pipeline/enrich/stages.js';
import { episodePath } from '../../core/library/layout.js';
import { readEpisodeRecord } from '../../core/library/reader.js';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { createHashEmbedder } from '../lib/fakes/hash-embedder.js';

const program = new Command()
  .name('bench:publish')
  .description('Wall seconds to enrich and publish one episode in a channel of each size (same run).')
  .option('--sizes <list>', 'channel sizes, the published episode included', (v) => v.split(',').map(Number), [1, 50, 200])
  .option('--runs <n>', 'publishes timed per size (the median is reported)', Number, 3)
  .option('--minutes <n>', 'minutes of speech per episode', Number, 60)
  .parse();
const opts = program.opts<{ sizes: number[]; runs: number; minutes: number }>();
const say = (line: string) => process.stderr.write(`bench:publish: ${line}\n`);

const CHANNEL = { id: 'ch_bench', slug: 'bench', title: 'Bench', providerType: 'rss', ownerId: 'u_bench', memberIds: ['u_bench'], language: 'en' };
const STOP = ['the', 'and', 'of', 'to', 'a', 'in', 'that', 'is', 'we', 'it', 'for', 'on', 'with', 'as', 'was', 'so'];

/** A small deterministic generator (mulberry32): the same seed, the same episode. */
function random(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Made-up content words: consonant-vowel syllables, so no stemming or stop list folds them together. */
const VOCABULARY = (() => {
  const next = random(7);
  const syllable = () => 'bdfgklmnprstvz'[Math.floor(next() * 14)]! + 'aeiou'[Math.floor(next() * 5)]!;
  return Array.from({ length: 2_000 }, () => Array.from({ length: 2 + Math.floor(next() * 2) }, syllable).join('') + 'x');
})();

/** Episode `n`: 10 segments a minute of 15 words, its subject (a 100-word slice of the vocabulary) most of the content words. */
function episode(n: number, minutes: number): EpisodeRecord {
  const next = random(1_000 + n);
  const subject = Math.floor(next() * (VOCABULARY.length - 100));
  const word = () =>
    next() < 0.6 ? STOP[Math.floor(next() * STOP.length)]! : next() < 0.85 ? VOCABULARY[subject + Math.floor(next() * 100)]! : VOCABULARY[Math.floor(next() * VOCABULARY.length)]!;
  const segments = Array.from({ length: minutes * 10 }, (_, i) => ({
    speakerLabel: null,
    startMs: i * 6_000,
    endMs: (i + 1) * 6_000,
    text: `${Array.from({ length: 15 }, word).join(' ')}.`,
  }));
  return {
    id: `ep_${String(n).padStart(4, '0')}`,
    channelId: CHANNEL.id,
    title: `Episode ${n}`,
    publishedAt: new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString(),
    status: 'published',
    transcript: { formatVersion: 1, segments },
    chapters: [],
    language: 'en',
  };
}

const model = createHashEmbedder(128);
const stages = stagesOf({ embed: (texts) => model.embedPassages(texts) });

/** Publishes `record` as the follower does (enrich outside the lock, then write and save the statistics); wall seconds. */
async function publishOne(dir: string, record: EpisodeRecord): Promise<number> {
  const started = performance.now();
  const enriched = await enrichForPublish(record, { stages, dir, channelLanguage: 'en' });
  if (enriched.outcome !== 'enriched') throw new Error(`the benchmark episode was not enriched (${enriched.outcome})`);
  const previous = await readEpisodeRecord(dir, record.id);
  await writeEpisodeRecord(dir, enriched.apply(record));
  await recordChannelStats(dir, { channelId: CHANNEL.id, channelLanguage: 'en', previous, hint: enriched.keyphrases });
  return (performance.now() - started) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'bench-publish-'));
  try {
    // One publish untimed first: the first run of a process also compiles the code it runs.
    const warm = join(work, 'warm-up');
    await mkdir(join(warm, 'episodes'), { recursive: true });
    await writeFile(join(warm, 'users.json'), libraryJson([{ id: 'u_bench', name: 'Bench', plan: 'paid' }]));
    await writeFile(join(warm, 'channels.json'), libraryJson([CHANNEL]));
    await publishOne(warm, episode(0, opts.minutes));
    const rows: { size: number; seconds: number; runs: number[]; statsBytes: number }[] = [];
    for (const size of opts.sizes) {
      const base = join(work, `base-${size}`);
      await mkdir(join(base, 'episodes'), { recursive: true });
      await writeFile(join(base, 'users.json'), libraryJson([{ id: 'u_bench', name: 'Bench', plan: 'paid' }]));
      await writeFile(join(base, 'channels.json'), libraryJson([CHANNEL]));
      for (let n = 1; n < size; n++) await writeEpisodeRecord(base, episode(n, opts.minutes));
      await saveTally(base, await rebuildTally(base, CHANNEL.id, 'en'));
      // Each run starts from the same folder: the published episode goes and the statistics come back as they were
      // (a copy would change every file's time, and with it the statistics' stamps).
      const stats = await readFile(join(base, STATS_FILE));
      const statsBytes = stats.length;
      const runs: number[] = [];
      for (let r = 0; r < opts.runs; r++) {
        const record = episode(size, opts.minutes);
        runs.push(await publishOne(base, record));
        await rm(episodePath(base, record.id));
        await writeFile(join(base, STATS_FILE), stats);
      }
      rows.push({ size, seconds: median(runs), runs, statsBytes });
      say(
        `channel of ${size}: ${median(runs).toFixed(2)} s to publish one ${opts.minutes}-minute episode (runs ${runs.map((s) => s.toFixed(2)).join(', ')}; statistics ${(statsBytes / 1e6).toFixed(1)} MB)`,
      );
      await rm(base, { recursive: true, force: true });
    }
    const first = rows[0]!;
    const last = rows.at(-1)!;
    say(`ratio ${last.size} : ${first.size} = ${(last.seconds / first.seconds).toFixed(2)}x (aim: at most 1.5x)`);
    process.stdout.write(`${JSON.stringify({ minutes: opts.minutes, rows, ratio: last.seconds / first.seconds }, null, 2)}\n`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`bench:publish: ${err.message}\n`);
  process.exit(1);
});
