// The MCP `search` tool: its schemas, its arguments as SearchParams, and the text an assistant quotes.
import { z } from 'zod';
import type { SearchParams, SearchResult } from '../search/types.js';
import { inlineShapes, SearchResultSchema } from '../shapes.js';

const ID = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^,\s]+$/, 'an id has no commas or spaces');
const ids = (what: string) => z.array(ID).min(1).max(100).optional().describe(`${what}; an episode matches when it has any of them (AND across filters).`);

/** Input schema: `query` and the filters of REST search, ids as JSON arrays instead of comma-separated strings. */
export const SEARCH_INPUT = {
  query: z.string().trim().min(1).max(1000).describe('What to look for, in plain language (a question works well).'),
  fast: z.boolean().default(false).describe('Keyword matching only: faster, but misses moments phrased differently from the query.'),
  limit: z.number().int().min(1).max(50).default(5).describe('Episodes to return, 1–50 (default 5); each cites up to 3 moments.'),
  episodeIds: ids('Only these episodes'),
  topicIds: ids('Topic ids'),
  personIds: ids('Person ids (hosts and guests)'),
  entityIds: ids('Company or product ids'),
  collectionId: ID.optional().describe('Only episodes of this collection (a playlist).'),
  year: z.number().int().min(1000).max(9999).optional().describe('Only episodes published in this year (UTC).'),
};

export type SearchArgs = z.infer<z.ZodObject<typeof SEARCH_INPUT>>;

/**
 * Output schema: the REST API's SearchResult, the very shape the OpenAPI document publishes
 * (src/shapes.ts), made self-contained and read into zod for the SDK. Objects accept
 * additional fields (spec part 2), so fields added to SearchResult later still validate.
 */
export const SEARCH_OUTPUT = z.fromJSONSchema(inlineShapes(SearchResultSchema) as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodObject;

/** The tool's arguments as search parameters: published episodes only, always. */
export function toSearchParams(args: SearchArgs): SearchParams {
  return {
    query: args.query,
    fast: args.fast,
    limit: args.limit,
    publishedOnly: true,
    topicIds: args.topicIds,
    personIds: args.personIds,
    entityIds: args.entityIds,
    episodeIds: args.episodeIds,
    collectionId: args.collectionId,
    year: args.year,
  };
}

/** `m:ss`, or `h:mm:ss` from an hour on. */
export function formatMoment(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
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

/**
 * The result as text an assistant can quote: per episode its title, date and page, then
 * per segment the moment's time, the speaker when known, the words and the citation URL.
 */
export function renderSearchText(result: SearchResult, channelTitle: string): string {
  // Every piece of library or client text is folded to one line: only this function starts lines.
  const [channel, query] = [oneLine(channelTitle), oneLine(result.query ?? '', 1000)];
  if (result.episodes.length === 0) return `No published episode of ${channel} matches "${query}".`;
  const lines = [`${channel}: ${result.episodes.length} published episode${result.episodes.length === 1 ? '' : 's'} for "${query}".`];
  result.episodes.forEach((episode, i) => {
    lines.push('', `${i + 1}. ${oneLine(episode.title)} (${episode.publishedAt.slice(0, 10)})`, `   ${episode.url}`);
    for (const s of episode.segments) {
      const speaker = s.speaker ? oneLine(s.speaker) : '';
      lines.push(`   - [${formatMoment(s.startMs)}]${speaker ? ` ${speaker}:` : ''} "${quote(s.text)}"`, `     ${s.url}`);
    }
  });
  return lines.join('\n');
}
