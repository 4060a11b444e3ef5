// After ranking: the text of the passages shown, the catalog rows of their episodes, and a citation for title-only matches.
import type { ChannelDoc } from '../store/documents.js';
import type { IndexAliases } from '../store/opensearch.js';
import { englishTerms, matchTokens } from './english.js';
import { DEFAULT_PASSAGE_FIELDS, EPISODE_SOURCE, PASSAGE_SOURCE, passageSource } from './fields.js';
import { buildFilters, type QueryClause } from '../store/filters.js';
import { analysisOf, DEFAULT_LANGUAGES, languageFields } from '../store/languages.js';
import type { HydrationCache } from './hydration-cache.js';
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

/** How many of the passages and catalog rows shown came from the cache, and how many from the store (a title-only episode's citation always does). */
export interface HydrationCounts {
  cached: number;
  fetched: number;
}

/** The searches of the hydration step and how to read their answers back. */
export interface HydratePlan {
  /** Empty when everything shown was in the cache: then the search makes no second round trip. */
  searches: SearchRequest[];
  counts: HydrationCounts;
  read(hits: RawHit[][]): Hydrated;
}

/** A read passage's `sourceHash` (the record version it was derived from) apart from the fields a citation uses. */
function splitHash(source: Record<string, unknown> | undefined): { hash: string | undefined; rest: Record<string, unknown> } {
  const { sourceHash, ...rest } = source ?? {};
  return { hash: typeof sourceHash === 'string' ? sourceHash : undefined, rest };
}

/** A hydrated passage, with the query's terms where the highlighter found them in its text (`field`: `text` or a language's sub-field); kept in `cache` by its record version. */
function passageOf(h: RawHit, cache?: { cache: HydrationCache; store: string }, field = 'text'): PassageHit {
  const { hash, rest } = splitHash(h._source);
  const passage = { ...(rest as unknown as PassageHit), id: h._id };
  if (cache && hash) cache.cache.putPassage(cache.store, hash, passage);
  const tagged = h.highlight?.[field]?.[0];
  const matches = tagged === undefined ? [] : parseHighlight(tagged, passage.text);
  // Object.assign rather than a spread plus a property: see combine() in fusion.ts.
  return matches ? Object.assign({}, passage, { matches }) : passage;
}

/**
 * Highlighting of the query's words in passage text, whole text in one fragment with
 * marker characters, so the ranges can be read back exactly (landing and `highlights`).
 * `text` only: a speaker name or chapter title says nothing about where in the speech
 * the answer is. `field` is `text`, or the sub-field of the channel's language (`text.es`): the highlighter
 * then analyses the query and the text as the keyword leg did.
 */
export function textHighlight(query: string, field = 'text'): QueryClause {
  return {
    pre_tags: [HIGHLIGHT_PRE],
    post_tags: [HIGHLIGHT_POST],
    fields: { [field]: { type: 'unified', number_of_fragments: 0, highlight_query: { match: { [field]: { query } } } } },
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
 *
 * With a `cache`, a passage or catalog row found there under the record version its leg
 * hit reported (`sourceHash`) is not read again, and the query's terms are found in a
 * cached passage in process ({@link matchTerms}: the engine's analyzer, exactly, on the
 * scripts it was checked on; otherwise the passage is read and highlighted by the engine).
 * What is read is put in the cache. Cached items skip the second filter check: the legs
 * applied the filters a few milliseconds before.
 */
export function planHydration(
  aliases: Pick<IndexAliases, 'episodes' | 'passages'>,
  params: SearchParams,
  channel: ChannelDoc,
  groups: readonly EpisodeGroup[],
  {
    passageFields = DEFAULT_PASSAGE_FIELDS,
    cache,
    languages = DEFAULT_LANGUAGES,
  }: { passageFields?: readonly string[]; cache?: HydrationCache; languages?: readonly string[] } = {},
): HydratePlan {
  const analysis = analysisOf(channel.language, { languages });
  const english = analysis.suffix === '';
  const textField = english ? 'text' : `text.${analysis.suffix}`;
  passageFields = languageFields(passageFields, analysis);
  const highlighted = keywordText(params.query, analysis.language);
  // Words are found in cached passages in process only for English: english.ts is that analyzer, no other.
  const terms = cache && english ? englishTerms(highlighted) : undefined;
  const known = new Map<string, EpisodeMeta>();
  for (const g of groups) if (g.title) known.set(g.episodeId, g.title.episode);
  const cachedPassages = new Map<string, PassageHit>();
  let cachedRows = 0;
  if (cache && terms) {
    for (const g of groups) {
      for (const p of g.passages) {
        const found = p.sourceHash === undefined ? undefined : cache.passage(aliases.passages, p.id, p.sourceHash);
        if (found?.tokens) cachedPassages.set(p.id, Object.assign({}, found.passage, { matches: matchTokens(found.tokens, terms) }));
      }
      const hash = g.passages.find((p) => p.sourceHash !== undefined)?.sourceHash;
      const row = hash !== undefined && !known.has(g.episodeId) ? cache.episode(aliases.episodes, g.episodeId, hash) : undefined;
      if (row) {
        known.set(g.episodeId, row);
        cachedRows++;
      }
    }
  }
  // Always fetched here when not cached, even when a leg brought the text (the playground): the highlighter runs on this read.
  const shown = groups.flatMap((g) => g.passages.map((p) => p.id)).filter((id) => !cachedPassages.has(id));
  const missing = groups.map((g) => g.episodeId).filter((id) => !known.has(id));
  const titleOnly = groups.filter((g) => g.passages.length === 0).map((g) => g.episodeId);
  const passageFilter = buildFilters(params, channel);
  const highlight = textHighlight(highlighted, textField);
  const fill = cache ? { cache, store: aliases.passages } : undefined;
  const passageRead = passageSource(cache ? [...PASSAGE_SOURCE, 'sourceHash'] : PASSAGE_SOURCE);

  const searches: SearchRequest[] = [];
  const readers: Array<(hits: RawHit[], into: Hydrated) => void> = [];
  if (shown.length > 0) {
    searches.push({
      index: aliases.passages,
      body: {
        size: shown.length,
        track_total_hits: false,
        _source: passageRead,
        query: { bool: { filter: [{ ids: { values: shown } }, passageFilter] } },
        highlight,
      },
    });
    readers.push((hits, into) => hits.forEach((h) => into.passages.set(h._id, passageOf(h, fill, textField))));
  }
  if (missing.length > 0) {
    searches.push({
      index: aliases.episodes,
      body: {
        size: missing.length,
        track_total_hits: false,
        _source: cache ? [...EPISODE_SOURCE, 'sourceHash'] : [...EPISODE_SOURCE],
        query: { bool: { filter: [{ ids: { values: missing } }, buildFilters(params, channel, { episodeIdField: 'id' })] } },
      },
    });
    readers.push((hits, into) =>
      hits.forEach((h) => {
        const { hash, rest } = splitHash(h._source);
        const row = rest as unknown as EpisodeMeta;
        if (cache && hash) cache.putEpisode(aliases.episodes, hash, row);
        into.episodes.set(h._id, row);
      }),
    );
  }
  if (titleOnly.length > 0) {
    searches.push({
      index: aliases.passages,
      body: {
        size: titleOnly.length,
        track_total_hits: false,
        _source: passageRead,
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
        const p = passageOf(h, fill, textField);
        into.titleSegments.set(p.episodeId, p);
      }),
    );
  }

  return {
    searches,
    counts: { cached: cachedPassages.size + cachedRows, fetched: shown.length + missing.length + titleOnly.length },
    read(hits) {
      const into: Hydrated = { episodes: new Map(known), passages: new Map(cachedPassages), titleSegments: new Map() };
      readers.forEach((read, i) => read(hits[i] ?? [], into));
      return into;
    },
  };
}
