// After ranking: the text of the passages shown, the catalog rows of their episodes, and a citation for title-only matches.
import type { ChannelDoc } from '../store/documents.js';
import type { IndexAliases } from '../store/opensearch.js';
import { buildFilters } from './filters.js';
import { DEFAULT_PASSAGE_FIELDS, EPISODE_SOURCE, PASSAGE_SOURCE } from './keyword-query.js';
import type { RawHit, SearchRequest } from './msearch.js';
import type { SearchParams } from './search.js';
import type { EpisodeGroup, EpisodeMeta, PassageHit } from './types.js';

/** What the hydration step found. */
export interface Hydrated {
  /** Catalog rows by episode id. */
  episodes: Map<string, EpisodeMeta>;
  /** The passages shown, by id. */
  passages: Map<string, PassageHit>;
  /** For each episode matched by title alone: the passage cited in its place. */
  titleSegments: Map<string, PassageHit>;
}

/** The searches of the hydration step and how to read their answers back. */
export interface HydratePlan {
  searches: SearchRequest[];
  read(hits: RawHit[][]): Hydrated;
}

const passageOf = (h: RawHit): PassageHit => ({ ...(h._source as unknown as PassageHit), id: h._id });

/**
 * Plans the second and last round trip of a search, one `_msearch` of up to three
 * items, each only when needed: the `_source` of the ≤ limit × 3 passages shown (the
 * legs returned doc values only); the catalog rows of the ranked episodes the title leg
 * did not already return (passages do not carry title, summary or duration); and, for
 * each episode matched by title alone, its best keyword passage for the query, else its
 * opening one (collapsed on episode). Every item re-applies the filters, so an episode
 * archived between the two round trips is dropped rather than shown.
 */
export function planHydration(
  aliases: Pick<IndexAliases, 'episodes' | 'passages'>,
  params: SearchParams,
  channel: ChannelDoc,
  groups: readonly EpisodeGroup[],
  { passageFields = DEFAULT_PASSAGE_FIELDS }: { passageFields?: readonly string[] } = {},
): HydratePlan {
  const known = new Map<string, EpisodeMeta>();
  const texts = new Map<string, PassageHit>();
  for (const g of groups) {
    if (g.title) known.set(g.episodeId, g.title.episode);
    for (const p of g.passages) if (p.passage) texts.set(p.id, p.passage);
  }
  const shown = groups.flatMap((g) => g.passages.map((p) => p.id)).filter((id) => !texts.has(id));
  const missing = groups.map((g) => g.episodeId).filter((id) => !known.has(id));
  const titleOnly = groups.filter((g) => g.passages.length === 0).map((g) => g.episodeId);
  const passageFilter = buildFilters(params, channel);

  const searches: SearchRequest[] = [];
  const readers: Array<(hits: RawHit[], into: Hydrated) => void> = [];
  if (shown.length > 0) {
    searches.push({
      index: aliases.passages,
      body: { size: shown.length, track_total_hits: false, _source: [...PASSAGE_SOURCE], query: { bool: { filter: [{ ids: { values: shown } }, passageFilter] } } },
    });
    readers.push((hits, into) => hits.forEach((h) => into.passages.set(h._id, passageOf(h))));
  }
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
    readers.push((hits, into) => hits.forEach((h) => into.episodes.set(h._id, h._source as unknown as EpisodeMeta)));
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
            filter: [{ terms: { episodeId: titleOnly } }, passageFilter],
          },
        },
        collapse: { field: 'episodeId' },
        // No passage matching leaves every score at 0: then the earliest wins, a chapter title before speech.
        sort: [{ _score: 'desc' }, { startMs: 'asc' }, { kind: 'asc' }],
      },
    });
    readers.push((hits, into) =>
      hits.forEach((h) => {
        const p = passageOf(h);
        into.titleSegments.set(p.episodeId, p);
      }),
    );
  }

  return {
    searches,
    read(hits) {
      const into: Hydrated = { episodes: new Map(known), passages: new Map(texts), titleSegments: new Map() };
      readers.forEach((read, i) => read(hits[i] ?? [], into));
      return into;
    },
  };
}
