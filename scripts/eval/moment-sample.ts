// Prints a sample of generated key moments with the turn before each, for labelling their type by hand:
//   npx tsx scripts/eval/moment-sample.ts <library dir> [--episodes 4] [--per 10] [--skip 0]
// The segmentation uses a stand-in embedder (hashed words): the type of a chosen sentence does not depend on the model.
import { createHash } from 'node:crypto';
import { Command } from 'commander';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { enrichTranscript } from '../../pipeline/enrich/enrich-episode.js';
import type { EmbedTexts } from '../../pipeline/enrich/types.js';

/** Hashed-word vectors: deterministic, no model. */
const stand: EmbedTexts = async (texts) =>
  texts.map((t) => {
    const v = new Array<number>(128).fill(0);
    for (const w of t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) v[createHash('md5').update(w).digest().readUInt32LE(0) % 128]! += 1;
    return v;
  });

async function main(): Promise<void> {
  const [dir] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const opts = new Command()
    .option('--episodes <n>', '', Number, 4)
    .option('--per <n>', '', Number, 10)
    .option('--skip <n>', 'episodes to pass over first (a fresh sample)', Number, 0)
    .allowUnknownOption()
    .allowExcessArguments()
    .parse()
    .opts<{ episodes: number; per: number; skip: number }>();
  const meta = await readLibraryMeta(dir!);
  const all: EpisodeRecord[] = [];
  for await (const { record } of readEpisodes(dir!, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) all.push(record);
  // Episodes picked by a hash of their id: spread, and the same every run.
  const picked = all
    .filter((r) => (r.transcript?.segments.length ?? 0) > 50)
    .sort((a, b) => createHash('sha1').update(a.id).digest('hex').localeCompare(createHash('sha1').update(b.id).digest('hex')))
    .slice(opts.skip, opts.skip + opts.episodes);
  for (const r of picked) {
    const segments = r.transcript!.segments;
    const { chapters } = await enrichTranscript({ segments, language: 'en' }, { embed: stand });
    const moments = chapters.flatMap((c) => c.moments).slice(0, opts.per);
    for (const m of moments) {
      const i = segments.findLastIndex((s) => s.startMs <= m.startMs);
      const before = segments[i - 1];
      process.stdout.write(
        `${JSON.stringify({ episodeId: r.id, startMs: m.startMs, type: m.type, title: m.title, before: before ? `${before.speakerLabel ?? '?'}: ${before.text.slice(-160)}` : null, speaker: segments[i]!.speakerLabel })}\n`,
      );
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
