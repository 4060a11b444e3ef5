import { expect } from 'chai';
import fc from 'fast-check';
import { splitWindows, windowDocs } from '../../indexer/windows.js';

/** A transcript passage of sentences, each `durations[i]` ms long, with a mark at each sentence start. */
function passageOf(durations: number[], startMs = 60_000) {
  const sentences = durations.map((_, i) => `Sentence number ${i} is here.`);
  const marks: number[] = [];
  let offset = 0;
  let ms = startMs;
  sentences.forEach((s, i) => {
    marks.push(offset, ms);
    offset += s.length + 1;
    ms += durations[i]!;
  });
  return { text: sentences.join(' '), startMs, endMs: ms, marks, sentences };
}

describe('splitWindows', function () {
  it('cuts a 45 s passage of 5 s sentences into three windows of about 15 s, in order, with no overlap and no gap', function () {
    const p = passageOf(Array(9).fill(5000));
    const windows = splitWindows(p);
    expect(windows.map((w) => [w.startMs, w.endMs])).to.deep.equal([
      [60_000, 75_000],
      [75_000, 90_000],
      [90_000, 105_000],
    ]);
    expect(windows[0]!.text).to.equal(p.sentences.slice(0, 3).join(' '));
    expect(windows[1]!.offset).to.equal(p.text.indexOf('Sentence number 3'));
    expect(windows.map((w) => w.text).join(' ')).to.equal(p.text);
  });

  it('closes a window before a sentence that would take it past 20 s once it is 10 s long', function () {
    // 6 + 6 = 12 s, then a 9 s sentence would make 21 s: it opens the next window.
    const windows = splitWindows(passageOf([6000, 6000, 9000, 6000]));
    expect(windows.map((w) => w.endMs - w.startMs)).to.deep.equal([12_000, 15_000]);
  });

  it('keeps a sentence longer than 20 s as a window of its own', function () {
    const windows = splitWindows(passageOf([4000, 4000, 4000, 30_000, 5000, 6000]));
    expect(windows.map((w) => w.endMs - w.startMs)).to.deep.equal([12_000, 30_000, 11_000]);
  });

  it('joins a short last window to the one before when the two fit 20 s', function () {
    expect(splitWindows(passageOf([5000, 5000, 5000, 4000])).map((w) => w.endMs - w.startMs)).to.deep.equal([19_000]);
    // 15 s + 8 s does not fit: the 8 s tail stays alone.
    expect(splitWindows(passageOf([5000, 5000, 5000, 8000])).map((w) => w.endMs - w.startMs)).to.deep.equal([15_000, 8000]);
  });

  it('gives one window for a passage without marks and none for empty text', function () {
    const p = { text: 'Just words, no marks at all', startMs: 0, endMs: 40_000, marks: [] };
    expect(splitWindows(p)).to.deep.equal([{ offset: 0, end: p.text.length, text: p.text, startMs: 0, endMs: 40_000 }]);
    expect(splitWindows({ ...p, text: '  ' })).to.deep.equal([]);
  });

  it('ignores marks out of text order or past the text', function () {
    const p = passageOf([8000, 8000, 8000]);
    const bad = { ...p, marks: [...p.marks.slice(0, 4), 5, 70_000, 9999, 80_000, ...p.marks.slice(4)] };
    expect(splitWindows(bad)).to.deep.equal(splitWindows(p));
  });

  it('covers the passage text exactly, never overlapping, within the passage span (any sentence lengths)', function () {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40_000 }), { minLength: 1, maxLength: 30 }), (durations) => {
        const p = passageOf(durations);
        const windows = splitWindows(p);
        expect(windows.map((w) => w.text).join(' ')).to.equal(p.text);
        windows.forEach((w, i) => {
          expect(w.startMs).to.be.at.least(p.startMs);
          expect(w.endMs).to.be.at.most(p.endMs);
          expect(p.text.slice(w.offset).startsWith(w.text)).to.equal(true);
          if (i > 0) {
            expect(w.offset).to.equal(windows[i - 1]!.end);
            expect(w.startMs).to.equal(windows[i - 1]!.endMs);
          }
          // A window runs past 20 s only through a sentence it took on while shorter than 10 s.
          if (w.endMs - w.startMs > 20_000) {
            const starts = p.marks.filter((_, j) => j % 2 === 0 && p.marks[j]! >= w.offset && p.marks[j]! < w.end).map((o) => p.marks[p.marks.indexOf(o) + 1]!);
            expect(starts[starts.length - 1]! - w.startMs).to.be.below(10_000);
          }
        });
      }),
    );
  });
});

describe('windowDocs', function () {
  const base = {
    id: 'ep_1:t:60000',
    episodeId: 'ep_1',
    channelId: 'ch_1',
    status: 'published' as const,
    archived: false,
    publishedAt: '2024-01-01T00:00:00Z',
    year: 2024,
    topicIds: ['t1'],
    personIds: [],
    entityIds: [],
    collectionIds: ['c1'],
  };

  it('copies the filter fields and the passage span onto each window, with ids <passageId>:w:<n>', function () {
    const docs = windowDocs({ ...base, kind: 'transcript', ...passageOf(Array(6).fill(5000)) });
    expect(docs.map((d) => d.id)).to.deep.equal(['ep_1:t:60000:w:0', 'ep_1:t:60000:w:1']);
    expect(docs[1]).to.include({ kind: 'transcript', passageId: base.id, episodeId: 'ep_1', channelId: 'ch_1', status: 'published', archived: false, year: 2024, passageStartMs: 60_000, passageEndMs: 90_000, startMs: 75_000 });
    expect(docs[1]!.collectionIds).to.deep.equal(['c1']);
  });

  it('makes a chapter or moment title one window of itself, whatever its span', function () {
    const docs = windowDocs({ ...base, id: 'ep_1:c:0:abcd', kind: 'chapter', text: 'Intro', startMs: 0, endMs: 300_000, marks: [] });
    expect(docs).to.have.length(1);
    expect(docs[0]).to.include({ id: 'ep_1:c:0:abcd:w:0', kind: 'chapter', text: 'Intro', offset: 0, startMs: 0, endMs: 300_000, passageEndMs: 300_000 });
  });
});
