// `npm run bench:flood`: /healthz, an episode list and a transcript measured while `--concurrency` clients send distinct long hybrid queries without pause.
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { startLocalApi } from './drills/local-api.js';
import { positive } from './cli-args.js';
import { useProvisionedModel } from './provision/model.js';

const opts = new Command()
  .name('bench:flood')
  .description(
    'Floods a loaded prefix (loopback only) with distinct ~1,000-character hybrid searches and measures what must stay fast meanwhile:\n' +
      '/healthz every --probe-ms, an episode list and a transcript every 10 probes. The API runs in-process with the model as configured (MODEL_DIR).',
  )
  .option('--prefix <prefix>', 'index prefix holding qmsum', process.env.TEST_QMSUM_PREFIX || 'test-qmsum-')
  .option('--channel <slug>', 'channel searched and listed', 'product-meetings')
  .option('--concurrency <n>', 'clients searching at once', positive, 32)
  .option('--seconds <n>', 'length of the flood', positive, 20)
  .option('--probe-ms <n>', 'pause between /healthz probes', positive, 20)
  .option('--query-chars <n>', 'length of each query', positive, 1000)
  .option('--queries <file>', 'qmsum queries whose words make the flood', '../shared/data/qmsum/queries-dev.jsonl')
  .parse()
  .opts<{ prefix: string; channel: string; concurrency: number; seconds: number; probeMs: number; queryChars: number; queries: string }>();

const log = (line: string) => process.stderr.write(`bench:flood: ${line}\n`);

function percentiles(values: number[]): { n: number; p50: number; p95: number; p99: number; max: number } {
  const s = [...values].sort((a, b) => a - b);
  const at = (q: number) => (s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! : 0);
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: s.at(-1) ?? 0 };
}

/** Distinct queries: a counter, then random words of the dev queries up to `chars` characters. */
async function queryMaker(file: string, chars: number): Promise<() => string> {
  const words = [
    ...new Set(
      (await readFile(file, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .flatMap((l) => (JSON.parse(l) as { query: string }).query.toLowerCase().match(/[a-z]+/g) ?? []),
    ),
  ];
  let n = 0;
  return () => {
    const parts = [`flood${n++}`];
    while (parts.join(' ').length < chars) parts.push(words[Math.floor(Math.random() * words.length)]!);
    return parts.join(' ').slice(0, chars).trim();
  };
}

await useProvisionedModel('bench:flood');
const api = await startLocalApi({ prefix: opts.prefix, env: { RATE_LIMIT_MAX: '10000000' }, embedder: true });
const headers = { 'x-api-key': api.keys[0]! };
const base = `${api.baseUrl}/api/v1`;
const timed = async (url: string, init?: RequestInit) => {
  const t = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  return { status: res.status, body, ms: performance.now() - t };
};

try {
  const page = JSON.parse((await timed(`${base}/channels/${opts.channel}/episodes?limit=5`, { headers })).body) as { episodes?: { id: string }[] };
  const episodeId = page.episodes?.[0]?.id;
  if (!episodeId) throw new Error(`channel ${opts.channel} of prefix ${opts.prefix} lists no episodes`);
  const nextQuery = await queryMaker(opts.queries, opts.queryChars);
  log(`API on ${api.baseUrl} over ${opts.prefix}; ${opts.concurrency} clients, ${opts.seconds} s, /healthz every ${opts.probeMs} ms`);

  const until = Date.now() + opts.seconds * 1000;
  const search: number[] = [];
  const statuses: Record<string, number> = {};
  let degraded = 0;
  const client = async () => {
    while (Date.now() < until) {
      const r = await timed(`${base}/channels/${opts.channel}/search?query=${encodeURIComponent(nextQuery())}`, { headers });
      search.push(r.ms);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      if (r.status === 200 && (JSON.parse(r.body) as { degraded?: string }).degraded) degraded++;
    }
  };
  const health: number[] = [];
  const list: number[] = [];
  const transcript: number[] = [];
  const probeStatuses: Record<string, number> = {};
  const probe = async () => {
    for (let i = 0; Date.now() < until; i++) {
      const h = await timed(`${api.baseUrl}/healthz`);
      health.push(h.ms);
      probeStatuses[`healthz ${h.status}`] = (probeStatuses[`healthz ${h.status}`] ?? 0) + 1;
      if (i % 10 === 0) {
        const [l, t] = await Promise.all([timed(`${base}/channels/${opts.channel}/episodes?limit=20`, { headers }), timed(`${base}/episodes/${episodeId}/transcript`, { headers })]);
        list.push(l.ms);
        transcript.push(t.ms);
        for (const [k, r] of [['list', l], ['transcript', t]] as const) probeStatuses[`${k} ${r.status}`] = (probeStatuses[`${k} ${r.status}`] ?? 0) + 1;
      }
      await new Promise((r) => setTimeout(r, opts.probeMs));
    }
  };
  const started = Date.now();
  await Promise.all([probe(), ...Array.from({ length: opts.concurrency }, client)]);
  const round = (p: ReturnType<typeof percentiles>) => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, Math.round(v)]));
  const report = {
    concurrency: opts.concurrency,
    seconds: (Date.now() - started) / 1000,
    healthzMs: round(percentiles(health)),
    listMs: round(percentiles(list)),
    transcriptMs: round(percentiles(transcript)),
    searchMs: round(percentiles(search)),
    searchStatuses: statuses,
    searchDegraded: degraded,
    probeStatuses,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  log(
    `/healthz p50/p99/max ${report.healthzMs.p50}/${report.healthzMs.p99}/${report.healthzMs.max} ms; ` +
      `searches ${search.length} (${JSON.stringify(statuses)}, ${degraded} keyword-only), p50 ${report.searchMs.p50} ms`,
  );
} finally {
  await api.close();
}
