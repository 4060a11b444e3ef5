// Transcript segments → passages, the unit of search and citation (pure): the indexer stores them, enrichment cuts
// chapters between them.
import { createHash } from 'node:crypto';
import type { PassageKind } from '../store/documents.js';
import type { ChapterRecord, EpisodeRecord } from '../library/checks.js';
import { chapterBoundaries, MAIN_SPEAKER_SHARE, normalize, packAtoms, segmentAtoms, zoneOf, type Atom, type PassageOptions } from './atoms.js';

export { chapterBoundaries, MAIN_SPEAKER_SHARE, packAtoms, sentenceMarks, type PassageOptions } from './atoms.js';

/** A passage before the episode's fields and its embedding are added. */
export interface Passage {
  id: string;
  kind: PassageKind;
  text: string;
  startMs: number;
  endMs: number;
  /** Set only when every merged segment has this one speaker. */
  speaker: string | null;
  /** Speakers holding at least {@link MAIN_SPEAKER_SHARE} of the speech time, in order of first speech; empty for titles. */
  mainSpeakers: string[];
  chapterTitle: string | null;
  /**
   * The title of the generated chapter (`generated: true`) this speech passage lies in, searched by the keyword leg
   * only to raise the passage it belongs to (never a passage of its own, never cut or cited): see
   * {@link generatedContextAt}. Null for titles, moments and speech outside generated chapters.
   */
  generatedContext: string | null;
  momentType: string | null;
  /**
   * Where each sentence and speaker turn of `text` begins, flat `[charOffset, ms, …]` in
   * text order, the first at offset 0: search cites the sentence where the answer starts
   * instead of the passage start. Empty for chapter and moment titles.
   */
  marks: number[];
}

export const DEFAULT_PASSAGE_OPTIONS: Required<PassageOptions> = { minMs: 20_000, targetMs: 40_000, maxMs: 60_000 };

/** Title of the innermost chapter (latest start) that covers the zone [start, end). */
function chapterTitleFor(chapters: readonly ChapterRecord[], start: number, end: number): string | null {
  let best: ChapterRecord | undefined;
  for (const c of chapters) {
    if (c.startMs <= start && c.endMs >= end && c.endMs > c.startMs && (!best || c.startMs > best.startMs)) best = c;
  }
  return best && best.title.trim() !== '' ? best.title : null;
}

/**
 * Labelled speakers of `atoms` who hold at least `share` of their speech time (the sum
 * of atom durations), in order of first speech. Unlabelled speech counts for no one.
 */
export function mainSpeakers(atoms: readonly { speaker: string | null; s: number; e: number }[], share = MAIN_SPEAKER_SHARE): string[] {
  const time = new Map<string, number>();
  for (const a of atoms) {
    if (a.speaker === null || a.speaker.trim() === '') continue;
    time.set(a.speaker, (time.get(a.speaker) ?? 0) + Math.max(0, a.e - a.s));
  }
  const total = [...time.values()].reduce((sum, ms) => sum + ms, 0);
  return [...time].filter(([, ms]) => ms >= share * total).map(([label]) => label);
}

/**
 * The sentence starts of a packed group as offsets into its joined text (atoms joined by
 * one space), flat `[offset, ms, …]`, always opening with `[0, startMs]`; times are kept
 * within the passage and never go backwards.
 */
function passageMarks(group: readonly Atom[], startMs: number, endMs: number): number[] {
  const flat: number[] = [0, startMs];
  let offset = 0;
  let last = startMs;
  for (const atom of group) {
    for (const [c, ms] of atom.marks) {
      const at = offset + c;
      if (at === 0) continue;
      last = Math.min(endMs, Math.max(last, ms));
      flat.push(at, last);
    }
    offset += atom.text.length + 1;
  }
  return flat;
}

/** First 8 hex chars of sha256: short, stable id parts for titles. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/**
 * The chapters search cuts and titles passages by: the creator's. Generated chapters and moments (`generated: true`)
 * cut no passage, get no title passage and are not a passage's `chapterTitle`, so an enriched episode is packed and
 * cited exactly as its speech alone; a generated chapter's title only raises the speech inside it through
 * `generatedContext` ({@link generatedContextAt}; measured in docs/relevance.md, "Generated structure"). A creator's
 * chapter keeps only its creator's moments.
 */
export function searchedChapters(chapters: readonly ChapterRecord[] | null | undefined): ChapterRecord[] {
  return (chapters ?? [])
    .filter((c) => c.generated !== true)
    .map((c) => (c.moments.some((m) => m.generated === true) ? { ...c, moments: c.moments.filter((m) => m.generated !== true) } : c));
}

/**
 * Generated chapters lend their titles only to episodes whose chapters span at least this long: a shorter talk is about
 * one thing, and splitting it adds no context (measured as a loss on tutorials of 2–10 minutes; the same bound as the
 * episode leg of search, docs/relevance.md "Generated structure").
 */
export const GENERATED_CONTEXT_MIN_MS = 20 * 60_000;

/**
 * The title of the generated chapter holding `ms` (the latest one starting at or before it and ending after it), or
 * null; null too when the episode has a single generated chapter, whose title only restates the whole episode, or its
 * generated chapters span less than {@link GENERATED_CONTEXT_MIN_MS} (both measured as losses on tutorials). Generated
 * structure cuts no passage and gets no title passage (a generated title passage outranked the speech and cited the
 * chapter start); it only lends its words to each speech passage inside, in a field the keyword leg matches as a
 * `should` clause at a low boost (docs/relevance.md, "Generated structure").
 */
export function generatedContextAt(chapters: readonly ChapterRecord[] | null | undefined, ms: number): string | null {
  const generated = (chapters ?? []).filter((c) => c.generated === true);
  if (generated.length < 2) return null;
  const span = Math.max(...generated.map((c) => c.endMs)) - Math.min(...generated.map((c) => c.startMs));
  if (span < GENERATED_CONTEXT_MIN_MS) return null;
  let best: ChapterRecord | undefined;
  for (const c of generated) {
    if (c.startMs > ms || c.endMs <= ms) continue;
    if (!best || c.startMs > best.startMs) best = c;
  }
  const title = best ? normalize(best.title) : '';
  return title === '' ? null : title;
}

/**
 * Builds every passage of an episode: transcript speech packed into passages of about
 * 20–60 s that never cross a chapter start or end, one passage per chapter title and
 * one per key-moment title at its start time. The same input always gives the same
 * passages and ids: `<episodeId>:t:<startMs>`, `<episodeId>:c:<startMs>:<hash>`,
 * `<episodeId>:m:<startMs>:<hash>` (a repeated id gets `~2`, `~3`, … in order).
 */
export function buildPassages(episode: Pick<EpisodeRecord, 'id' | 'transcript' | 'chapters'>, options: PassageOptions = {}): Passage[] {
  const opts = { ...DEFAULT_PASSAGE_OPTIONS, ...options };
  const chapters = searchedChapters(episode.chapters);
  const boundaries = chapterBoundaries(chapters);
  let n = 0;
  const order = (): number => n++;

  // Atoms of every segment, grouped by the zone between two boundaries their start falls in.
  const zones = new Map<number, Atom[]>();
  const interpolatedTranscript = episode.transcript?.wordTimings === 'interpolated';
  for (const seg of episode.transcript?.segments ?? []) {
    for (const atom of segmentAtoms(seg, boundaries, opts.maxMs, order, interpolatedTranscript || seg.wordsInterpolated === true)) {
      const z = zoneOf(boundaries, atom.s);
      let list = zones.get(z);
      if (!list) zones.set(z, (list = []));
      list.push(atom);
    }
  }

  const passages: Passage[] = [];
  const ids = new Map<string, number>();
  const uniqueId = (base: string): string => {
    const seen = (ids.get(base) ?? 0) + 1;
    ids.set(base, seen);
    return seen === 1 ? base : `${base}~${seen}`;
  };

  for (const z of [...zones.keys()].sort((a, b) => a - b)) {
    const atoms = zones.get(z)!.sort((a, b) => a.s - b.s || a.order - b.order);
    const zoneStart = z === 0 ? -Infinity : boundaries[z - 1]!;
    const zoneEnd = z < boundaries.length ? boundaries[z]! : Infinity;
    const chapterTitle = chapterTitleFor(chapters, zoneStart, zoneEnd);
    for (const group of packAtoms(atoms, opts)) {
      const startMs = group[0]!.s;
      const endMs = Math.max(
        startMs,
        Math.min(
          zoneEnd,
          group.reduce((m, a) => Math.max(m, a.e), startMs),
        ),
      );
      const speakers = new Set(group.map((a) => a.speaker));
      const speaker = speakers.size === 1 ? [...speakers][0]! : null;
      passages.push({
        id: uniqueId(`${episode.id}:t:${startMs}`),
        kind: 'transcript',
        text: group.map((a) => a.text).join(' '),
        startMs,
        endMs,
        speaker,
        mainSpeakers: mainSpeakers(group),
        chapterTitle,
        generatedContext: generatedContextAt(episode.chapters, startMs),
        momentType: null,
        marks: passageMarks(group, startMs, endMs),
      });
    }
  }

  for (const c of chapters) {
    const title = normalize(c.title);
    if (title === '') continue;
    passages.push({
      id: uniqueId(`${episode.id}:c:${c.startMs}:${shortHash(title)}`),
      kind: 'chapter',
      text: title,
      startMs: c.startMs,
      endMs: c.endMs,
      speaker: null,
      mainSpeakers: [],
      chapterTitle: title,
      generatedContext: null,
      momentType: null,
      marks: [],
    });
  }
  for (const c of chapters) {
    for (const m of c.moments) {
      const title = normalize(m.title);
      if (title === '') continue;
      passages.push({
        id: uniqueId(`${episode.id}:m:${m.startMs}:${shortHash(`${m.type}\n${title}`)}`),
        kind: 'moment',
        text: title,
        startMs: m.startMs,
        endMs: Math.max(m.startMs, m.endMs ?? m.startMs),
        speaker: null,
        mainSpeakers: [],
        chapterTitle: normalize(c.title) || null,
        generatedContext: null,
        momentType: m.type,
        marks: [],
      });
    }
  }
  return passages;
}
