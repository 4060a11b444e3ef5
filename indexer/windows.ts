// Transcript passages → sentence windows of about 10–20 s, the finer units of the "small to big" semantic leg (pure).
import type { PassageDoc } from '../src/store/documents.js';

/** Window lengths, in ms of transcript time. */
export interface WindowOptions {
  /** A window is closed early (before `targetMs`) only once it is this long. */
  minMs?: number;
  /** A window is closed at the first sentence start once it is this long. */
  targetMs?: number;
  /** A window is closed before a sentence that would take it past this, when it is already `minMs` long. */
  maxMs?: number;
}

export const DEFAULT_WINDOW_OPTIONS: Required<WindowOptions> = { minMs: 10_000, targetMs: 15_000, maxMs: 20_000 };

/** One window of a passage: a run of its consecutive sentences. */
export interface SentenceWindow {
  /** Character offset of the window's first sentence in the passage text: where a citation from it begins. */
  offset: number;
  /** Character offset just past its last sentence. */
  end: number;
  text: string;
  startMs: number;
  endMs: number;
}

/** The sentences of a passage from its `marks`, each with its character range and time span. */
function sentences(passage: Pick<PassageDoc, 'text' | 'startMs' | 'endMs' | 'marks'>): Array<{ offset: number; end: number; startMs: number; endMs: number }> {
  const starts: Array<[number, number]> = [[0, passage.startMs]];
  const marks = passage.marks ?? [];
  for (let i = 0; i + 1 < marks.length; i += 2) {
    const [offset, ms] = [marks[i]!, marks[i + 1]!];
    const [prevOffset, prevMs] = starts[starts.length - 1]!;
    // Marks are written in text order; anything else (or past the text) is not trusted.
    if (offset <= prevOffset || offset >= passage.text.length) continue;
    starts.push([offset, Math.min(passage.endMs, Math.max(prevMs, ms))]);
  }
  return starts.map(([offset, startMs], i) => {
    const next = starts[i + 1];
    return { offset, end: next ? next[0] : passage.text.length, startMs, endMs: next ? next[1] : Math.max(startMs, passage.endMs) };
  });
}

/**
 * Splits one transcript passage into windows of consecutive sentences (sentence and turn
 * starts from its `marks`), about `targetMs` long, never crossing the passage and never
 * overlapping: a window closes once it reaches `targetMs`, or earlier (when at least `minMs`
 * long) before a sentence that would take it past `maxMs`; a short last window joins the one
 * before when the two fit `maxMs`. A sentence longer than `maxMs` is a window alone (marks
 * hold no finer times). A passage without marks, or shorter than `targetMs`, is one window.
 * Non-overlapping, so the windows cost about as many tokens to embed as the passages; a
 * window is mapped back to its passage anyway, so overlap would only help an answer that
 * straddles two windows, at twice the vectors.
 */
export function splitWindows(
  passage: Pick<PassageDoc, 'text' | 'startMs' | 'endMs' | 'marks'>,
  options: WindowOptions = {},
): SentenceWindow[] {
  const { minMs, targetMs, maxMs } = { ...DEFAULT_WINDOW_OPTIONS, ...options };
  if (passage.text.trim() === '') return [];
  const groups: Array<ReturnType<typeof sentences>> = [];
  let cur: ReturnType<typeof sentences> = [];
  const span = (g: ReturnType<typeof sentences>) => g[g.length - 1]!.endMs - g[0]!.startMs;
  for (const s of sentences(passage)) {
    if (cur.length > 0 && (span(cur) >= targetMs || (s.endMs - cur[0]!.startMs > maxMs && span(cur) >= minMs))) {
      groups.push(cur);
      cur = [];
    }
    cur.push(s);
  }
  if (cur.length > 0) groups.push(cur);
  if (groups.length >= 2) {
    const tail = groups[groups.length - 1]!;
    const prev = groups[groups.length - 2]!;
    if (span(tail) < minMs && tail[tail.length - 1]!.endMs - prev[0]!.startMs <= maxMs) groups.splice(groups.length - 2, 2, [...prev, ...tail]);
  }
  return groups
    .map((g) => {
      const offset = g[0]!.offset;
      const end = g[g.length - 1]!.end;
      return { offset, end, text: passage.text.slice(offset, end).trim(), startMs: g[0]!.startMs, endMs: g[g.length - 1]!.endMs };
    })
    .filter((w) => w.text !== '');
}

/** The passage fields a window copies: those the search filters read (see `buildFilters`). */
export const WINDOW_FILTER_FIELDS = ['channelId', 'status', 'archived', 'publishedAt', 'year', 'topicIds', 'personIds', 'entityIds', 'collectionIds'] as const;

/** A window as stored in a windows index; `_id` is `id`. */
export type WindowDoc = Pick<PassageDoc, 'episodeId' | 'kind' | (typeof WINDOW_FILTER_FIELDS)[number]> & {
  id: string;
  passageId: string;
  /** The passage's own span, so a window hit stands for its passage without another read. */
  passageStartMs: number;
  passageEndMs: number;
  offset: number;
  text: string;
  startMs: number;
  endMs: number;
  embedding?: number[];
};

/**
 * The windows of a passage as documents (without vectors), ids `<passageId>:w:<n>`. A chapter
 * or key-moment title is one window of itself (its text, its span): a semantic leg over
 * windows must still find the titles, which on meetings with chapters carry the answer.
 */
export function windowDocs(
  passage: Pick<PassageDoc, 'id' | 'episodeId' | 'kind' | 'text' | 'startMs' | 'endMs' | 'marks' | (typeof WINDOW_FILTER_FIELDS)[number]>,
  options: WindowOptions = {},
): WindowDoc[] {
  const copied = Object.fromEntries(WINDOW_FILTER_FIELDS.map((f) => [f, passage[f]])) as Pick<PassageDoc, (typeof WINDOW_FILTER_FIELDS)[number]>;
  const windows: SentenceWindow[] =
    passage.kind === 'transcript'
      ? splitWindows(passage, options)
      : passage.text.trim() === ''
        ? []
        : [{ offset: 0, end: passage.text.length, text: passage.text, startMs: passage.startMs, endMs: passage.endMs }];
  return windows.map((w, n) => ({
    id: `${passage.id}:w:${n}`,
    passageId: passage.id,
    episodeId: passage.episodeId,
    kind: passage.kind,
    ...copied,
    passageStartMs: passage.startMs,
    passageEndMs: passage.endMs,
    offset: w.offset,
    text: w.text,
    startMs: w.startMs,
    endMs: w.endMs,
  }));
}
