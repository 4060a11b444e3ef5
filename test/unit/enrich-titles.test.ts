import { expect } from 'chai';
import { candidatePhrases, documentFrequencies, rankCandidates } from '../../pipeline/enrich/phrases.js';
import { stem, stopwords } from '../../pipeline/enrich/text.js';
import { composeTitle, conjunction, fitTitle, MAX_TITLE_CHARS, rankChapterPhrases, type RankedPhrase } from '../../pipeline/enrich/titles.js';
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

  it('writes a noun phrase of at most 40 characters that is not a sentence of the chapter nor a list of three words', async function () {
    const segments = cutEpisode('ep_es2010a').transcript!.segments;
    const text = segments.map((s) => s.text).join(' ');
    const embed = hashEmbed();
    const [centroid] = await embed([text]);
    const phrases = await rankChapterPhrases(text, { language: 'en', centroid: centroid!, embed });
    const title = composeTitle(phrases, { joiner: conjunction('en') });
    expect(MAX_TITLE_CHARS).to.equal(40);
    expect(title.length).to.be.within(3, MAX_TITLE_CHARS);
    expect(title).not.to.match(/[.?!]$/);
    expect(title.split(',').length).to.be.lessThan(3);
    expect(segments.some((s) => s.text.trim().toLowerCase() === title.toLowerCase())).to.equal(false);
    expect(title.charAt(0)).to.equal(title.charAt(0).toUpperCase());
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

/** The local title of a span: statistics only (no embedder), the episode's chapters given for the spread. */
async function titleOf(text: string, chapters?: readonly string[]): Promise<{ title: string; phrases: RankedPhrase[] }> {
  const phrases = await rankChapterPhrases(text, { language: 'en', ...(chapters ? { chapters: documentFrequencies(chapters, 'en') } : {}) });
  return { title: composeTitle(phrases), phrases };
}

const ranked = (phrases: readonly RankedPhrase[]) => phrases.map((p) => p.surface.toLowerCase());

describe('chapter titles name what the chapter is about', function () {
  it('demotes a phrase said in most of the episode’s chapters below one of this chapter', async function () {
    const chapter =
      'The remote control needs a battery. Battery life of the remote control is short. The remote control should last, ' + 'so battery life matters. We test the remote control.';
    const others = ['The remote control looks fancy.', 'Our remote control costs twelve euros.', 'Who buys a remote control?'];
    const { title } = await titleOf(chapter, [chapter, ...others]);
    expect(title).to.match(/^Battery life/);
    // Alone, the phrase it repeats most is the chapter's.
    expect((await titleOf(chapter)).title).to.match(/^Remote control/);
  });

  it('never names a form of address, a role, a unit or a meeting word', async function () {
    const text =
      'Mr. Chair, the Prime Minister said the rent relief program would help. The honourable member knows that rent ' +
      'relief is late. Prime Minister, seventy per cent of small businesses cannot pay. The Prime Minister promised rent ' +
      'relief, yet forty per cent of Canadians wait. Canadians want an answer, Mr. Chair. The honourable member asked ' +
      'again this week. This week, the honourable minister said the meeting would decide. The honourable minister spoke ' +
      'at the meeting this week.';
    const { title, phrases } = await titleOf(text);
    expect(title).to.equal('Rent relief');
    for (const p of ranked(phrases)) expect(p).not.to.match(/minister|member|per cent|week|meeting|canadians|chair/);
  });

  it('keeps a hyphenated word whole', async function () {
    const text =
      'Front-line health care workers need protective equipment. We thank front-line health care workers every day. ' +
      'The protective equipment for front-line health care workers is late.';
    const { title, phrases } = await titleOf(text);
    expect(title).to.equal('Front-line health care workers');
    for (const p of ranked(phrases)) expect(p).not.to.match(/^(line|care|health care workers|front-line health care$)/);
    const owners = await titleOf('Law-abiding firearms owners feel targeted. The ban punishes law-abiding firearms owners. We met law-abiding firearms owners.');
    expect(owners.title).to.equal('Law-abiding firearms owners');
  });

  it('never cuts a recurring name: the whole name when it fits, else none of it', async function () {
    const long =
      'The Large Employer Emergency Financing Facility opened in May. Few firms use the Large Employer Emergency ' +
      'Financing Facility. Airlines asked about the Large Employer Emergency Financing Facility and the wage subsidy. ' +
      'The wage subsidy helps them.';
    const { title, phrases } = await titleOf(long);
    expect(title).to.equal('Wage subsidy');
    for (const p of ranked(phrases)) expect('large employer emergency financing facility').not.to.include(p);
    const short =
      'Students lost the Canada Emergency Response Benefit in June. The Canada Emergency Response Benefit ends for ' +
      'students. Will the Canada Emergency Response Benefit come back?';
    expect((await titleOf(short)).title).to.equal('Canada Emergency Response Benefit');
  });

  it('never starts a phrase with a verb nor ends it with one', async function () {
    const jane = await titleOf('Ask Jane about the transcription status. We should ask Jane, she knows the transcription status. Transcription status first, then ask Jane.');
    expect(jane.title).to.equal('Transcription status');
    const text =
      'We asked whether the banks will impose conditions on executive compensation. The government must impose ' +
      'conditions before it lends. They impose conditions on workers, but executive compensation goes on. Landlords ' +
      'refuse to apply. Landlords refuse the program because executive compensation is not capped.';
    const { title, phrases } = await titleOf(text);
    expect(title).to.equal('Executive compensation');
    expect(ranked(phrases)).not.to.include.members(['impose conditions', 'landlords refuse']);
    // A verb of the list after a determiner is a noun: "the report".
    const report = await titleOf('The annual report is late. We read the annual report twice. Nobody liked the annual report.');
    expect(report.title).to.equal('Annual report');
  });

  it('writes a capitalised word as the chapter writes it inside sentences, and keeps names as written', async function () {
    const text =
      'Solar charging works indoors. Artificial light is enough for solar charging. Artificial light, she said, and an ' +
      'artificial lamp too. The Canada Revenue Agency checked it. So did the Canada Revenue Agency.';
    const surfaces = candidatePhrases(text, 'en').map((c) => c.surface);
    expect(surfaces).to.include('artificial light');
    expect(surfaces).not.to.include('Artificial light');
    expect(surfaces).to.include('Canada Revenue Agency');
    expect(surfaces).not.to.include('Revenue Agency');
  });
});

describe('composing a title', function () {
  const p = (surface: string, more: Partial<RankedPhrase> = {}): RankedPhrase => ({
    key: surface.toLowerCase(),
    surface,
    words: surface.split(' ').length,
    score: 1,
    ...more,
  });

  it('joins two phrases with "and" only when a sentence says both or the embedder puts them close', function () {
    expect(composeTitle([p('scroll wheel', { sentences: [1, 4] }), p('push buttons', { sentences: [4, 9] })])).to.equal('Scroll wheel and push buttons');
    expect(composeTitle([p('higher education', { sentences: [1, 4] }), p('per capita funding', { sentences: [7] })])).to.equal('Higher education');
    const near = [0.9, 0.1, 0.1];
    const far = [0, 1, 0];
    expect(composeTitle([p('speech recognition', { sentences: [1], vector: near }), p('acoustic models', { sentences: [5], vector: [0.8, 0.2, 0.1] })])).to.equal(
      'Speech recognition and acoustic models',
    );
    expect(composeTitle([p('speech recognition', { sentences: [1], vector: near }), p('disk space', { sentences: [5], vector: far })])).to.equal('Speech recognition');
  });

  it('joins neither a single lower-case word nor a pair over 40 characters, and falls back when there is no phrase', function () {
    expect(composeTitle([p('embedded training', { sentences: [2] }), p('system', { sentences: [2] })])).to.equal('Embedded training');
    expect(composeTitle([p('embedded training', { sentences: [2] }), p('HTK', { sentences: [2] })])).to.equal('Embedded training and HTK');
    const long = composeTitle([p('large employer financing', { sentences: [2] }), p('emergency wage subsidy', { sentences: [2] })]);
    expect(long).to.equal('Large employer financing');
    expect(composeTitle([p('remote control'), p('remote', { key: 'remote' })])).to.equal('Remote control');
    expect(composeTitle([], { fallback: 'Part 2' })).to.equal('Part 2');
    expect(fitTitle('A language model wrote this title, which runs on and on')).to.equal('A language model wrote this title, which');
    expect(fitTitle('A language model wrote this title, which runs on and on').length).to.be.at.most(MAX_TITLE_CHARS);
  });
});
