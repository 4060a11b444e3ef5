// After ranking: the catalog rows of the chosen episodes, and a passage to cite for episodes matched by title alone.
import type { ChannelDoc } from '../store/documents.js';
import type { IndexAliases } from '../store/opensearch.js';
import { buildFilters } from './filters.js';
import { DEFAULT_PASSAGE_FIELDS, EPISODE_SOURCE, PASSAGE_SOURCE } from './keyword-query.js';
import type { RawHit, SearchRequest } from './msearch.js';
import type { SearchParams } from './search.js';
import type { EpisodeGroup, EpisodeMeta, PassageHit } from './types.js';

/** The searches of the hydration step and how to read their answers back. */
export interface HydratePlan {
  searches: SearchRequest[];
  read(hits: RawHit[][]): { episodes: Map<string, EpisodeMeta>; titleSegments: Map<string, PassageHit> };
}

/**
 * Plans the second and last round trip of a search, one `_msearch` of up to two items:
 * the catalog rows of the ranked episodes the title leg did not already return
 * (passages do not carry title, summary or duration), and, for each episode matched by
 * title alone, its best keyword passage for the query, else its opening passage
 * (collapsed on episode). Both re-apply the filters, so an episode archived between the
 * two round trips is dropped rather than shown. No searches when nothing is missing.
 */
export function planHydration(
  aliases: Pick<IndexAliases, 'episodes' | 'passages'>,
  params: SearchParams,
  channel: ChannelDoc,
  groups: readonly EpisodeGroup[],
  { passageFields = DEFAULT_PASSAGE_FIELDS }: { passageFields?: readonly string[] } = {},
): HydratePlan {
  const known = new Map<string, EpisodeMeta>();
  for (const g of groups) if (g.title) known.set(g.episodeId, g.title.episode);
  const missing = groups.map((g) => g.episodeId).filter((id) => !known.has(id));
  const titleOnly = groups.filter((g) => g.passages.length === 0).map((g) => g.episodeId);

  const searches: SearchRequest[] = [];
  if (missing.length > 0) {
    searches.push({
      index: aliases.episodes,
      body: {
        size: missing.length,
        track_total_hits: false,
        _source: [...EPISODE_SOURCE],
        query: { bool: { filter: [{ ids: { values: missing } }, buildFilters(params, channel, { episodeIdField: 'id' })] } },
      },
    });
  }
  if (titleOnly.length > 0) {
    searches.push({
      index: aliases.passages,
      body: {
        size: titleOnly.length,
        track_total_hits: false,
        _source: [...PASSAGE_SOURCE],
        query: {
          bool: {
            should: [{ multi_match: { query: params.query, fields: [...passageFields] } }],
            filter: [{ terms: { episodeId: titleOnly } }, buildFilters(params, channel)],
          },
        },
        collapse: { field: 'episodeId' },
        // No passage matching leaves every score at 0: then the earliest wins, a chapter title before speech.
        sort: [{ _score: 'desc' }, { startMs: 'asc' }, { kind: 'asc' }],
      },
    });
  }

  return {
    searches,
    read(hits) {
      const episodes = new Map(known);
      const titleSegments = new Map<string, PassageHit>();
      let i = 0;
      if (missing.length > 0) {
        for (const h of hits[i++] ?? []) episodes.set(h._id, h._source as unknown as EpisodeMeta);
        // The title leg's rows passed the same filters in the first round trip.
      }
      if (titleOnly.length > 0) {
        for (const h of hits[i++] ?? []) {
          const p = h._source as unknown as PassageHit;
          titleSegments.set(p.episodeId, { ...p, id: h._id });
        }
      }
      return { episodes, titleSegments };
    },
  };
}
