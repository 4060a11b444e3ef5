// What `npm run follow -- --list` prints: one line per source, the work table and the totals, or JSON; every field
// from a feed made printable first, so a title cannot hide lines or fake the tab-separated fields.
import { printable } from '../../core/ground/shell-words.js';
import type { FollowState } from '../../core/library/follow-state.js';
import type { ClassBacklog, Progress, SourceProgress } from '../../pipeline/follow/progress.js';

export { printable };

/** A duration for people: `45 s`, `12 min`, `3 h 20 min`, `2 d 4 h`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** Audio for people: `40 s`, `12 min`, then hours with a tenth (`1.5 h`, `312.4 h`): a backlog is read in hours. */
export function formatAudio(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s < 59.5) return `${Math.round(s)} s`;
  if (s < 3570) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** One line per followed source for `--list`. */
export function formatSource(s: FollowState): string {
  const status = s.stoppedAt ? `stopped ${s.stoppedAt}` : `next poll ${s.nextPollAt ?? 'now'}`;
  const outcome = s.lastOutcome ? `${s.lastOutcome}${s.lastStatus && String(s.lastStatus) !== s.lastOutcome ? ` (HTTP ${s.lastStatus})` : ''}` : 'never polled';
  const failed = Object.values(s.items).filter((i) => i.processed?.outcome === 'failed').length;
  return [
    s.slug,
    s.source,
    `last poll ${s.lastPollAt ?? '-'}: ${outcome}`,
    `${s.itemsSeen} items`,
    `${s.errors} poll errors${s.lastError ? ` (last: ${s.lastError})` : ''}`,
    `${failed} failed episodes`,
    status,
  ]
    .map(printable)
    .join('\t');
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const quoted = (title: string) => `"${title}"`;

/** One class's waiting work as a row of cells: class, episodes (queued, later), audio, estimate. */
function backlogCells(cls: string, b: ClassBacklog): string[] {
  const where = [b.queued > 0 ? `${b.queued} queued` : '', b.deferred > 0 ? `${b.deferred} for later polls` : ''].filter(Boolean).join(', ');
  const audio = [
    `${formatAudio(b.audioSeconds)} of audio to transcribe${b.estimatedAudioSeconds > 0 ? ` (${formatAudio(b.estimatedAudioSeconds)} estimated)` : ''}`,
    b.unknownDuration > 0 ? `${plural(b.unknownDuration, 'episode')} of unknown length` : '',
    b.fromTranscriptFile > 0 ? `${b.fromTranscriptFile} from transcript files` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const eta = b.etaSeconds === null ? 'no estimate yet' : `done in about ${formatDuration(b.etaSeconds)}`;
  return ['waiting', cls, `${plural(b.episodes, 'episode')}${where ? ` (${where})` : ''}`, audio, eta];
}

/** Rows of cells as lines, each column as wide as its widest cell, indented by two spaces. */
function table(rows: readonly string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => `  ${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}`.trimEnd());
}

/**
 * The lines under a source's `--list` line: a table of what waits (per class), runs and failed (the stored sentence).
 * Titles and sentences come from feeds: every control character becomes U+FFFD.
 */
export function formatSourceWork(s: SourceProgress): string[] {
  const rows: string[][] = [];
  for (const cls of ['new', 'backfill'] as const) if (s.waiting[cls].episodes > 0) rows.push(backlogCells(cls, s.waiting[cls]));
  if (rows.length === 0) rows.push(['waiting', '-', 'nothing']);
  for (const p of s.processing) rows.push(['processing', '-', quoted(p.title), p.since ? `since ${p.since}` : '']);
  for (const f of s.failed) rows.push(['failed', '-', quoted(f.title), f.error]);
  if (s.failedTotal > s.failed.length) rows.push(['failed', '-', `and ${s.failedTotal - s.failed.length} more`]);
  return table(rows.map((r) => r.map(printable)));
}

/** The closing line of `--list`: all sources' waiting work, when it is done, and the rate it is estimated at. */
export function formatTotals(p: Progress): string {
  const { new: fresh, backfill } = p.totals;
  const waiting = `all sources: ${fresh.episodes} new and ${backfill.episodes} backfill episodes waiting, ${formatAudio(fresh.audioSeconds + backfill.audioSeconds)} of audio to transcribe`;
  if (!p.rate) return `${waiting}; no estimate: no episode was transcribed from audio in the last day, and the rate is measured on those`;
  const done = `new ones done in about ${formatDuration(fresh.etaSeconds ?? 0)}, all in about ${formatDuration(backfill.etaSeconds ?? 0)}`;
  const rate = `at ${p.rate.wallSecondsPerAudioSecond.toFixed(3)} s per audio second (the last ${plural(p.rate.episodes, 'episode')} transcribed), ${plural(p.slots, 'slot')}`;
  return `${waiting}; ${done} ${rate}`;
}

// Beyond what JSON.stringify escapes (C0): C1 controls, DEL and the bidirectional overrides, as \u escapes.
const JSON_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `--list --json`: the progress as one JSON document; the text is kept whole, no raw control character reaches the terminal. */
export const progressJson = (progress: Progress): string => JSON.stringify(progress, null, 2).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** `--list` for people: each source's line, its work below it, and the totals. */
export function formatList(states: readonly FollowState[], progress: Progress): string[] {
  if (states.length === 0) return ['no followed sources'];
  const work = new Map(progress.sources.map((s) => [s.slug, s]));
  const lines = states.flatMap((s) => {
    const w = work.get(s.slug);
    return [formatSource(s), ...(w ? formatSourceWork(w) : [])];
  });
  return [...lines, printable(formatTotals(progress))];
}
