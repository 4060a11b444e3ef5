// Phrase counts as sorted hashes (pipeline/enrich/phrase-counts.ts): counts through add and remove, a stored copy that
// reads back the same, and the cap that drops the keys in fewest episodes first.
import { expect } from 'chai';
import { hash53, PhraseCounts } from '../../pipeline/enrich/phrase-counts.js';

describe('phrase counts', function () {
  it('counts keys added and removed, forgets a key at zero, and reads back the same from its stored form', function () {
    const counts = new PhraseCounts();
    counts.add(['soil test', 'cover crop', 'water right'], 1);
    counts.add(['soil test', 'water right'], 1);
    counts.add(['water right'], -1);
    expect([counts.get('soil test'), counts.get('cover crop'), counts.get('water right'), counts.get('honey bee')]).to.deep.equal([2, 1, 1, 0]);
    counts.add(['cover crop'], -1);
    expect(counts.size).to.equal(2);
    const copy = PhraseCounts.fromJson(JSON.parse(JSON.stringify(counts.toJson())));
    expect(copy.entries()).to.deep.equal(counts.entries());
    expect(copy.get('soil test')).to.equal(2);
    copy.add(['soil test', 'honey bee'], 1);
    expect([copy.get('soil test'), copy.get('honey bee'), counts.get('honey bee')]).to.deep.equal([3, 1, 0]);
  });

  it('keeps the keys in most episodes when cut to a size', function () {
    const counts = new PhraseCounts();
    const keys = Array.from({ length: 1_000 }, (_, i) => `phrase ${i}`);
    counts.add(keys, 1);
    counts.add(keys.slice(0, 100), 1);
    expect(counts.dropTo(150)).to.equal(850);
    expect(counts.size).to.equal(150);
    expect(keys.slice(0, 100).every((k) => counts.get(k) === 2)).to.equal(true);
    expect(keys.slice(100).filter((k) => counts.get(k) === 1)).to.have.length(50);
  });

  it('hashes distinct keys to distinct 53-bit integers', function () {
    const hashes = new Set(Array.from({ length: 50_000 }, (_, i) => hash53(`key ${i} word`)));
    expect(hashes.size).to.equal(50_000);
    expect([...hashes].every((h) => Number.isSafeInteger(h) && h >= 0)).to.equal(true);
  });
});
