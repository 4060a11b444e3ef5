// Each format the importer reads, with its quirks: WebVTT, SRT, YouTube's rolling captions, whisper, WhisperX,
// whisper.cpp, Podcast Index JSON, JSON chapters, description chapters, soundbites, and files that lie about their type.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseCaptions } from '../../importer/captions.js';
import { addSoundbites, descriptionChapters, jsonChapters } from '../../importer/chapters.js';
import { detectKind, parseChaptersText, parseTranscriptText } from '../../importer/sources.js';
import { parseJsonTranscript } from '../../importer/stt-json.js';
import { ImportProblem, slugify, spreadWords } from '../../importer/text.js';

const DATA = join(process.cwd(), 'test', 'data', 'import');
const read = (...parts: string[]) => readFileSync(join(DATA, ...parts), 'utf8');
const json = (...parts: string[]) => JSON.parse(read(...parts)) as unknown;

describe('import: captions', function () {
  it('reads WebVTT past its NOTE and STYLE blocks: voices as speakers, cue settings ignored, hours omitted, entities decoded (WebVTT and HTML ones), words spread and marked interpolated', async function () {
    const t = await parseCaptions(read('feed', 'ep2.vtt'), 'vtt', 'ep2.vtt');
    expect(t.timing).to.equal('interpolated');
    expect(t.segments.map((s) => [s.speaker, s.startMs, s.endMs, s.text])).to.deep.equal([
      ['Ana Host', 1000, 4000, 'Water early & deep, not little and often.'],
      ['Bo Guest', 5000, 9500, 'Mulch keeps <most> of it in the soil. Straw works best in hot weather.'],
      [null, 60_000, 65_000, 'Then the roots go down, café — fine.'],
    ]);
    const words = t.segments[0]!.words!;
    expect(words.map((w) => w.t).join(' ')).to.equal('Water early & deep, not little and often.');
    expect(words[0]!.s).to.equal(1000);
    expect(words.at(-1)!.e).to.equal(4000);
    expect(words.every((w, i) => i === 0 || w.s >= words[i - 1]!.s)).to.equal(true);
  });

  it('reads SRT with a BOM, CRLF, comma decimals, extra blank lines, a missing number, one-digit hours and Name: prefixes', async function () {
    const t = await parseCaptions(read('files', 'quirks.srt'), 'srt', 'quirks.srt');
    expect(t.segments.map((s) => [s.speaker, s.startMs, s.endMs, s.text])).to.deep.equal([
      ['Ana Host', 1000, 3500, 'First line, second line.'],
      [null, 4000, 6000, 'No number above & bold text.'],
      ['Dr. Bo Guest', 7250, 9000, 'One-digit hours.'],
    ]);
  });

  it("keeps each phrase of YouTube's rolling auto-captions once, with the inline word times", async function () {
    const t = await parseCaptions(read('files', 'youtube-auto.en.vtt'), 'vtt', 'yt.vtt');
    expect(t.format).to.equal('youtube-vtt');
    expect(t.timing).to.equal('source');
    expect(t.segments.map((s) => s.text)).to.deep.equal(['soil is alive', 'and fungi help', 'the roots']);
    expect(t.segments[1]!.words).to.deep.equal([
      { t: 'and', s: 2320, e: 2800 },
      { t: 'fungi', s: 2800, e: 3400 },
      { t: 'help', s: 3400, e: 5000 },
    ]);
  });

  it('names the file and the line of a file that is not captions', async function () {
    const err = await parseCaptions('WEBVTTX\n\nnonsense', 'vtt', 'bad.vtt').catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ImportProblem);
    expect((err as Error).message).to.match(/^bad\.vtt: /);
    const empty = await parseCaptions('1\nnot a time\nhello\n', 'srt', 'empty.srt').catch((e: unknown) => e);
    expect((empty as Error).message).to.equal('empty.srt: no cues: not a SRT file');
  });
});

describe('import: speech-to-text JSON, told by its shape', function () {
  it('openai-whisper: words with their own times, leading spaces trimmed', function () {
    const t = parseJsonTranscript(json('files', 'whisper.json'))!;
    expect([t.format, t.timing]).to.deep.equal(['whisper', 'source']);
    expect(t.segments[1]!.words).to.deep.equal([
      { t: 'General', s: 2100, e: 2800 },
      { t: 'soil.', s: 2900, e: 3600 },
    ]);
  });

  it('WhisperX: the speaker, and an untimed number word spread between its neighbours, that segment marked', function () {
    const t = parseJsonTranscript(json('files', 'whisperx.json'))!;
    expect([t.format, t.timing]).to.deep.equal(['whisperx', 'source']);
    const seg = t.segments[0]!;
    expect(seg.speaker).to.equal('SPEAKER_01');
    expect(seg.interpolated).to.equal(true);
    expect(seg.words!.map((w) => [w.t, w.s, w.e])).to.deep.equal([
      ['We', 10_000, 10_300],
      ['planted', 10_400, 10_900],
      ['2024', 10_900, 12_000],
      ['seeds', 12_000, 12_500],
      ['today.', 12_600, 13_200],
    ]);
  });

  it('whisper.cpp -oj: offsets in ms, words spread', function () {
    const t = parseJsonTranscript(json('files', 'whispercpp.json'))!;
    expect([t.format, t.timing]).to.deep.equal(['whisper.cpp', 'interpolated']);
    expect(t.segments.map((s) => [s.startMs, s.endMs, s.text])).to.deep.equal([
      [0, 3000, 'Compost is patience.'],
      [3000, 5500, 'Turn it weekly.'],
    ]);
  });

  it('Podcast Index JSON of one word a segment: merged into sentences per speaker, each word keeping its time', function () {
    const t = parseJsonTranscript(json('feed', 'ep1.json'))!;
    expect([t.format, t.timing]).to.deep.equal(['podcast-index', 'source']);
    expect(t.segments.map((s) => [s.speaker, s.startMs, s.text])).to.deep.equal([
      ['Ana Host', 500, 'Soil is alive.'],
      ['Bo Guest', 30_000, 'Fungi trade sugar for minerals with roots.'],
    ]);
    expect(t.segments[1]!.words![2]).to.deep.equal({ t: 'sugar', s: 31_200, e: 31_600 });
  });

  it('tells a file by its content whatever its name: SRT behind .vtt, chapters where a transcript was expected, damaged JSON with its line', async function () {
    expect(detectKind(read('feed', 'ep3.vtt'))).to.equal('srt');
    expect((await parseTranscriptText(read('feed', 'ep3.vtt'), 'ep3.vtt')).segments[0]).to.deep.include({ speaker: 'Host', startMs: 2000 });
    const chapters = await parseTranscriptText(read('feed', 'ep1.chapters.json'), 'ep1.chapters.json').catch((e: unknown) => e);
    expect((chapters as Error).message).to.equal('ep1.chapters.json: a chapters file where a transcript was expected');
    const damaged = await parseTranscriptText(read('feed', 'damaged.json'), 'damaged.json').catch((e: unknown) => e);
    expect((damaged as Error).message).to.match(/^damaged\.json: line 2: not valid JSON/);
    const html = await parseTranscriptText('<html><body><p>hi</p></body></html>', 'x.html').catch((e: unknown) => e);
    expect((html as Error).message).to.equal('x.html: an HTML transcript without <time> has no timings: not imported');
    const plain = await parseTranscriptText('Ana: hello there', 'x.txt').catch((e: unknown) => e);
    expect((plain as Error).message).to.equal('x.txt: a plain-text transcript has no timings: not imported');
  });
});

describe('import: Podcasting 2.0 HTML transcripts', function () {
  it('reads cite, time and p: speakers without their colon, entities decoded, tags and line breaks gone, each monologue until the next time, the last until the episode end', async function () {
    const t = await parseTranscriptText(read('files', 'transcript.html'), 'transcript.html', 3_610_000);
    expect([t.format, t.timing]).to.deep.equal(['html', 'interpolated']);
    expect(t.segments.map((s) => [s.speaker, s.startMs, s.endMs, s.text])).to.deep.equal([
      ['Kevin', 0, 5_530, 'Welcome back. Today we talk about compost & worms.'],
      ['Kevin', 5_530, 9_000, 'It takes a winter to get going.'],
      ['Alban', 9_000, 3_605_000, 'Worms don’t mind the cold café grounds.'],
      ['Kevin', 3_605_000, 3_610_000, "That's all for today."],
    ]);
    expect(t.segments.every((s) => s.interpolated && s.words!.length === s.text.split(' ').length)).to.equal(true);
    expect(t.segments[1]!.words!.at(-1)!.e, 'the untimed paragraph shares the monologue up to the next time').to.equal(9_000);
  });

  it('starts paragraphs before the first time at 0, gives the last a spoken length when the episode has none, and accepts datetime attributes', async function () {
    const html = '<p>Before any time.</p><time datetime="PT5S"></time><p>Five seconds in, four words.</p>';
    const t = await parseTranscriptText(html, 'x.html');
    expect(t.segments.map((s) => [s.speaker, s.startMs, s.endMs])).to.deep.equal([
      [null, 0, 5_000],
      [null, 5_000, 7_000],
    ]);
  });

  it('names the file and the line of a time that is not one, or that goes back', async function () {
    const bad = await parseTranscriptText('<cite>A:</cite>\n<time>soon</time>\n<p>x</p>', 'a.html').catch((e: unknown) => e);
    expect((bad as Error).message).to.equal('a.html: line 2: <time>soon</time> is not a time (h:mm:ss or m:ss)');
    const back = await parseTranscriptText('<time>0:10</time><p>x</p>\n<time>0:05</time><p>y</p>', 'b.html').catch((e: unknown) => e);
    expect((back as Error).message).to.equal('b.html: line 2: <time>0:05</time> goes back before the time above it');
    const empty = await parseTranscriptText('<div>no paragraphs</div>', 'c.html').catch((e: unknown) => e);
    expect((empty as Error).message).to.equal('c.html: no <p> paragraphs: not an HTML transcript');
  });
});

describe('import: chapters and moments', function () {
  it('JSON chapters: toc:false kept out, each ending where the next starts, the last at the episode end, an explicit endTime kept', function () {
    expect(jsonChapters(parseChaptersText(read('feed', 'ep1.chapters.json'), 'c.json'), 70_000).map((c) => [c.title, c.startMs, c.endMs])).to.deep.equal([
      ['Welcome', 0, 25_000],
      ['Fungi', 25_000, 70_000],
    ]);
    expect(jsonChapters(parseChaptersText(read('feed', 'ep2-chapters.json'), 'c.json'), 95_000).map((c) => [c.title, c.startMs, c.endMs])).to.deep.equal([
      ['Watering', 0, 60_000],
      ['Roots', 60_000, 90_000],
    ]);
  });

  it("description timestamps become chapters by YouTube's rules, and a broken rule is a warning, not chapters", function () {
    expect(descriptionChapters('Intro text\n0:00 Start\n0:30 - Depth\n1:10 Spacing', 120_000).chapters.map((c) => [c.title, c.startMs, c.endMs])).to.deep.equal([
      ['Start', 0, 30_000],
      ['Depth', 30_000, 70_000],
      ['Spacing', 70_000, 120_000],
    ]);
    expect(descriptionChapters('0:05 A\n0:20 B\n0:40 C', 60_000)).to.deep.equal({
      chapters: [],
      warning: 'description timestamps are not chapters: the first timestamp is not 0:00',
    });
    expect(descriptionChapters('0:00 A\n0:30 B', 60_000).warning).to.match(/only 2 timestamps/);
    expect(descriptionChapters('0:00 A\n0:05 B\n0:40 C', 60_000).warning).to.match(/shorter than 10 s/);
    expect(descriptionChapters('0:00 A\n0:40 B\n0:20 C', 60_000).warning).to.match(/not ascending/);
    expect(descriptionChapters('No timestamps here at all.', 60_000)).to.deep.equal({ chapters: [] });
  });

  it('a soundbite becomes a quote moment of its chapter, titled by its text or by what is said then; without a chapter it is left out', function () {
    const chapters = [{ title: 'All', startMs: 0, endMs: 60_000, moments: [] }];
    const segments = [{ speaker: null, startMs: 40_000, endMs: 45_000, text: 'Roots follow water.' }];
    const { dropped } = addSoundbites(
      chapters,
      [
        { startTime: 41, duration: 3 },
        { startTime: 10, duration: 2, display: 'Quoted' },
        { startTime: 90, duration: 1, display: 'After the end' },
      ],
      segments,
    );
    expect(dropped).to.equal(1);
    expect(chapters[0]!.moments).to.deep.equal([
      { type: 'quote', title: 'Quoted', startMs: 10_000, endMs: 12_000 },
      { type: 'quote', title: 'Roots follow water.', startMs: 41_000, endMs: 44_000 },
    ]);
  });
});

describe('import: text helpers', function () {
  it('spreads words over a cue by length and derives slugs', function () {
    expect(spreadWords('a bbb', 0, 600)).to.deep.equal([
      { t: 'a', s: 0, e: 200 },
      { t: 'bbb', s: 200, e: 600 },
    ]);
    expect([slugify('Rosé Garden TV!'), slugify('   '), slugify('x'.repeat(80)).length]).to.deep.equal(['rose-garden-tv', 'channel', 63]);
  });
});
