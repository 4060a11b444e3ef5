// The structure eval's sample: dev episodes picked by a hash of their id, copied into a library of their own with
// everything enrichment generates taken out, so that what the run finds there is what enrichment made.
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EpisodeRecord } from '../../../core/library/checks.js';
import { EPISODES_DIR, FACET_FILES } from '../../../core/library/layout.js';
import { readEpisodeRecord, readEpisodes, readLibraryMeta } from '../../../core/library/reader.js';
import type { Group } from './items.js';

/** How many episodes each part of the sample takes: at least 3 meetings of each kind and 8 tutorials, and 60 titles in all. */
export const SAMPLE_SIZES = { product: 3, research: 3, hearings: 4, tutorials: 10 } as const;
export type SamplePart = keyof typeof SAMPLE_SIZES;

/** The part of the sample a channel's episodes belong to, by its slug; the rest (free-plan-demo: copies of train meetings under new ids) is never sampled. */
const PART_OF_CHANNEL: Record<string, SamplePart> = {
  'product-meetings': 'product',
  'research-meetings': 'research',
  'committee-hearings': 'hearings',
  'photo-tutorials': 'tutorials',
};

export const GROUP_OF_PART: Record<SamplePart, Group> = { product: 'meetings', research: 'meetings', hearings: 'hearings', tutorials: 'tutorials' };

const sha1 = (id: string) => createHash('sha1').update(id).digest('hex');

/**
 * Whether an episode is on the dev side: train or val in `splits.json` (qmsum); for a data set without one
 * (tutorialvqa), sha1 of the id even, the rule its queries were split by (shared/data/README.md).
 */
export function isDev(id: string, splits: Readonly<Record<string, string>> | undefined): boolean {
  if (splits) return splits[id] === 'train' || splits[id] === 'val';
  return parseInt(sha1(id).slice(-1), 16) % 2 === 0;
}

/** The first `n` ids in the order of their sha1: spread over the set, the same every run, and chosen by no one. */
export function pickByHash(ids: readonly string[], n: number): string[] {
  return [...ids].sort((a, b) => (sha1(a) < sha1(b) ? -1 : sha1(a) > sha1(b) ? 1 : 0)).slice(0, n);
}

/** One data set's part of the sample: the source records picked, by part. */
export interface DatasetSample {
  dataset: string;
  dir: string;
  picked: { part: SamplePart; record: EpisodeRecord }[];
}

/** The dev episodes of a data set folder picked for the sample, with at least ten segments of speech. */
export async function sampleDataset(dir: string, dataset: string, sizes: Readonly<Record<SamplePart, number>> = SAMPLE_SIZES): Promise<DatasetSample> {
  const splits = await readFile(join(dir, 'splits.json'), 'utf8').then(
    (t) => JSON.parse(t) as Record<string, string>,
    () => undefined,
  );
  const meta = await readLibraryMeta(dir);
  const partOf = new Map(meta.channels.flatMap((c) => (PART_OF_CHANNEL[c.slug] ? [[c.id, PART_OF_CHANNEL[c.slug]!] as const] : [])));
  // Ids only: a data set's transcripts are not all held at once; the picked records are read again below.
  const byPart = new Map<SamplePart, string[]>();
  for await (const { record } of readEpisodes(dir, { channelIds: new Set(partOf.keys()), onIssue: () => undefined })) {
    if (!isDev(record.id, splits) || (record.transcript?.segments.length ?? 0) < 10) continue;
    const part = partOf.get(record.channelId)!;
    byPart.set(part, [...(byPart.get(part) ?? []), record.id]);
  }
  const picked: DatasetSample['picked'] = [];
  for (const part of Object.keys(SAMPLE_SIZES) as SamplePart[]) {
    for (const id of pickByHash(byPart.get(part) ?? [], sizes[part]).sort()) {
      const record = await readEpisodeRecord(dir, id);
      if (record) picked.push({ part, record });
    }
  }
  return { dataset, dir, picked };
}

/** The record with nothing enrichment makes: no chapters (so no moments), topics, people or entities. */
export function stripped(record: EpisodeRecord): EpisodeRecord {
  return { ...record, chapters: [], topicIds: [], personIds: [], entityIds: [] };
}

/**
 * Writes the sample of one data set as a library at `to`: the source's top-level `.json` files, the facet files emptied
 * (a name the library knew would keep its known id and spelling, and people.json holds the hearings' speakers), and
 * the picked episodes stripped.
 */
export async function writeSampleLibrary(sample: DatasetSample, to: string): Promise<void> {
  await mkdir(join(to, EPISODES_DIR), { recursive: true });
  for (const name of await readdir(sample.dir)) if (name.endsWith('.json')) await copyFile(join(sample.dir, name), join(to, name));
  for (const { kind, file } of FACET_FILES) if (kind !== 'collection') await writeFile(join(to, file), '[]\n');
  for (const { record } of sample.picked) await writeFile(join(to, EPISODES_DIR, `${record.id}.json`), `${JSON.stringify(stripped(record))}\n`);
}
