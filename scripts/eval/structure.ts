// What local enrichment generates, on a fixed labelled sample (issue 48 item 6):
//   npm run eval:structure -- --label <label> [--llm] [--keep]     enrich a stripped copy of the sample, write runs/<label>.json
//   npm run eval:structure -- --count scripts/eval/structure/runs/<label>.json
// The count joins a run with labels.jsonl (RULES.md says how an item is judged) and stops, listing them, while any item
// has no label: an unlabelled item is never counted as good or bad.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Command } from 'commander';
import { format, resolveConfig } from 'prettier';
import { commandConfig, reachHttp } from '../../bin/lib/reach.js';
import type { FacetRecord } from '../../core/contract/library-format.js';
import { createLogger } from '../../core/ground/logger.js';
import { FACET_FILES } from '../../core/library/layout.js';
import { readEpisodeRecord, readRecordArray } from '../../core/library/reader.js';
import { enrichLibrary } from '../../pipeline/enrich/library.js';
import { createStages } from '../../pipeline/enrich/stages.js';
import { PROJECT_ROOT } from '../ops/provision/paths.js';
import { episodeItems, type EpisodeItems, type Group, type StructureRun } from './structure/items.js';
import { figures, formatTable, joinLabels, labelStub, LabelError, parseLabels, runItems, scopesOf } from './structure/measure.js';
import { GROUP_OF_PART, sampleDataset, writeSampleLibrary, type DatasetSample } from './structure/sample.js';

const HERE = join(PROJECT_ROOT, 'scripts', 'eval', 'structure');
const LABELS = join(HERE, 'labels.jsonl');
const DATASETS = ['qmsum', 'tutorialvqa'] as const;

const program = new Command()
  .name('eval:structure')
  .description('Enrich a fixed sample of dev episodes (chapters, moments, topics, people, entities stripped) and write what was generated; or count a run against the hand labels.')
  .option('--label <label>', 'name of the run: writes scripts/eval/structure/runs/<label>.json')
  .option('--count <run>', 'a run file to join with the labels and count; exit 1 (listing them) while an item has no label')
  .option('--labels <file>', 'the labels', LABELS)
  .option('--data <dir>', 'folder of the data sets (qmsum, tutorialvqa)', join(PROJECT_ROOT, '..', 'shared', 'data'))
  .option('--llm', 'titles and claims by the chat model ENRICH_URL names (default: none, the local method)')
  .option('--keep', 'keep the temporary library and print where it is')
  .showHelpAfterError()
  .parse();

const opts = program.opts<{ label?: string; count?: string; labels: string; data: string; llm?: boolean; keep?: boolean }>();

/** The commit the code is at, and whether what enrichment runs (pipeline/, core/) differs from it. */
function codeState(): { commit: string; dirty: boolean } {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' }).stdout.trim();
  return { commit: git('rev-parse', 'HEAD'), dirty: git('status', '--porcelain', '--', 'pipeline', 'core') !== '' };
}

/** The names of a library's facet file by id. */
async function namesOf(dir: string, file: string): Promise<Map<string, string>> {
  return new Map((await readRecordArray<FacetRecord>(join(dir, file))).map((f) => [f.id, f.name]));
}

/** The items of the enriched copy of one data set's sample. */
async function itemsOf(sample: DatasetSample, copy: string): Promise<EpisodeItems[]> {
  const [topics, people, entities] = await Promise.all(['topic', 'person', 'entity'].map((kind) => namesOf(copy, FACET_FILES.find((f) => f.kind === kind)!.file)));
  const out: EpisodeItems[] = [];
  for (const { part, record } of sample.picked) {
    const made = await readEpisodeRecord(copy, record.id);
    const names = (ids: readonly string[] | undefined, of: Map<string, string>) => (ids ?? []).map((id) => of.get(id) ?? id);
    out.push(
      episodeItems({
        dataset: sample.dataset,
        group: GROUP_OF_PART[part],
        source: { ...record, segments: record.transcript?.segments ?? [] },
        generated: { chapters: made?.chapters ?? [] },
        names: { topics: names(made?.topicIds, topics!), people: names(made?.personIds, people!), entities: names(made?.entityIds, entities!) },
      }),
    );
  }
  return out;
}

async function run(label: string): Promise<void> {
  if (!/^[\w.-]+$/.test(label)) throw new Error(`--label ${JSON.stringify(label)}: letters, digits, '.', '_' and '-' only (it names a file)`);
  const started = Date.now();
  const config = commandConfig();
  const log = createLogger({ name: 'eval-structure', level: config.logLevel, fd: 2 });
  const notes: string[] = [];
  if (opts.llm && !config.enrich.url) throw new Error('--llm: ENRICH_URL names no chat model service');
  // The names need the NER service; measured only when it answers, and the run says so when it did not.
  let nerUrl = config.enrich.nerUrl;
  if (nerUrl) {
    try {
      await reachHttp({ what: 'the NER service', url: nerUrl, variable: 'NER_URL' });
    } catch (err) {
      notes.push(`people and entities not measured: ${(err as Error).message}`);
      nerUrl = undefined;
    }
  } else notes.push('people and entities not measured: no NER service (NER_URL unset, no local transcription service running)');
  if (nerUrl) notes.push(`people and entities by the NER service at ${nerUrl}`);
  notes.push(opts.llm ? `titles and claims by the chat model at ${config.enrich.url}` : 'no language model: titles and claims by the local method');
  notes.push("titles and topics use this sample's own channel statistics (a small library), not the whole channel's");
  const stages = await createStages({ ...config, enrich: { ...config.enrich, url: opts.llm ? config.enrich.url : undefined, nerUrl } }, { log });

  const tmp = await mkdtemp(join(tmpdir(), 'structure-eval-'));
  const episodes: EpisodeItems[] = [];
  const sample: Record<Group, string[]> = { meetings: [], hearings: [], tutorials: [] };
  try {
    for (const dataset of DATASETS) {
      const picked = await sampleDataset(join(opts.data, dataset), dataset);
      for (const { part, record } of picked.picked) sample[GROUP_OF_PART[part]].push(record.id);
      const copy = join(tmp, dataset);
      await writeSampleLibrary(picked, copy);
      process.stderr.write(`eval:structure: enriching ${picked.picked.length} ${dataset} episodes\n`);
      const summary = await enrichLibrary({ dir: copy, stages: stages.stages, log });
      for (const f of summary.failed) notes.push(`${f.id}: enrichment failed: ${f.reason}`);
      for (const r of summary.refused) notes.push(`${r.id}: not enriched: ${r.reason}`);
      for (const n of summary.notes) notes.push(`${n.id}: ${n.note}`);
      episodes.push(...(await itemsOf(picked, copy)));
    }
  } finally {
    if (opts.keep) process.stderr.write(`eval:structure: the enriched sample library is kept at ${tmp}\n`);
    else await rm(tmp, { recursive: true, force: true });
  }
  const result: StructureRun = {
    label,
    createdAt: new Date().toISOString(),
    ...codeState(),
    llm: opts.llm ?? false,
    namesMeasured: nerUrl !== undefined,
    notes,
    seconds: Math.round((Date.now() - started) / 1000),
    sample,
    episodes,
  };
  const out = join(HERE, 'runs', `${label}.json`);
  await mkdir(join(HERE, 'runs'), { recursive: true });
  // Formatted as the repository's Prettier keeps JSON, so a committed run passes `npm run lint`.
  await writeFile(out, await format(JSON.stringify(result), { ...(await resolveConfig(out)), filepath: out }));
  const items = runItems(episodes);
  const by = (kind: string) => items.filter((i) => i.kind === kind).length;
  process.stderr.write(
    `eval:structure: ${episodes.length} episodes in ${result.seconds} s: ${by('title')} titles, ${by('moment')} moments, ${by('topic')} topics, ${by('person')} people, ${by('entity')} entities -> ${out}\n` +
      notes.map((n) => `  ${n}\n`).join(''),
  );
}

async function count(file: string): Promise<number> {
  const result = JSON.parse(await readFile(file, 'utf8')) as StructureRun;
  const labels = parseLabels(await readFile(opts.labels, 'utf8').catch(() => ''));
  const joined = joinLabels(runItems(result.episodes), labels);
  const missing = joined.filter((j) => 'missing' in j);
  if (missing.length > 0) {
    process.stderr.write(`eval:structure: ${missing.length} of ${joined.length} items of ${basename(file)} have no label that counts; nothing is counted until they do.\n`);
    process.stderr.write(`Each is below as a line for ${opts.labels}: fill in the verdicts (true/false) by RULES.md, then count again.\n`);
    for (const j of missing) process.stdout.write(`${JSON.stringify({ ...labelStub(j.item, labels.get(j.item.key)), missing: j.missing })}\n`);
    return 1;
  }
  const labelled = joined.filter((j): j is Extract<typeof j, { label: unknown }> => 'label' in j);
  const columns = scopesOf(result).map(({ name, test }) => ({
    name,
    figures: figures(
      labelled.filter((j) => test(j.item)),
      result.episodes.filter(test).length,
    ),
  }));
  const tutorials = result.episodes.filter((e) => e.group === 'tutorials');
  const tutorialNames = tutorials.reduce((n, e) => n + e.people.length + e.entities.length, 0);
  process.stdout.write(
    `${result.label} (${result.createdAt.slice(0, 10)}, ${result.commit.slice(0, 7)}${result.dirty ? ' with changes' : ''}; ${result.llm ? 'chat model' : 'no language model'}; ${result.seconds} s)\n\n` +
      `${formatTable(columns, { namesMeasured: result.namesMeasured })}\n\n` +
      (result.namesMeasured
        ? `tutorial channel: ${tutorialNames} people and entities over ${tutorials.length} videos (${tutorials.reduce((n, e) => n + e.people.length, 0)} people, ${tutorials.reduce((n, e) => n + e.entities.length, 0)} entities; target: none)\n`
        : 'people and entities were not measured (no NER service reachable in this run)\n') +
      result.notes.map((n) => `note: ${n}\n`).join(''),
  );
  return 0;
}

async function main(): Promise<number> {
  if (opts.count) return count(resolve(opts.count));
  if (!opts.label) return program.error('give --label <label> for a run, or --count <run.json>');
  await run(opts.label);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`eval:structure: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(err instanceof LabelError ? 2 : 1);
  },
);
