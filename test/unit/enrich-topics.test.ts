import { expect } from 'chai';
import { assignTopics, episodeKeyphrases, topicId, type Keyphrase } from '../../pipeline/enrich/topics.js';

const k = (key: string, phrase: string, score: number): Keyphrase => ({ key, phrase, score });

describe('topics', function () {
  it('gives an episode keyphrases that repeat no word of a better one', function () {
    const text = 'The remote control design. Remote control buttons. Battery life of the remote control. Battery life again. Rubber buttons, rubber buttons.';
    const phrases = episodeKeyphrases(text, { language: 'en' });
    expect(phrases.length).to.be.greaterThan(1);
    const words = phrases.flatMap((p) => p.key.split(' '));
    expect(new Set(words).size).to.equal(words.length);
  });

  it('normalises keyphrases of different episodes into one shared topic id, named by the most frequent form', function () {
    const { topicIds, facets } = assignTopics([
      { episodeId: 'e2', keyphrases: [k('remote control', 'Remote Controls', 3), k('budget', 'budget', 2), k('fruit', 'fruit', 1), k('colour', 'colour', 1)] },
      { episodeId: 'e1', keyphrases: [k('remote control', 'remote control', 2), k('battery life', 'battery life', 2), k('budget', 'budget', 1), k('spongy', 'spongy', 0.5)] },
      { episodeId: 'e3', keyphrases: [k('remote control', 'remote control', 1), k('battery life', 'battery life', 1), k('kinetic', 'kinetic', 1)] },
    ]);
    const rc = topicId('remote control');
    expect(rc).to.equal('tp_g-remote-control');
    for (const e of ['e1', 'e2', 'e3']) expect(topicIds.get(e)).to.include(rc);
    expect(topicIds.get('e1')).to.include(topicId('battery life'));
    expect(topicIds.get('e3')).to.include(topicId('battery life'));
    expect(facets.find((f) => f.id === rc)).to.deep.equal({ id: rc, name: 'Remote control', generated: true });
    for (const ids of topicIds.values()) expect(ids.length).to.be.within(3, 8);
  });

  it('keeps at most eight topics and does not depend on the order of the episodes', function () {
    const many = Array.from({ length: 12 }, (_, i) => k(`word${i}`, `word${i}`, 12 - i));
    const eps = [
      { episodeId: 'a', keyphrases: many },
      { episodeId: 'b', keyphrases: many.slice(0, 9) },
    ];
    const one = assignTopics(eps);
    const two = assignTopics([...eps].reverse());
    expect(one.topicIds.get('a')!.length).to.equal(8);
    expect([...two.topicIds]).to.deep.equal([...one.topicIds]);
    expect(two.facets).to.deep.equal(one.facets);
  });
});
