// How far each generated key moment starts from the first word of its claim, on a few episodes of a library:
//   npx tsx scripts/eval/moment-times.ts <library dir> <episode id>… [--print]
// The claim's first three words are looked up in the episode's timed words from the moment's time on (in order, a few
// dropped words allowed between them), so a moment placed early finds its sentence later; the moment is
// "on time" when it starts within 1 s of where they are said. The segmentation uses a stand-in embedder (hashed
// words): where a moment starts does not depend on the model.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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

const norm = (w: string) => w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const print = args.includes('--print');
  const [dir, ...ids] = args.filter((a) => !a.startsWith('--'));
  let total = 0;
  let onTime = 0;
  let over10 = 0;
  for (const id of ids) {
    const record = JSON.parse(await readFile(join(dir!, 'episodes', `${id}.json`), 'utf8')) as EpisodeRecord;
    const segments = record.transcript!.segments;
    const words = segments.flatMap((s) => (s.words ?? []).map((w) => ({ w: norm(w.t), s: w.s })));
    const { chapters } = await enrichTranscript({ segments, language: 'en' }, { embed: stand });
    let here = 0;
    for (const m of chapters.flatMap((c) => c.moments)) {
      const head = m.title.split(/\s+/).slice(0, 3).map(norm);
      // The moment's segment: the last one starting at or before it.
      let from = 0;
      while (from < words.length && words[from]!.s < m.startMs - 1000) from++;
      let said: number | undefined;
      // The three words in order, a few dropped words (a restart, a hesitation) allowed between them.
      const saysHead = (i: number) => {
        let at = i;
        for (const h of head) {
          while (at < Math.min(words.length, i + 8) && words[at]!.w !== h) at++;
          if (at >= Math.min(words.length, i + 8)) return false;
          at++;
        }
        return true;
      };
      for (let i = from; i < words.length && said === undefined; i++) if (words[i]!.w === head[0] && saysHead(i)) said = words[i]!.s;
      total++;
      here++;
      const off = said === undefined ? Infinity : Math.abs(m.startMs - said);
      if (off <= 1000) onTime++;
      if (off > 10_000) over10++;
      if (print) process.stdout.write(`${id} ${m.type.padEnd(10)} ${String(Math.round(m.startMs / 1000)).padStart(5)}s off ${(off / 1000).toFixed(1).padStart(6)}s  ${m.title}\n`);
      // For a reply, the turn it answers.
      const at = segments.findLastIndex((s) => s.startMs <= m.startMs);
      if (print && (m.type === 'qa' || m.type === 'debate') && at > 0)
        process.stdout.write(`      after ${segments[at - 1]!.speakerLabel}: …${segments[at - 1]!.text.slice(-150)}\n`);
    }
    process.stdout.write(`${id}: ${here} moments\n`);
  }
  process.stdout.write(`${onTime} of ${total} moments start within 1 s of their claim's first word; ${over10} more than 10 s away\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
