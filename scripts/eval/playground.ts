// Query playground for relevance tuning: each leg's ranking, the fusion, and what a settings change moves.
//
//   npm run playground -- [--channel research-meetings] [--queries ../shared/data/qmsum/queries-dev.jsonl]
//   npm run playground -- --replay ../shared/data/qmsum/queries-dev.jsonl --a "k=60" --b "k=20" [--limit 200]
//
// Searches in-process against the configured INDEX_PREFIX (or --prefix). Type `:help` at the prompt.
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Command, Option } from 'commander';
import { judge, evenSubset, parseQueries, rankedSegments, overlaps, type JudgedQuery } from './relevance.js';
import type { SearchParams } from '../../core/search/types.js';
import { DEFAULT_EPISODE_FIELDS, DEFAULT_PASSAGE_FIELDS } from '../../core/search/fields.js';
import { evalSearch, tunedRanking, type SearchTrace, type Tuning } from './search.js';
import type { FusedHit, LegHit, SearchResult } from '../../core/search/types.js';
import { MODES, openLocalSearch, parseSettings, type LocalSearch, type Mode } from './harness.js';
import { positive } from '../../bin/lib/cli-args.js';

const HELP = `Type a query to search. Commands:
  :k 30                         RRF constant
  :w keyword=1.5 semantic=1     leg weights (keyword, semantic, title; 0 turns a leg off)
  :fields text,chapterTitle^2   passage fields of the keyword leg      :efields title^3,summary  episode fields
  :candidates 200               passages per leg                       :type most_fields        multi_match type
  :mode keyword|semantic|hybrid legs to run
  :filter year=2020 topicIds=a,b   filters (topicIds personIds entityIds episodeIds collectionId year); ':filter' clears
  :channel <slug>               channel to search                      :top 10   rows per table
  :run <queryId>                run a judged query (--queries), marking relevant segments with *
  :json                         the API response of the last search    :settings  current settings
  :reset                        back to the configured settings        :help  :quit`;

const mmss = (ms: number) => `${Math.floor(ms / 60_000)}:${String(Math.floor(ms / 1000) % 60).padStart(2, '0')}`;
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s).replace(/\s+/g, ' ');
const shortId = (id: string) => id.replace(/^ep_/, '');

function describeHit(hit: LegHit | FusedHit, width = 70): string {
  if (hit.type === 'episode') return `${shortId(hit.episodeId)} [episode] ${clip(hit.episode.title, width)}`;
  const p = hit.passage;
  if (!p) return `${shortId(hit.episodeId)} ${mmss(hit.startMs)} ${hit.id}`;
  return `${shortId(hit.episodeId)} ${mmss(p.startMs)}-${mmss(p.endMs)} ${p.kind === 'transcript' ? '' : `[${p.kind}] `}${clip(p.text, width)}`;
}

interface State {
  channel: string;
  mode: Mode;
  options: Tuning;
  filters: Partial<SearchParams>;
  top: number;
  last?: { query: string; judged?: JudgedQuery; result: SearchResult; trace: SearchTrace };
}

function settingsLine(s: State, local: LocalSearch): string {
  const ranking = tunedRanking(local.config.search, s.options);
  const w = ranking.weights;
  const kw = s.options.keyword ?? {};
  return [
    `channel=${s.channel}`,
    `mode=${s.mode}`,
    `fusion=${ranking.fusion}`,
    `k=${ranking.rrfK}`,
    `w=keyword:${w.keyword},semantic:${w.semantic},title:${w.title}`,
    `candidates=${s.options.candidates ?? local.config.search.candidates}`,
    `fields=${(kw.passageFields ?? DEFAULT_PASSAGE_FIELDS).join(',')}`,
    `efields=${(kw.episodeFields ?? DEFAULT_EPISODE_FIELDS).join(',')}`,
    `type=${kw.type ?? 'most_fields'}`,
    ...(Object.keys(s.filters).length ? [`filters=${JSON.stringify(s.filters)}`] : []),
  ].join('  ');
}

function isRelevant(judged: JudgedQuery | undefined, episodeId: string, startMs: number, endMs: number): string {
  if (!judged) return '';
  return judged.relevant.some((r) => overlaps({ episodeId, startMs, endMs }, r)) ? '*' : ' ';
}

function render(s: State, run: NonNullable<State['last']>, previous: State['last'] | undefined): string {
  const { trace, result, judged } = run;
  const out: string[] = [];
  const mark = (h: LegHit | FusedHit) => (h.type === 'passage' ? isRelevant(judged, h.episodeId, h.startMs, h.passage?.endMs ?? h.startMs) : judged ? ' ' : '');
  for (const leg of trace.legs) {
    out.push(`\n── ${leg.name} leg: ${leg.hits.length} hits ${leg.name === 'semantic' ? '(cosine score (1+cos)/2)' : '(BM25)'}`);
    for (const h of leg.hits.slice(0, s.top)) out.push(`${mark(h)}${String(h.rank).padStart(3)}  ${h.score.toFixed(3).padStart(8)}  ${describeHit(h)}`);
  }
  out.push(`\n── fused: ${trace.fused.length} hits`);
  const prevRank = new Map(previous?.trace.fused.map((h, i) => [`${h.type}:${h.id}`, i + 1]));
  trace.fused.slice(0, s.top).forEach((h, i) => {
    const legs = Object.entries(h.legs)
      .map(([n, l]) => `${n[0]}#${l.rank}`)
      .join(' ');
    const was = prevRank.get(`${h.type}:${h.id}`);
    const move = !previous ? '' : was === undefined ? ' new' : was === i + 1 ? '' : was > i + 1 ? ` ▲${was - i - 1}` : ` ▼${i + 1 - was}`;
    out.push(`${mark(h)}${String(i + 1).padStart(3)}  ${h.fusedScore.toFixed(5)}  ${legs.padEnd(14)} ${describeHit(h, 60)}${move}`);
  });
  out.push(`\n── episodes (the API response, :json for the full body)`);
  const prevEp = new Map(previous?.result.episodes.map((e, i) => [e.episodeId, i + 1]));
  result.episodes.forEach((e, i) => {
    const was = prevEp.get(e.episodeId);
    const move = !previous ? '' : was === undefined ? '  (new)' : was === i + 1 ? '' : `  (was #${was})`;
    out.push(`${String(i + 1).padStart(3)}  ${e.score.toFixed(5)}  ${shortId(e.episodeId)}  [${e.matchedVia.join(',')}]  ${clip(e.title, 60)}${move}`);
    for (const seg of e.segments) {
      out.push(`     ${isRelevant(judged, e.episodeId, seg.startMs, seg.endMs)}${mmss(seg.startMs)} [${seg.matchedVia.join(',')}] ${clip(seg.text, 80)}`);
    }
  });
  if (previous) {
    for (const [id, was] of prevEp) if (!result.episodes.some((e) => e.episodeId === id)) out.push(`     dropped: ${shortId(id)} (was #${was})`);
  }
  if (judged) {
    const sc = judge(rankedSegments(result), judged.relevant);
    const before = previous?.judged?.id === judged.id ? judge(rankedSegments(previous.result), judged.relevant) : undefined;
    const delta = before ? `  (was nDCG ${before.ndcg.toFixed(3)})` : '';
    out.push(`\n   judged ${judged.id}: nDCG@10 ${sc.ndcg.toFixed(3)}  Recall@10 ${sc.recall.toFixed(3)}  RR ${sc.rr.toFixed(3)}${delta}`);
    out.push(`   relevant: ${judged.relevant.map((r) => `${shortId(r.episodeId)} ${mmss(r.startMs)}-${mmss(r.endMs)}`).join(', ')}`);
  }
  const t = trace.timings;
  out.push(`   ${t.totalMs.toFixed(1)} ms (embed ${t.embedMs.toFixed(1)}, _msearch ${t.msearchMs.toFixed(1)}, hydrate ${t.hydrateMs.toFixed(1)})`);
  return out.join('\n');
}

function parseFilters(args: string): Partial<SearchParams> {
  const f: Partial<SearchParams> = {};
  for (const part of args.split(/\s+/).filter(Boolean)) {
    const [name, value = ''] = part.split('=', 2) as [string, string?];
    const list = value.split(',').filter(Boolean);
    if (name === 'year') f.year = Number(value);
    else if (name === 'collectionId') f.collectionId = value;
    else if (name === 'topicIds' || name === 'personIds' || name === 'entityIds' || name === 'episodeIds') f[name] = list;
    else throw new Error(`unknown filter "${name}"`);
  }
  return f;
}

async function interactive(local: LocalSearch, channel: string, judged: Map<string, JudgedQuery>): Promise<void> {
  const s: State = { channel, mode: 'hybrid', options: {}, filters: {}, top: 10 };
  let done = false;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const search = async (query: string, q?: JudgedQuery) => {
    const params: SearchParams = { query, fast: s.mode === 'keyword', limit: 10, publishedOnly: false, ...s.filters };
    const legs = s.mode === 'keyword' ? ['keyword' as const] : s.mode === 'semantic' ? ['semantic' as const] : undefined;
    const { result, trace } = await evalSearch(local.deps, await local.channel(q?.channel ?? s.channel), params, {
      ...s.options,
      ...(legs ? { legs } : {}),
      withText: true, // every leg's text is shown; timings include loading it
    });
    const run = { query, judged: q, result, trace };
    const previous = s.last?.query === query ? s.last : undefined;
    s.last = run;
    console.log(render(s, run, previous));
  };
  const rerun = async () => (s.last ? search(s.last.query, s.last.judged) : undefined);
  console.log(`${HELP}\n\n${settingsLine(s, local)}`);
  const prompt = () => {
    rl.setPrompt(`\nsearch ${s.channel}> `);
    rl.prompt();
  };
  prompt();
  // The async iterator buffers lines, so piped input (a script of queries and commands) works too.
  for await (const raw of rl) {
    const line = raw.trim();
    if (!process.stdin.isTTY) console.log(line); // echo scripted input next to its prompt
    await handle(line);
    if (done) break;
    prompt();
  }
  rl.close();

  async function handle(line: string): Promise<void> {
    if (line === '') return;
    const [cmd = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    try {
      switch (cmd) {
        case ':quit':
        case ':q':
        case ':exit':
          done = true;
          return;
        case ':help':
          console.log(HELP);
          break;
        case ':settings':
          console.log(settingsLine(s, local));
          break;
        case ':reset':
          s.options = {};
          s.filters = {};
          await rerun();
          break;
        case ':k':
        case ':w':
        case ':fields':
        case ':efields':
        case ':candidates':
        case ':type': {
          const name = { ':k': 'k', ':fields': 'fields', ':efields': 'efields', ':candidates': 'candidates', ':type': 'type' }[cmd as ':k'];
          const next = parseSettings(cmd === ':w' ? args : `${name}=${args.replace(/\s+/g, '')}`);
          s.options = {
            ...s.options,
            ...next,
            weights: { ...s.options.weights, ...next.weights },
            keyword: { ...s.options.keyword, ...next.keyword },
          };
          console.log(settingsLine(s, local));
          await rerun();
          break;
        }
        case ':mode':
          if (!(MODES as readonly string[]).includes(args)) throw new Error(`mode: one of ${MODES.join(', ')}`);
          s.mode = args as Mode;
          await rerun();
          break;
        case ':filter':
          s.filters = parseFilters(args);
          console.log(settingsLine(s, local));
          await rerun();
          break;
        case ':channel':
          await local.channel(args);
          s.channel = args;
          s.last = undefined;
          break;
        case ':top':
          s.top = Number(args) || 10;
          break;
        case ':json':
          console.log(JSON.stringify(s.last?.result ?? null, null, 2));
          break;
        case ':run': {
          const q = judged.get(args);
          if (!q) throw new Error(judged.size ? `no judged query "${args}"` : 'start with --queries <file> to run judged queries');
          s.channel = q.channel;
          console.log(`"${q.query}"`);
          await search(q.query, q);
          break;
        }
        default:
          if (cmd.startsWith(':')) throw new Error(`unknown command ${cmd} (:help)`);
          await search(line);
      }
    } catch (err) {
      console.log(`! ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** Per-query nDCG@10 under settings A and B: wins, losses and the queries that moved most. */
async function replay(local: LocalSearch, queries: JudgedQuery[], a: string, b: string, mode: Mode, show: number): Promise<void> {
  const optsA = parseSettings(a);
  const optsB = parseSettings(b);
  const rows: { q: JudgedQuery; a: number; b: number }[] = [];
  let done = 0;
  for (const q of queries) {
    const [ra, rb] = [await local.search(q, mode, optsA), await local.search(q, mode, optsB)];
    rows.push({ q, a: judge(rankedSegments(ra.result), q.relevant).ndcg, b: judge(rankedSegments(rb.result), q.relevant).ndcg });
    if (++done % 25 === 0 || done === queries.length) process.stderr.write(`\r${done}/${queries.length} queries`);
  }
  process.stderr.write('\n');
  const moved = rows.filter((r) => Math.abs(r.b - r.a) > 1e-9).sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a));
  console.log(`A = "${a || 'configured'}"   B = "${b || 'configured'}"   mode ${mode}   nDCG@10 per query (B − A)\n`);
  for (const r of moved.slice(0, show)) {
    const d = r.b - r.a;
    console.log(`${d > 0 ? 'B wins' : 'A wins'}  ${r.a.toFixed(3)} → ${r.b.toFixed(3)}  ${(d > 0 ? '+' : '') + d.toFixed(3)}  ${r.q.id}  ${clip(r.q.query, 70)}`);
  }
  if (moved.length > show) console.log(`… ${moved.length - show} more moved`);
  const mean = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0) / Math.max(1, rows.length);
  const wins = rows.filter((r) => r.b > r.a + 1e-9).length;
  const losses = rows.filter((r) => r.b < r.a - 1e-9).length;
  console.log(
    `\n${rows.length} queries: B wins ${wins}, loses ${losses}, ties ${rows.length - wins - losses}; mean nDCG@10 A ${mean((r) => r.a).toFixed(4)}, B ${mean((r) => r.b).toFixed(4)}`,
  );
}

async function main(): Promise<void> {
  const opts = new Command()
    .name('playground')
    .description('Interactive relevance tuning, or --replay a queries file comparing two settings.')
    .option('--channel <slug>', 'channel to search', 'research-meetings')
    .option('--prefix <prefix>', 'index prefix (default: INDEX_PREFIX)')
    .option('--queries <file>', 'judged queries, for :run <queryId>')
    .option('--replay <file>', 'compare settings --a and --b on every query of the file, then exit')
    .option('--a <settings>', 'settings A, e.g. "k=60"', '')
    .option('--b <settings>', 'settings B, e.g. "k=20 keyword=1.5"', '')
    .addOption(new Option('--mode <mode>', 'legs in replay').choices([...MODES]).default('hybrid'))
    .option('--limit <n>', 'replay n queries spread evenly over the file', positive)
    .option('--show <n>', 'queries listed in replay', positive, 20)
    .parse()
    .opts<{ channel: string; prefix?: string; queries?: string; replay?: string; a: string; b: string; mode: Mode; limit?: number; show: number }>();

  const file = opts.replay ?? opts.queries;
  const queries = file ? evenSubset(parseQueries(await readFile(file, 'utf8')), opts.replay ? opts.limit : undefined) : [];
  const local = await openLocalSearch({ prefix: opts.prefix, withEmbedder: !(opts.replay && opts.mode === 'keyword'), cacheSize: queries.length });
  try {
    if (opts.replay) await replay(local, queries, opts.a, opts.b, opts.mode, opts.show);
    else await interactive(local, opts.channel, new Map(queries.map((q) => [q.id, q])));
  } finally {
    await local.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`playground: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
