// `npm run bench:flood`: /healthz, an episode list, a transcript and a member's search timed on a quiet API, then while `--concurrency` clients send distinct long hybrid queries without pause (keyed REST, or anonymous MCP with `--mcp`).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { startLocalApi } from '../drills/local-api.js';
import { positive } from '../../bin/lib/cli-args.js';
import { useProvisionedModel } from '../ops/provision/model.js';

/** What the clients process is given (as JSON in its environment). */
export interface FloodClientsJob {
  /** REST search URL (keyed), or the channel's MCP endpoint (anonymous `tools/call search`). */
  searchUrl: string;
  mcp: boolean;
  key: string;
  words: string[];
  queryChars: number;
  concurrency: number;
  seconds: number;
}

/** What the clients process sends back. */
export interface FloodClientsResult {
  ms: number[];
  statuses: Record<string, number>;
  /** Error codes of the answers that were errors. */
  codes: Record<string, number>;
  /** 200s that ran keyword-only. */
  degraded: number;
}

type Percentiles = { n: number; p50: number; p95: number; p99: number; max: number };

/** Nearest-rank percentiles, rounded to the millisecond. */
function percentiles(values: number[]): Percentiles {
  const s = [...values].sort((a, b) => a - b);
  const at = (q: number) => Math.round(s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! : 0);
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: Math.round(s.at(-1) ?? 0) };
}

const PROBES = ['healthz', 'list', 'transcript', 'search'] as const;
type Probe = (typeof PROBES)[number];

interface Phase {
  ms: Record<Probe, number[]>;
  statuses: Record<string, number>;
  load: { start: number; end: number };
}

/** Every probe's quiet and flood percentiles, and how much slower the flood made it (p50 and p99 ratios). */
function compare(quiet: Record<Probe, number[]>, flood: Record<Probe, number[]>) {
  const ratio = (a: number, b: number) => Math.round((a / Math.max(b, 1)) * 10) / 10;
  return Object.fromEntries(
    PROBES.map((p) => {
      const [q, f] = [percentiles(quiet[p]), percentiles(flood[p])];
      return [p, { quiet: q, flood: f, p50Ratio: ratio(f.p50, q.p50), p99Ratio: ratio(f.p99, q.p99) }];
    }),
  ) as Record<Probe, { quiet: Percentiles; flood: Percentiles; p50Ratio: number; p99Ratio: number }>;
}

await main();

async function main() {
  const opts = new Command()
    .name('bench:flood')
    .description(
      'Times what must stay fast during a search flood, on a loaded prefix (loopback only): /healthz every --probe-ms, an episode list and a transcript\n' +
        'every 5 × --probe-ms, first for --quiet-seconds with no other traffic, then for --seconds while --concurrency clients send distinct long hybrid\n' +
        'searches without pause. The API runs as `npm start` does, in a process of its own with its model workers (MODEL_DIR and every other setting from\n' +
        'the environment); the clients run in another process, so neither delays the probes.',
    )
    .option('--prefix <prefix>', 'index prefix holding qmsum', process.env.TEST_QMSUM_PREFIX || 'test-qmsum-')
    .option('--channel <slug>', 'channel searched and listed', 'product-meetings')
    .option('--concurrency <n>', 'clients searching at once', positive, 32)
    .option('--seconds <n>', 'length of the flood', positive, 20)
    .option('--quiet-seconds <n>', 'length of the quiet measurement before it', positive, 10)
    .option('--probe-ms <n>', 'pause between /healthz probes', positive, 20)
    .option('--query-chars <n>', 'length of each query', positive, 1000)
    .option('--queries <file>', 'qmsum queries whose words make the flood', '../shared/data/qmsum/queries-dev.jsonl')
    .option('--mcp', "the flood is anonymous MCP search calls on the channel's MCP endpoint (per-IP limit lifted, as from many addresses), not keyed REST")
    .parse()
    .opts<{ prefix: string; channel: string; concurrency: number; seconds: number; quietSeconds: number; probeMs: number; queryChars: number; queries: string; mcp?: boolean }>();

  const log = (line: string) => process.stderr.write(`bench:flood: ${line}\n`);
  const queries = (await readFile(opts.queries, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { query: string }).query);
  const words = [...new Set(queries.flatMap((q) => q.toLowerCase().match(/[a-z]+/g) ?? []))];
  // The member's probe: a keyed hybrid search, cycling through 20 real questions (their vectors cached after the first round).
  const memberQueries = queries.slice(0, 20);
  let memberTurn = 0;
  await useProvisionedModel('bench:flood');
  const api = await startLocalApi({ prefix: opts.prefix, env: { RATE_LIMIT_MAX: '10000000', MCP_RATE_LIMIT_MAX: '10000000' }, separateProcess: true, keys: 2 });
  // The probes use one key, a keyed flood another: two integrations of the same member.
  const [key, floodKey] = [api.keys[0]!, api.keys[1]!];
  const base = `${api.baseUrl}/api/v1`;
  const timed = async (url: string) => {
    const t = performance.now();
    const res = await fetch(url, { headers: { 'x-api-key': key } });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t };
  };

  /** Runs the three probes, each in its own loop, for `seconds`. */
  const measure = async (seconds: number): Promise<Phase> => {
    const until = Date.now() + seconds * 1000;
    const phase: Phase = { ms: { healthz: [], list: [], transcript: [], search: [] }, statuses: {}, load: { start: loadavg()[0]!, end: 0 } };
    const loop = async (probe: Probe, url: string | (() => string), pauseMs: number) => {
      while (Date.now() < until) {
        const r = await timed(typeof url === 'string' ? url : url());
        phase.ms[probe].push(r.ms);
        phase.statuses[`${probe} ${r.status}`] = (phase.statuses[`${probe} ${r.status}`] ?? 0) + 1;
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    };
    await Promise.all([
      loop('healthz', `${api.baseUrl}/healthz`, opts.probeMs),
      loop('list', `${base}/channels/${opts.channel}/episodes?limit=20`, opts.probeMs * 5),
      loop('transcript', `${base}/episodes/${episodeId}/transcript`, opts.probeMs * 5),
      loop('search', () => `${base}/channels/${opts.channel}/search?query=${encodeURIComponent(memberQueries[memberTurn++ % memberQueries.length]!)}`, opts.probeMs * 5),
    ]);
    phase.load.end = loadavg()[0]!;
    return phase;
  };

  let episodeId: string | undefined;
  try {
    const page = (await (await fetch(`${base}/channels/${opts.channel}/episodes?limit=5`, { headers: { 'x-api-key': key } })).json()) as { episodes?: { id: string }[] };
    episodeId = page.episodes?.[0]?.id;
    if (!episodeId) throw new Error(`channel ${opts.channel} of prefix ${opts.prefix} lists no episodes`);
    log(
      `API process on ${api.baseUrl} over ${opts.prefix}; quiet ${opts.quietSeconds} s, then ${opts.concurrency} ${opts.mcp ? 'anonymous MCP' : 'keyed REST'} clients for ${opts.seconds} s`,
    );

    const quiet = await measure(opts.quietSeconds);
    const job: FloodClientsJob = {
      searchUrl: opts.mcp ? `${api.baseUrl}/channels/${opts.channel}/mcp` : `${base}/channels/${opts.channel}/search`,
      mcp: Boolean(opts.mcp),
      key: floodKey,
      words,
      queryChars: opts.queryChars,
      concurrency: opts.concurrency,
      seconds: opts.seconds,
    };
    const clients = fork(fileURLToPath(new URL('./flood-clients.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, FLOOD_CLIENTS_JOB: JSON.stringify(job) },
    });
    const searches = once(clients, 'message') as Promise<[FloodClientsResult]>;
    const flood = await measure(opts.seconds);
    const [result] = await searches;
    const probes = compare(quiet.ms, flood.ms);
    const report = {
      flood: opts.mcp ? 'anonymous MCP' : 'keyed REST',
      concurrency: opts.concurrency,
      loadAverage: { quiet: quiet.load, flood: flood.load },
      probes,
      probeStatuses: { quiet: quiet.statuses, flood: flood.statuses },
      searches: { ms: percentiles(result.ms), statuses: result.statuses, codes: result.codes, keywordOnly: result.degraded },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    for (const p of PROBES) {
      const { quiet: q, flood: f, p99Ratio } = probes[p];
      log(`${p.padEnd(10)} p50/p99 quiet ${q.p50}/${q.p99} ms, flood ${f.p50}/${f.p99} ms (max ${f.max}, ${f.n} probes): p99 × ${p99Ratio}`);
    }
    log(
      `searches ${result.ms.length}: ${JSON.stringify(result.statuses)} ${JSON.stringify(result.codes)}, ${result.degraded} keyword-only, p50 ${percentiles(result.ms).p50} ms; ` +
        `load average ${quiet.load.start.toFixed(1)} → ${flood.load.end.toFixed(1)}`,
    );
  } finally {
    await api.close();
  }
}
