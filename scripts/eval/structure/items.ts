// The generated items of a structure run (chapter titles, moments, topics, people, entities), each with a key that
// stays the same when a later run generates the same item again, so its label carries over.
import { createHash } from 'node:crypto';
import type { ChapterRecord, SegmentRecord } from '../../../core/contract/library-format.js';

/** What is labelled: a chapter title, a moment (its claim and its type), a topic, a person or an entity name. */
export const ITEM_KINDS = ['title', 'moment', 'topic', 'person', 'entity'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** The sample's groups: they are read apart because they fail apart (verbatim meetings, hearings, tutorials). */
export const GROUPS = ['meetings', 'hearings', 'tutorials'] as const;
export type Group = (typeof GROUPS)[number];

/** A human chapter of the source episode. */
export interface HumanChapter {
  title: string;
  startMs: number;
  endMs: number;
}

export interface MomentItem {
  key: string;
  /** The claim, as generated. */
  text: string;
  type: string;
  startMs: number;
  endMs: number | null;
  /** The speaker of the sentence the claim comes from. */
  speaker: string | null;
  /** The segment before that sentence's segment (its tail), for reading whether the claim needs it. */
  before: { speaker: string | null; text: string } | null;
  /** The same segment's text before the sentence (its tail), when the sentence does not open the segment. */
  lead: string | null;
  /** Start of the first word of the sentence the claim comes from; null when there are no words or it was not found. */
  sentenceStartMs: number | null;
}

export interface ChapterItem {
  key: string;
  /** The title, as generated. */
  text: string;
  startMs: number;
  endMs: number;
  /** Titles of the source's human chapters that overlap this span. */
  human: string[];
  moments: MomentItem[];
}

export interface NameItem {
  key: string;
  text: string;
}

export interface EpisodeItems {
  dataset: string;
  group: Group;
  episodeId: string;
  title: string;
  durationMs: number;
  humanChapters: HumanChapter[];
  chapters: ChapterItem[];
  topics: NameItem[];
  people: NameItem[];
  entities: NameItem[];
}

/** A run as written to `runs/<label>.json`. */
export interface StructureRun {
  label: string;
  createdAt: string;
  /** The commit the run was made from, and whether pipeline/ or core/ differed from it. */
  commit: string;
  dirty: boolean;
  llm: boolean;
  /** False when the NER service was not reachable: people and entities were then not measured. */
  namesMeasured: boolean;
  notes: string[];
  seconds: number;
  sample: Record<Group, string[]>;
  episodes: EpisodeItems[];
}

/** Text as a key sees it: case, spacing and the marks around it do not make a new item. */
export function normaliseText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\s"'“”.,;:!?…-]+|[\s"'“”.,;:!?…-]+$/g, '');
}

/** A short hash of kind, episode and normalised text: the same item generated again has the same key. */
export function itemKey(kind: ItemKind, episodeId: string, text: string): string {
  return createHash('sha256')
    .update(`${kind}\u0000${episodeId}\u0000${normaliseText(text)}`)
    .digest('hex')
    .slice(0, 12);
}

/** A word as matching sees it: letters and digits only, lower-cased. */
const bare = (word: string) =>
  word
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[^\p{L}\p{N}']/gu, '')
    .replace(/^'+|'+$/g, '');

// Hesitations the claim may have lost (the pipeline drops them inside a sentence): skipped on both sides.
const HESITATIONS = new Set(['uh', 'um', 'umm', 'uhm', 'er', 'erm', 'hmm', 'mm', 'ah']);
const SENTENCE_END = /[.!?…]["'”’)\]]*$/;

interface TimedWord {
  word: string;
  s: number;
  /** Index of its segment, and its own index among that segment's words. */
  segment: number;
  index: number;
  /** The raw word ends a sentence. */
  ends: boolean;
}

/** Where the claim's sentence starts: its segment and the index of its first word in that segment's words. */
export interface SentenceStart {
  segment: number;
  startMs: number;
  /** Words of the segment before the sentence. */
  offset: number;
}

/**
 * The first word of the sentence `claim` comes from, among the words of the segments around `startMs`..`endMs`: the
 * claim's opening words are found in order (hesitations skipped; a claim whose pipeline dropped a leading repeat or
 * filler is tried from its 2nd–4th word too), then the start is walked back to the sentence's beginning (the word after
 * one that ends a sentence, or a change of speaker). Of several places, those matching the most of its first 8 words,
 * and of those the one nearest `startMs`. Null when the
 * segments carry no words or the claim's opening is not found.
 */
export function findSentenceStart(segments: readonly SegmentRecord[], claim: { text: string; startMs: number; endMs: number | null }): SentenceStart | null {
  const from = claim.startMs - 10_000;
  const to = Math.max(claim.endMs ?? claim.startMs, claim.startMs) + 1_000;
  const words: TimedWord[] = [];
  segments.forEach((seg, i) => {
    if (seg.endMs < from || seg.startMs > to) return;
    (seg.words ?? []).forEach((w, index) => {
      const word = bare(w.t);
      const ends = SENTENCE_END.test(w.t);
      if (word !== '' && !HESITATIONS.has(word)) words.push({ word, s: w.s, segment: i, index, ends });
      // A skipped word that closes a sentence ("um.") still closes it.
      else if (ends && words.length > 0) words[words.length - 1]!.ends = true;
    });
  });
  if (words.length === 0) return null;
  const claimWords = claim.text
    .split(/\s+/)
    .map(bare)
    .filter((w) => w !== '' && !HESITATIONS.has(w));
  // Places where the claim's words run on in the transcript, by how many of its first 8 words they hold: a common
  // opening ("I would like to") also occurs elsewhere, the claim's own sentence holds the most.
  let found: { at: number; run: number }[] = [];
  for (let skip = 0; skip < 4 && found.length === 0; skip++) {
    const head = claimWords.slice(skip, skip + 8);
    const least = Math.min(3, claimWords.length);
    if (head.length < least) break;
    for (let i = 0; i < words.length; i++) {
      let run = 0;
      while (run < head.length && i + run < words.length && words[i + run]!.word === head[run]) run++;
      if (run >= least) found.push({ at: i, run });
    }
    const longest = Math.max(0, ...found.map((f) => f.run));
    found = found.filter((f) => f.run === longest);
  }
  if (found.length === 0) return null;
  const starts = found.map((f) => walkBack(words, segments, f.at));
  const best = starts.reduce((a, b) => (Math.abs(words[b]!.s - claim.startMs) < Math.abs(words[a]!.s - claim.startMs) ? b : a));
  const first = words[best]!;
  return { segment: first.segment, startMs: first.s, offset: first.index };
}

/** The index of the first word of the sentence holding word `i`: back to a sentence end or a change of speaker, at most 60 words. */
function walkBack(words: readonly TimedWord[], segments: readonly SegmentRecord[], i: number): number {
  let at = i;
  const speaker = (w: TimedWord) => segments[w.segment]!.speakerLabel ?? null;
  for (let n = 0; n < 60 && at > 0; n++) {
    const prev = words[at - 1]!;
    if (prev.ends || speaker(prev) !== speaker(words[at]!)) break;
    at--;
  }
  return at;
}

/** The tail of a text, at most `chars` characters, cut at a word. */
function tail(text: string, chars: number): string {
  const t = text.trim();
  if (t.length <= chars) return t;
  return `…${t.slice(t.length - chars).replace(/^\S*\s/, '')}`;
}

/** A generated moment as an item: its speaker, the segment before and the sentence's first word found in the transcript. */
export function momentItem(
  episodeId: string,
  segments: readonly SegmentRecord[],
  moment: { title: string; type: string; startMs: number; endMs?: number | null | undefined },
): MomentItem {
  const endMs = moment.endMs ?? null;
  const start = findSentenceStart(segments, { text: moment.title, startMs: moment.startMs, endMs });
  // Without the sentence, the segment the moment starts in stands for it.
  const at =
    start?.segment ??
    Math.max(
      0,
      segments.findLastIndex((s) => s.startMs <= moment.startMs),
    );
  const seg = segments[at];
  const prev = segments[at - 1];
  const leadWords = start ? (seg?.words ?? []).slice(0, start.offset).map((w) => w.t) : [];
  return {
    key: itemKey('moment', episodeId, moment.title),
    text: moment.title,
    type: moment.type,
    startMs: moment.startMs,
    endMs,
    speaker: seg?.speakerLabel ?? null,
    before: prev ? { speaker: prev.speakerLabel ?? null, text: tail(prev.text, 400) } : null,
    lead: leadWords.length > 0 ? tail(leadWords.join(' '), 300) : null,
    sentenceStartMs: start?.startMs ?? null,
  };
}

/** The human chapters overlapping `[startMs, endMs)` by any time at all. */
export function overlappingTitles(human: readonly HumanChapter[], startMs: number, endMs: number): string[] {
  return human.filter((h) => Math.min(h.endMs, endMs) > Math.max(h.startMs, startMs)).map((h) => h.title);
}

/** The items of one enriched episode, beside its source's human chapters and transcript. */
export function episodeItems({
  dataset,
  group,
  source,
  generated,
  names,
}: {
  dataset: string;
  group: Group;
  source: { id: string; title: string; durationMs?: number | null | undefined; chapters?: readonly ChapterRecord[] | null | undefined; segments: readonly SegmentRecord[] };
  generated: { chapters: readonly ChapterRecord[] };
  names: { topics: readonly string[]; people: readonly string[]; entities: readonly string[] };
}): EpisodeItems {
  const humanChapters = (source.chapters ?? []).map(({ title, startMs, endMs }) => ({ title, startMs, endMs }));
  const named = (kind: ItemKind, list: readonly string[]) => list.map((text) => ({ key: itemKey(kind, source.id, text), text }));
  return {
    dataset,
    group,
    episodeId: source.id,
    title: source.title,
    durationMs: source.durationMs ?? 0,
    humanChapters,
    chapters: generated.chapters.map((c) => ({
      key: itemKey('title', source.id, c.title),
      text: c.title,
      startMs: c.startMs,
      endMs: c.endMs,
      human: overlappingTitles(humanChapters, c.startMs, c.endMs),
      moments: c.moments.map((m) => momentItem(source.id, source.segments, m)),
    })),
    topics: named('topic', names.topics),
    people: named('person', names.people),
    entities: named('entity', names.entities),
  };
}
