// The MCP `search` tool: its schemas, its arguments as SearchParams, and the text an assistant quotes.
import { Type, type TSchema } from '@sinclair/typebox';
import { z } from 'zod';
import { SEARCH_LIMITS, SearchParamsSchema, type SearchParams, type SearchResult } from '../../core/search/types.js';
import { Defaulted, withOptions, type ValidQuery } from '../openapi/parameters.js';
import { inlineShapes, SearchResultSchema, type Chapter, type MatchedSegment } from '../../core/contract/shapes.js';
import { clock } from '../../core/ground/clock.js';

const PARAM = SearchParamsSchema.properties;

/** An id-list filter as an assistant passes it: a JSON array of the filter's ids, at least one and at most 100. */
const ids = <T extends TSchema>(list: T, what: string) =>
  withOptions(list, { minItems: 1, maxItems: 100, description: `${what}; an episode matches when it has any of them (AND across filters).` });

/**
 * The tool's input: the search parameters ({@link SearchParamsSchema}) an assistant chooses, with what the tool
 * tells it about each. `query` is required (the REST API's `q` alias is not offered), the id lists are JSON arrays,
 * and {@link SEARCH_LIMITS}`.toolEpisodes` episodes come by default: an assistant quotes them all. What a caller
 * may see is not its choice: a tool call reads published episodes only.
 */
const SearchInputSchema = Type.Object({
  query: withOptions(PARAM.query, { description: 'What to look for, in plain language (a question works well).' }),
  fast: Defaulted(withOptions(PARAM.fast, { description: 'Keyword matching only: faster, but misses moments phrased differently from the query.' }), false),
  limit: Defaulted(
    withOptions(PARAM.limit, {
      description: `Episodes to return, 1–${SEARCH_LIMITS.maxEpisodes} (default ${SEARCH_LIMITS.toolEpisodes}); each cites up to 3 moments.`,
    }),
    SEARCH_LIMITS.toolEpisodes,
  ),
  episodeIds: ids(PARAM.episodeIds, 'Only these episodes'),
  topicIds: ids(PARAM.topicIds, 'Topic ids'),
  personIds: ids(PARAM.personIds, 'Person ids (hosts and guests)'),
  entityIds: ids(PARAM.entityIds, 'Company or product ids'),
  collectionId: withOptions(PARAM.collectionId, { description: 'Only episodes of this collection (a playlist).' }),
  year: withOptions(PARAM.year, { description: 'Only episodes published in this year (UTC).' }),
});

/** A tool call's arguments once the SDK has validated them (defaults filled in). */
export type SearchArgs = ValidQuery<typeof SearchInputSchema>;

// Every search parameter but the caller's visibility is offered to the assistant: a parameter added to the search
// and not to the tool stops the build here.
true satisfies Exclude<keyof SearchParams, keyof SearchArgs | 'publishedOnly'> extends never ? true : false;

/**
 * The input schema as the SDK takes it (zod, read from {@link SearchInputSchema}): it validates
 * tool calls and lists the schema in `tools/list`. Typed by what it parses to, which zod
 * cannot infer from a JSON Schema.
 */
export const SEARCH_INPUT = (z.fromJSONSchema(SearchInputSchema as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodObject).shape as {
  [K in keyof SearchArgs]-?: z.ZodType<SearchArgs[K]>;
};

/**
 * Output schema: the REST API's SearchResult, the very shape the OpenAPI document publishes
 * (core/contract/shapes.ts), made self-contained and read into zod for the SDK. Objects accept
 * additional fields (spec part 2), so fields added to SearchResult later still validate.
 */
export const SEARCH_OUTPUT = z.fromJSONSchema(inlineShapes(SearchResultSchema) as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodObject;

/** The tool's arguments as search parameters: the query trimmed, published episodes only, always. */
export function toSearchParams({ query, ...chosen }: SearchArgs): SearchParams {
  return { ...chosen, query: query.trim(), publishedOnly: true };
}

/** Segment texts longer than this are cut in the text rendering (the structured content keeps them whole). */
export const QUOTE_CHARS = 400;

/** Titles and speakers longer than this are cut in the text rendering and in the server's names. */
export const LABEL_CHARS = 120;

/**
 * Library or client text as one line of at most `max` characters: whitespace and control characters fold into single
 * spaces, so a title with a newline cannot start a line of its own (a forged citation) in the text an assistant reads.
 */
export function oneLine(text: string, max: number = LABEL_CHARS): string {
  const flat = text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  if (flat.length <= max) return flat;
  // Cut by code point, so an emoji is not split into half a surrogate pair.
  return `${Array.from(flat)
    .slice(0, max - 1)
    .join('')
    .trimEnd()}…`;
}

const quote = (text: string) => oneLine(text, QUOTE_CHARS);

/** A cited chapter or key-moment title by episode, kind and start: how {@link GeneratedMarks} names the generated ones. */
export const titleKey = (episodeId: string, kind: 'chapter' | 'moment', startMs: number) => `${episodeId}\u0000${kind}\u0000${startMs}`;

/** Which passage kind a cited segment is, when it is a chapter or key-moment title. */
function titleKind(segment: MatchedSegment): 'chapter' | 'moment' | undefined {
  return segment.matchedVia.includes('chapter') ? 'chapter' : segment.matchedVia.includes('moment') ? 'moment' : undefined;
}

/** What enrichment generated around the cited segments (decision 27), for {@link renderSearchText} to say so. */
export interface GeneratedMarks {
  /** The {@link titleKey} of each generated chapter and key moment of the cited episodes: a cited title among them is labelled. */
  titles: ReadonlySet<string>;
  /** The generated chapters of each cited episode, in order: cited speech inside one is said to be in it. */
  chapters: ReadonlyMap<string, readonly Pick<Chapter, 'title' | 'startMs' | 'endMs'>[]>;
}

export const NO_GENERATED_MARKS: GeneratedMarks = { titles: new Set(), chapters: new Map() };

/**
 * The generated chapters and moments of the episodes a result cites, read from their chapters (one `_mget`: the store
 * gathers the GETs of one tick). A title passage starts where its chapter or moment starts, so the start names it.
 * Search may leave generated titles out of its passages (then only the speech inside them is cited, and named in
 * its chapter); either way nothing generated reads as the creator's.
 */
export async function generatedMarks(result: SearchResult, chaptersOf: (episodeId: string) => Promise<{ chapters: Chapter[] } | undefined>): Promise<GeneratedMarks> {
  const cited = result.episodes.filter((e) => e.segments.length > 0).map((e) => e.episodeId);
  const docs = await Promise.all(cited.map((id) => chaptersOf(id)));
  const titles = new Set<string>();
  const chapters = new Map<string, Pick<Chapter, 'title' | 'startMs' | 'endMs'>[]>();
  cited.forEach((id, i) => {
    const generated = (docs[i]?.chapters ?? []).filter((c) => c.generated);
    if (generated.length > 0) chapters.set(id, generated);
    for (const c of docs[i]?.chapters ?? []) {
      if (c.generated) titles.add(titleKey(id, 'chapter', c.startMs));
      for (const m of c.moments) if (m.generated) titles.add(titleKey(id, 'moment', m.startMs));
    }
  });
  return { titles, chapters };
}

/** What precedes a cited title that was generated, so an assistant does not quote it as the creator's. */
const GENERATED_TITLE = { chapter: 'Generated chapter title', moment: 'Generated key moment' } as const;

/** The generated chapter holding a cited moment: the last begun at or before it that has not ended. */
function generatedChapterAt(marks: GeneratedMarks, episodeId: string, ms: number) {
  return marks.chapters
    .get(episodeId)
    ?.filter((c) => c.startMs <= ms && ms < c.endMs)
    .at(-1);
}

/**
 * The result as text an assistant can quote (`view`: whether it is a published-only search or a member's): per episode its title, date and page, then
 * per segment the moment's time, the speaker when known, the words and the citation URL.
 * What enrichment generated says so ({@link generatedMarks}): a cited generated chapter or key-moment title is
 * labelled, and cited speech inside a generated chapter names that chapter as generated from the transcript.
 */
export function renderSearchText(
  result: SearchResult,
  channelTitle: string,
  marks: GeneratedMarks = NO_GENERATED_MARKS,
  { view = 'published' }: { view?: 'published' | 'member' } = {},
): string {
  // Every piece of library or client text is folded to one line: only this function starts lines.
  const [channel, query] = [oneLine(channelTitle), oneLine(result.query ?? '', SEARCH_LIMITS.queryChars)];
  // A member's view holds drafts too: its episodes are not all published.
  const kind = view === 'published' ? 'published episode' : 'episode';
  if (result.episodes.length === 0) return `No ${kind} of ${channel} matches "${query}".`;
  const lines = [`${channel}: ${result.episodes.length} ${kind}${result.episodes.length === 1 ? '' : 's'} for "${query}".`];
  result.episodes.forEach((episode, i) => {
    lines.push('', `${i + 1}. ${oneLine(episode.title)} (${episode.publishedAt.slice(0, 10)})`, `   ${episode.url}`);
    for (const s of episode.segments) {
      const speaker = s.speaker ? oneLine(s.speaker) : '';
      const kind = titleKind(s);
      const label = kind && marks.titles.has(titleKey(episode.episodeId, kind, s.startMs)) ? ` ${GENERATED_TITLE[kind]} (from the transcript, not the creator's):` : '';
      lines.push(`   - [${clock(s.startMs)}]${label}${speaker ? ` ${speaker}:` : ''} "${quote(s.text)}"`, `     ${s.url}`);
      const chapter = kind ? undefined : generatedChapterAt(marks, episode.episodeId, s.startMs);
      if (chapter) lines.push(`     In the chapter "${oneLine(chapter.title)}", generated from the transcript (not the creator's).`);
    }
  });
  return lines.join('\n');
}
