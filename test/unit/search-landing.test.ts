import { expect } from 'chai';
import { chooseLanding, HIGHLIGHT_POST, HIGHLIGHT_PRE, parseHighlight } from '../../core/search/landing.js';
import { citedSpan } from '../../core/search/result.js';
import type { PassageHit, TermRange } from '../../core/search/types.js';

/** Ranges of every occurrence of the words in `text` (what the highlighter would mark). */
function matchesOf(text: string, ...words: string[]): TermRange[] {
  const out: TermRange[] = [];
  for (const w of words) for (const m of text.matchAll(new RegExp(`\\b${w}\\b`, 'gi'))) out.push({ start: m.index!, end: m.index! + m[0].length });
  return out.sort((a, b) => a.start - b.start);
}

/** A passage of sentences, one every `stepMs` from `startMs`, with marks at each. */
function passageOf(sentences: string[], startMs = 100_000, stepMs = 8000): PassageHit {
  const marks: number[] = [];
  let text = '';
  sentences.forEach((s, i) => {
    marks.push(text.length, startMs + i * stepMs);
    text += (i > 0 ? ' ' : '') + s;
    if (i > 0) marks[marks.length - 2] = text.length - s.length;
  });
  return { id: 'p', episodeId: 'ep', kind: 'transcript', text, chapterTitle: null, startMs, endMs: startMs + sentences.length * stepMs, speaker: null, marks };
}

describe('landing: where a citation begins', function () {
  it('reads highlighted text back into exact ranges of the plain text', function () {
    const plain = 'The battery lasts. Batteries are cheap.';
    const tagged = `The ${HIGHLIGHT_PRE}battery${HIGHLIGHT_POST} lasts. ${HIGHLIGHT_PRE}Batteries${HIGHLIGHT_POST} are cheap.`;
    expect(parseHighlight(tagged, plain)).to.deep.equal([
      { start: 4, end: 11 },
      { start: 19, end: 28 },
    ]);
    expect(parseHighlight(`${HIGHLIGHT_PRE}x`, 'x')).to.equal(undefined);
    expect(parseHighlight('other text', plain)).to.equal(undefined);
  });

  it('cites the sentence where the query terms gather, not the passage start', function () {
    const p = passageOf([
      'So we were talking about the budget earlier.',
      'Yeah, I think so.',
      'Anyway, moving on.',
      'The remote control needs a rechargeable battery.',
      'A rechargeable battery costs more but the remote lasts longer.',
    ]);
    p.matches = matchesOf(p.text, 'remote', 'rechargeable', 'battery', 'talking');
    const span = citedSpan(p);
    expect(span.startMs).to.equal(100_000 + 3 * 8000);
    expect(span.text.startsWith('The remote control needs')).to.equal(true);
    // Highlights are re-based onto the cited text.
    expect(span.highlights.map((h) => span.text.slice(h.start, h.end))).to.deep.equal(['remote', 'rechargeable', 'battery', 'rechargeable', 'battery', 'remote']);
  });

  it('ignores the framing words of a question ("what did they discuss about …")', function () {
    const p = passageOf(['What did you think, did you discuss it?', 'Sure.', 'The logo should be yellow.']);
    p.matches = matchesOf(p.text, 'what', 'did', 'discuss', 'think', 'logo');
    expect(chooseLanding(p.text, p.marks!, p.matches)).to.deep.equal({ offset: p.text.indexOf('The logo'), ms: 116_000 });
  });

  it('prefers a rare term over one repeated in every sentence, and the earliest sentence on a tie', function () {
    const p = passageOf(['Layers here.', 'Layers there.', 'Layers and a mask.', 'Layers and a mask again.']);
    p.matches = matchesOf(p.text, 'layers', 'mask');
    expect(chooseLanding(p.text, p.marks!, p.matches, { windowMs: 1 })!.offset).to.equal(p.text.indexOf('Layers and a mask.'));
  });

  it('keeps the whole passage when nothing matched, when there is one sentence, or when landing is off', function () {
    const p = passageOf(['One.', 'Two.', 'Three.']);
    expect(citedSpan({ ...p, matches: [] })).to.deep.equal({ text: p.text, startMs: p.startMs, highlights: [] });
    const single = passageOf(['Only one sentence about the battery.']);
    expect(chooseLanding(single.text, single.marks!, matchesOf(single.text, 'battery'))).to.equal(undefined);
    const q = { ...p, matches: matchesOf(p.text, 'three') };
    expect(citedSpan(q, { off: true }).startMs).to.equal(p.startMs);
    expect(citedSpan(q).startMs).to.equal(p.startMs + 16_000);
  });

  it('with slack, cites the earliest sentence scoring close to the best (the answer before its words come back)', function () {
    const p = passageOf(['Crop the photo.', 'Use the crop tool on the photo.', 'Crop the photo with the crop tool now.']);
    p.matches = matchesOf(p.text, 'crop', 'tool', 'photo');
    expect(chooseLanding(p.text, p.marks!, p.matches, { lookahead: 0 })!.ms).to.equal(108_000);
    expect(chooseLanding(p.text, p.marks!, p.matches, { lookahead: 0, slack: 0.5 })!.ms).to.equal(100_000);
  });

  it('keeps the whole passage for a store without marks', function () {
    const p = passageOf(['A battery.', 'Another battery.']);
    const { marks: _marks, ...old } = p;
    expect(citedSpan({ ...old, matches: matchesOf(p.text, 'battery') }).startMs).to.equal(p.startMs);
  });
});
