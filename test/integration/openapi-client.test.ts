// A client generated from the served OpenAPI document, made as a new user would: openapi-typescript types from the live
// /api/v1/openapi.json, a small openapi-fetch client type-checked against them with tsc, then run against the live API.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import openapiTS, { astToString } from 'openapi-typescript';
import { enrichedEpisode } from '../support/api-fixture.js';
import { useApiWorld } from '../support/api-world.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a new user writes after generating `schema.ts`: one function per call, typed by the generated `paths`. */
const CLIENT = `// A client of the Creator Content API: openapi-fetch, typed by the schema openapi-typescript generated.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type Client = ReturnType<typeof connect>;
type Episode = components['schemas']['Episode'];

export function connect(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl, headers: { 'x-api-key': apiKey } });
}

export async function channelSlugs(client: Client): Promise<string[]> {
  const { data, error } = await client.GET('/api/v1/channels');
  if (error) throw new Error(error.code);
  return data.channels.map((channel) => channel.slug);
}

export async function liveEpisodes(client: Client, slug: string, limit: number): Promise<{ episodes: Episode[]; nextCursor: string | null }> {
  const { data, error } = await client.GET('/api/v1/channels/{slug}/episodes', {
    params: { path: { slug }, query: { status: 'live', sort: 'oldest', limit } },
  });
  if (error) throw new Error(error.code);
  return { episodes: data.episodes, nextCursor: data.nextCursor };
}

export async function citations(client: Client, slug: string, query: string): Promise<{ episodeId: string; urls: string[] }[]> {
  const { data, error } = await client.GET('/api/v1/channels/{slug}/search', { params: { path: { slug }, query: { query, limit: 3 } } });
  if (error) throw new Error(error.code);
  return data.episodes.map((episode) => ({ episodeId: episode.episodeId, urls: episode.segments.map((segment) => segment.url) }));
}

export async function transcriptText(client: Client, episodeId: string): Promise<{ formatVersion: number; text: string }> {
  const { data, error } = await client.GET('/api/v1/episodes/{episodeId}/transcript', { params: { path: { episodeId } } });
  if (error) throw new Error(error.code);
  return { formatVersion: data.formatVersion, text: data.segments.map((segment) => segment.text).join(' ') };
}

export async function chapterLabels(client: Client, episodeId: string): Promise<{ title: string; generated: boolean; moments: boolean[] }[]> {
  const { data, error } = await client.GET('/api/v1/episodes/{episodeId}/chapters', { params: { path: { episodeId } } });
  if (error) throw new Error(error.code);
  return data.map((chapter) => ({ title: chapter.title, generated: chapter.generated === true, moments: chapter.moments.map((moment) => moment.generated === true) }));
}

export async function refusal(client: Client, slug: string): Promise<{ status: number; code: string | undefined }> {
  const { error, response } = await client.GET('/api/v1/channels/{slug}/search', { params: { path: { slug }, query: { q: 'anything' } } });
  return { status: response.status, code: error?.code };
}
`;

/** Misuse the generated types must refuse: were they \`any\`, each unused \`@ts-expect-error\` would fail the check instead. */
const MISUSE = `import type { components } from './schema.js';
import type { Client } from './client.js';

export function misuse(client: Client, result: components['schemas']['SearchResult']): unknown[] {
  return [
    // @ts-expect-error: no such path
    client.GET('/api/v1/channel'),
    // @ts-expect-error: sort takes the documented values only
    client.GET('/api/v1/channels/{slug}/episodes', { params: { path: { slug: 'alpha' }, query: { sort: 'loudest' } } }),
    // @ts-expect-error: the path parameter is required
    client.GET('/api/v1/episodes/{episodeId}/transcript', {}),
    // @ts-expect-error: a search result has episodes, not hits
    result.hits,
    // @ts-expect-error: generated is a boolean, not a label
    ((chapter: components['schemas']['Chapter']): string | undefined => chapter.generated)({ title: '', startMs: 0, endMs: 0, moments: [] }),
  ];
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    noUncheckedIndexedAccess: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023', 'DOM'],
    types: [],
    skipLibCheck: true,
  },
  files: ['schema.ts', 'client.ts', 'misuse.ts'],
};

interface GeneratedClient {
  connect(baseUrl: string, apiKey: string): unknown;
  channelSlugs(client: unknown): Promise<string[]>;
  liveEpisodes(client: unknown, slug: string, limit: number): Promise<{ episodes: { id: string; status: string }[]; nextCursor: string | null }>;
  citations(client: unknown, slug: string, query: string): Promise<{ episodeId: string; urls: string[] }[]>;
  transcriptText(client: unknown, episodeId: string): Promise<{ formatVersion: number; text: string }>;
  chapterLabels(client: unknown, episodeId: string): Promise<{ title: string; generated: boolean; moments: boolean[] }[]>;
  refusal(client: unknown, slug: string): Promise<{ status: number; code: string | undefined }>;
}

describe('OpenAPI: a client generated from the served document works against the live API', function () {
  // Generating the types and one tsc run take seconds, more on a busy machine.
  this.timeout(180_000);
  const world = useApiWorld();
  let dir: string;
  let generated: GeneratedClient;
  let client: unknown;

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
    // The folder a user's project would be: its own package.json, and the packages it installed.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    const ast = await openapiTS(new URL('/api/v1/openapi.json', world.api.baseUrl));
    writeFileSync(join(dir, 'schema.ts'), astToString(ast));
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    writeFileSync(join(dir, 'misuse.ts'), MISUSE);
  });

  after(function () {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('generates types naming every operation of the document from its URL', async function () {
    const doc = (await world.api.request('/api/v1/openapi.json')).body as { paths: Record<string, unknown> };
    const schema = readFileSync(join(dir, 'schema.ts'), 'utf8');
    for (const path of Object.keys(doc.paths)) expect(schema, path).to.include(`"${path}": {`);
    expect(schema).to.match(/sort\?: "newest" \| "popular" \| "longest" \| "oldest"/);
  });

  it('type-checks the client under strict tsc, and the types refuse misuse', function () {
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8' });
    expect(tsc.status, `${tsc.stdout}${tsc.stderr}`).to.equal(0);
  });

  describe('calls through openapi-fetch', function () {
    before(async function () {
      generated = (await import(pathToFileURL(join(dir, 'client.ts')).href)) as GeneratedClient;
      client = generated.connect(world.api.baseUrl, world.memberKey);
    });

    it("lists the member's channels", async function () {
      expect(await generated.channelSlugs(client)).to.include.members(['alpha', 'custom', 'free-show']);
    });

    it('lists live episodes with a cursor to the next page', async function () {
      const { episodes, nextCursor } = await generated.liveEpisodes(client, 'alpha', 5);
      expect(episodes).to.have.length(5);
      for (const e of episodes) expect(['published', 'indexed'], e.id).to.include(e.status);
      expect(nextCursor).to.be.a('string');
    });

    it('searches and gets citation URLs at the moment', async function () {
      const hits = await generated.citations(client, 'alpha', 'tomatoes');
      expect(hits).to.have.length(3);
      for (const hit of hits) {
        expect(hit.urls.length, hit.episodeId).to.be.greaterThan(0);
        for (const url of hit.urls) expect(url).to.match(new RegExp(`/episodes/${hit.episodeId}\\?t=\\d+$`));
      }
    });

    it('reads a transcript', async function () {
      expect(await generated.transcriptText(client, 'ep_a00')).to.deep.equal({
        formatVersion: 1,
        text: 'Welcome to ep_a00, a show about gardening. Today we talk about tomatoes and soil.',
      });
    });

    it('reads which chapters and key moments were generated from the transcript (generated, a typed boolean)', async function () {
      await world.store.episodes([enrichedEpisode('ep_enriched', 'ch_alpha')]);
      expect(await generated.chapterLabels(client, 'ep_enriched')).to.deep.equal([
        { title: 'Mulch and moisture', generated: true, moments: [true] },
        { title: 'Sweet compost', generated: true, moments: [true, true] },
      ]);
      expect(await generated.chapterLabels(client, 'ep_a00')).to.deep.equal([{ title: 'Opening', generated: false, moments: [false] }]);
    });

    it('reads the typed error body of a refusal', async function () {
      expect(await generated.refusal(client, 'no-such-channel')).to.deep.equal({ status: 404, code: 'channel_not_found' });
      expect(await generated.refusal(client, 'free-show')).to.deep.equal({ status: 403, code: 'plan_required' });
    });
  });
});
