// Topics: keyphrases of an episode, the channel's shared choice, and the word lists that keep forms of address, numbers and lone verbs out.
import { expect } from 'chai';
import { documentFrequencies } from '../../pipeline/enrich/phrases.js';
import { stem } from '../../pipeline/enrich/text.js';
import { assignTopics, episodeKeyphrases, saysNothing, topicId, type Keyphrase } from '../../pipeline/enrich/topics.js';

const k = (key: string, phrase: string, score: number): Keyphrase => ({ key, phrase, score });
const stemmed = (phrase: string) =>
  phrase
    .split(' ')
    .map((w) => stem(w, 'en'))
    .join(' ');

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

describe('topics: noun phrases about the subject', function () {
  it('says nothing with a form of address or role, a number or date, a lone verb, adverb, colour or direction, or an instruction', function () {
    for (const phrase of ['Prime Minister', 'Honourable member', 'Cabinet Secretary', 'Madam Chair', 'health minister', 'Member opposite'])
      expect(saysNothing(phrase, phrase.toLowerCase()), phrase).to.equal(true);
    for (const phrase of ['Thirty hours', 'July fifteenth', 'Channel twenty', 'Per cent increase']) expect(saysNothing(phrase, phrase.toLowerCase()), phrase).to.equal(true);
    for (const phrase of [
      'Come',
      'Click',
      'Accept',
      'Ahead',
      'Black',
      'Took',
      'Across',
      'Word',
      'Come back',
      'Start typing',
      'Avoid saving',
      'Click Save',
      'Choose File',
      'Double click',
    ])
      expect(saysNothing(phrase, phrase.toLowerCase()), phrase).to.equal(true);
    for (const phrase of [
      'Long term care',
      'Read speech data',
      'Embedded training',
      'Voice recognition',
      'Design process',
      'Layer mask',
      'Black background',
      'Higher education',
      'Machine room',
    ])
      expect(saysNothing(phrase, phrase.toLowerCase()), phrase).to.equal(false);
  });

  it("leaves a hearing's forms of address and numbers out of its keyphrases, and keeps what it is about", function () {
    const text =
      'Thank you, Prime Minister. The Prime Minister said the honourable member is wrong. The honourable member asked about long term care. ' +
      'Long term care homes need help. Thirty hours of care. Thirty hours a week. Long term care workers deserve better, Prime Minister.';
    const phrases = episodeKeyphrases(text, { language: 'en' }).map((p) => p.key);
    expect(phrases).to.include(stemmed('long term care'));
    for (const junk of ['prime minister', 'honourable member', 'thirty hours']) expect(phrases, junk).not.to.include(stemmed(junk));
  });

  it('gives no single word that more than a quarter of the channel says, however often this episode says it', function () {
    // "photoshop" is in no word list: only the channel's statistics tell it is every tutorial's word.
    const channel = [
      'Open Photoshop and pick the brush.',
      'Photoshop layers and masks.',
      'In Photoshop, crop the photo.',
      'Photoshop type tools.',
      'Masks in Photoshop hide pixels.',
    ];
    const text = 'Photoshop, Photoshop, Photoshop. The layer mask hides pixels. The layer mask again, and the pixels.';
    const freq = documentFrequencies([...channel, text], 'en');
    expect(episodeKeyphrases(text, { language: 'en' }).map((p) => p.key)).to.include('photoshop');
    expect(episodeKeyphrases(text, { language: 'en', freq }).map((p) => p.key)).not.to.include('photoshop');
  });

  it('takes no topic beyond the minimum that more than half the channel’s episodes share', function () {
    const eps = Array.from({ length: 6 }, (_, i) => ({
      episodeId: `e${i}`,
      keyphrases: [
        k(`own${i}a`, `own ${i} a`, 5),
        k(`own${i}b`, `own ${i} b`, 4),
        k(`own${i}c`, `own ${i} c`, 3),
        k('common', 'common', 1),
        k(`pair${i >> 1}`, `pair ${i >> 1}`, 0.5),
      ],
    }));
    const { topicIds } = assignTopics(eps);
    for (const [id, ids] of topicIds) {
      expect(ids, id).not.to.include(topicId('common'));
      expect(ids, id).to.include(topicId(`pair${Number(id.slice(1)) >> 1}`));
    }
  });
});
