// The NER client's pieces of a text over the service's limit: nothing dropped, cut at whitespace, offsets into the whole.
import { expect } from 'chai';
import { splitText } from '../../pipeline/enrich/ner.js';

describe('enrich ner: splitText', function () {
  it('keeps a text within the limit whole', function () {
    expect(splitText('Adam Smith spoke.', 20)).to.deep.equal([{ text: 'Adam Smith spoke.', offset: 0 }]);
  });

  it('cuts at the last whitespace of each piece, and the pieces put together are the text', function () {
    const text = 'Adam Smith met Russ Roberts in London on Monday.';
    const pieces = splitText(text, 16);
    expect(pieces.map((p) => p.text)).to.deep.equal(['Adam Smith met ', 'Russ Roberts in ', 'London on ', 'Monday.']);
    expect(pieces.map((p) => p.text).join('')).to.equal(text);
    for (const p of pieces) expect(text.slice(p.offset, p.offset + p.text.length)).to.equal(p.text);
  });

  it('cuts a run without whitespace at the limit', function () {
    const pieces = splitText('"'.repeat(45), 20);
    expect(pieces.map((p) => [p.text.length, p.offset])).to.deep.equal([
      [20, 0],
      [20, 20],
      [5, 40],
    ]);
  });
});
