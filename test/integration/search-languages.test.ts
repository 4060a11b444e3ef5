// Every channel in its own language: a Spanish and a German channel loaded from a library, searched with their languages' analyzers, against the real engine.
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { formatSummary, type LoadSummary } from '../../indexer/summary.js';
import { toEpisode } from '../../src/routes/episodes.js';
import type { SearchDeps } from '../../core/search/search.js';
import { evalSearch } from '../../scripts/eval/search.js';
import type { SearchParams } from '../../core/search/types.js';
import type { ChannelDoc, EpisodeDoc } from '../../core/store/documents.js';
import { deleteIndices, indexAliases, type Client } from '../../core/store/opensearch.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { privatePrefix, REPO_ROOT, testClient } from '../support/indexer-env.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { createApiKey } from '../../src/auth/key-store.js';

const LIBRARY = `${REPO_ROOT}test/data/languages`;

const params = (query: string): SearchParams => ({ query, fast: true, limit: 10, publishedOnly: false });

/** Terms an analyzer of the engine makes of `text`. */
async function analyze(client: Client, analyzer: string, text: string): Promise<string[]> {
  const res = await client.indices.analyze({ body: { analyzer, text } as never });
  return (res.body as { tokens: { token: string }[] }).tokens.map((t) => t.token);
}

describe('search: every channel in its own language', function () {
  this.timeout(120_000);
  const config = loadConfig(process.env);
  const prefix = privatePrefix('search-languages');
  const aliases = indexAliases(prefix);
  let client: Client;
  let deps: SearchDeps;
  let summary: LoadSummary;
  const channels: Record<string, ChannelDoc> = {};
  /** The API over the suite's prefix, and the channels' owner's key. */
  let api: ApiHarness;
  let authorization: string;

  before(async function () {
    client = testClient();
    summary = await loadLibrary({ client, embedder: createHashEmbedder(), prefix, dir: LIBRARY });
    await client.indices.refresh({ index: `${prefix}*` });
    for (const id of ['ch_huerta', 'ch_dorf']) {
      channels[id] = ((await client.get({ index: aliases.channels, id })).body as { _source: ChannelDoc })._source;
    }
    deps = { client, embedder: undefined, aliases, settings: config.search, channelSites: config.channelSites };
    api = await startApi({ env: { INDEX_PREFIX: prefix }, client });
    authorization = `Bearer ${(await createApiKey({ client, aliases }, { userId: 'u_lang_owner', name: 'search-languages' })).key}`;
  });

  after(async function () {
    await api?.close();
    if (client) {
      await deleteIndices(client, prefix);
      await client.close();
    }
  });

  const keywordHits = async (channel: string, query: string) => {
    const { result, trace } = await evalSearch(deps, channels[channel]!, params(query));
    return { result, passages: trace.legs.find((l) => l.name === 'keyword')!.hits.map((h) => h.id), titles: trace.legs.find((l) => l.name === 'title')!.hits };
  };

  it('keeps each channel’s and episode’s language, and the ingest summary names the episode analysed with the fallback', function () {
    expect(summary.ok, formatSummary(summary)).to.equal(true);
    expect(channels.ch_huerta!.language).to.equal('es');
    expect(channels.ch_dorf!.language).to.equal('de-AT');
    expect(summary.languages).to.deep.equal({ es: 2, de: 2, sw: 1 });
    expect(summary.fallback).to.deep.equal({ sw: 1 });
    expect(formatSummary(summary)).to.match(/fallback \(standard[^)]*\): sw 1/);
  });

  it('gives the passages and titles a sub-field per configured language and the fallback, leaving the English fields as they were', async function () {
    const res = await client.indices.getMapping({ index: [aliases.passages, aliases.episodes] });
    const props = (index: string) =>
      Object.values(res.body as Record<string, { mappings: { properties: Record<string, { analyzer?: string; fields?: Record<string, { analyzer: string }> }> } }>).find(
        (m) => 'mainSpeakers' in m.mappings.properties === (index === 'passages'),
      )!.mappings.properties;
    const text = props('passages').text!;
    expect(text.analyzer).to.equal('english');
    expect(text.fields).to.deep.include({ es: { type: 'text', analyzer: 'spanish' }, de: { type: 'text', analyzer: 'german' }, standard: { type: 'text', analyzer: 'standard' } });
    expect(props('passages').mainSpeakers).to.deep.equal({ type: 'text', analyzer: 'english' });
    expect(props('episodes').title!.fields).to.deep.include({ raw: { type: 'keyword' }, nl: { type: 'text', analyzer: 'dutch' } });
  });

  it('finds in a Spanish channel the inflected form only the spanish stemmer joins to the query', async function () {
    // The english analyzer keeps `canción` and `canciones` apart (`canción`, `cancion`); the spanish one makes both `cancion`.
    expect(await analyze(client, 'english', 'canción canciones')).to.deep.equal(['canción', 'cancion']);
    expect(await analyze(client, 'spanish', 'canción canciones')).to.deep.equal(['cancion', 'cancion']);
    const { result, passages } = await keywordHits('ch_huerta', 'canción');
    expect(passages).to.deep.equal(['ep_es_canciones:t:0']);
    const segment = result.episodes[0]!.segments[0]!;
    expect(segment.text.slice(segment.highlights![0]!.start, segment.highlights![0]!.end)).to.equal('canciones');
  });

  it('finds in a German channel the plural the german stemmer joins to the singular, umlaut and all', async function () {
    expect(await analyze(client, 'english', 'Haus Häuser')).to.deep.equal(['hau', 'häuser']);
    expect(await analyze(client, 'german', 'Haus Häuser')).to.deep.equal(['haus', 'haus']);
    const { result, passages } = await keywordHits('ch_dorf', 'Haus');
    expect(passages).to.deep.equal(['ep_de_haeuser:t:0']);
    expect(result.episodes.map((e) => e.episodeId)).to.deep.equal(['ep_de_haeuser']);
  });

  it('matches nothing on the stop words of the channel’s language alone, which english would keep', async function () {
    expect(await analyze(client, 'english', 'de la que los')).to.deep.equal(['de', 'la', 'que', 'lo']);
    expect(await analyze(client, 'english', 'der die und mit')).to.deep.equal(['der', 'die', 'und', 'mit']);
    for (const [channel, query] of [
      ['ch_huerta', 'de la que los'],
      ['ch_dorf', 'der die und mit'],
    ] as const) {
      const { result, passages, titles } = await keywordHits(channel, query);
      expect(passages, query).to.deep.equal([]);
      expect(titles, query).to.deep.equal([]);
      expect(result.episodes, query).to.deep.equal([]);
    }
  });

  it('searches an episode of a language without an analyzer through the fallback of its channel’s', async function () {
    // `sw` is not configured: its text is in `text.standard`, but the channel (German) is searched in `text.de`, where `asubuhi` is one word as well.
    const { passages } = await keywordHits('ch_dorf', 'asubuhi');
    expect(passages).to.deep.equal(['ep_sw_salamu:t:0']);
  });

  it('returns each episode’s language on its catalog row: its own, else its channel’s', async function () {
    const rows = (await client.search({ index: aliases.episodes, body: { size: 10, query: { term: { channelId: 'ch_dorf' } } } as never })).body.hits.hits as {
      _source: EpisodeDoc;
    }[];
    const languages = Object.fromEntries(rows.map((r) => [r._source.id, toEpisode(r._source, 'https://dorf.example.org', channels.ch_dorf!.language).language]));
    expect(languages).to.deep.equal({ ep_de_haeuser: 'de-AT', ep_de_obst: 'de-AT', ep_sw_salamu: 'sw' });
  });

  it('answers a search over HTTP on the Spanish channel for `canción` with the episode that says `canciones`, highlighted there', async function () {
    const res = await api.request(`/api/v1/channels/huerta/search?query=${encodeURIComponent('canción')}&fast=true`, { headers: { authorization } });
    expect(res.status, res.text).to.equal(200);
    const episodes = res.body.episodes as { episodeId: string; segments: { text: string; highlights?: { start: number; end: number }[] }[] }[];
    expect(episodes.map((e) => e.episodeId)).to.deep.equal(['ep_es_canciones']);
    const highlighted = episodes[0]!.segments.flatMap((s) => (s.highlights ?? []).map((h) => s.text.slice(h.start, h.end)));
    expect(highlighted).to.deep.equal(['canciones']);
  });

  it('lists each episode with its language over HTTP: its own, else its channel’s', async function () {
    const res = await api.request('/api/v1/channels/dorf/episodes?limit=10', { headers: { authorization } });
    expect(res.status, res.text).to.equal(200);
    const languages = Object.fromEntries((res.body.episodes as { id: string; language: string }[]).map((e) => [e.id, e.language]));
    expect(languages).to.deep.equal({ ep_de_haeuser: 'de-AT', ep_de_obst: 'de-AT', ep_sw_salamu: 'sw' });
  });
});
