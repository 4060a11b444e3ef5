// Groups fused hits by episode: the ranked episodes of the response, each with its best passages.
import type { EpisodeGroup, FusedHit, FusedPassage, LegName } from './types.js';

/**
 * Groups fused hits (best first) into at most `limit` episodes, each with at most
 * `maxSegments` passages, best first. An episode scores its best passage plus its title
 * match, if any: one precise moment is not outweighed by many weak ones (adding up
 * passages, or an episode's further evidence, scored worse: docs/relevance.md, Experiments).
 * A passage starting where a better one of the same episode starts is skipped: both would
 * cite the same `?t=` (a chapter title and the first words of that chapter, typically), so
 * the slot goes to another moment. `priors` (the episode leg's, by episode id) add to the score of
 * the episodes found here and form none. Episodes are ordered by score, ties by id.
 */
export function groupByEpisode(fused: readonly FusedHit[], limit: number, maxSegments = 3, priors: ReadonlyMap<string, number> = new Map()): EpisodeGroup[] {
  const groups = new Map<string, EpisodeGroup>();
  for (const hit of fused) {
    let group = groups.get(hit.episodeId);
    if (!group) {
      group = { episodeId: hit.episodeId, score: 0, passages: [] };
      groups.set(hit.episodeId, group);
    }
    if (hit.type === 'episode') {
      group.title = hit;
      group.score += hit.fusedScore;
    } else if (group.passages.length < maxSegments && !group.passages.some((p) => p.startMs === hit.startMs)) {
      if (group.passages.length === 0) group.score += hit.fusedScore;
      group.passages.push(hit);
    }
  }
  for (const group of groups.values()) group.score += priors.get(group.episodeId) ?? 0;
  return [...groups.values()].sort((a, b) => b.score - a.score || (a.episodeId < b.episodeId ? -1 : a.episodeId > b.episodeId ? 1 : 0)).slice(0, limit);
}

/**
 * A chapter longer than this is no landing point: its start can be minutes before the
 * moment asked about (a meeting's topic). Shorter ones (a tutorial's steps) are the
 * answers and are cited as they are (docs/relevance.md, Experiments: long chapter hits).
 */
export const LONG_CHAPTER_MS = 120_000;

/**
 * Hands each long chapter-title hit's evidence to the best speech passage found inside that
 * chapter: the passage's fused score gains the chapter's, the chapter hit goes, and the
 * passage (cited where the answer begins) stands for the chapter. A chapter runs for
 * minutes; citing its title sends a listener to its start, long before the moment asked
 * about. A chapter with no speech passage among the hits stays as it is. With
 * `keepChapters` the chapter hit stays too, ranked after the passage that now carries it
 * (the listener gets the moment first and the chapter next).
 */
export function absorbChapterHits(
  fused: readonly FusedHit[],
  { keepChapters = false, minSpanMs = LONG_CHAPTER_MS }: { keepChapters?: boolean; minSpanMs?: number } = {},
): FusedHit[] {
  const speech = fused.filter((h): h is FusedPassage => h.type === 'passage' && h.kind === 'transcript');
  const gains = new Map<FusedHit, { score: number; legs: FusedHit['legs'] }>();
  const absorbed = new Set<FusedHit>();
  for (const hit of fused) {
    if (hit.type !== 'passage' || hit.kind !== 'chapter' || hit.endMs === undefined || hit.endMs - hit.startMs <= minSpanMs) continue;
    const inside = speech.find((p) => p.episodeId === hit.episodeId && p.startMs >= hit.startMs && p.startMs < hit.endMs!);
    if (!inside) continue;
    const gain = gains.get(inside) ?? { score: 0, legs: {} };
    gain.score += hit.fusedScore;
    for (const [leg, at] of Object.entries(hit.legs)) gain.legs[leg as LegName] ??= at;
    gains.set(inside, gain);
    absorbed.add(hit);
  }
  if (absorbed.size === 0) return [...fused];
  return fused
    .filter((h) => keepChapters || !absorbed.has(h))
    .map((h) => {
      const gain = gains.get(h);
      return gain ? { ...h, fusedScore: h.fusedScore + gain.score, legs: { ...gain.legs, ...h.legs } } : h;
    })
    .sort((a, b) => b.fusedScore - a.fusedScore);
}
