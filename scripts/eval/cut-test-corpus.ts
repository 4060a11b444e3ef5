// Cuts the compact test corpus (test/data/qmsum-cut/) out of the qmsum data set: a few whole meetings, gzipped.
//
//   npx tsx scripts/eval/cut-test-corpus.ts [--from ../shared/data/qmsum] [--to test/data/qmsum-cut]
//
// The output is byte-identical for the same input (gzip without a timestamp, fixed order),
// so re-running it on an unchanged data set leaves git clean. test/data/qmsum-cut/README.md
// (written by hand) says where the data comes from and why each meeting is in.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Command } from 'commander';
import { PROJECT_ROOT } from '../ops/provision/paths.js';

const gzipAsync = promisify(gzip);

/**
 * The meetings, and what each one gives the suites that read the corpus: every episode
 * status of the spec in a paid channel, an archived episode that shares its topics with
 * published ones, two titles that answer "belief net structure", facets that differ
 * between episodes, and all four channels. About 700 passages: under a minute to embed.
 */
export const CORPUS_EPISODES = [
  'ep_bdb001', // research, published: NIST's ATLAS and XML formats (the first dev query, the hostile-input suite's episode)
  'ep_bed003', // research, published: "Belief net structure", topic tp_meeting-preliminaries
  'ep_bed012', // research, published: "Belief-net structure", a second title match
  'ep_bro014', // research, indexed: a draft, with topic tp_aurora-updates
  'ep_is1001a', // product, pending
  'ep_es2010a', // product, processing
  'ep_ts3006a', // product, failed
  'ep_es2015d', // product, archived: shares four topics with es2016d and ts3010d
  'ep_es2016d', // product, published
  'ep_ts3010d', // product, published
  'ep_education-19', // committee hearings, published
  'ep_free-es2002a', // free-plan-demo (owner on the free plan), published
] as const;

interface Named {
  id: string;
}

const program = new Command()
  .name('cut-test-corpus')
  .description('Write the compact test corpus from the qmsum data set.')
  .option('--from <dir>', 'the qmsum library', join(PROJECT_ROOT, '..', 'shared', 'data', 'qmsum'))
  .option('--to <dir>', 'where to write it', join(PROJECT_ROOT, 'test', 'data', 'qmsum-cut'))
  .parse();
const opts = program.opts<{ from: string; to: string }>();

const json = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, 'utf8')) as T;
const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

async function main(): Promise<void> {
  const from = resolve(opts.from);
  const to = resolve(opts.to);
  const wanted = new Set<string>(CORPUS_EPISODES);
  await rm(join(to, 'episodes'), { recursive: true, force: true });
  await mkdir(join(to, 'episodes'), { recursive: true });

  const used = { topicIds: new Set<string>(), personIds: new Set<string>(), collectionIds: new Set<string>() };
  let bytes = 0;
  for (const id of CORPUS_EPISODES) {
    // The file as the data set has it (not re-serialised), so the cut is the data set's own bytes.
    const raw = await readFile(join(from, 'episodes', `${id}.json`));
    const record = JSON.parse(raw.toString('utf8')) as Record<keyof typeof used, string[] | undefined>;
    for (const key of Object.keys(used) as (keyof typeof used)[]) for (const v of record[key] ?? []) used[key].add(v);
    const packed = await gzipAsync(raw, { level: 9 });
    await writeFile(join(to, 'episodes', `${id}.json.gz`), packed);
    bytes += packed.length;
  }

  // Users and channels whole (four channels, six users); facet names only where an episode uses them.
  await writeFile(join(to, 'users.json'), pretty(await json(join(from, 'users.json'))));
  await writeFile(join(to, 'channels.json'), pretty(await json(join(from, 'channels.json'))));
  for (const [file, ids] of [
    ['topics.json', used.topicIds],
    ['people.json', used.personIds],
    ['collections.json', used.collectionIds],
  ] as const) {
    await writeFile(join(to, file), pretty((await json<Named[]>(join(from, file))).filter((f) => ids.has(f.id))));
  }

  // Dev queries whose every relevant range lies in the cut, lines as the data set has them.
  const queries = (await readFile(join(from, 'queries-dev.jsonl'), 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => (JSON.parse(line) as { relevant: { episodeId: string }[] }).relevant.every((r) => wanted.has(r.episodeId)));
  await writeFile(join(to, 'queries-dev.jsonl'), queries.map((l) => `${l}\n`).join(''));

  process.stdout.write(`${CORPUS_EPISODES.length} episodes (${(bytes / 1024).toFixed(0)} KiB gzipped), ${queries.length} dev queries → ${to}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`cut-test-corpus: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
