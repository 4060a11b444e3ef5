// Chapters from what a source has: JSON Chapters, yt-dlp's chapters, or timestamps in a description by YouTube's
// rules; soundbites as quote moments. Nothing is invented: no source, no chapters.
import { convert } from 'html-to-text';
import type { ChapterRecord, KeyMomentRecord } from '../core/contract/library-format.js';
import { clock } from '../core/ground/clock.js';
import type { ChaptersJsonRecord } from './stt-json.js';
import { cleanText, clockMs, ms, type DraftSegment } from './text.js';

interface Span {
  title: string;
  startMs: number;
  endMs?: number;
}

/** Spans in order, each ending at its own end, else where the next starts, else at the episode's end. */
function close(spans: Span[], episodeEndMs: number): ChapterRecord[] {
  const sorted = [...spans].sort((a, b) => a.startMs - b.startMs);
  return sorted.map((c, i) => {
    const next = sorted[i + 1]?.startMs ?? episodeEndMs;
    const endMs = c.endMs !== undefined && c.endMs > c.startMs ? c.endMs : Math.max(c.startMs, next);
    return { title: c.title, startMs: c.startMs, endMs, moments: [] };
  });
}

/** JSON Chapters 1.2: `toc: false` chapters are kept out of the list; a chapter without a title is named by its time. */
export function jsonChapters(json: ChaptersJsonRecord, episodeEndMs: number): ChapterRecord[] {
  const shown = json.chapters.filter((c) => c.toc !== false);
  return close(
    shown.map((c) => ({
      title: cleanText(c.title ?? '') || `Chapter at ${clock(ms(c.startTime))}`,
      startMs: ms(c.startTime),
      ...(c.endTime !== undefined ? { endMs: ms(c.endTime) } : {}),
    })),
    episodeEndMs,
  );
}

/** yt-dlp's `chapters` of an info.json. */
export function ytdlpChapters(chapters: { start_time: number; end_time?: number; title: string }[], episodeEndMs: number): ChapterRecord[] {
  return close(
    chapters.map((c) => ({ title: cleanText(c.title), startMs: ms(c.start_time), ...(c.end_time !== undefined ? { endMs: ms(c.end_time) } : {}) })),
    episodeEndMs,
  );
}

// Matched against a line already trimmed at its end: a lazy `(.+?)\s*$` is quadratic on long runs of spaces.
const TIMESTAMP_LINE = /^\s*[([]?((?:\d{1,2}:)?\d{1,2}:\d{2})[)\]]?\s*(?:[-–—:|]\s*)?(.+)$/;
/** A chapter line is a timestamp and a title: a longer line is not one, and is not matched at all (bounded cost). */
export const MAX_CHAPTER_LINE = 1_000;

/**
 * Chapters written as description lines (`0:00 Intro`), by YouTube's rules: the first at 0:00, at least three,
 * ascending, each at least 10 s long. A description that breaks a rule gives no chapters and a warning saying which.
 */
export function descriptionChapters(description: string, episodeEndMs: number): { chapters: ChapterRecord[]; warning?: string } {
  const spans: Span[] = [];
  for (const line of description.split(/\r?\n/)) {
    if (line.length > MAX_CHAPTER_LINE) continue;
    const m = TIMESTAMP_LINE.exec(line.trimEnd());
    if (m && cleanText(m[2]!)) spans.push({ startMs: clockMs(m[1]!)!, title: cleanText(m[2]!) });
  }
  if (spans.length === 0) return { chapters: [] };
  const broken =
    spans[0]!.startMs !== 0
      ? 'the first timestamp is not 0:00'
      : spans.length < 3
        ? `only ${spans.length} timestamps (YouTube needs 3)`
        : spans.some((s, i) => i > 0 && s.startMs <= spans[i - 1]!.startMs)
          ? 'timestamps are not ascending'
          : spans.some((s, i) => (spans[i + 1]?.startMs ?? episodeEndMs) - s.startMs < 10_000)
            ? 'a chapter is shorter than 10 s'
            : undefined;
  if (broken) return { chapters: [], warning: `description timestamps are not chapters: ${broken}` };
  return { chapters: close(spans, episodeEndMs) };
}

/** HTML show notes as lines: `<br>`, `<p>`, `<div>` and `<li>` end a line; list items carry no bullet or number. */
export function htmlLines(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      // A list item is a plain line: no bullet or number before its timestamp.
      ...['ul', 'ol', 'li'].map((selector) => ({ selector, format: 'block' })),
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    ],
  });
}

/**
 * Chapters from an episode's HTML show notes (`<p>00:00 Intro<br>01:20 Folding</p>`, the common podcast habit), by
 * the same rules as description chapters: the HTML is turned into lines first. Plain text works as well.
 */
export function showNoteChapters(html: string, episodeEndMs: number): { chapters: ChapterRecord[]; warning?: string } {
  return descriptionChapters(htmlLines(html), episodeEndMs);
}

/** The text spoken at `atMs`: the segment holding it, cut to a title's length. */
function spokenAt(segments: readonly DraftSegment[], atMs: number): string | undefined {
  const seg = segments.find((s) => s.startMs <= atMs && atMs < s.endMs) ?? segments.find((s) => s.startMs >= atMs);
  if (!seg) return undefined;
  return seg.text.length > 120 ? `${seg.text.slice(0, 119).trimEnd()}…` : seg.text;
}

/**
 * Soundbites (`podcast:soundbite`) as `quote` moments of the chapter they start in, titled by their own text or
 * by what is said at that time. A soundbite outside every chapter (or in an episode without chapters) has
 * nowhere to go: it is returned in `dropped`.
 */
export function addSoundbites(
  chapters: ChapterRecord[],
  soundbites: { startTime: number; duration: number; display?: string }[],
  segments: readonly DraftSegment[],
): { dropped: number } {
  let dropped = 0;
  for (const bite of soundbites) {
    const startMs = ms(bite.startTime);
    const chapter = chapters.find((c) => c.startMs <= startMs && startMs < c.endMs);
    const title = cleanText(bite.display ?? '') || spokenAt(segments, startMs);
    if (!chapter || !title) {
      dropped++;
      continue;
    }
    const moment: KeyMomentRecord = { type: 'quote', title, startMs, endMs: startMs + ms(bite.duration) };
    chapter.moments.push(moment);
    chapter.moments.sort((a, b) => a.startMs - b.startMs);
  }
  return { dropped };
}
