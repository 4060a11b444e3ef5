import { expect } from 'chai';
import type { SegmentRecord } from '../../core/contract/library-format.js';
import { findSentenceStart, itemKey } from '../../scripts/eval/structure/items.js';
import { figures, joinLabels, LabelError, labelStub, parseLabels, rouge1, titleRouge, withinOneSecond, type RunItem } from '../../scripts/eval/structure/measure.js';

/** A segment whose words are spread 500 ms apart from `startMs`. */
function segment(speakerLabel: string, startMs: number, text: string): SegmentRecord {
  const words = text.split(' ').map((t, i) => ({ t, s: startMs + 500 * i, e: startMs + 500 * i + 400 }));
  return { speakerLabel, startMs, endMs: words.at(-1)!.e, text, words };
}

const item = (over: Partial<RunItem>): RunItem => ({ kind: 'title', key: 'k1', text: 'Remote control', dataset: 'qmsum', group: 'meetings', episodeId: 'ep_a', ...over });

describe('the structure eval', function () {
  it('keys an item by kind, episode and text, whatever its case, spacing or closing stop', function () {
    // Pinned: labels.jsonl is keyed by these, so a change of the hash orphans every label.
    expect(itemKey('title', 'ep_x', 'Remote control and design')).to.equal('d615412fdc48');
    expect(itemKey('title', 'ep_x', '  remote CONTROL and   design. ')).to.equal('d615412fdc48');
    expect(itemKey('topic', 'ep_x', 'Remote control and design')).to.not.equal('d615412fdc48');
    expect(itemKey('title', 'ep_y', 'Remote control and design')).to.not.equal('d615412fdc48');
    expect(itemKey('title', 'ep_x', 'Remote control and designs')).to.not.equal('d615412fdc48');
  });

  it('scores a title by content-word F1 against the best human title over its span', function () {
    // remote, control, design against feedback, design, remote, control, device: P 3/3, R 3/5.
    expect(rouge1('Remote control and design', 'Feedback on the design of remote control device')).to.be.closeTo(0.75, 1e-9);
    expect(rouge1('Meeting and week', 'Wrap up of the meeting')).to.be.closeTo(0.5, 1e-9);
    expect(rouge1('And the', 'the and')).to.equal(0);
    expect(titleRouge('Remote control and design', ['Opening remarks', 'Design of the remote control'])).to.equal(1);
    expect(titleRouge('Remote control', [])).to.equal(null);
  });

  it('finds the first word of the sentence a claim comes from, past the fillers it dropped', function () {
    const segments = [segment('A', 0, 'I would like to thank you all.'), segment('B', 10_000, 'Right. So, um, I would like to remind members that petitions are short.')];
    // The same opening said before: the place holding more of the claim wins; "So," opens the sentence.
    const start = findSentenceStart(segments, { text: 'I would like to remind members that petitions are short.', startMs: 0, endMs: 20_000 });
    expect(start).to.deep.equal({ segment: 1, startMs: 10_500, offset: 1 });
    expect(findSentenceStart(segments, { text: 'Nothing anyone said here.', startMs: 0, endMs: 20_000 })).to.equal(null);
    expect(findSentenceStart([{ startMs: 0, endMs: 900, text: 'No words here at all.' }], { text: 'No words here at all.', startMs: 0, endMs: 900 })).to.equal(null);
  });

  it('counts a moment within 1 s of its sentence only when that sentence was found', function () {
    expect(withinOneSecond({ startMs: 10_000, sentenceStartMs: 11_000 })).to.equal(true);
    expect(withinOneSecond({ startMs: 10_000, sentenceStartMs: 11_001 })).to.equal(false);
    expect(withinOneSecond({ startMs: 10_000, sentenceStartMs: null })).to.equal(null);
  });

  it('joins labels by key and refuses to count an item whose label is missing, unfilled or for another type', function () {
    const labels = parseLabels(
      [
        '{"key":"k1","kind":"title","text":"Remote control","accepted":true}',
        '{"key":"k2","kind":"moment","text":"A claim.","type":"qa","citable":true,"typeFits":false}',
        '{"key":"k2","kind":"moment","text":"A claim.","type":"story","citable":true,"typeFits":false}',
        '{"key":"k3","kind":"topic","text":"Come","meaningful":null}',
        '',
      ].join('\n'),
    );
    const items = [
      item({}),
      item({ kind: 'moment', key: 'k2', text: 'A claim.', type: 'qa', startMs: 0, sentenceStartMs: 2_000 }),
      item({ kind: 'moment', key: 'k2', text: 'A claim.', type: 'insight' }),
      item({ kind: 'moment', key: 'k2', text: 'A claim.', type: 'story' }),
      item({ kind: 'topic', key: 'k3', text: 'Come' }),
      item({ kind: 'person', key: 'k4', text: 'Kay' }),
    ];
    const joined = joinLabels(items, labels);
    expect(joined.map((j) => ('missing' in j ? j.missing : 'ok'))).to.deep.equal([
      'ok',
      'ok',
      'its type is insight now, it was judged as qa, story',
      'ok',
      'no verdict for meaningful',
      'no label',
    ]);
    const counted = figures(
      joined.filter((j) => 'label' in j),
      1,
    );
    expect(counted.titles).to.deep.equal({ yes: 1, of: 1 });
    expect(counted.citable).to.deep.equal({ yes: 2, of: 2 });
    expect(counted.typeFits).to.deep.equal({ yes: 0, of: 2 });
    expect(counted.withinOneSecond).to.deep.equal({ yes: 0, of: 1 });
    // A moment labelled under a type it no longer has keeps its claim's verdict in the line to fill in.
    expect(labelStub(joined[2]!.item, labels.get('k2'))).to.include({ citable: true, typeFits: null, type: 'insight' });
    expect(() => parseLabels('{"key":"k1","kind":"title","accepted":true}\n{"key":"k1","kind":"title","accepted":false}')).to.throw(LabelError, /twice/);
    expect(() =>
      parseLabels('{"key":"k2","kind":"moment","type":"qa","citable":true,"typeFits":true}\n{"key":"k2","kind":"moment","type":"story","citable":false,"typeFits":true}'),
    ).to.throw(LabelError, /twice/);
  });
});
