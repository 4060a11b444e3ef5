// The channel pages' pure parts: Markdown twins, negotiation by Accept, escaping of hostile text, JSON-LD, players and moments.
import { expect } from 'chai';
import express, { type Request } from 'express';
import { episodeMarkdown, llmsTxt, notFoundMarkdown } from '../../src/pages/markdown.js';
import { wantsMarkdown } from '../../src/pages/negotiate.js';
import { episodeStructuredData, scriptSafeJson } from '../../src/pages/jsonld.js';
import { renderEpisodePage, currentSegmentIndex } from '../../src/pages/html/episode.js';
import { clock, isoDuration, mediaFragmentUrl, playerFor, safeHttpUrl, youtubeEmbedUrl } from '../../src/pages/media.js';
import type { EpisodePage, LibraryPage, PageChannel } from '../../src/pages/load.js';
import type { EpisodeDoc } from '../../src/store/documents.js';

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
    people: ['Ana Host'],
    topics: ['Gardening'],
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
