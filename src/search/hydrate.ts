// After ranking: the text of the passages shown, the catalog rows of their episodes, and a citation for title-only matches.
import type { ChannelDoc } from '../store/documents.js';
import type { IndexAliases } from '../store/opensearch.js';
import { DEFAULT_PASSAGE_FIELDS, EPISODE_SOURCE, passageSource } from './fields.js';
import { buildFilters, type QueryClause } from './filters.js';
import { HIGHLIGHT_POST, HIGHLIGHT_PRE, parseHighlight } from './landing.js';
import { keywordText } from './keyword-query.js';
import type { RawHit, SearchRequest } from './msearch.js';
import type { EpisodeGroup, EpisodeMeta, PassageHit, SearchParams } from './types.js';

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

/** A hydrated passage, with the query's terms where the highlighter found them in its text. */
function passageOf(h: RawHit): PassageHit {
  const passage = { ...(h._source as unknown as PassageHit), id: h._id };
  const tagged = h.highlight?.text?.[0];
  const matches = tagged === undefined ? [] : parseHighlight(tagged, passage.text);
  return matches ? { ...passage, matches } : passage;
}

/**
 * Highlighting of the query's words in passage text, whole text in one fragment with
 * marker characters, so the ranges can be read back exactly (landing and `highlights`).
 * `text` only: a speaker name or chapter title says nothing about where in the speech
 * the answer is.
 */
export function textHighlight(query: string): QueryClause {
  return {
    pre_tags: [HIGHLIGHT_PRE],
    post_tags: [HIGHLIGHT_POST],
    fields: { text: { type: 'unified', number_of_fragments: 0, highlight_query: { match: { text: { query } } } } },
  };
}

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
  for (const g of groups) if (g.title) known.set(g.episodeId, g.title.episode);
  // Always fetched here, even when a leg brought the text (the playground): the highlighter runs on this read.
  const shown = groups.flatMap((g) => g.passages.map((p) => p.id));
  const missing = groups.map((g) => g.episodeId).filter((id) => !known.has(id));
  const titleOnly = groups.filter((g) => g.passages.length === 0).map((g) => g.episodeId);
  const passageFilter = buildFilters(params, channel);
  const highlight = textHighlight(keywordText(params.query));

  const searches: SearchRequest[] = [];
  const readers: Array<(hits: RawHit[], into: Hydrated) => void> = [];
  if (shown.length > 0) {
    searches.push({
      index: aliases.passages,
      body: {
        size: shown.length,
        track_total_hits: false,
        _source: passageSource(),
        query: { bool: { filter: [{ ids: { values: shown } }, passageFilter] } },
        highlight,
      },
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
        _source: passageSource(),
        query: {
          bool: {
            should: [{ multi_match: { query: params.query, fields: [...passageFields] } }],
            filter: [{ terms: { episodeId: titleOnly } }, passageFilter],
          },
        },
        collapse: { field: 'episodeId' },
        highlight,
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
      const into: Hydrated = { episodes: new Map(known), passages: new Map(), titleSegments: new Map() };
      readers.forEach((read, i) => read(hits[i] ?? [], into));
      return into;
    },
  };
}
