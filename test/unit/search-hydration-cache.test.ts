import { expect } from 'chai';
import { matchTokens } from '../../core/search/english.js';
import { createHydrationCache } from '../../core/search/hydration-cache.js';
import { meta, passage } from '../support/search-fixtures.js';

describe('createHydrationCache', function () {
  it('keeps an entry under its store, id and record version only', function () {
    const cache = createHydrationCache(1024 * 1024);
    cache.putPassage('a-passages', 'h1', passage('p1', 'ep_1'));
    cache.putEpisode('a-episodes', 'h1', meta('ep_1'));
    expect(cache.passage('a-passages', 'p1', 'h1')?.passage.id).to.equal('p1');
    expect(cache.passage('a-passages', 'p1', 'h2')).to.equal(undefined);
    expect(cache.passage('b-passages', 'p1', 'h1')).to.equal(undefined);
    expect(cache.episode('a-episodes', 'ep_1', 'h1')).to.deep.equal(meta('ep_1'));
    expect(cache.episode('a-passages', 'ep_1', 'h1')).to.equal(undefined);
    expect({ hits: cache.hits, misses: cache.misses }).to.deep.equal({ hits: 2, misses: 3 });
  });

  it('never keeps the matches of the query that read a passage', function () {
    const cache = createHydrationCache(1024 * 1024);
    cache.putPassage('s', 'h', { ...passage('p1', 'ep_1'), matches: [{ start: 0, end: 4 }] });
    expect(cache.passage('s', 'p1', 'h')?.passage).to.not.have.property('matches');
  });

  it('holds about its size in bytes, dropping the least recently used first', function () {
    const cache = createHydrationCache(64 * 1024);
    const text = 'x'.repeat(1000);
    for (let i = 0; i < 100; i++) cache.putPassage('s', 'h', passage(`p${i}`, 'ep_1', { text }));
    expect(cache.bytes)
      .to.be.at.most(64 * 1024)
      .and.at.least(48 * 1024);
    expect(cache.passage('s', 'p0', 'h')).to.equal(undefined);
    expect(cache.passage('s', 'p99', 'h')?.passage.text).to.equal(text);
  });

  it("cuts a passage into the engine analyzer's terms once, when it is put, and leaves text the engine must analyze alone", function () {
    const cache = createHydrationCache(64 * 1024);
    cache.putPassage('s', 'h', passage('p1', 'ep_1', { text: "The remote's buttons were the remotes' problem" }));
    const tokens = cache.passage('s', 'p1', 'h')?.tokens;
    expect(tokens?.terms).to.deep.equal(['remot', 'button', 'were', 'remot', 'problem']);
    expect(matchTokens(tokens!, new Set(['remot']))).to.deep.equal([
      { start: 4, end: 12 },
      { start: 30, end: 37 },
    ]);
    cache.putPassage('s', 'h', passage('p2', 'ep_1', { text: 'the 遥控器 buttons' }));
    expect(cache.passage('s', 'p2', 'h')?.tokens).to.equal(undefined);
  });

  it('keeps nothing at size 0', function () {
    const cache = createHydrationCache(0);
    cache.putPassage('s', 'h', passage('p1', 'ep_1'));
    expect(cache.passage('s', 'p1', 'h')).to.equal(undefined);
    expect(cache.bytes).to.equal(0);
  });
});
