import { expect } from 'chai';
import { chapterWeights, chooseMoments, momentType, standaloneClaim } from '../../pipeline/enrich/moments.js';
import { MOMENT_TYPES, type EnrichSegment } from '../../pipeline/enrich/types.js';
import { cutEpisode } from './enrich-fixture.js';

const seg = (i: number, text: string, speakerLabel: string | null = 'A'): EnrichSegment => ({ startMs: i * 10_000, endMs: i * 10_000 + 9_000, text, speakerLabel });

describe('key moments', function () {
  it('makes a claim of a whole sentence, dropping leading fillers and refusing one that leans on its context', function () {
    expect(standaloneClaim('So, um, the battery should last a whole year.', 'en')).to.equal('The battery should last a whole year.');
    expect(standaloneClaim('It should last a whole year.', 'en')).to.equal(null);
    expect(standaloneClaim('And this is why we changed it.', 'en')).to.equal(null);
    expect(standaloneClaim('What should the battery last?', 'en')).to.equal(null);
    expect(standaloneClaim('the battery should last a whole', 'en')).to.equal(null);
  });

  it('types a reply to another speaker’s question as qa, and cues as prediction, story and debate', function () {
    const segs = [
      seg(0, 'How long should the battery last?', 'A'),
      seg(1, 'The battery should last at least a full year of daily use.', 'B'),
      seg(2, 'I think prices will rise sharply over the next decade for all of this.', 'A'),
      seg(3, 'I remember when I was a student we built one out of wood.', 'A'),
      seg(4, 'I disagree with that, the rubber buttons are cheaper to make.', 'B'),
    ];
    expect(momentType(segs, 1, 0, segs[1]!.text, 'en')).to.equal('qa');
    expect(momentType(segs, 2, 0, segs[2]!.text, 'en')).to.equal('prediction');
    expect(momentType(segs, 3, 0, segs[3]!.text, 'en')).to.equal('story');
    expect(momentType(segs, 4, 0, segs[4]!.text, 'en')).to.equal('debate');
    expect(momentType(segs, 4, 0, segs[4]!.text, 'de')).to.equal('insight');
  });

  it('chooses one to three moments per chapter, each on its segment’s start and end, with a standalone title', function () {
    const segments = cutEpisode('ep_es2010a').transcript!.segments;
    const last = segments.length - 1;
    const [weights] = chapterWeights([segments.map((s) => s.text).join(' ')], 'en');
    const moments = chooseMoments(segments, 0, last, { language: 'en', weights: weights! });
    expect(moments.length).to.be.within(1, 3);
    const starts = new Map(segments.map((s) => [s.startMs, s]));
    for (const m of moments) {
      expect(MOMENT_TYPES).to.include(m.type);
      const s = starts.get(m.startMs);
      expect(s, 'starts on a segment start').to.not.equal(undefined);
      expect(m.endMs).to.equal(s!.endMs);
      expect(s!.text).to.include(m.title.slice(1, 20));
      expect(m.title).to.match(/^[A-Z0-9]/);
      expect(m.title).not.to.match(/^(he|she|it|this|that|so|and|but)\b/i);
      expect(m.title.length).to.be.at.most(200);
    }
    for (let i = 1; i < moments.length; i++) expect(moments[i]!.startMs).to.be.greaterThan(moments[i - 1]!.startMs);
  });

  it('quotes speech without transcription markup, cut-off starts or a word said twice, and keeps every other word', () => {
    expect(standaloneClaim('The idea is to f to feed the output of that belief - net into another belief - net.', 'en')).to.equal(
      'The idea is to feed the output of that belief-net into another belief-net.',
    );
    expect(standaloneClaim('Forth, we go all the way f through Parking, Hotel, @ @ Riots, or Disasters.', 'en')).to.equal(
      'Forth, we go all the way through Parking, Hotel, Riots, or Disasters.',
    );
    expect(standaloneClaim('Look at that structure in the the output.', 'en')).to.equal('Look at that structure in the output.');
    expect(standaloneClaim('I think a plan is good.', 'en')).to.equal('I think a plan is good.');
  });
});
