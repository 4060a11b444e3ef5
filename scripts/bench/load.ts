// `npm run bench:load`: autocannon over a mix of every real endpoint with many keys; phase A (limit high): no 5xx; phase B (limit low): 429s with correct headers, no 5xx.
import { readFile, readdir } from 'node:fs/promises';
import autocannon from 'autocannon';
import { Command } from 'commander';
import { DEFAULT_PREFIX, startLocalApi, type LocalApi } from '../drills/local-api.js';
import { positive } from '../../bin/lib/cli-args.js';
import { useProvisionedModel } from '../ops/provision/model.js';

const opts = new Command()
  .name('bench:load')
  .description(
    'Load test over a loaded prefix (loopback only): channels, paginated episode lists, transcripts, chapters,\n' +
      'related, fast and hybrid search, spread over many keys. Uses the local services (or OPENSEARCH_URL, REDIS_URL) and the provisioned model.',
  )
  .option('--prefix <prefix>', 'index prefix holding a loaded library', DEFAULT_PREFIX)
  .option('--seconds <n>', 'duration of each phase', positive, 10)
  .option('--low-seconds <n>', 'duration of phase B (default: --seconds)', positive)
  .option('--rss-every <s>', 'seconds between memory samples', positive, 10)
  .option('--connections <n>', 'concurrent connections', positive, 10)
  .option('--keys <n>', 'API keys the requests are spread over', positive, 20)
  .option('--low-limit <n>', 'RATE_LIMIT_MAX of phase B (per window)', positive, 20)
  .option('--low-window <s>', 'RATE_LIMIT_WINDOW_SECONDS of phase B', positive, 10)
  .option('--low-keys <n>', 'keys of phase B (few, so that the quota bites even at low throughput)', positive, 2)
  .option('--queries <file>', 'search queries (JSON lines with channel and query)', '../shared/data/qmsum/queries-dev.jsonl')
  .parse()
  .opts<{
    prefix: string;
    seconds: number;
    lowSeconds?: number;
    rssEvery: number;
    connections: number;
    keys: number;
    lowLimit: number;
    lowWindow: number;
    lowKeys: number;
    queries: string;
  }>();

const progress = (line: string) => process.stderr.write(`bench:load: ${line}\n`);
// Hybrid search embeds queries with the real model, local files only.
await useProvisionedModel('bench:load');

interface Target {
  kind: string;
  path: string;
}

/** A fixed mix built from the library itself: every kind of call, several channels, page 1 and page 2. */
async function buildTargets(api: LocalApi): Promise<Target[]> {
  const headers = { 'x-api-key': api.keys[0]! };
  const get = async (path: string) => {
    const res = await fetch(`${api.baseUrl}${path}`, { headers });
    if (!res.ok) throw new Error(`GET ${path} answered ${res.status} while preparing the mix`);
    return res.json() as Promise<unknown>;
  };
  // The free-plan channel answers 403 by design: the mix covers the paid ones.
  const { channels } = (await get('/api/v1/channels')) as { channels: { slug: string; apiAccess?: boolean }[] };
  const paid: { slug: string }[] = [];
  for (const c of channels) if ((await fetch(`${api.baseUrl}/api/v1/channels/${c.slug}/episodes?limit=1`, { headers })).status === 200) paid.push(c);
  const queries = (await readFile(opts.queries, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { channel: string; query: string })
    .filter((q) => paid.some((c) => c.slug === q.channel));
  const targets: Target[] = [{ kind: 'channels', path: '/api/v1/channels' }];
  for (const { slug } of paid) {
    const page = (await get(`/api/v1/channels/${slug}/episodes?limit=10`)) as { nextCursor?: string | null; episodes: { id: string }[] };
    targets.push({ kind: 'episodes', path: `/api/v1/channels/${slug}/episodes?limit=10` });
    if (page.nextCursor) targets.push({ kind: 'episodes', path: `/api/v1/channels/${slug}/episodes?limit=10&cursor=${page.nextCursor}` });
    for (const episode of page.episodes.slice(0, 2)) {
      for (const resource of ['transcript', 'chapters', 'related']) targets.push({ kind: resource, path: `/api/v1/episodes/${episode.id}/${resource}` });
    }
    for (const q of queries.filter((x) => x.channel === slug).slice(0, 3)) {
      const enc = encodeURIComponent(q.query);
      targets.push({ kind: 'search-fast', path: `/api/v1/channels/${slug}/search?fast=true&query=${enc}` });
      targets.push({ kind: 'search-hybrid', path: `/api/v1/channels/${slug}/search?query=${enc}` });
    }
  }
  return targets;
}

/** Memory of this process (the API and autocannon) and of its children (the embedder workers), in MB. */
interface MemorySample {
  atSeconds: number;
  rssMB: number;
  heapUsedMB: number;
  /** Summed RSS of child processes (Linux only; 0 elsewhere). */
  childrenRssMB: number;
}

/** RSS of this process's children (the embedder worker processes), found in /proc by their parent pid. */
async function childrenRssMB(): Promise<number> {
  try {
    let kb = 0;
    for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      // Fields after the command name (which may hold spaces): state, then the parent pid.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      kb += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    }
    return Math.round(kb / 1024);
  } catch {
    return 0;
  }
}

async function memorySample(startedAt: number): Promise<MemorySample> {
  const { rss, heapUsed } = process.memoryUsage();
  return { atSeconds: Math.round((Date.now() - startedAt) / 1000), rssMB: Math.round(rss / 1e6), heapUsedMB: Math.round(heapUsed / 1e6), childrenRssMB: await childrenRssMB() };
}

interface PhaseReport {
  phase: string;
  rateLimit: string;
  seconds: number;
  requests: number;
  rps: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  statuses: Record<string, number>;
  non2xx: Record<string, number>;
  connectionErrors: number;
  timeouts: number;
  /** 429s missing Retry-After or RateLimit, and 2xx missing RateLimit. */
  headerProblems: number;
  /** At the start of the load (API started, mix built), every `--rss-every` seconds, and at the end. */
  memory: { start: MemorySample; end: MemorySample; maxRssMB: number; samples: MemorySample[] };
  checks: { name: string; ok: boolean }[];
}

async function runPhase(phase: string, env: Record<string, string>, keys = opts.keys, seconds = opts.seconds): Promise<PhaseReport> {
  progress(`${phase}: starting the API (RATE_LIMIT_MAX=${env.RATE_LIMIT_MAX}, window ${env.RATE_LIMIT_WINDOW_SECONDS} s) with ${keys} keys`);
  const api = await startLocalApi({ prefix: opts.prefix, env, keys });
  try {
    // Fresh counters: a key from an earlier run cannot share a bucket, but a reused prefix could.
    const targets = await buildTargets(api);
    progress(`${phase}: ${targets.length} distinct requests × ${keys} keys, ${opts.connections} connections, ${seconds} s`);
    let headerProblems = 0;
    const onResponse = (status: number, _body: string, _ctx: object, raw: unknown) => {
      const headers = normaliseHeaders(raw);
      if (status === 429 && (!/^\d+$/.test(headers['retry-after'] ?? '') || !headers.ratelimit)) headerProblems++;
      if (status >= 200 && status < 300 && !headers.ratelimit) headerProblems++;
    };
    // Keys rotate on every request and each key sees the whole mix (shifted), so all keys share the load.
    const requests = targets.flatMap((_, i) =>
      api.keys.map((key, k) => {
        const t = targets[(i + k) % targets.length]!;
        return { method: 'GET' as const, path: t.path, headers: { 'x-api-key': key }, onResponse };
      }),
    );
    const instance = autocannon({
      url: api.baseUrl,
      connections: opts.connections,
      duration: seconds,
      timeout: 10,
      requests,
    });
    const started = Date.now();
    const samples = [await memorySample(started)];
    const tick = setInterval(() => progress(`${phase}: ${Math.round((Date.now() - started) / 1000)} s, RSS ${samples.at(-1)!.rssMB} MB`), 2500);
    const sampler = setInterval(() => void memorySample(started).then((m) => samples.push(m)), opts.rssEvery * 1000);
    const result = await instance;
    clearInterval(tick);
    clearInterval(sampler);
    samples.push(await memorySample(started));
    const statuses: Record<string, number> = {};
    for (const [status, { count = 0 } = {}] of Object.entries(result.statusCodeStats ?? {})) statuses[status] = count;
    const non2xx = Object.fromEntries(Object.entries(statuses).filter(([s]) => !s.startsWith('2')));
    const fiveXX = Object.entries(statuses)
      .filter(([s]) => s.startsWith('5'))
      .reduce((n, [, c]) => n + c, 0);
    const total = Object.values(statuses).reduce((a, b) => a + b, 0);
    const report: PhaseReport = {
      phase,
      rateLimit: `${env.RATE_LIMIT_MAX} per ${env.RATE_LIMIT_WINDOW_SECONDS} s per key`,
      seconds,
      requests: total,
      rps: Math.round(total / seconds),
      latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
      statuses,
      non2xx,
      connectionErrors: result.errors,
      timeouts: result.timeouts,
      headerProblems,
      memory: { start: samples[0]!, end: samples.at(-1)!, maxRssMB: Math.max(...samples.map((m) => m.rssMB)), samples },
      checks: [
        { name: 'no 5xx', ok: fiveXX === 0 },
        { name: 'no connection errors or timeouts', ok: result.errors === 0 && result.timeouts === 0 },
        { name: 'RateLimit on 2xx, Retry-After + RateLimit on 429', ok: headerProblems === 0 },
      ],
    };
    return report;
  } finally {
    await api.close();
  }
}

function normaliseHeaders(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) out[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
  } else if (raw && typeof raw === 'object') {
    for (const [k, v] of Object.entries(raw)) out[k.toLowerCase()] = String(v);
  }
  return out;
}

const high = await runPhase('A (limit high)', { RATE_LIMIT_MAX: '10000000', RATE_LIMIT_WINDOW_SECONDS: '60' });
high.checks.push({ name: 'mostly 2xx', ok: (high.statuses['200'] ?? 0) > high.requests * 0.99 });
const lowSeconds = opts.lowSeconds ?? opts.seconds;
const low = await runPhase('B (limit low)', { RATE_LIMIT_MAX: String(opts.lowLimit), RATE_LIMIT_WINDOW_SECONDS: String(opts.lowWindow) }, opts.lowKeys, lowSeconds);
low.checks.push({ name: '429s answered', ok: (low.statuses['429'] ?? 0) > 0 });
low.checks.push({
  name: '2xx within the quota',
  // Each key gets at most lowLimit per window; the phase spans ⌈seconds / window⌉ + 1 windows at most.
  ok: (low.statuses['200'] ?? 0) <= opts.lowKeys * opts.lowLimit * (Math.ceil(lowSeconds / opts.lowWindow) + 1),
});

const phases = [high, low];
process.stdout.write(`${JSON.stringify(phases, null, 2)}\n\n`);
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
process.stdout.write(
  [
    row([
      'phase',
      'rate limit',
      'seconds',
      'requests',
      'req/s',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'RSS MB start → end (max)',
      'heap MB start → end',
      'embedder workers RSS MB',
      'non-2xx by status',
      'checks',
    ]),
    row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---', '---', '---', '---', '---']),
    ...phases.map((p) =>
      row([
        p.phase,
        p.rateLimit,
        p.seconds,
        p.requests,
        p.rps,
        p.latencyMs.p50,
        p.latencyMs.p90,
        p.latencyMs.p99,
        `${p.memory.start.rssMB} → ${p.memory.end.rssMB} (${p.memory.maxRssMB})`,
        `${p.memory.start.heapUsedMB} → ${p.memory.end.heapUsedMB}`,
        `${p.memory.start.childrenRssMB} → ${p.memory.end.childrenRssMB}`,
        Object.entries(p.non2xx)
          .map(([s, n]) => `${s}: ${n}`)
          .join(', ') || 'none',
        p.checks.every((c) => c.ok)
          ? 'pass'
          : `FAIL (${p.checks
              .filter((c) => !c.ok)
              .map((c) => c.name)
              .join('; ')})`,
      ]),
    ),
  ].join('\n') + '\n',
);
const ok = phases.every((p) => p.checks.every((c) => c.ok));
process.stdout.write(`bench:load: ${ok ? 'PASS' : 'FAIL'}\n`);
process.exit(ok ? 0 : 1);
