// The channel pages over HTTP against the real store: the cited moment, players, twins and negotiation, llms.txt, search, one 404, hostile text inert, limits, and the API untouched.
import { gunzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { useApiWorld } from '../support/api-world.js';
import { seedPagesWorld, HOSTILE_TITLE } from '../support/pages-world.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { closedPort } from '../support/api-net.js';
import { CONTENT_SECURITY_POLICY } from '../../src/pages/router.js';

const ALPHA = 'alpha.creators.example.com';
const RADIO = 'radio.example.org';
const HOSTILE = 'hostile.creators.example.com';

interface PageResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  raw: Buffer;
}

/** A GET on `host` with our own headers (fetch drops Host), the body gunzipped when the server compressed it. */
function get(api: ApiHarness, host: string, path: string, headers: Record<string, string> = {}): Promise<PageResponse> {
  const url = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, headers: { host, ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const body = res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: body.toString('utf8'), raw });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The transcript segment elements of an episode page, as (start, end, current) triples. */
function segmentsOf(html: string): { start: number; end: number; current: boolean }[] {
  return [...html.matchAll(/<li[^>]*class="segment[^"]*"[^>]*>/g)].map((m) => ({
    start: Number(/data-start-ms="(\d+)"/.exec(m[0])?.[1]),
    end: Number(/data-end-ms="(\d+)"/.exec(m[0])?.[1]),
    current: /aria-current="time"/.test(m[0]),
  }));
}

describe('channel pages over HTTP', function () {
  this.timeout(60_000);
  const world = useApiWorld({ env: { CHANNEL_BASE_DOMAIN: 'creators.example.com' } });
  before(async function () {
    await seedPagesWorld(world.store);
  });

  describe('the episode page at a cited moment', function () {
    it('marks the segment holding t as current, gives every segment its start and end, and cues the YouTube embed to t', async function () {
      const res = await get(world.api, ALPHA, '/episodes/ep_a00?t=5000');
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
      const segments = segmentsOf(res.text);
      expect(segments.length).to.equal(2);
      expect(segments.every((s) => Number.isFinite(s.start) && Number.isFinite(s.end))).to.equal(true);
      expect(segments.filter((s) => s.current)).to.deep.equal([{ start: 4000, end: 9000, current: true }]);
      expect(res.text).to.match(/<iframe[^>]*src="https:\/\/www\.youtube-nocookie\.com\/embed\/ep_a00xxxxx\?start=5&amp;enablejsapi=1/);
      expect(res.text).to.include('href="?t=4000#t-4000"');
      expect(res.text).to.match(/<h1>Alpha episode ep_a00<\/h1>/);
    });

    it('reads the transcript without its word timings and its searched speech, which neither the page nor its twin renders', async function () {
      const reads: { _index: string; _source?: { excludes?: string[] } }[] = [];
      const onRequest = (_err: unknown, res: { meta?: { request?: { params?: { path?: string; body?: unknown } } } } | null) => {
        const params = res?.meta?.request?.params;
        if (String(params?.path).endsWith('/_mget')) reads.push(...(JSON.parse(String(params?.body)) as { docs: typeof reads }).docs);
      };
      world.api.client.on('request', onRequest);
      try {
        expect((await get(world.api, ALPHA, '/episodes/ep_a00?t=5000')).status).to.equal(200);
        expect((await get(world.api, ALPHA, '/episodes/ep_a00.md')).status).to.equal(200);
      } finally {
        world.api.client.off('request', onRequest);
      }
      const transcriptReads = reads.filter((d) => d._index.endsWith('transcripts'));
      expect(transcriptReads, 'one transcript read per page').to.have.length(2);
      for (const read of transcriptReads) expect(read._source?.excludes).to.deep.equal(['document.segments.words', 'speech', 'speechMs']);
    });

    it('gives an enclosure the native audio player with a media fragment, chapters and typed moments as links, people and topics by name', async function () {
      const res = await get(world.api, RADIO, '/episodes/ep_radio1?t=37000');
      expect(res.status).to.equal(200);
      expect(res.text).to.include('<audio controls preload="none" src="https://media.example.org/radio/ep1.wav#t=37"');
      expect(segmentsOf(res.text).find((s) => s.current)).to.deep.include({ start: 35000, end: 40000 });
      expect(res.text).to.include('<span class="moment-type">insight</span>');
      expect(res.text).to.include('href="?t=35000#t-35000"');
      expect(res.text).to.include('Hana Host');
      expect(res.text).to.include('<li>Gardening</li>');
      expect(res.text, 'related episodes').to.include('href="/episodes/ep_radio2"');
    });

    it("labels what was generated from the transcript: a note on the chapters, a tag on each moment and on the names found, nothing on the creator's", async function () {
      const res = await get(world.api, RADIO, '/episodes/ep_radio_gen');
      expect(res.status).to.equal(200);
      expect(res.text).to.include('<h2 id="chapters-h">Chapters</h2><p class="generated-note">Generated from the transcript, not by the creator.</p>');
      const tag = '<span class="generated" title="Generated from the transcript, not by the creator">generated</span>';
      expect(res.text.match(/<li><span class="moment-type">[^<]*<\/span> <span class="generated"[^>]*>generated<\/span> <a href/g), 'every moment tagged').to.have.length(3);
      expect(res.text, 'the guest enrichment found').to.include(`Gus Guest ${tag}`);
      expect(res.text, 'the topic enrichment found').to.include(`<li>Compost ${tag}</li>`);
      expect(res.text, "the creator's host untagged").to.match(/With Hana Host, Gus Guest/);

      const creators = await get(world.api, RADIO, '/episodes/ep_radio1');
      expect(creators.text, "the creator's chapters and names").to.not.match(/class="generated/);
    });

    it('leaves generated chapters and moments out of the JSON-LD parts, and says "(generated)" in the twin', async function () {
      const res = await get(world.api, RADIO, '/episodes/ep_radio_gen');
      const ld = JSON.parse(/<script type="application\/ld\+json">([^<]*)<\/script>/.exec(res.text)![1]!) as { hasPart?: unknown[] };
      expect(ld.hasPart, 'no Clip made from the transcript').to.equal(undefined);

      const twin = await get(world.api, RADIO, '/episodes/ep_radio_gen.md');
      expect(twin.status).to.equal(200);
      expect(twin.text).to.include(
        '## Chapters\n\n_Generated from the transcript, not by the creator._\n\n- [0:00](https://radio.example.org/episodes/ep_radio_gen?t=0) Mulch and moisture\n',
      );
      expect(twin.text).to.include(
        '  - [0:30](https://radio.example.org/episodes/ep_radio_gen?t=30000) qa: Compost smells sweet because it is made slowly and turned often. (generated)\n',
      );
      expect(twin.text.match(/^ {2}- .* \(generated\)$/gm), 'every moment').to.have.length(3);
      expect(twin.text).to.include('**People:** Hana Host, Gus Guest (generated)');
      expect(twin.text).to.include('**Topics:** Compost (generated)');
      expect((await get(world.api, RADIO, '/episodes/ep_radio1.md')).text, "the creator's twin").to.not.include('generated');
    });

    it('shows the transcript alone, with the source link, when there is no media', async function () {
      const res = await get(world.api, RADIO, '/episodes/ep_radio2');
      expect(res.status).to.equal(200);
      expect(res.text).to.not.match(/<audio|<video|<iframe/);
      expect(res.text).to.include('href="https://radio.example.org/shownotes/2"');
      expect(
        segmentsOf(res.text).some((s) => s.current),
        'no t: no current segment',
      ).to.equal(false);
    });

    it('carries JSON-LD (PodcastEpisode with Clip parts), Open Graph, the twin link, a strict CSP and public caching, compressed', async function () {
      const res = await get(world.api, RADIO, '/episodes/ep_radio1', { 'accept-encoding': 'gzip' });
      expect(res.headers['content-encoding']).to.equal('gzip');
      expect(res.headers['cache-control']).to.equal('public, max-age=60');
      expect(res.headers.vary).to.match(/Accept/);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).to.include("script-src 'self'").and.include("frame-ancestors 'self'").and.include('frame-src https://www.youtube-nocookie.com');
      expect(csp).to.not.include('unsafe-inline');
      expect(res.headers['referrer-policy']).to.equal('strict-origin-when-cross-origin');
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
      const ld = JSON.parse(/<script type="application\/ld\+json">([^<]*)<\/script>/.exec(res.text)![1]!) as {
        '@type': string;
        hasPart: { '@type': string; startOffset: number; url: string }[];
      };
      expect(ld['@type']).to.equal('PodcastEpisode');
      expect(ld.hasPart.map((p) => [p['@type'], p.startOffset, p.url])).to.deep.include(['Clip', 35, 'https://radio.example.org/episodes/ep_radio1?t=35000']);
      expect(res.text).to.include('<meta property="og:title" content="Radio episode with an enclosure"');
      expect(res.text).to.include('<link rel="alternate" type="text/markdown" href="https://radio.example.org/episodes/ep_radio1.md"');
      expect(res.headers.link).to.equal('<https://radio.example.org/episodes/ep_radio1.md>; rel="alternate"; type="text/markdown"');
      expect(res.raw.length, 'compressed').to.be.below(res.text.length);
    });

    it("answers an unknown, unpublished, archived or other channel's episode with one identical 404 page, credentials ignored", async function () {
      const bodies = await Promise.all(
        ['/episodes/no_such', '/episodes/ep_radio_draft', '/episodes/ep_radio_old', '/episodes/ep_a00'].map((path) =>
          get(world.api, RADIO, path, { 'x-api-key': world.memberKey }),
        ),
      );
      for (const res of bodies) {
        expect(res.status).to.equal(404);
        expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
        expect(res.headers['cache-control']).to.equal('no-store');
      }
      expect(new Set(bodies.map((b) => b.text)).size, 'the same page').to.equal(1);
      expect(bodies[0]!.text).to.include('<h1>Not found</h1>');
    });

    it('serves the pages of a free-plan channel too: the plan gates the API, not the public site', async function () {
      expect((await get(world.api, 'free-show.creators.example.com', '/episodes/ep_free1')).status).to.equal(200);
    });
  });

  describe('Markdown twins', function () {
    it('serves the twin at .md and by Accept, q-values honoured, with Vary: Accept and a 406 when neither is acceptable', async function () {
      const twin = await get(world.api, ALPHA, '/episodes/ep_a00.md');
      expect(twin.status).to.equal(200);
      expect(twin.headers['content-type']).to.equal('text/markdown; charset=utf-8');
      expect(twin.text).to.match(/^# Alpha episode ep_a00\n/);
      expect(twin.text).to.include('[0:04](https://alpha.creators.example.com/episodes/ep_a00?t=4000) Today we talk about tomatoes and soil.');
      expect(twin.text).to.include('[0:00](https://alpha.creators.example.com/episodes/ep_a00?t=0) **Host:** Welcome');
      expect(twin.text).to.include('## Chapters');
      const cases: [string, string, number][] = [
        ['text/markdown', 'text/markdown; charset=utf-8', 200],
        ['text/html;q=0.5, text/markdown', 'text/markdown; charset=utf-8', 200],
        ['text/markdown;q=0.4, text/html', 'text/html; charset=utf-8', 200],
        ['*/*', 'text/html; charset=utf-8', 200],
        ['application/json', 'text/html; charset=utf-8', 406],
      ];
      for (const [accept, type, status] of cases) {
        const res = await get(world.api, ALPHA, '/episodes/ep_a00', { accept });
        expect([res.status, res.headers['content-type']], accept).to.deep.equal([status, type]);
        expect(res.headers.vary, accept).to.match(/Accept/);
      }
      const missing = await get(world.api, ALPHA, '/episodes/no_such.md');
      expect([missing.status, missing.headers['content-type']]).to.deep.equal([404, 'text/markdown; charset=utf-8']);
      expect(missing.text).to.match(/^# Not found/);
    });

    it('serves the library root and its twin newest first, keyset-paged, and llms.txt linking the twins, the OpenAPI document and MCP (only where the channel has a tool server)', async function () {
      const root = await get(world.api, RADIO, '/');
      expect(root.status).to.equal(200);
      expect(root.text.indexOf('ep_radio1')).to.be.below(root.text.indexOf('ep_radio2'));
      expect(root.text).to.not.include('ep_radio_draft');
      const index = await get(world.api, RADIO, '/index.md');
      expect(index.text).to.include('[Radio episode with an enclosure](https://radio.example.org/episodes/ep_radio1.md)');
      expect(root.text).to.include('Back catalogue 18').and.not.include('Back catalogue 1<');
      const next = /href="\/\?cursor=([^"]+)"/.exec(root.text)?.[1];
      expect(next, 'radio has more than a page of published episodes').to.be.a('string');
      const second = await get(world.api, RADIO, `/?cursor=${next}`);
      expect(second.status).to.equal(200);
      expect(second.text).to.include('Back catalogue 1<').and.include('Back catalogue 0<').and.not.include('ep_radio1');
      expect(second.text, 'the last page has no next link').to.not.match(/href="\/\?cursor=/);
      expect((await get(world.api, RADIO, `/index.md?cursor=${next}`)).text).to.include('Back catalogue 0');
      expect((await get(world.api, RADIO, '/?cursor=garbage')).status).to.equal(404);
      const llms = await get(world.api, RADIO, '/llms.txt');
      expect(llms.headers['content-type']).to.equal('text/plain; charset=utf-8');
      expect(llms.text).to.match(/^# Radio Garden\n\n> /);
      expect(llms.text).to.include('- [Radio episode with an enclosure](https://radio.example.org/episodes/ep_radio1.md)');
      expect(llms.text).to.include('/api/v1/openapi.json').and.include('[MCP tool server](https://radio.example.org/mcp)');
      const free = await get(world.api, 'free-show.creators.example.com', '/llms.txt');
      expect(free.status, "a free-plan channel's pages are served").to.equal(200);
      expect(free.text, 'but it has no tool server to list').to.not.include('MCP tool server');
    });
  });

  describe('search', function () {
    it('runs the hybrid search over published episodes and renders each hit with its cited moments, the words marked', async function () {
      const res = await get(world.api, RADIO, '/search?q=irrigation+schedule');
      expect(res.status).to.equal(200);
      expect(res.text).to.include('<mark>irrigation</mark>');
      expect(res.text).to.match(/<a class="time" href="\/episodes\/ep_radio1\?t=\d+" data-cite="true">/);
      expect(res.text).to.not.include('Unpublished radio draft');
      const twin = await get(world.api, RADIO, '/search.md?q=irrigation+schedule');
      expect(twin.text).to.match(/\[0:35\]\(https:\/\/radio\.example\.org\/episodes\/ep_radio1\?t=35000\)/);
      expect((await get(world.api, RADIO, '/search')).text).to.include('Type what you are looking for');
    });

    it('keeps a query of 1,000 characters ending in an emoji whole (a cut never splits it), in the page and its twin', async function () {
      const q = `${'a'.repeat(999)}\u{1F600}`;
      for (const path of ['/search', '/search.md']) {
        const res = await get(world.api, RADIO, `${path}?q=${encodeURIComponent(q)}`);
        expect(res.status, path).to.equal(200);
        expect(res.text, path).to.include(q);
      }
    });
  });

  describe('the favicon', function () {
    it('serves a small cacheable icon on a channel host, not the JSON 404; other hosts keep the API 404', async function () {
      const icon = await get(world.api, RADIO, '/favicon.ico');
      expect([icon.status, icon.headers['content-type'], icon.headers['cache-control']]).to.deep.equal([200, 'image/x-icon', 'public, max-age=86400']);
      expect(icon.raw.subarray(0, 4).equals(Buffer.from([0, 0, 1, 0])), 'an ICO header').to.equal(true);
      expect(icon.raw.length).to.be.below(8 * 1024);
      expect((await get(world.api, ALPHA, '/favicon.ico')).status).to.equal(200);
      const elsewhere = await get(world.api, '127.0.0.1', '/favicon.ico');
      expect([elsewhere.status, JSON.parse(elsewhere.text).code]).to.deep.equal([404, 'route_not_found']);
    });
  });

  describe('hostile library text', function () {
    it('renders titles, summaries, transcripts, chapters and URLs inert', async function () {
      const res = await get(world.api, HOSTILE, '/episodes/ep_hostile');
      expect(res.status).to.equal(200);
      const html = res.text;
      expect(html).to.not.match(/<script>alert/i);
      expect(html).to.not.match(/<img src=x/i);
      expect(html).to.not.match(/(href|src)="javascript:/i);
      expect(html).to.not.match(/<b>Speaker/);
      expect(html).to.include('&lt;/title>&lt;script>');
      // The JSON-LD cannot be closed by a title: its `<` are escaped.
      const ld = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html)![1]!;
      expect(ld).to.not.include('<');
      expect((JSON.parse(ld) as { name: string }).name).to.equal(HOSTILE_TITLE);
      expect(html).to.not.match(/<audio|<video|<iframe/);
      expect(JSON.parse(ld), 'a javascript: thumbnail is no thumbnailUrl').to.not.have.property('thumbnailUrl');
      expect(html.match(/<title>[^<]*<\/title>/)![0].length, 'the 10k title is cut in <title>').to.be.below(400);
      const twin = (await get(world.api, HOSTILE, '/episodes/ep_hostile.md')).text;
      expect(twin).to.not.match(/\]\(javascript:/);
      expect(twin.split('\n').filter((l) => l.startsWith('# ')).length, 'one heading 1 only').to.equal(1);
      expect((await get(world.api, HOSTILE, '/')).text).to.not.match(/<script>alert/);
    });
  });

  describe('limits, errors and the API beside the pages', function () {
    let limited: ApiHarness;
    before(async function () {
      limited = await startApi({ env: { INDEX_PREFIX: world.store.prefix, CHANNEL_BASE_DOMAIN: 'creators.example.com', PAGES_RATE_LIMIT_MAX: '3', TRUST_PROXY: 'loopback' } });
    });
    after(async function () {
      await limited?.close();
    });

    it('answers pages with the store down as HTML 503 pages with Retry-After, and twins as Markdown 503s', async function () {
      const down = await startApi({
        env: { OPENSEARCH_URL: `http://127.0.0.1:${await closedPort()}`, CHANNEL_BASE_DOMAIN: 'creators.example.com', OPENSEARCH_TIMEOUT_MS: '1000' },
      });
      try {
        const page = await get(down, ALPHA, '/episodes/ep_a00?t=4000');
        expect([page.status, page.headers['content-type'], page.headers['cache-control']]).to.deep.equal([503, 'text/html; charset=utf-8', 'no-store']);
        expect(page.headers['retry-after']).to.match(/^\d+$/);
        expect(page.headers['content-security-policy'], 'the page headers on a 503 too').to.equal(CONTENT_SECURITY_POLICY);
        expect(page.text)
          .to.match(/^<!doctype html><html lang="en">/)
          .and.include('<h1>');
        const twin = await get(down, ALPHA, '/episodes/ep_a00.md');
        expect([twin.status, twin.headers['content-type']]).to.deep.equal([503, 'text/markdown; charset=utf-8']);
        expect(twin.text).to.match(/^# \S/);
        const api = await get(down, ALPHA, '/api/v1/channels', { 'x-api-key': world.memberKey });
        expect(api.headers['content-type'], 'the API stays JSON').to.equal('application/json; charset=utf-8');
      } finally {
        await down.close();
      }
    });

    it('limits pages per client IP with their own budget: past PAGES_RATE_LIMIT_MAX an HTML 429 with Retry-After and the page headers', async function () {
      const ip = { 'x-forwarded-for': `192.0.2.${Math.floor(Math.random() * 250) + 1}` };
      const statuses: number[] = [];
      let last: PageResponse | undefined;
      for (let i = 0; i < 5; i++) {
        last = await get(limited, RADIO, '/episodes/ep_radio1', ip);
        statuses.push(last.status);
      }
      expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
      expect(last!.headers['content-type']).to.equal('text/html; charset=utf-8');
      expect(last!.headers['retry-after']).to.match(/^\d+$/);
      expect(last!.headers['content-security-policy']).to.equal(CONTENT_SECURITY_POLICY);
      expect(last!.headers['referrer-policy']).to.equal('strict-origin-when-cross-origin');
      expect(last!.text).to.include('Too many requests').and.include('/assets/page.css');
      expect(last!.text, 'rendered from nothing: no channel was read').to.not.include('Radio Garden');
      expect((await get(limited, RADIO, '/api/v1/channels', ip)).status, 'the API keeps its own budget').to.equal(401);
    });

    it("reads nothing from the store for a refused page: the engine's search and get counters stand still while a client past its budget keeps asking", async function () {
      // The engine's own counters, on this suite's indices only (other suites may share the node): channel lookups are
      // searches (query_total), an episode page's documents an _mget (one get per document).
      const reads = async () => {
        const res = await world.store.client.transport.request({ method: 'GET', path: `/${world.store.prefix}*/_stats/search,get` });
        const total = (res.body as { _all: { total: { search: { query_total: number }; get: { total: number } } } })._all.total;
        return { searches: total.search.query_total, gets: total.get.total };
      };
      const ip = { 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250) + 1}` };
      const before = await reads();
      for (let i = 0; i < 3; i++) expect((await get(limited, RADIO, '/episodes/ep_radio1', ip)).status).to.equal(200);
      const admitted = await reads();
      expect(admitted.searches, "the measure sees a page's reads").to.be.above(before.searches);
      expect(admitted.gets).to.be.above(before.gets);
      const refused = await Promise.all(
        Array.from({ length: 20 }, (_, i) => get(limited, i % 2 ? RADIO : 'anything.invalid', i % 4 < 2 ? '/episodes/ep_radio1' : `/search?q=soil${i}`, ip)),
      );
      expect(new Set(refused.map((r) => r.status))).to.deep.equal(new Set([429]));
      expect(await reads()).to.deep.equal(admitted);
    });

    it('chooses the channel from Host alone, even with TRUST_PROXY set: an X-Forwarded-Host naming another channel changes nothing', async function () {
      const forwarded = { 'x-forwarded-for': `203.0.113.${Math.floor(Math.random() * 250) + 1}`, 'x-forwarded-host': HOSTILE };
      const page = await get(limited, RADIO, '/', forwarded);
      expect(page.status).to.equal(200);
      expect(page.text).to.include('Radio Garden').and.not.include('alert(&quot;channel');
      expect(String(page.headers['vary'])).to.not.match(/forwarded/i);
      const episode = await get(limited, RADIO, '/episodes/ep_radio1', forwarded);
      expect([episode.status, episode.text.includes('Radio episode with an enclosure')]).to.deep.equal([200, true]);
      const other = await get(limited, RADIO, '/episodes/ep_hostile', forwarded);
      expect(other.status, "the forwarded host's episode is another channel's here").to.equal(404);
    });

    it('keeps /api, /mcp and the probes JSON on a channel host, and other hosts without pages', async function () {
      const api = await get(world.api, RADIO, '/api/v1/channels');
      expect([api.status, api.headers['content-type']]).to.deep.equal([401, 'application/json; charset=utf-8']);
      expect(JSON.parse((await get(world.api, RADIO, '/healthz')).text)).to.deep.equal({ status: 'ok' });
      const mcp = await get(world.api, RADIO, '/mcp');
      expect(JSON.parse(mcp.text).code).to.equal('method_not_allowed');
      const elsewhere = await get(world.api, '127.0.0.1', '/');
      expect([elsewhere.status, JSON.parse(elsewhere.text).code]).to.deep.equal([404, 'route_not_found']);
      expect((await get(world.api, RADIO, '/EPISODES/ep_radio1')).headers['content-type']).to.equal('application/json; charset=utf-8');
    });
  });
});
