// The channel pages' pure parts: Markdown twins, negotiation by Accept, escaping of hostile text, JSON-LD, players and moments.
import { expect } from 'chai';
import express, { type Request } from 'express';
import { episodeMarkdown, inlineText, llmsTxt, notFoundMarkdown } from '../../src/pages/markdown.js';
import { wantsMarkdown } from '../../src/pages/negotiate.js';
import { episodeStructuredData, scriptSafeJson } from '../../src/pages/jsonld.js';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { renderEpisodePage, currentSegmentIndex, momentHref, segmentHtml, transcriptWindow, TRANSCRIPT_WINDOW } from '../../src/pages/html/episode.js';
import { queryOf } from '../../src/pages/router.js';
import { requestHost } from '../../src/http/host.js';
import { EPISODE_LIMITS } from '../../core/contract/library-format.js';
import { largestPage as largestEpisodePage } from '../../scripts/bench/largest-page.js';
import { isoDuration, mediaFragmentUrl, playerFor, safeHttpUrl, youtubeEmbedUrl } from '../../src/pages/media.js';
import { clock } from '../../core/ground/clock.js';
import type { EpisodePage, LibraryPage, PageChannel, TranscriptSegment } from '../../src/pages/load.js';
import type { EpisodeDoc } from '../../core/store/documents.js';

const channel: PageChannel = {
  doc: { id: 'ch', slug: 'show', title: 'The Show', providerType: 'rss', ownerId: 'u', memberIds: [], customDomain: null } as unknown as PageChannel['doc'],
  origin: 'https://show.example.com',
};

function episode(overrides: Partial<EpisodeDoc> = {}): EpisodeDoc {
  return {
    id: 'ep1',
    channelId: 'ch',
    title: 'Soil and water',
    description: 'All about soil.',
    summary: 'We talk soil.',
    link: 'https://show.example.com/notes/1',
    thumbnail: null,
    mediaUrl: 'https://cdn.example.net/ep1.mp3',
    durationMs: 3_725_000,
    publishedAt: '2024-03-01T10:00:00Z',
    year: 2024,
    viewCount: null,
    status: 'published',
    archived: false,
    error: null,
    topicIds: [],
    personIds: [],
    entityIds: [],
    collectionIds: [],
    chapterTitles: [],
    momentTitles: [],
    hasTranscript: true,
    sourceHash: 'x',
    indexedAt: '2024-03-02T00:00:00Z',
    ...overrides,
  };
}

function page(
  overrides: Partial<EpisodeDoc> = {},
  segments = [
    { speaker: 'Ana', startMs: 0, endMs: 5000, text: 'Hello and welcome.' },
    { speaker: null, startMs: 5000, endMs: 65_000, text: 'Soil holds water.' },
  ],
): EpisodePage {
  return {
    channel,
    episode: episode(overrides),
    url: 'https://show.example.com/episodes/ep1',
    people: [{ name: 'Ana Host', generated: false }],
    topics: [{ name: 'Gardening', generated: false }],
    chapters: [{ title: 'Intro', startMs: 0, endMs: 5000, moments: [{ type: 'quote', title: 'Welcome', startMs: 1000, endMs: 2000 }] }],
    segments,
    related: [],
  } as EpisodePage;
}

const HOSTILE = '<script>alert(1)</script> [x](javascript:alert(2)) </title> # not a heading \u2028';

describe('pages: Markdown twins', function () {
  it('writes headings, chapters with typed moments and transcript lines as [m:ss](page?t=ms) links with speakers', function () {
    const md = episodeMarkdown(page());
    expect(md).to.match(/^# Soil and water\n/);
    expect(md).to.include('## Chapters\n\n- [0:00](https://show.example.com/episodes/ep1?t=0) Intro\n  - [0:01](https://show.example.com/episodes/ep1?t=1000) quote: Welcome');
    expect(md).to.include('[0:00](https://show.example.com/episodes/ep1?t=0) **Ana:** Hello and welcome.');
    expect(md).to.include('[0:05](https://show.example.com/episodes/ep1?t=5000) Soil holds water.');
    expect(md).to.include('**People:** Ana Host');
    expect(md).to.include('Published 2024-03-01 · 1:02:05');
  });

  it('says which chapters and moments were generated: one note when all were, a tag on each when only some (decision 27)', function () {
    const made = { title: 'Made from the words', startMs: 5000, endMs: 65_000, generated: true, moments: [{ type: 'qa', title: 'A claim.', startMs: 6000, generated: true }] };
    const mixed = episodeMarkdown({ ...page(), chapters: [...page().chapters, made] });
    expect(mixed).to.include(
      '## Chapters\n\n_Chapters tagged (generated) were made from the transcript, not by the creator._\n\n- [0:00](https://show.example.com/episodes/ep1?t=0) Intro\n',
    );
    expect(mixed).to.include(
      '- [0:05](https://show.example.com/episodes/ep1?t=5000) Made from the words (generated)\n  - [0:06](https://show.example.com/episodes/ep1?t=6000) qa: A claim. (generated)\n',
    );
    const second = { ...made, title: 'Made again', startMs: 65_000, endMs: 90_000, moments: [] };
    const all = episodeMarkdown({ ...page(), chapters: [made, second] });
    expect(all).to.include('## Chapters\n\n_Generated from the transcript, not by the creator._\n\n- [0:05](https://show.example.com/episodes/ep1?t=5000) Made from the words\n');
    // A lone generated chapter only restates the episode: its moments, without a table of contents, on the twin and the page.
    const lone = episodeMarkdown({ ...page(), chapters: [made] });
    expect(lone).to.not.include('## Chapters');
    expect(lone).to.include('## Key moments\n\n_Generated from the transcript, not by the creator._\n\n- [0:06](https://show.example.com/episodes/ep1?t=6000) qa: A claim.\n');
    const loneHtml = renderEpisodePage({ ...page(), chapters: [made] }, undefined);
    expect(loneHtml).to.include('<h2 id="moments-h">Key moments</h2>').and.not.include('Made from the words').and.not.include('id="chapters-h"');
    expect(loneHtml).to.match(/<span class="moment-type">qa<\/span> <a [^>]*><span class="time">0:06<\/span> A claim\.<\/a>/);
    const html = renderEpisodePage({ ...page(), chapters: [...page().chapters, made] }, undefined);
    expect(html).to.include('<p class="generated-note">Chapters tagged generated were made from the transcript, not by the creator.</p>');
    expect(html).to.match(/Made from the words<\/a> <span class="generated"/);
    expect(html).to.not.match(/Intro<\/a> <span class="generated"/);
  });

  it('escapes library text: no link, heading or HTML can be injected through a title or a transcript line', function () {
    const md = episodeMarkdown(page({ title: HOSTILE }, [{ speaker: '[s](javascript:x)', startMs: 0, endMs: 1000, text: HOSTILE }]));
    expect(md).to.not.include('](javascript:');
    expect(md).to.not.match(/^# not a heading/m);
    expect(md, 'angle brackets are escaped').to.not.match(/(^|[^\\])<script>/);
    expect(md.split('\n').filter((l) => l.startsWith('#'))).to.deep.equal([md.split('\n')[0], '## Chapters', '## Transcript']);
  });

  it('gives a missing page a Markdown 404 with a way back, and llms.txt its H1, blockquote and sections', function () {
    expect(notFoundMarkdown(channel)).to.equal('# Not found\n\nThere is no published episode or page at this address.\n\n[All episodes](https://show.example.com/index.md)\n');
    const library: LibraryPage = { channel, episodes: [{ episode: episode(), url: 'https://show.example.com/episodes/ep1' }], next: 'abc' };
    const txt = llmsTxt(channel, library, { publicBaseUrl: 'https://api.example.com', mcp: true });
    expect(txt).to.match(/^# The Show\n\n> Published episodes of The Show/);
    expect(txt).to.include('## Episodes\n\n- [Soil and water](https://show.example.com/episodes/ep1.md): 2024-03-01, 1:02:05');
    expect(txt).to.include('[All episodes](https://show.example.com/index.md)');
    expect(txt).to.include('[OpenAPI document](https://api.example.com/api/v1/openapi.json)');
    expect(txt).to.include('[MCP tool server](https://show.example.com/mcp)');
    expect(llmsTxt(channel, library, { publicBaseUrl: 'https://api.example.com', mcp: false }), 'no tool server, no link').to.not.include('/mcp');
  });
});

describe('pages: negotiation', function () {
  const ask = (accept: string | undefined) => {
    const headers: Record<string, string> = accept === undefined ? {} : { accept };
    // A minimal request: Express's own accepts() over a headers object.
    const req = Object.create(express.request, { headers: { value: headers } }) as Request;
    return wantsMarkdown(req);
  };

  it('serves HTML without Accept and for */*, the first listed on a tie, Markdown when it has the higher q; neither for an unrelated type', function () {
    expect(ask(undefined)).to.equal(false);
    expect(ask('*/*')).to.equal(false);
    expect(ask('text/markdown')).to.equal(true);
    expect(ask('text/markdown, text/html'), 'equal q: the order the client listed').to.equal(true);
    expect(ask('text/html, text/markdown')).to.equal(false);
    expect(ask('text/html;q=0.5, text/markdown')).to.equal(true);
    expect(ask('text/markdown;q=0.2, text/*;q=0.9')).to.equal(false);
    expect(ask('text/*')).to.equal(false);
    expect(ask('application/json')).to.equal(undefined);
  });
});

describe('pages: the episode HTML', function () {
  it('escapes hostile titles, text and speakers, and turns no non-http URL into a link or a source', function () {
    const html = renderEpisodePage(
      page({ title: HOSTILE, summary: HOSTILE, mediaUrl: 'javascript:alert(3)', link: 'data:text/html,x' }, [{ speaker: '<b>x</b>', startMs: 0, endMs: 1000, text: HOSTILE }]),
      500,
    );
    expect(html).to.not.include('<script>alert');
    expect(html).to.not.include('<b>x</b>');
    expect(html).to.not.match(/(href|src)="(javascript|data):/);
    expect(html).to.include('&lt;script>alert(1)&lt;/script>');
    expect(html).to.not.match(/<audio|<video|<iframe/);
  });

  it('marks the segment holding t current and gives every segment its range and moment link', function () {
    const html = renderEpisodePage(page(), 30_000);
    expect(html).to.match(/<li id="t-5000" class="segment current" data-start-ms="5000" data-end-ms="65000" aria-current="time">/);
    expect(html).to.match(/<li id="t-0" class="segment" data-start-ms="0" data-end-ms="5000">/);
    expect(html).to.include('href="?t=5000#t-5000"');
    expect(html).to.include('src="https://cdn.example.net/ep1.mp3#t=30"');
  });

  it('picks the current segment: the one holding t, else the last begun before t, else the first', function () {
    const segs = [
      { speaker: null, startMs: 1000, endMs: 2000, text: 'a' },
      { speaker: null, startMs: 5000, endMs: 6000, text: 'b' },
    ];
    expect([0, 1500, 3000, 5500, 99_000].map((t) => currentSegmentIndex(segs, t))).to.deep.equal([0, 0, 0, 1, 1]);
    expect(currentSegmentIndex(segs, undefined)).to.equal(-1);
    expect(currentSegmentIndex([], 10)).to.equal(-1);
  });
});

describe('pages: JSON-LD', function () {
  it('is a PodcastEpisode for audio with chapters and moments as Clip parts (seconds, url with t)', function () {
    const data = episodeStructuredData(page()) as { '@type': string; duration: string; hasPart: Record<string, unknown>[]; partOfSeries: { name: string } };
    expect(data['@type']).to.equal('PodcastEpisode');
    expect(data.duration).to.equal('PT1H2M5S');
    expect(data.partOfSeries.name).to.equal('The Show');
    expect(data.hasPart).to.deep.equal([
      { '@type': 'Clip', name: 'Intro', startOffset: 0, endOffset: 5, url: 'https://show.example.com/episodes/ep1?t=0' },
      { '@type': 'Clip', name: 'Welcome', startOffset: 1, endOffset: 2, url: 'https://show.example.com/episodes/ep1?t=1000' },
    ]);
  });

  it("keeps only the creator's chapters and moments as Clip parts: none made from the transcript (decision 27)", function () {
    const mixed = {
      ...page(),
      chapters: [
        ...page().chapters,
        { title: 'Made from the words', startMs: 5000, endMs: 65_000, generated: true, moments: [{ type: 'qa', title: 'A claim.', startMs: 6000, generated: true }] },
      ],
    };
    const parts = (episodeStructuredData(mixed) as { hasPart: { name: string }[] }).hasPart;
    expect(parts.map((p) => p.name)).to.deep.equal(['Intro', 'Welcome']);
  });

  it('is a VideoObject for a YouTube episode, with the privacy-enhanced embed', function () {
    const data = episodeStructuredData(page({ mediaUrl: 'https://www.youtube.com/watch?v=abcdefghijk' }));
    expect(data).to.deep.include({ '@type': 'VideoObject', embedUrl: 'https://www.youtube-nocookie.com/embed/abcdefghijk' });
  });

  it('cannot be closed by library text: <, >, &, U+2028 and U+2029 are escaped and the JSON reads back equal', function () {
    const value = { name: '</script><!-- & \u2028\u2029' };
    const json = scriptSafeJson(value);
    expect(json).to.not.match(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).to.deep.equal(value);
  });
});

describe('pages: players and times', function () {
  it('chooses the player by URL and refuses every non-http source', function () {
    expect(playerFor('https://youtu.be/abcdefghijk', null)).to.deep.include({ kind: 'youtube', videoId: 'abcdefghijk' });
    expect(playerFor('https://cdn.example.net/a.MP4', null).kind).to.equal('video');
    expect(playerFor('https://cdn.example.net/a.mp3', null).kind).to.equal('audio');
    expect(playerFor('javascript:alert(1)', 'https://x.example/notes')).to.deep.equal({ kind: 'none', source: 'https://x.example/notes' });
    expect(playerFor(null, 'javascript:x')).to.deep.equal({ kind: 'none', source: undefined });
    expect(safeHttpUrl('ftp://x')).to.equal(undefined);
  });

  it('cues the embed in whole seconds and a media fragment in seconds, and prints clocks and ISO durations', function () {
    const embed = new URL(youtubeEmbedUrl('abcdefghijk', 61_999, 'https://show.example.com'));
    expect([embed.searchParams.get('start'), embed.searchParams.get('origin')]).to.deep.equal(['61', 'https://show.example.com']);
    expect(mediaFragmentUrl('https://cdn.example.net/a.mp3', 61_500)).to.equal('https://cdn.example.net/a.mp3#t=61.5');
    expect(mediaFragmentUrl('https://cdn.example.net/a.mp3', 0)).to.equal('https://cdn.example.net/a.mp3#t=0');
    expect([clock(0), clock(65_000), clock(3_725_000)]).to.deep.equal(['0:00', '1:05', '1:02:05']);
    expect([isoDuration(0), isoDuration(3_600_000), isoDuration(61_000)]).to.deep.equal(['PT0S', 'PT1H', 'PT1M1S']);
  });
});

/** A segment as the page rendered it with a Preact node per segment (before it was built as a string). */
function preactSegment(s: TranscriptSegment, current: boolean): string {
  return renderToString(
    h(
      'li',
      { id: `t-${s.startMs}`, class: current ? 'segment current' : 'segment', 'data-start-ms': s.startMs, 'data-end-ms': s.endMs, 'aria-current': current ? 'time' : undefined },
      h('a', { class: 'time', href: momentHref(s.startMs), 'data-seek': s.startMs, 'aria-label': `${clock(s.startMs)}, play from here` }, clock(s.startMs)),
      s.speaker ? h('span', { class: 'speaker' }, s.speaker) : null,
      h('p', null, s.text),
    ),
  );
}

/** A chapter list as Preact rendered it, anchors computed the old way (a scan of every segment per link). */
function preactChapters(p: EpisodePage): string {
  const anchor = (ms: number) => {
    let found = -1;
    for (let i = 0; i < p.segments.length; i++) {
      if (p.segments[i]!.startMs <= ms && ms < p.segments[i]!.endMs) return p.segments[i]!.startMs;
      if (p.segments[i]!.startMs <= ms) found = i;
    }
    return p.segments[found === -1 ? 0 : found]?.startMs ?? ms;
  };
  const seek = (ms: number, title: string) => h('a', { href: momentHref(ms, anchor(ms)), 'data-seek': ms }, h('span', { class: 'time' }, clock(ms)), ' ', title);
  const tag = h('span', { class: 'generated', title: 'Generated from the transcript, not by the creator' }, 'generated');
  // Chapters are tagged one by one only when some are the creator's; moments always.
  const tagChapters = p.chapters.some((c) => c.generated) && p.chapters.some((c) => !c.generated);
  return renderToString(
    h(
      'ol',
      null,
      p.chapters.map((c) =>
        h(
          'li',
          null,
          seek(c.startMs, c.title),
          tagChapters && c.generated ? [' ', tag] : null,
          c.moments.length > 0
            ? h(
                'ul',
                { class: 'moments' },
                c.moments.map((m) => h('li', null, h('span', { class: 'moment-type' }, m.type), ' ', m.generated ? [tag, ' '] : null, seek(m.startMs, m.title))),
              )
            : null,
        ),
      ),
    ),
  );
}

/** The largest episode the caps allow (shared with bench:pages, which times its render). */
const largestPage = (): EpisodePage => largestEpisodePage(page());

describe('pages: the episode page at the caps', function () {
  it('builds each segment as the same HTML Preact rendered, hostile text escaped alike', function () {
    const hostile: TranscriptSegment[] = [
      { speaker: '<b>"x"</b> & y', startMs: 0, endMs: 1500, text: HOSTILE + ' & "quotes" <img src=x onerror=alert(1)> \u202E' },
      { speaker: null, startMs: 1500, endMs: 99_000, text: '' },
      { speaker: '', startMs: 3_725_000, endMs: 3_726_500, text: 'plain' },
    ];
    for (const s of hostile) for (const current of [false, true]) expect(segmentHtml(s, current)).to.equal(preactSegment(s, current));
  });

  it('renders chapters and moments as Preact did, each anchored at the segment it lands in', function () {
    const p = largestPage();
    const small = {
      ...p,
      segments: p.segments.slice(0, 400),
      chapters: [
        ...p.chapters.slice(0, 3),
        { title: HOSTILE, startMs: 5, endMs: 9, moments: [{ type: '<i>', title: HOSTILE, startMs: 1_199_999 }] },
        { title: 'Made from the words', startMs: 9, endMs: 12, generated: true, moments: [{ type: 'qa', title: 'A claim.', startMs: 10, generated: true }] },
      ],
    };
    const html = renderEpisodePage(small, undefined);
    const ol = /<nav class="chapters"[^>]*><h2 id="chapters-h">Chapters<\/h2>(?:<p class="generated-note">[^<]*<\/p>)?(<ol>[\s\S]*?<\/ol>)<\/nav>/.exec(html)![1];
    expect(ol).to.equal(preactChapters(small));
    expect(html).to.include('href="?t=1199999#t-1197000"');
  });

  it('renders a page of the largest episode the caps allow (50k segments, 2,000 chapters, 10k moments) as a window of the transcript and every chapter and moment', function () {
    // What this render costs is bench:pages' figure (docs/pages.md), not a timed test: this holds what keeps it bounded.
    this.timeout(30_000);
    const p = largestPage();
    const t = p.segments[30_000]!.startMs + 1;
    const html = renderEpisodePage(p, t);
    expect(html).to.include(`<li id="t-${p.segments[30_000]!.startMs}" class="segment current"`);
    expect(html.match(/<li id="t-/g)!.length, 'a window of the transcript around t').to.equal(TRANSCRIPT_WINDOW);
    expect(html.match(/data-seek="\d+"><span class="time">/g)!.length, 'every chapter and moment').to.equal(EPISODE_LIMITS.chapters + EPISODE_LIMITS.moments);
    expect(html).to.include('Earlier in the transcript').and.include('Later in the transcript');
    expect(html, 'the page script is told the window is partial').to.include('<ol class="segments" data-window="partial">');
    expect(renderEpisodePage(page(), undefined)).to.include('<ol class="segments"><li id="t-0"');
  });

  it('renders in time linear in the episode at most: the largest page costs well under 20 times a page a tenth its size', function () {
    // A ratio, not a wall-clock bound: both pages render in this process, best of several, so the machine's load cancels.
    // Linear work gives about 10 (less, as the transcript is windowed), work quadratic in segments, chapters or moments about 100.
    this.timeout(60_000);
    const large = largestPage();
    const { segments: S, chapters: C } = EPISODE_LIMITS;
    // The first tenth of the segments and of the chapters (each chapter with its moments) span the first tenth of the episode.
    const tenth: EpisodePage = {
      ...large,
      episode: { ...large.episode, durationMs: large.segments[S / 10 - 1]!.endMs },
      segments: large.segments.slice(0, S / 10),
      chapters: large.chapters.slice(0, C / 10),
    };
    expect(tenth.chapters.flatMap((c) => c.moments).length).to.equal(EPISODE_LIMITS.moments / 10);
    expect(tenth.chapters.at(-1)!.endMs).to.be.at.most(tenth.segments.at(-1)!.endMs);
    const best = (p: EpisodePage, t: number): number => {
      const started = process.hrtime.bigint();
      renderEpisodePage(p, t);
      return Number(process.hrtime.bigint() - started);
    };
    const at = (p: EpisodePage) => p.segments[Math.floor(p.segments.length * 0.6)]!.startMs + 1;
    best(large, at(large)); // the first renders also compile
    best(tenth, at(tenth));
    let [largeNs, tenthNs] = [Infinity, Infinity];
    for (let round = 0; round < 7; round++) {
      largeNs = Math.min(largeNs, best(large, at(large)));
      tenthNs = Math.min(tenthNs, best(tenth, at(tenth)));
    }
    expect(largeNs / tenthNs, `best render ${(largeNs / 1e6).toFixed(1)} ms at the caps, ${(tenthNs / 1e6).toFixed(1)} ms at a tenth`).to.be.below(20);
  });

  it('escapes twin text built as strings so that no inline construct opens: links, HTML, emphasis, code, entities', function () {
    expect(inlineText('a  *b* _c_ `d` [e](javascript:f) <g> &amp; ~h~ \\ ](x)\n# h')).to.equal(
      'a \\*b\\* \\_c\\_ \\`d\\` \\[e]\\(javascript:f) \\<g> \\&amp; \\~h\\~ \\\\ ]\\(x) # h',
    );
    expect(inlineText('plain words, kept as they are.')).to.equal('plain words, kept as they are.');
  });

  it('shows the whole transcript up to the window, else the window around the current segment, with links onward', function () {
    expect(transcriptWindow(500, 10)).to.deep.equal({ from: 0, to: 500 });
    expect(transcriptWindow(50_000, -1)).to.deep.equal({ from: 0, to: TRANSCRIPT_WINDOW });
    expect(transcriptWindow(50_000, 30_000)).to.deep.equal({ from: 30_000 - TRANSCRIPT_WINDOW / 2, to: 30_000 + TRANSCRIPT_WINDOW / 2 });
    expect(transcriptWindow(50_000, 49_999)).to.deep.equal({ from: 50_000 - TRANSCRIPT_WINDOW, to: 50_000 });
    const md = episodeMarkdown(largestPage(), 3000 * 49_000);
    expect(md).to.include(`Segments ${50_000 - TRANSCRIPT_WINDOW + 1} to 50000 of 50000, around this moment.`);
    expect(md.match(/^\[\d+:\d\d:\d\d\]\(https:\/\/show\.example\.com\/episodes\/ep1\?t=\d+\) \*\*/gm)!.length).to.equal(TRANSCRIPT_WINDOW);
  });
});

describe('pages: page search text, JSON-LD thumbnail, media preload, the request host', function () {
  it('cuts q at 1,000 code points, never inside a surrogate pair, and mends lone surrogates', function () {
    const emoji = '\u{1F600}';
    expect(queryOf(`${'a'.repeat(999)}${emoji}`)).to.equal(`${'a'.repeat(999)}${emoji}`);
    expect(queryOf(`${'a'.repeat(1000)}${emoji}`)).to.equal('a'.repeat(1000));
    expect(queryOf(`${emoji.repeat(1001)}`)).to.equal(emoji.repeat(1000));
    expect(queryOf('x\uD83D')).to.equal('x\uFFFD');
    expect(() => encodeURIComponent(queryOf(`${'a'.repeat(999)}\uD83D\uDE00 \uDE00`))).to.not.throw();
    expect([queryOf(undefined), queryOf(['a']), queryOf('  soil  ')]).to.deep.equal(['', '', 'soil']);
  });

  it('gives JSON-LD only an http(s) thumbnail, and the native players preload="none"', function () {
    expect(episodeStructuredData(page({ mediaUrl: 'https://cdn.example.net/a.mp4', thumbnail: 'javascript:alert(5)' }))).to.not.have.property('thumbnailUrl');
    expect(episodeStructuredData(page({ mediaUrl: 'https://cdn.example.net/a.mp4', thumbnail: 'https://cdn.example.net/a.jpg' }))).to.include({
      thumbnailUrl: 'https://cdn.example.net/a.jpg',
    });
    expect(renderEpisodePage(page(), 1000)).to.include('<audio controls preload="none" src="https://cdn.example.net/ep1.mp3#t=1"');
    expect(renderEpisodePage(page({ mediaUrl: 'https://cdn.example.net/a.mp4' }), undefined)).to.include('<video controls preload="none"');
  });

  it('takes the host from Host alone: port dropped, IPv6 brackets kept, X-Forwarded-Host never read', function () {
    expect(requestHost({ host: 'Radio.Example.org:8080', 'x-forwarded-host': 'alpha.creators.example.com' })).to.equal('radio.example.org');
    expect(requestHost({ host: '[::1]:8080' })).to.equal('[::1]');
    expect(requestHost({ 'x-forwarded-host': 'alpha.creators.example.com' })).to.equal(undefined);
    expect(requestHost({ host: '' })).to.equal(undefined);
  });
});
