import { expect } from 'chai';
import { z } from 'zod';
import { SEARCH_INPUT, SEARCH_OUTPUT, renderSearchText, toSearchParams, QUOTE_CHARS } from '../../src/mcp/search-tool.js';
import { clock } from '../../core/ground/clock.js';
import { locateByHost } from '../../src/mcp/channel.js';
import { channelHost, type ChannelSites } from '../../core/ground/channel-urls.js';
import type { SearchResult } from '../../core/search/types.js';

const input = z.object(SEARCH_INPUT);

const RESULT: SearchResult = {
  query: 'remote control',
  episodes: [
    {
      episodeId: 'ep_1',
      title: 'Design kick-off',
      url: 'https://show.example.org/episodes/ep_1',
      score: 0.03,
      matchedVia: ['keyword', 'semantic'],
      segments: [
        {
          segmentId: 'ep_1:t:65000',
          text: 'A remote   control with\nfewer buttons.',
          startMs: 65_000,
          endMs: 90_000,
          speaker: 'Marketing',
          url: 'https://show.example.org/episodes/ep_1?t=65000',
          deepLink: 'episodes/ep_1?t=65000',
          matchedVia: ['keyword'],
          highlights: [{ start: 2, end: 8 }],
        },
        {
          segmentId: 'ep_1:t:3725000',
          text: 'x'.repeat(QUOTE_CHARS + 50),
          startMs: 3_725_000,
          endMs: 3_760_000,
          speaker: null,
          url: 'https://show.example.org/episodes/ep_1?t=3725000',
          deepLink: 'episodes/ep_1?t=3725000',
          matchedVia: ['semantic'],
          highlights: [],
        },
      ],
      summary: null,
      publishedAt: '2023-08-21T06:00:00Z',
      durationMs: 4_000_000,
    },
  ],
};

describe('MCP search tool', function () {
  it('always searches published episodes only, with the filters passed through', function () {
    const params = toSearchParams(input.parse({ query: ' soil ', episodeIds: ['ep_1'], year: 2023 }));
    expect(params).to.deep.include({ query: 'soil', fast: false, limit: 5, publishedOnly: true, episodeIds: ['ep_1'], year: 2023 });
  });

  it('refuses blank queries, out-of-range limits, comma lists in place of arrays and ids with spaces', function () {
    for (const bad of [
      { query: ' ' },
      { query: 'a', limit: 0 },
      { query: 'a', limit: 51 },
      { query: 'a', episodeIds: 'a,b' },
      { query: 'a', episodeIds: ['a b'] },
      { query: 'a', year: 99 },
    ]) {
      expect(input.safeParse(bad).success, JSON.stringify(bad)).to.equal(false);
    }
  });

  it('accepts additional fields in the structured result (clients must accept additive fields)', function () {
    const withExtra = structuredClone(RESULT) as unknown as { episodes: { segments: Record<string, unknown>[] }[] };
    withExtra.episodes[0]!.segments[0]!.landingMs = 65_400;
    expect(SEARCH_OUTPUT.safeParse(withExtra).success).to.equal(true);
    expect(SEARCH_OUTPUT.safeParse(RESULT).success).to.equal(true);
  });

  it('renders each moment with its time, speaker, words and citation URL, long words cut', function () {
    const text = renderSearchText(RESULT, 'Show');
    expect(text).to.include('Show: 1 published episode for "remote control".');
    expect(text).to.include('1. Design kick-off (2023-08-21)\n   https://show.example.org/episodes/ep_1');
    expect(text).to.include('   - [1:05] Marketing: "A remote control with fewer buttons."\n     https://show.example.org/episodes/ep_1?t=65000');
    expect(text).to.include(`   - [1:02:05] "${'x'.repeat(QUOTE_CHARS - 1)}…"\n     https://show.example.org/episodes/ep_1?t=3725000`);
  });

  it('says so when nothing matches', function () {
    expect(renderSearchText({ query: 'zebras', episodes: [] }, 'Show')).to.equal('No published episode of Show matches "zebras".');
  });

  it('formats moments as m:ss below an hour and h:mm:ss from an hour on', function () {
    expect([0, 9_999, 65_000, 3_599_999, 3_600_000].map(clock)).to.deep.equal(['0:00', '0:09', '1:05', '59:59', '1:00:00']);
  });
});

describe('MCP channel hosts', function () {
  const base = 'creators.example.com';
  const sites: ChannelSites = { baseDomain: base, scheme: 'https', customDomains: true };
  it('reads <slug>.<base domain> as a slug and any other host as a custom domain', function () {
    expect(locateByHost('Alpha.Creators.Example.com', sites)).to.deep.equal({ slug: 'alpha' });
    expect(locateByHost('show.example.org', sites)).to.deep.equal({ domain: 'show.example.org' });
  });

  it('names no channel for the base domain itself or a deeper subdomain', function () {
    expect(locateByHost(base, sites)).to.equal(undefined);
    expect(locateByHost(`a.b.${base}`, sites)).to.equal(undefined);
    expect(locateByHost('', sites)).to.equal(undefined);
  });

  it('names no channel by a custom domain when custom domains are off (a local run, a staging copy)', function () {
    const off = { ...sites, customDomains: false };
    expect(locateByHost('show.example.org', off)).to.equal(undefined);
    expect(locateByHost('alpha.creators.example.com', off)).to.deep.equal({ slug: 'alpha' });
    expect(channelHost({ slug: 'alpha', customDomain: 'show.example.org' }, off)).to.equal('alpha.creators.example.com');
    expect(channelHost({ slug: 'alpha', customDomain: 'show.example.org' }, sites)).to.equal('show.example.org');
  });
});
