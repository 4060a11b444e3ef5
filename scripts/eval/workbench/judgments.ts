// Judgments made in the workbench, written in the eval's own format (relevant time ranges per query), so the next
// experiment and `npm run eval` use them.
import { overlaps, type JudgedQuery, type RelevantRange } from '../relevance.js';

export interface Judgment {
  /** The query as searched; a query the set lacks is added to it. */
  query: { id?: string; channel: string; query: string };
  segment: RelevantRange;
  relevant: boolean;
}

/** Ranges of one episode minus the span of `cut`: a range it splits becomes two, one it covers goes. */
function carve(ranges: readonly RelevantRange[], cut: RelevantRange): RelevantRange[] {
  return ranges.flatMap((r) => {
    if (!overlaps(cut, r)) return [r];
    const parts: RelevantRange[] = [];
    if (r.startMs < cut.startMs) parts.push({ ...r, endMs: cut.startMs });
    if (r.endMs > cut.endMs) parts.push({ ...r, startMs: cut.endMs });
    return parts;
  });
}

/**
 * The set with one judgment applied. Relevant: the segment's span becomes a relevant range unless a range already
 * covers its start. Not relevant: its span is carved out of the ranges it overlaps (the rest of a long range stays).
 */
export function applyJudgment(queries: readonly JudgedQuery[], j: Judgment): { queries: JudgedQuery[]; id: string } {
  const out = queries.map((q) => ({ ...q, relevant: [...q.relevant] }));
  let q = j.query.id ? out.find((x) => x.id === j.query.id) : out.find((x) => x.channel === j.query.channel && x.query === j.query.query);
  if (!q) {
    let n = out.length + 1;
    while (out.some((x) => x.id === `wb-${n}`)) n++;
    q = { id: j.query.id ?? `wb-${n}`, channel: j.query.channel, query: j.query.query, relevant: [] };
    out.push(q);
  }
  const seg = j.segment;
  if (j.relevant) {
    const covered = q.relevant.some((r) => r.episodeId === seg.episodeId && r.startMs <= seg.startMs && seg.startMs < r.endMs);
    if (!covered) q.relevant.push({ episodeId: seg.episodeId, startMs: seg.startMs, endMs: Math.max(seg.endMs, seg.startMs + 1) });
  } else {
    q.relevant = carve(q.relevant, seg);
  }
  q.relevant.sort((a, b) => (a.episodeId === b.episodeId ? a.startMs - b.startMs : a.episodeId < b.episodeId ? -1 : 1));
  return { queries: out, id: q.id };
}
