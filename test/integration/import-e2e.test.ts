// From a creator's feed to a cited answer, through the three commands a user runs: `npm run import` of a feed with
// transcripts and chapters, `npm run ingest` (real model) of the library it wrote, then the API's search citing the
// right second and its chapters served as imported.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runScript } from '../../scripts/lib/child.js';
import { createApiKey } from '../../src/auth/key-store.js';
import { deleteIndices, indexAliases } from '../../core/store/opensearch.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { privatePrefix, testClient } from '../support/indexer-env.js';

const FEED = join(process.cwd(), 'test', 'data', 'import', 'feed', 'feed.xml');

interface Hit {
  episodes: { title: string; segments: { startMs: number; url: string; text: string }[] }[];
}

describe('import end to end: a feed → import → ingest → a search that cites the right second', function () {
  this.timeout(300_000);
  const prefix = privatePrefix('imp');
  const client = testClient();
  let work: string;
  let api: ApiHarness;
  let key: string;

  before(async function () {
    work = await mkdtemp(join(tmpdir(), 'cca-import-e2e-'));
    const lib = join(work, 'library');
    const env = { ...process.env, INDEX_PREFIX: prefix, LOG_LEVEL: 'warn' };
    const imported = runScript('bin/import.ts', [FEED, '--out', lib, '--owner', 'u_ana'], env);
    // One item of the feed has no date: it is skipped, said on stderr, and the exit status is 1.
    expect(await imported.exited, imported.stderr()).to.equal(1);
    expect(imported.stderr()).to.include('no valid pubDate');
    const ingest = runScript('bin/ingest.ts', [lib, '--direct'], env);
    expect(await ingest.exited, ingest.stderr()).to.equal(0);
    api = await startApi({ env: { INDEX_PREFIX: prefix } });
    ({ key } = await createApiKey({ client, aliases: indexAliases(prefix) }, { userId: 'u_ana', name: 'import e2e' }));
  });

  after(async function () {
    await api?.close();
    await deleteIndices(client, prefix);
    await rm(work, { recursive: true, force: true });
  });

  const search = async (query: string) => {
    const res = await api.request(`/api/v1/channels/garden-hour/search?query=${encodeURIComponent(query)}`, { headers: { 'x-api-key': key } });
    expect(res.status, res.text).to.equal(200);
    return res.body as Hit;
  };

  it('cites the word-timed answer at the second it is said (Podcast Index JSON word times)', async function () {
    const hit = (await search('fungi trade sugar for minerals with roots')).episodes[0]!;
    expect(hit.title).to.equal('Soil is alive');
    const speech = hit.segments.find((s) => /with roots/.test(s.text));
    expect(speech, JSON.stringify(hit.segments)).to.not.equal(undefined);
    expect(speech!.startMs).to.equal(30_000);
    expect(new URL(speech!.url).searchParams.get('t')).to.equal('30000');
    // The soundbite, a key moment of its own, is cited where the feed put it.
    const moment = hit.segments.find((s) => s.text === 'Fungi trade sugar for minerals');
    if (moment) expect(moment.startMs).to.equal(31_000);
  });

  it('cites a caption-timed answer (interpolated words) at its cue, not at an interpolated word', async function () {
    // The cue 5.0-9.5 s holds two sentences; the second, asked for here, would start about 7.3 s in by length.
    const hit = (await search('straw works best in hot weather')).episodes[0]!;
    expect(hit.title).to.equal('Water in dry summers');
    expect(hit.segments[0]!.text).to.include('Straw works best');
    expect(hit.segments[0]!.startMs).to.equal(5000);
  });

  it("cites an HTML transcript's answer at the <time> of its monologue", async function () {
    const hit = (await search('turning the heap lets the microbes breathe')).episodes[0]!;
    expect(hit.title).to.equal('Compost in winter');
    expect(hit.segments[0]!.text).to.include('Turning the heap');
    expect(hit.segments[0]!.startMs).to.equal(20_000);
    expect(new URL(hit.segments[0]!.url).searchParams.get('t')).to.equal('20000');
  });

  it('serves the chapters and the soundbite moment as imported, and says where the transcript timings came from', async function () {
    const list = await api.request('/api/v1/channels/garden-hour/episodes?sort=oldest', { headers: { 'x-api-key': key } });
    const soil = (list.body as { episodes: { episodeId?: string; id?: string; title: string }[] }).episodes.find((e) => e.title === 'Soil is alive')!;
    const id = soil.episodeId ?? soil.id!;
    const chapters = await api.request(`/api/v1/episodes/${id}/chapters`, { headers: { 'x-api-key': key } });
    expect(chapters.status).to.equal(200);
    const body = chapters.body as { title: string; startMs: number; endMs: number }[];
    expect(body.map((c) => [c.title, c.startMs, c.endMs])).to.deep.equal([
      ['Welcome', 0, 25_000],
      ['Fungi', 25_000, 70_000],
    ]);
    expect(JSON.stringify(body[1])).to.include('Fungi trade sugar for minerals').and.include('31000');
    const transcript = await api.request(`/api/v1/episodes/${id}/transcript`, { headers: { 'x-api-key': key } });
    expect((transcript.body as { wordTimings: string }).wordTimings).to.equal('source');
  });
});
