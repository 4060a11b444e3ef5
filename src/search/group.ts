// Groups fused hits by episode: the ranked episodes of the response, each with its best passages.
import type { EpisodeGroup, FusedHit } from './types.js';

export interface GroupOptions {
  /**
   * How an episode's passages add up: `max` takes its best passage (an episode with one
   * precise moment is not beaten by one with many weak ones), `sum` adds its top
   * `maxSegments`. Either way a title match adds its own fused score. On the qmsum dev
   * queries `max` scored best; so did it against fusing again at the episode level
   * (each leg ranking episodes by their best passage): 0.559 vs 0.555 nDCG@10.
   */
  episodeScore?: 'max' | 'sum';
}

/**
 * Groups fused hits (best first) into at most `limit` episodes, each with at most
 * `maxSegments` passages, best first. A passage starting where a better one of the same
 * episode starts is skipped: both would cite the same `?t=` (a chapter title and the
 * first words of that chapter, typically), so the slot goes to another moment.
 * Episodes are ordered by score, ties by id.
 */
export function groupByEpisode(
  fused: readonly FusedHit[],
  limit: number,
  maxSegments = 3,
  { episodeScore = 'max' }: GroupOptions = {},
): EpisodeGroup[] {
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
      if (episodeScore === 'sum' || group.passages.length === 0) group.score += hit.fusedScore;
      group.passages.push(hit);
    }
  }
  return [...groups.values()]
    .sort((a, b) => b.score - a.score || (a.episodeId < b.episodeId ? -1 : a.episodeId > b.episodeId ? 1 : 0))
    .slice(0, limit);
}
