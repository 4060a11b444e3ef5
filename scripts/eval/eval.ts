// Relevance harness: runs judged queries through search and prints nDCG@10, Recall@10, MRR and where the top citation lands.
//
//   npm run eval -- --matrix                                  # qmsum and tutorialvqa, with chapters and on speech alone, every mode
//   npm run eval -- --library ../shared/data/tutorialvqa --chapters speech [--mode hybrid] [--set "k=30"]
//   npm run eval -- --queries ../shared/data/qmsum/queries-dev.jsonl --prefix test-qmsum- [--limit 300]
//   npm run eval -- --queries q.jsonl --mode hybrid --api http://127.0.0.1:8080 --key svc_...
//
// With --library / --matrix it loads each library first (idempotent: unchanged episodes are
// skipped, known passage texts re-use their cached vectors) under `eval-<name>-` or, without
// chapters, `eval-<name>-speech-` (a copy of the library with `chapters: []`). Otherwise it
// searches what is loaded under INDEX_PREFIX (or --prefix); with --api it calls a running API
// (no semantic-only mode there: the API has no such switch).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import { createLogger } from '../../core/ground/logger.js';
import { evenSubset, parseQueries, scopedEpisodes, type Scope } from './relevance.js';
import { positive } from '../../bin/lib/cli-args.js';
import { CHAPTER_CONDITIONS, loadEvalLibrary, prepareLibrary, type ChapterCondition, type EvalLibrary } from './libraries.js';
import type { EmbedTexts } from '../../pipeline/enrich/types.js';
import { PROJECT_ROOT } from '../ops/provision/paths.js';
import { openEnrichEmbedder } from './enrich-embedder.js';
import { checkRelated, generatedRelatedInputs, readRelatedInputs } from './related.js';
import { devEpisodes, formatSegmentationTable, measureSegmentation, parseSegmentSettings } from './segmentation-run.js';
import { useProvisionedModel } from '../ops/provision/model.js';
import {
  apiRunner,
  evalConfig,
  evaluate,
  formatRatios,
  formatTable,
  MODES,
  openLocalSearch,
  parseSettings,
  summarize,
  type EvalQuery,
  type LocalSearch,
  type Mode,
  type Row,
  type Runner,
} from './harness.js';

const DATASETS_DIR = join(PROJECT_ROOT, '..', 'shared', 'data');
const MATRIX_SETS = ['qmsum', 'tutorialvqa'];

async function main(): Promise<void> {
  const opts = new Command()
    .name('eval')
    .description('nDCG@10, Recall@10, MRR and landing@1 of search over judged queries (a segment is relevant when it overlaps a relevant time range).')
    .option('--queries <file>', 'JSON lines: {id, channel, query, relevant: [{episodeId, startMs, endMs}]} (default with --library: its queries-dev.jsonl)')
    .option('--library <dir>', 'load this library (idempotently) and evaluate its dev queries')
    .addOption(
      new Option(
        '--chapters <which>',
        "with --library/--matrix: as given, on speech alone (a copy with chapters: []), on speech with generated chapters, moments and topics (marked generated, or as a creator's, or only cutting passages at generated chapter starts: generated-cut), a comma-separated list of them, or all (default: chapters; with --matrix chapters,speech,generated)",
      ),
    )
    .option('--channel <slug>', 'with --library/--matrix: only this channel of each library (a copy; its queries only)')
    .option('--matrix', `every data set of ${MATRIX_SETS.join(' and ')} (from --datasets) in both chapter conditions`)
    .option('--datasets <dir>', 'where --matrix finds the data sets', DATASETS_DIR)
    .option('--mode <modes>', `which legs: ${MODES.join(', ')}, a comma-separated list of them, or all`, 'all')
    .option('--api <baseUrl>', 'evaluate a running API instead of searching in-process')
    .option('--key <key>', 'API key for --api')
    .option('--limit <n>', 'evaluate n queries spread evenly over the file', positive)
    .option('--prefix <prefix>', 'index prefix for in-process runs without --library (default: INDEX_PREFIX)')
    .option('--set <settings>', 'tuning for in-process runs, e.g. "k=30 keyword=1.5 fields=text,chapterTitle^2"', '')
    .addOption(
      new Option('--scope <scope>', 'search the whole channel, or only the episodes holding each answer (moment finding alone)').choices(['channel', 'episode']).default('channel'),
    )
    .option('--concurrency <n>', 'queries in flight', positive, 4)
    .option('--out <file>', 'also write per-query scores as JSON lines')
    .option('--json <file>', 'also write the rows as JSON')
    .option(
      '--segmentation',
      'instead of search: Pk and WindowDiff of generated chapters against the human ones of --library (default qmsum) on its dev split; --limit counts episodes',
    )
    .option('--seg-set <specs>', 'with --segmentation: segmenter settings to compare, separated by "|", e.g. "window=6|window=4 threshold=0.3"', '')
    .option('--related <dirs>', 'instead of search: how /related fares on the topics of these library folders (comma-separated)')
    .option('--lexical', 'with --segmentation: no embedding (lexical cohesion, cues and pauses only)')
    .parse()
    .opts<{
      queries?: string;
      library?: string;
      chapters?: string;
      channel?: string;
      matrix?: boolean;
      datasets: string;
      mode: string;
      api?: string;
      key?: string;
      limit?: number;
      prefix?: string;
      set: string;
      scope: Scope;
      concurrency: number;
      out?: string;
      json?: string;
      segmentation?: boolean;
      segSet: string;
      lexical?: boolean;
      related?: string;
    }>();
  if (opts.related) {
    for (const dir of opts.related.split(',')) {
      process.stdout.write(`${dir} as given: ${JSON.stringify(checkRelated(await readRelatedInputs(dir)))}\n`);
      process.stdout.write(`${dir} generated topics: ${JSON.stringify(checkRelated(await generatedRelatedInputs(dir)))}\n`);
    }
    return;
  }
  if (opts.segmentation) return runSegmentation(opts.library ?? join(opts.datasets, 'qmsum'), opts);

  const log = createLogger({ name: 'eval', level: 'info', fd: 2 });
  const asked = opts.mode === 'all' ? [...MODES] : opts.mode.split(',').map((m) => m.trim());
  const unknown = asked.filter((m) => !(MODES as readonly string[]).includes(m));
  if (unknown.length > 0) throw new Error(`--mode: unknown ${unknown.join(', ')} (${MODES.join(', ')} or all)`);
  let modes = asked as Mode[];
  if (opts.api && modes.includes('semantic')) {
    process.stderr.write('note: semantic-only is in-process only; skipped against --api\n');
    modes = modes.filter((m) => m !== 'semantic');
  }
  const settings = parseSettings(opts.set);

  // What to evaluate: loaded libraries, or a queries file against what is already loaded.
  const chapters = opts.chapters ?? (opts.matrix ? 'chapters,speech,generated' : 'chapters');
  const conditions = (chapters === 'all' ? [...CHAPTER_CONDITIONS] : chapters === 'both' ? ['chapters', 'speech'] : chapters.split(',').map((c) => c.trim())) as ChapterCondition[];
  const wrong = conditions.filter((c) => !CHAPTER_CONDITIONS.includes(c));
  if (wrong.length > 0) throw new Error(`--chapters: unknown ${wrong.join(', ')} (${CHAPTER_CONDITIONS.join(', ')}, both or all)`);
  let enrichEmbedder: Promise<EmbedTexts> | undefined;
  const embed = () => (enrichEmbedder ??= openEnrichEmbedder().then((e) => e.embed));
  const sources = opts.matrix ? MATRIX_SETS.map((n) => join(opts.datasets, n)) : opts.library ? [opts.library] : [];
  const targets: Array<{ label: string; queries: string; prefix?: string; lib?: EvalLibrary }> = [];
  if (sources.length > 0) {
    if (opts.api) throw new Error('--library and --matrix load libraries in-process; use --queries with --api');
    for (const source of sources) {
      for (const condition of conditions) {
        const lib = await prepareLibrary(source, condition, { log, channel: opts.channel, embed });
        targets.push({ label: `${lib.name} ${condition}`, queries: opts.queries ?? lib.queries, prefix: lib.prefix, lib });
      }
    }
  } else {
    if (!opts.queries) throw new Error('give --queries, --library or --matrix');
    targets.push({ label: opts.queries, queries: opts.queries, prefix: opts.prefix });
  }

  const rows: Row[] = [];
  const perQuery: string[] = [];
  if (opts.scope === 'episode') for (const target of targets) target.label += ', in its episode';
  for (const target of targets) {
    if (target.lib) {
      await useProvisionedModel('eval');
      await loadEvalLibrary(target.lib, evalConfig(target.lib.prefix), log);
    }
    const all = parseQueries(await readFile(target.queries, 'utf8')).filter((q) => !opts.channel || q.channel === opts.channel);
    const queries: EvalQuery[] = evenSubset(all, opts.limit).map((q) => ({
      ...q,
      episodeIds: scopedEpisodes(q, opts.scope),
    }));
    let local: LocalSearch | undefined;
    let run: Runner;
    if (opts.api) {
      run = apiRunner(opts.api, opts.key);
    } else {
      local = await openLocalSearch({ prefix: target.prefix, withEmbedder: modes.some((m) => m !== 'keyword'), cacheSize: queries.length });
      const targetSettings = settings;
      run = async (q, mode) => (await local!.search(q, mode, targetSettings)).result;
    }
    try {
      for (const mode of modes) {
        const bar = new SingleBar({ format: `${target.label} ${mode.padEnd(8)} [{bar}] {value}/{total} queries | {duration}s`, stream: process.stderr });
        bar.start(queries.length, 0);
        const t = Date.now();
        const judged = await evaluate(queries, mode, run, { concurrency: opts.concurrency, onDone: () => bar.increment() });
        bar.stop();
        rows.push(summarize(target.label, mode, judged, (Date.now() - t) / 1000));
        log.info({ row: rows[rows.length - 1] }, 'evaluated');
        judged.forEach((j, i) => perQuery.push(JSON.stringify({ library: target.label, mode, id: queries[i]!.id, ...j })));
      }
    } finally {
      await local?.close();
    }
  }
  process.stdout.write(`${formatTable(rows)}\n\n${formatRatios(rows)}\nsettings: ${opts.set || 'configured defaults'}\n`);
  if (opts.out) await writeFile(opts.out, perQuery.join('\n') + '\n');
  if (opts.json) await writeFile(opts.json, JSON.stringify({ settings: opts.set || 'configured defaults', rows }, null, 2) + '\n');
}

/** `--segmentation`: the table of Pk and WindowDiff (and the baselines) on the library's dev split. */
async function runSegmentation(dir: string, opts: { limit?: number; segSet: string; lexical?: boolean; json?: string; channel?: string }): Promise<void> {
  const episodes = await devEpisodes(dir, opts.limit, opts.channel);
  const settings = (opts.segSet || '').split('|').map((spec) => ({ ...parseSegmentSettings(spec), ...(opts.lexical ? { semanticShare: 0 } : {}) }));
  const opened = opts.lexical ? undefined : await openEnrichEmbedder();
  const embed = opened?.embed ?? (async (texts: string[]) => texts.map(() => [0]));
  const t = Date.now();
  const rows = await measureSegmentation(episodes, embed, settings);
  process.stdout.write(`${formatSegmentationTable(rows)}\n${episodes.length} episodes in ${((Date.now() - t) / 1000).toFixed(1)} s, ${opened?.count() ?? 0} texts embedded\n`);
  if (opts.json) await writeFile(opts.json, JSON.stringify({ library: dir, rows }, null, 2) + '\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`eval: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
