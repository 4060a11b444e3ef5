import { expect } from 'chai';
import { alignWords, endsSentence, sentenceSegments } from '../../pipeline/transcribe/sentences.js';
import type { TimedSegment, TimedWord } from '../../pipeline/transcribe/types.js';

/** Words of `text` spoken from `startMs`, each `wordMs` long with `gapMs` between; `bare`: without punctuation, as OpenAI's words come. */
function spoken(text: string, startMs: number, { wordMs = 300, gapMs = 100, bare = false } = {}): TimedWord[] {
  let at = startMs;
  return text.split(/\s+/).map((t) => {
    const w = { t: bare ? t.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}']+$/gu, '') : t, s: at, e: at + wordMs };
    at += wordMs + gapMs;
    return w;
  });
}

/** A Whisper segment as the cleaning leaves it: its text, its words, spanning them. */
function segment(text: string, words: TimedWord[]): TimedSegment {
  return { startMs: words[0]!.s, endMs: words.at(-1)!.e, text, words };
}

/** Segments one after another, each starting `gapMs` after the previous one's last word. */
function whisper(texts: string[], options: { bare?: boolean; gapMs?: number } = {}): TimedSegment[] {
  let at = 0;
  return texts.map((text) => {
    const words = spoken(text, at, options);
    at = words.at(-1)!.e + (options.gapMs ?? 100);
    return segment(text, words);
  });
}

const texts = (segments: TimedSegment[]) => segments.map((s) => s.text);

describe('re-cutting transcribed segments into sentences', function () {
  // A real two-person call as Whisper segmented it (issue 42): each segment ends inside the next speaker's sentence.
  const call = [
    'Where are you from? I am originally from Chicago. Oh',
    "I'm originally from Chicago also. That is a nice city. Well there is not much difference. At",
    'least you know the winters.',
  ];
  const sentences = [
    'Where are you from?',
    'I am originally from Chicago.',
    "Oh I'm originally from Chicago also.",
    'That is a nice city.',
    'Well there is not much difference.',
    'At least you know the winters.',
  ];

  it('cuts the call at its sentence ends, whatever segments Whisper made (words with punctuation, as faster-whisper gives them)', function () {
    expect(texts(sentenceSegments(whisper(call)))).to.deep.equal(sentences);
  });

  it('finds the sentence ends in the segment text when the words carry no punctuation (OpenAI)', function () {
    const out = sentenceSegments(whisper(call, { bare: true }));
    expect(texts(out)).to.deep.equal(sentences);
    expect(out[2]!.words.map((w) => w.t)).to.deep.equal(['Oh', "I'm", 'originally', 'from', 'Chicago', 'also']);
  });

  it('gives each sentence the times of its first and last words and keeps every word, in order, once', function () {
    const input = whisper(call);
    const out = sentenceSegments(input);
    for (const s of out) {
      expect(s.startMs).to.equal(s.words[0]!.s);
      expect(s.endMs).to.equal(s.words.at(-1)!.e);
    }
    expect(out.flatMap((s) => s.words)).to.deep.equal(input.flatMap((s) => s.words));
    const oh = out[2]!;
    expect(oh.startMs).to.equal(input[0]!.words.at(-1)!.s); // the sentence starts at "Oh", the last word of Whisper's first segment
  });

  it('does not cut after titles, Latin abbreviations, initials or a dotted abbreviation the sentence goes on after', function () {
    const input = whisper(['We asked Dr. Smith about it. She said e.g. the U.S. economy grew by 3.5 million jobs. J. R. Tolkien wrote it. Mr. Jones agreed.']);
    expect(texts(sentenceSegments(input))).to.deep.equal([
      'We asked Dr. Smith about it.',
      'She said e.g. the U.S. economy grew by 3.5 million jobs.',
      'J. R. Tolkien wrote it.',
      'Mr. Jones agreed.',
    ]);
  });

  it('ends a sentence at a dotted abbreviation followed by a pause and a capital', function () {
    const first = spoken('She moved to the U.S.', 0);
    const second = spoken('Then she stayed.', first.at(-1)!.e + 800);
    expect(texts(sentenceSegments([segment('She moved to the U.S. Then she stayed.', [...first, ...second])]))).to.deep.equal(['She moved to the U.S.', 'Then she stayed.']);
  });

  it('cuts at a pause of 1.5 s or more even without punctuation, and not at a shorter one', function () {
    const a = spoken('so we went home', 0, { bare: true });
    const b = spoken('and then it rained', a.at(-1)!.e + 1500, { bare: true });
    const c = spoken('all night long', b.at(-1)!.e + 1400, { bare: true });
    const out = sentenceSegments([segment('so we went home and then it rained all night long', [...a, ...b, ...c])]);
    expect(texts(out)).to.deep.equal(['so we went home', 'and then it rained all night long']);
  });

  it('cuts a 45 s run-on sentence into pieces of at most 30 s: at its longest pause, else at a comma, else at the limit', function () {
    // 113 words, 400 ms apart: 45 s, no full stop, one pause of 700 ms after the 80th word.
    const words = spoken(Array.from({ length: 113 }, (_, i) => `w${i}`).join(' '), 0);
    for (const w of words.slice(80)) {
      w.s += 600;
      w.e += 600;
    }
    const text = words.map((w) => w.t).join(' ');
    const atPause = sentenceSegments([segment(text, words)]);
    // Cut at the pause: 80 words (31.9 s, still too long, no comma: cut evenly at the limit) and 33.
    expect(atPause.map((s) => s.words.length)).to.deep.equal([40, 40, 33]);
    expect(atPause[1]!.words.at(-1)!.t).to.equal('w79');
    for (const s of atPause) expect(s.endMs - s.startMs).to.be.at.most(30_000);

    const even = spoken(Array.from({ length: 113 }, (_, i) => (i === 60 ? `w${i},` : `w${i}`)).join(' '), 0);
    const byComma = sentenceSegments([segment(even.map((w) => w.t).join(' '), even)]);
    expect(byComma[0]!.text.endsWith('w60,')).to.equal(true);
    expect(byComma.map((s) => s.words.length)).to.deep.equal([61, 52]);

    const plain = spoken(Array.from({ length: 113 }, (_, i) => `w${i}`).join(' '), 0);
    const atLimit = sentenceSegments([segment(plain.map((w) => w.t).join(' '), plain)]);
    expect(atLimit.map((s) => s.words.length)).to.deep.equal([56, 57]);
    for (const s of [...byComma, ...atLimit]) expect(s.endMs - s.startMs).to.be.at.most(30_000);
  });

  it('keeps segments without words as the service timed them, and cuts only the worded stretches around them', function () {
    const worded = whisper(['One two. Three', 'four.']);
    const bare: TimedSegment = { startMs: 9000, endMs: 12_000, text: 'Timed but not worded.', words: [] };
    const out = sentenceSegments([...worded, bare]);
    expect(texts(out)).to.deep.equal(['One two.', 'Three four.', 'Timed but not worded.']);
    expect(out[2]).to.deep.equal(bare);
    expect(sentenceSegments([])).to.deep.equal([]);
  });

  it('joins the words as the text spaced them: quotes, dashes and unspaced scripts kept', function () {
    const words: TimedWord[] = [
      { t: 'He', s: 0, e: 100 },
      { t: 'said', s: 100, e: 200 },
      { t: 'hi', s: 200, e: 300 },
      { t: 'then', s: 300, e: 400 },
      { t: 'left', s: 400, e: 500 },
    ];
    expect(texts(sentenceSegments([segment('He said "hi" — then left.', words)]))).to.deep.equal(['He said "hi" — then left.']);
    const cjk: TimedWord[] = [
      { t: '你好', s: 0, e: 300 },
      { t: '世界', s: 300, e: 600 },
      { t: '再见', s: 700, e: 900 },
    ];
    expect(texts(sentenceSegments([segment('你好世界。再见。', cjk)]))).to.deep.equal(['你好世界。', '再见。']);
  });

  it('keeps a word it cannot find in the text under its own spelling, and finds the words after it', function () {
    const tokens = alignWords('We sold 3.5 million copies.', spoken('We sold three point five million copies', 0, { bare: true }));
    expect(tokens.map((t) => t.text)).to.deep.equal(['We', 'sold', 'three', 'point', 'five', 'million', 'copies.']);
    expect(endsSentence(tokens.at(-1)!, undefined)).to.equal(true);
  });

  it("finds a word's punctuation in the neighbouring segment's text when the cleaning gave the word to the other segment", function () {
    const words = spoken('It rained. Then', 0, { bare: true });
    // "rained" sits in the second segment's words, its text (with the full stop) in the first's.
    const out = sentenceSegments([segment('It rained.', words.slice(0, 1)), segment('Then', words.slice(1))]);
    expect(texts(out)).to.deep.equal(['It rained.', 'Then']);
  });

  it('re-cuts a three-hour episode in linear time, words the text spells otherwise included', function () {
    const sentence = 'We sold 3.5 million copies of the book, and then we stopped.';
    const bareWords = 'We sold three point five million copies of the book and then we stopped'.split(' ');
    const segments: TimedSegment[] = [];
    let at = 0;
    for (let i = 0; i < 2500; i++) {
      const words = bareWords.map((t, k) => ({ t, s: at + k * 300, e: at + k * 300 + 250 }));
      at += bareWords.length * 300 + 200;
      segments.push(segment(sentence, words));
    }
    const started = performance.now();
    const out = sentenceSegments(segments);
    expect(performance.now() - started).to.be.below(3000);
    expect(out).to.have.length(2500);
    expect(out[1234]!.text).to.equal('We sold three point five million copies of the book, and then we stopped.');
  });

  it('is deterministic and leaves its input unchanged', function () {
    const input = whisper(call);
    const copy = structuredClone(input);
    expect(sentenceSegments(input)).to.deep.equal(sentenceSegments(copy));
    expect(input).to.deep.equal(copy);
  });
});
