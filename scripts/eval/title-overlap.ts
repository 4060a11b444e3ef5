// Generated chapter titles against the human chapter titles over the same span: ROUGE-1 (unigram F1 over lower-cased content
// words) on the dev episodes of QMSum (train + val of splits.json) and TutorialVQA (videos whose sha1(id) is even):
//   npx tsx scripts/eval/title-overlap.ts [--library <dir> ...] [--limit 40] [--samples <file>] [--json <file>]
// Two span sets: the generated chapters (what a listener sees, boundaries included) and the human chapters' own spans
// titled by the same code and scored against their own title (the titles alone, whatever the segmenter does).
import { Command } from 'commander';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import { chapterSample, enrichTranscript, orderedSegments } from '../../pipeline/enrich/enrich-episode.js';
import { documentFrequencies, type DocumentFrequencies } from '../../pipeline/enrich/phrases.js';
import { speechText } from '../../pipeline/enrich/speech.js';
import { isContentWord, stopwords, tokens } from '../../pipeline/enrich/text.js';
import { composeTitle, conjunction, rankChapterPhrases } from '../../pipeline/enrich/titles.js';
import type { EmbedTexts, EnrichSegment } from '../../pipeline/enrich/types.js';
import { openEnrichEmbedder } from './enrich-embedder.js';
import { evenSubset } from './relevance.js';
import { unigramF1 } from './rouge.js';

/** Lower-cased content words of a title (stop words, fillers, short words and numbers left out), in order. */
export function contentWords(text: string, language = 'en'): string[] {
  const stop = stopwords(language);
  return tokens(text)
    .map((t) => t.lower)
    .filter((w) => isContentWord(w, stop));
}

/** ROUGE-1 F1 of a candidate against one reference over content words (clipped counts); 0 when either has none. */
export function rouge1(candidate: string, reference: string, language = 'en'): number {
  return unigramF1(contentWords(candidate, language), contentWords(reference, language));
}

/** A span of an episode and its title. */
export interface Titled {
  title: string;
  startMs: number;
  endMs: number;
}

/** Titles of the human chapters that overlap a span (at least one millisecond in common). */
export function overlappingTitles(span: Pick<Titled, 'startMs' | 'endMs'>, chapters: readonly Titled[]): string[] {
  return chapters.filter((c) => Math.min(c.endMs, span.endMs) > Math.max(c.startMs, span.startMs)).map((c) => c.title);
}

/** One generated title scored: its best ROUGE-1 over the human titles it is compared with, and whether it shares a word with one. */
export interface TitleScore {
  episodeId: string;
  spans: SpanSet;
  title: string;
  human: string[];
  rouge1: number;
  shares: boolean;
  startMs: number;
}

export type SpanSet = 'generated' | 'human';

/** A title scored against `refs` (the human titles over its span; a human span's own title alone). */
export function scoreTitle(episodeId: string, spans: SpanSet, t: Titled, refs: readonly string[], language = 'en'): TitleScore {
  const best = refs.reduce((m, r) => Math.max(m, rouge1(t.title, r, language)), 0);
  return { episodeId, spans, title: t.title, human: [...refs], rouge1: best, shares: best > 0, startMs: t.startMs };
}

/** Dev episodes of a library with at least two human chapters: train + val of `splits.json`, else those whose sha1(id) is even (TutorialVQA's video side). */
export async function titleDevEpisodes(dir: string): Promise<EpisodeRecord[]> {
  const splits = JSON.parse(await readFile(join(dir, 'splits.json'), 'utf8').catch(() => 'null')) as Record<string, string> | null;
  const dev = (id: string) => (splits ? splits[id] === 'train' || splits[id] === 'val' : parseInt(createHash('sha1').update(id).digest('hex').slice(-1), 16) % 2 === 0);
  const meta = await readLibraryMeta(dir);
  const out: EpisodeRecord[] = [];
  for await (const { record } of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) {
    if (!dev(record.id)) continue;
    if ((record.chapters ?? []).length < 2 || (record.transcript?.segments.length ?? 0) < 10) continue;
    out.push(record);
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The human chapters' spans titled by the local method, as enrichment titles its own chapters (the human chapters are the episode's). */
async function titleHumanSpans(ep: EpisodeRecord, segments: readonly EnrichSegment[], embed: EmbedTexts, freq: DocumentFrequencies, language: string): Promise<Titled[]> {
  const joiner = conjunction(language);
  const chapters = ep.chapters ?? [];
  const texts = chapters.map((c) =>
    segments
      .filter((s) => s.startMs < c.endMs && s.endMs > c.startMs)
      .map((s) => s.text.trim())
      .join(' '),
  );
  const spread = documentFrequencies(texts, language);
  const out: Titled[] = [];
  for (const [i, c] of chapters.entries()) {
    const [centroid] = await embed([chapterSample(texts[i]!)]);
    const phrases = await rankChapterPhrases(texts[i]!, { language, freq, chapters: spread, centroid: centroid ?? [], embed });
    out.push({ title: composeTitle(phrases, { fallback: `Part ${i + 1}`, joiner }), startMs: c.startMs, endMs: c.endMs });
  }
  return out;
}

/** Every title of the episodes scored, on both span sets; the channel's document frequencies are those of the episodes given. */
export async function measureTitles(episodes: readonly EpisodeRecord[], embed: EmbedTexts, { onDone }: { onDone?: () => void } = {}): Promise<TitleScore[]> {
  const byChannel = new Map<string, EpisodeRecord[]>();
  for (const ep of episodes) byChannel.set(ep.channelId, [...(byChannel.get(ep.channelId) ?? []), ep]);
  const freqs = new Map<string, DocumentFrequencies>();
  for (const [id, eps] of byChannel)
    freqs.set(
      id,
      documentFrequencies(
        eps.map((e) => speechText(e.transcript!.segments)),
        'en',
      ),
    );
  const out: TitleScore[] = [];
  for (const ep of episodes) {
    const language = ep.language ?? 'en';
    const segments = orderedSegments(ep.transcript!.segments);
    const freq = freqs.get(ep.channelId)!;
    const human = ep.chapters ?? [];
    const made = await enrichTranscript({ segments, language, title: ep.title }, { embed, freq });
    for (const c of made.chapters) out.push(scoreTitle(ep.id, 'generated', c, overlappingTitles(c, human), language));
    const own = await titleHumanSpans(ep, segments, embed, freq, language);
    for (const [i, t] of own.entries()) out.push(scoreTitle(ep.id, 'human', t, [human[i]!.title], language));
    onDone?.();
  }
  return out;
}

/** One row of the table: a library on one span set. */
export interface TitleRow {
  library: string;
  spans: SpanSet;
  episodes: number;
  titles: number;
  rouge1: number;
  shares: number;
  meanChars: number;
  joined: number;
  /** Share of titles that repeat a content word of another title of their episode (a table of contents that says one thing). */
  repeats: number;
}

export function titleRows(library: string, scores: readonly TitleScore[]): TitleRow[] {
  return (['generated', 'human'] as const).map((spans) => {
    const s = scores.filter((x) => x.spans === spans);
    const n = Math.max(1, s.length);
    return {
      library,
      spans,
      episodes: new Set(s.map((x) => x.episodeId)).size,
      titles: s.length,
      rouge1: s.reduce((a, x) => a + x.rouge1, 0) / n,
      shares: s.filter((x) => x.shares).length / n,
      meanChars: s.reduce((a, x) => a + x.title.length, 0) / n,
      joined: s.filter((x) => / and /.test(x.title)).length / n,
      repeats: s.filter((x) => s.some((y) => y !== x && y.episodeId === x.episodeId && contentWords(y.title).some((w) => contentWords(x.title).includes(w)))).length / n,
    };
  });
}

export function formatTitleTable(rows: readonly TitleRow[]): string {
  const lines = [
    '| library | spans | episodes | titles | ROUGE-1 | shares a word | mean chars | joined by "and" | repeats a word of another title |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.library} | ${r.spans} | ${r.episodes} | ${r.titles} | ${r.rouge1.toFixed(4)} | ${(100 * r.shares).toFixed(1)} % | ${r.meanChars.toFixed(1)} | ${(100 * r.joined).toFixed(1)} % | ${(100 * r.repeats).toFixed(1)} % |`,
    );
  return lines.join('\n');
}

const clock = (ms: number) => `${Math.floor(ms / 60_000)}:${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}`;

async function main(): Promise<void> {
  const program = new Command()
    .name('title-overlap')
    .description('ROUGE-1 of generated chapter titles against the human titles over the same span, on the dev episodes')
    .option('--library <dir...>', 'libraries to read', [join('..', 'shared', 'data', 'qmsum'), join('..', 'shared', 'data', 'tutorialvqa')])
    .option('--limit <n>', 'evenly spaced dev episodes per library', (v) => Number(v))
    .option('--samples <file>', 'write every title with the human titles of its span (for reading by hand)')
    .option('--json <file>', 'write the table as JSON')
    .parse();
  const opts = program.opts<{ library: string[]; limit?: number; samples?: string; json?: string }>();
  const opened = await openEnrichEmbedder();
  const rows: TitleRow[] = [];
  const lines: string[] = [];
  const t = Date.now();
  for (const dir of opts.library) {
    const episodes = evenSubset(await titleDevEpisodes(dir), opts.limit);
    let done = 0;
    const scores = await measureTitles(episodes, opened.embed, { onDone: () => process.stderr.write(`\r${dir}: ${++done}/${episodes.length}`) });
    process.stderr.write('\n');
    rows.push(...titleRows(dir.split('/').filter(Boolean).pop()!, scores));
    for (const s of scores) lines.push(`${s.spans}\t${s.episodeId}\t${clock(s.startMs)}\t${s.rouge1.toFixed(2)}\t${s.title}\t${s.human.join(' | ')}`);
  }
  process.stdout.write(`${formatTitleTable(rows)}\n${((Date.now() - t) / 1000).toFixed(1)} s, ${opened.count()} texts embedded by the model\n`);
  if (opts.samples) await writeFile(opts.samples, `${lines.join('\n')}\n`);
  if (opts.json) await writeFile(opts.json, `${JSON.stringify(rows, null, 2)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`title-overlap: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
