import { expect } from 'chai';
import { z } from 'zod';
import { createAjv, queryParser } from '../../src/http/validate-params.js';
import { SEARCH_INPUT, toSearchParams } from '../../src/mcp/search-tool.js';
import { SearchQuery } from '../../src/openapi/parameters.js';
import { pageSearchParams, queryOf } from '../../src/pages/router.js';
import { searchParams } from '../../src/routes/search.js';
import { SEARCH_LIMITS, SearchParamsSchema, type SearchParams } from '../../core/search/types.js';

const ajv = createAjv();
/** The REST API's own parser of a search's query string (ajv: lengths in code points, as JSON Schema counts them). */
const rest = queryParser(SearchQuery, ajv);
const refusedByRest = (query: Record<string, string>) => expect(() => rest(query), JSON.stringify(query).slice(0, 40)).to.throw(/Query parameter/);
const tool = z.object(SEARCH_INPUT);
const checkParams = ajv.compile(SearchParamsSchema);
/** Decoded parameters the schema holds. */
const valid = (params: SearchParams | undefined) => {
  expect(checkParams(params), JSON.stringify(checkParams.errors)).to.equal(true);
  return params!;
};

describe('search parameters, one schema and a decoder per surface', function () {
  const longest = 'a'.repeat(SEARCH_LIMITS.queryChars);
  /** As long in code points, twice as long in UTF-16 code units. */
  const longestAstral = '🌱'.repeat(SEARCH_LIMITS.queryChars);

  it('decodes a REST query string into search parameters the schema holds, id lists split at their commas', function () {
    const params = valid(searchParams(rest({ query: '  soil  ', limit: '7', fast: '1', topicIds: 'a,b', year: '2023' }), false));
    expect(params).to.deep.include({ query: 'soil', fast: true, limit: 7, publishedOnly: false, topicIds: ['a', 'b'], year: 2023 });
    expect(valid(searchParams(rest({ q: 'soil' }), true))).to.deep.include({ limit: SEARCH_LIMITS.restEpisodes, publishedOnly: true });
  });

  it("decodes a tool call's arguments into search parameters the schema holds, published episodes only", function () {
    const params = valid(toSearchParams(tool.parse({ query: ' soil ', personIds: ['p1'], collectionId: 'c1', publishedOnly: false })));
    expect(params).to.deep.include({ query: 'soil', fast: false, limit: SEARCH_LIMITS.toolEpisodes, publishedOnly: true, personIds: ['p1'], collectionId: 'c1' });
  });

  it("decodes a page's q into search parameters the schema holds, a too-long one cut at the query bound", function () {
    const params = valid(pageSearchParams(`${longestAstral}🌿`));
    expect(params).to.deep.equal({ query: longestAstral, fast: false, limit: SEARCH_LIMITS.pageEpisodes, publishedOnly: true });
    expect([pageSearchParams('   '), pageSearchParams(undefined), pageSearchParams(['soil'])]).to.deep.equal([undefined, undefined, undefined]);
    expect(queryOf(`${'a'.repeat(SEARCH_LIMITS.queryChars)}b`)).to.have.length(SEARCH_LIMITS.queryChars);
  });

  it('takes a query of the longest length on every surface and refuses a longer one on REST and in a tool call', function () {
    for (const query of [longest, longestAstral]) expect(rest({ query }).query).to.equal(query);
    refusedByRest({ query: `${longest}a` });
    refusedByRest({ q: `${longestAstral}a` });
    for (const query of [longest, longestAstral]) expect(tool.safeParse({ query }).success).to.equal(true);
    for (const query of [`${longest}a`, `${longestAstral}a`]) expect(tool.safeParse({ query }).success).to.equal(false);
    expect(checkParams({ query: `${longest}a`, fast: false, limit: 1, publishedOnly: true })).to.equal(false);
  });

  it('bounds the number of episodes alike on REST and in a tool call', function () {
    expect(rest({ limit: String(SEARCH_LIMITS.maxEpisodes) }).limit).to.equal(SEARCH_LIMITS.maxEpisodes);
    refusedByRest({ limit: String(SEARCH_LIMITS.maxEpisodes + 1) });
    expect(tool.safeParse({ query: 'a', limit: SEARCH_LIMITS.maxEpisodes }).success).to.equal(true);
    expect(tool.safeParse({ query: 'a', limit: SEARCH_LIMITS.maxEpisodes + 1 }).success).to.equal(false);
  });

  it("offers the assistant every search parameter but the caller's visibility, which a tool call cannot choose", function () {
    const offered = Object.keys(SEARCH_INPUT).sort();
    const searched = Object.keys(SearchParamsSchema.properties).filter((k) => k !== 'publishedOnly');
    expect(offered).to.deep.equal(searched.sort());
  });
});
