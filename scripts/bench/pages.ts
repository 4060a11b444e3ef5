// The episode page against the API's transcript call for the same episodes, in the same run, in turns:
// what rendering a page costs over reading its transcript. Plus the HTML and twin sizes of the longest episode.
//
//   npm run bench:pages -- [--prefix test-qmsum-] [--episodes 40] [--concurrency 1,4] [--requests 300] [--seconds 20]
//
// The API runs as `npm start` runs it, in a process of its own on a loopback port. Both targets ask for gzip
// (as a browser and a typical client do) and read the whole answer. The page is cited (`?t=` the middle of the
// episode), so it renders the current segment and the cued player, as a followed citation does.
import { Agent, request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { Command } from 'commander';
import { loadConfig } from '../../core/config/load.js';
import { createApiKey } from '../../src/auth/key-store.js';
import { channelHost } from '../../core/ground/channel-urls.js';
import type { ChannelDoc, EpisodeDoc } from '../../core/store/documents.js';
import { createOpenSearchClient, indexAliases } from '../../core/store/opensearch.js';
import { positive } from '../../bin/lib/cli-args.js';
import type { Served } from '../lib/child.js';
import { apiProcess, measureInTurns } from './search-targets.js';
import { largestPage } from './largest-page.js';
import { renderEpisodePage } from '../../src/pages/html/episode.js';
import type { EpisodePage } from '../../src/pages/load.js';

const opts = new Command()
  .name('bench:pages')
  .description("p50/p95 of the episode page beside the API's transcript call for the same episodes, and the longest episode's page sizes.")
  .option('--prefix <prefix>', 'index prefix holding a loaded library (default: INDEX_PREFIX)')
  .option('--episodes <n>', 'published episodes cycled through (evenly spread, longest first)', positive, 40)
  .option('--concurrency <list>', 'comma-separated levels', '1,4')
  .option('--requests <n>', 'requests per target and level', positive, 300)
  .option('--seconds <n>', 'time cap per level', positive, 30)
  .option('--turn <n>', 'requests a target runs before the other takes its turn', positive, 20)
  .option('--user <id>', 'user the throw-away API key belongs to (a member of the channels)', 'u_member')
  .parse()
  .opts<{ prefix?: string; episodes: number; concurrency: string; requests: number; seconds: number; turn: number; user: string }>();

interface Answer {
  status: number;
  body: Buffer;
}

/** A GET on loopback with our own Host header, the body read whole (still compressed: what crosses the wire). */
function get(base: URL, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: base.hostname, port: base.port, path, headers, agent: keepAlive }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

async function main(): Promise<void> {
  const env = { ...process.env, ...(opts.prefix ? { INDEX_PREFIX: opts.prefix } : {}) };
  const config = loadConfig(env);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 10_000 });
  const aliases = indexAliases(config.indexPrefix);
  const servers: Served[] = [];
  const log = (m: string) => process.stderr.write(`${m}\n`);

  const channels = new Map(
    ((await client.search({ index: aliases.channels, body: { size: 100, query: { match_all: {} } } as never })).body.hits.hits as { _source: ChannelDoc }[]).map((h) => [
      h._source.id,
      h._source,
    ]),
  );
  if (channels.size === 0) throw new Error(`no channels under prefix "${config.indexPrefix}": load a library first (npm run ingest)`);
  const found = await client.search({
    index: aliases.episodes,
    body: {
      size: 1000,
      query: { bool: { filter: [{ term: { status: 'published' } }, { term: { archived: false } }, { term: { hasTranscript: true } }] } },
      sort: [{ durationMs: 'desc' }],
      _source: ['id', 'channelId', 'durationMs', 'title'],
    } as never,
  });
  const published = (found.body.hits.hits as { _source: Pick<EpisodeDoc, 'id' | 'channelId' | 'durationMs' | 'title'> }[]).map((h) => h._source);
  if (published.length === 0) throw new Error('no published episode with a transcript in this library');
  const step = Math.max(1, Math.floor(published.length / opts.episodes));
  const episodes = published.filter((_, i) => i % step === 0).slice(0, opts.episodes);
  const longest = published[0]!;
  log(`${published.length} published episodes; cycling through ${episodes.length}; longest ${longest.id} (${Math.round((longest.durationMs ?? 0) / 60_000)} min)`);

  const { key, record } = await createApiKey({ client, aliases }, { userId: opts.user, name: 'bench:pages (deleted after the run)' });
  try {
    log('starting the API process');
    const api = await apiProcess(
      { INDEX_PREFIX: config.indexPrefix, RATE_LIMIT_MAX: '10000000', PAGES_RATE_LIMIT_MAX: '10000000', OPENSEARCH_TIMEOUT_MS: '10000', LOG_LEVEL: 'warn' },
      servers,
    );
    const base = new URL(api.base);
    const hostOf = (e: { channelId: string }) => channelHost(channels.get(e.channelId)!, config.channelSites);
    const pagePath = (e: (typeof episodes)[number]) => `/episodes/${encodeURIComponent(e.id)}?t=${Math.floor((e.durationMs ?? 0) / 2)}`;
    const expectOk = (a: Answer, what: string) => {
      if (a.status !== 200) throw new Error(`${what}: HTTP ${a.status}`);
    };
    const page = async (i: number) => {
      const e = episodes[i % episodes.length]!;
      expectOk(await get(base, pagePath(e), { host: hostOf(e), 'accept-encoding': 'gzip' }), `page ${e.id}`);
    };
    const transcript = async (i: number) => {
      const e = episodes[i % episodes.length]!;
      expectOk(await get(base, `/api/v1/episodes/${encodeURIComponent(e.id)}/transcript`, { host: base.host, 'x-api-key': key, 'accept-encoding': 'gzip' }), `transcript ${e.id}`);
    };
    log('warming up (every episode once through each target)');
    for (let i = 0; i < episodes.length; i++) await Promise.all([page(i), transcript(i)]);

    const rows: string[] = [];
    for (const concurrency of opts.concurrency.split(',').map((s) => positive(s.trim()))) {
      const measured = await measureInTurns(
        { transcript, page },
        { concurrency, requests: opts.requests, seconds: opts.seconds, turn: opts.turn, label: `concurrency ${concurrency}` },
      );
      const t = measured.transcript!;
      const p = measured.page!;
      rows.push(
        `| ${concurrency} | ${p.p50.toFixed(1)} | ${p.p95.toFixed(1)} | ${t.p50.toFixed(1)} | ${t.p95.toFixed(1)} | ${(p.p50 / t.p50).toFixed(2)}× | ${p.requests}/${t.requests} |`,
      );
    }

    const html = await get(base, pagePath(longest), { host: hostOf(longest), 'accept-encoding': 'identity' });
    const twin = await get(base, `/episodes/${encodeURIComponent(longest.id)}.md`, { host: hostOf(longest), 'accept-encoding': 'identity' });
    const json = await get(base, `/api/v1/episodes/${encodeURIComponent(longest.id)}/transcript`, { host: base.host, 'x-api-key': key, 'accept-encoding': 'identity' });
    const kb = (b: Buffer) => `${(b.length / 1024).toFixed(0)} kB (${(gzipSync(b).length / 1024).toFixed(0)} kB gzip)`;

    const out = [
      `bench:pages, ${new Date().toISOString().slice(0, 10)}, prefix ${config.indexPrefix}, ${episodes.length} episodes`,
      '',
      '| concurrency | page p50 ms | page p95 ms | transcript p50 ms | transcript p95 ms | page ÷ transcript (p50) | requests page/transcript |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      capsRender(),
      `longest episode ${longest.id} (${Math.round((longest.durationMs ?? 0) / 60_000)} min): HTML ${kb(html.body)}, Markdown twin ${kb(twin.body)}, API transcript JSON ${kb(json.body)}`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await Promise.allSettled(servers.map((s) => s.stop()));
    await client.delete({ index: aliases['api-keys'], id: record.hash, refresh: 'true' } as never).catch(() => undefined);
    keepAlive.destroy();
  }
}

/** The render alone, in this process, of the largest page the caps allow (as the pages-render test builds it): best and median of 7. */
function capsRender(): string {
  const base = {
    channel: { doc: { id: 'ch', slug: 'show', title: 'The Show', providerType: 'rss', customDomain: null }, origin: 'https://show.example.com' },
    episode: { id: 'ep1', channelId: 'ch', title: 'At the caps', status: 'published', publishedAt: '2024-03-01T10:00:00Z', mediaUrl: 'https://cdn.example.net/ep1.mp3' },
    url: 'https://show.example.com/episodes/ep1',
    people: [],
    topics: [],
    chapters: [],
    segments: [],
    related: [],
  } as unknown as EpisodePage;
  const p = largestPage(base);
  const t = p.segments[30_000]!.startMs + 1;
  renderEpisodePage(p, t); // the first call also compiles
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    renderEpisodePage(p, t);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return `render of the largest page the caps allow (${p.segments.length} segments, ${p.chapters.length} chapters), in-process: best ${times[0]!.toFixed(0)} ms, median ${times[3]!.toFixed(0)} ms (budget 200 ms)`;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:pages: ${(err as Error).message}\n`);
  process.exitCode = 1;
});
