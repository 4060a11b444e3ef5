import { expect } from 'chai';
import { MAX_QUERY_TERMS, boundQueryTerms, queryTerms } from '../../core/search/query-terms.js';
import { buildKeywordQuery } from '../../core/search/keyword-query.js';
import { CHANNEL, params } from '../support/search-fixtures.js';

/** Clauses a `most_fields` multi_match makes: one per distinct term and field. */
function clauses(query: string, fields: number): number {
  return new Set(queryTerms(query).map((t) => t.toLowerCase())).size * fields;
}

describe('bounding the terms a query sends to the engine', function () {
  it('leaves a query of up to 64 distinct terms untouched, repeats and punctuation included', function () {
    for (const query of ['how do farmers keep soil healthy?', 'budget '.repeat(140).trim(), 'a-b c.d "e" f/g', '']) {
      expect(boundQueryTerms(query)).to.equal(query);
    }
    const sixtyFour = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => `w${i}`).join(' ');
    expect(boundQueryTerms(sixtyFour)).to.equal(sixtyFour);
  });

  it('keeps the first 64 distinct terms, case-insensitively, of a longer query', function () {
    const words = Array.from({ length: 330 }, (_, i) => `w${i}`);
    const bounded = boundQueryTerms(['W0', ...words].join(' '));
    expect(bounded.split(' ')).to.deep.equal(['W0', ...words.slice(1, MAX_QUERY_TERMS)]);
  });

  it('counts each CJK character and emoji as a term, as the engine tokenizer does', function () {
    expect(queryTerms('預算會議🎙️🔥 budget')).to.deep.equal(['預', '算', '會', '議', '🎙', '🔥', 'budget']);
    const cjk = '預算會議討論資料'.repeat(40);
    expect(new Set(queryTerms(boundQueryTerms(cjk))).size).to.be.at.most(MAX_QUERY_TERMS);
  });

  it('keeps the keyword legs of a 1,000-character query of distinct words under the 1,024-clause limit', function () {
    const A = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const query = Array.from({ length: 330 }, (_, i) => A[Math.floor(i / 36)]! + A[i % 36]!).join(' ');
    expect(query.length).to.be.below(1000);
    expect(clauses(query, 5)).to.be.above(1024); // what reached the engine before
    const { episodes } = buildKeywordQuery(params({ query: boundQueryTerms(query) }), CHANNEL, { candidates: 10 });
    const sent = (episodes.query as { bool: { must: { multi_match: { query: string; fields: string[] } }[] } }).bool.must[0]!.multi_match;
    expect(clauses(sent.query, sent.fields.length)).to.be.at.most(5 * MAX_QUERY_TERMS);
  });
});
