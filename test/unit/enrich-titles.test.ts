import { expect } from 'chai';
import { candidatePhrases, documentFrequencies, rankCandidates } from '../../pipeline/enrich/phrases.js';
import { stem, stopwords } from '../../pipeline/enrich/text.js';
import { composeTitle, conjunction, MAX_TITLE_CHARS, rankChapterPhrases } from '../../pipeline/enrich/titles.js';
import { cutEpisode, hashEmbed } from './enrich-fixture.js';

const TEXT =
  'We looked at the remote control buttons again. The remote control needs fewer buttons. Battery life matters too: ' +
  'the battery life of the remote control should be a year. Um, yeah, so the buttons. The rubber buttons feel nice.';

describe('chapter titles', function () {
  it('counts runs of content words, never across a stop word or a sentence end', function () {
    const keys = candidatePhrases(TEXT, 'en').map((c) => c.key);
    expect(keys).to.include('remote control');
    expect(keys).to.include('battery life');
    expect(keys).to.include('remote control button');
    expect(keys).not.to.include('button battery');
    expect(keys.some((k) => k.split(' ').some((w) => stopwords('en').has(w)))).to.equal(false);
  });

  it('joins inflections and cases under one key', function () {
    const c = candidatePhrases('Remote controls. The remote control. REMOTE CONTROL.', 'en').find((x) => x.key === 'remote control')!;
    expect(c.count).to.equal(3);
    expect(c.surface).to.equal('remote control');
    expect(stem('batteries', 'en')).to.equal('battery');
    expect(stem('canciones', 'es')).to.equal(stem('canción', 'es'));
  });

  it('ranks phrases said often and rare elsewhere above common ones', function () {
    const freq = documentFrequencies(['remote control design meeting', 'remote control price', 'remote control colour'], 'en');
    const ranked = rankCandidates(candidatePhrases(TEXT, 'en'), freq);
    expect(ranked[0]!.key).not.to.equal('remote control');
  });

  it('writes a noun phrase of at most 60 characters that is not a sentence of the chapter nor a list of three words', async function () {
    const segments = cutEpisode('ep_es2010a').transcript!.segments;
    const text = segments.map((s) => s.text).join(' ');
    const embed = hashEmbed();
    const [centroid] = await embed([text]);
    const phrases = await rankChapterPhrases(text, { language: 'en', centroid: centroid!, embed });
    const title = composeTitle(phrases, { joiner: conjunction('en') });
    expect(title.length).to.be.within(3, MAX_TITLE_CHARS);
    expect(title).not.to.match(/[.?!]$/);
    expect(title.split(',').length).to.be.lessThan(3);
    expect(segments.some((s) => s.text.trim().toLowerCase() === title.toLowerCase())).to.equal(false);
    expect(title.charAt(0)).to.equal(title.charAt(0).toUpperCase());
  });

  it('joins two phrases that share no word, and falls back when there is none', function () {
    const p = (key: string, surface: string) => ({ key, surface, words: key.split(' ').length, score: 1 });
    expect(composeTitle([p('remote control', 'remote control'), p('remote', 'remote'), p('battery life', 'battery life')])).to.equal('Remote control and battery life');
    expect(composeTitle([], { fallback: 'Part 2' })).to.equal('Part 2');
    expect(composeTitle([p('x', 'a'.repeat(50)), p('y', 'b'.repeat(50))]).length).to.be.at.most(MAX_TITLE_CHARS);
  });

  it('has stop words for the seven languages and drops them from phrases', function () {
    for (const [lang, word] of [
      ['en', 'the'],
      ['es', 'porque'],
      ['de', 'nicht'],
      ['fr', 'avec'],
      ['pt', 'você'],
      ['it', 'perché'],
      ['nl', 'omdat'],
    ] as const) {
      expect(stopwords(lang).has(word), `${lang} ${word}`).to.equal(true);
    }
    const keys = candidatePhrases('Das Haus ist nicht groß. Die Häuser sind alt, das Haus auch.', 'de').map((c) => c.key);
    expect(keys).not.to.include('nicht');
    expect(keys).to.include('haus');
  });
});
