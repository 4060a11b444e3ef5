// Enrichment of a library folder (decisions 25 and 27): what an episode lacks of chapters, topics, people and entities
// is generated from its transcript and written back into the folder, marked `generated`; the creator's own data is
// never touched. `ingest` stays a loader: a rebuild from the folder needs no model.
import { constants } from 'node:fs';
import { access, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { EpisodeRecord, FacetRecord } from '../../src/contract/library-format.js';
import type { Logger } from '../../src/ground/logger.js';
import { countEpisodes, listEpisodeFiles, readLibraryMeta, readLines } from '../../indexer/library-reader.js';
import { checkEpisode } from '../../indexer/schemas.js';
import type { EnrichSegment, GeneratedChapter, GeneratedFacet } from './types.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** The facet kinds enrichment fills, with the episode field and the library file of each. */
export const FACET_KINDS = [
  { kind: 'topics', field: 'topicIds', file: 'topics.json' },
  { kind: 'people', field: 'personIds', file: 'people.json' },
  { kind: 'entities', field: 'entityIds', file: 'entities.json' },
] as const;
export type FacetKindName = (typeof FACET_KINDS)[number]['kind'];

/** What a generator is asked to make for one episode: only what the episode lacks (or what `--force` regenerates). */
export interface Wanted {
  chapters: boolean;
  topics: boolean;
  people: boolean;
  entities: boolean;
}

/** What a generator made; a kind not asked for is left out. */
export interface Generated {
  chapters?: GeneratedChapter[];
  topics?: GeneratedFacet[];
  people?: GeneratedFacet[];
  entities?: GeneratedFacet[];
}

export interface GenerateInput {
  episodeId: string;
  title: string;
  description: string | null;
  /** BCP 47 of the speech: the episode's, else its channel's, else `en`. */
  language: string;
  segments: EnrichSegment[];
  want: Wanted;
}

/** Makes chapters, topics, people and entities of one transcript (see stages.ts). Deterministic for a given input. */
export type Generate = (input: GenerateInput, signal?: AbortSignal) => Promise<Generated>;

/** Why an episode was not enriched (a refusal the summary and the CLI print). */
export class EnrichRefusal extends Error {
  override name = 'EnrichRefusal';
}

/** Ids of the facet names a library marks generated. */
export type GeneratedIds = ReadonlySet<string>;

/**
 * What the episode lacks, by the rule "the creator's data wins": chapters are generated when the episode has none
 * (or only generated ones, under `force`); a facet list likewise when it is empty (or holds only generated ids, under
 * `force`). Any chapter without `generated`, or any facet id not marked generated, keeps that field untouched.
 */
export function wantedFor(record: EpisodeRecord, generatedIds: GeneratedIds, { force = false } = {}): Wanted {
  const chapters = record.chapters ?? [];
  const facet = (ids: readonly string[] | undefined): boolean => {
    const list = ids ?? [];
    if (list.length === 0) return true;
    return force && list.every((id) => generatedIds.has(id));
  };
  return {
    chapters: chapters.length === 0 || (force && chapters.every((c) => (c as { generated?: boolean }).generated === true)),
    topics: facet(record.topicIds),
    people: facet(record.personIds),
    entities: facet(record.entityIds),
  };
}

const nothingWanted = (w: Wanted) => !w.chapters && !w.topics && !w.people && !w.entities;

/** The language enrichment reads an episode in. */
export const languageOf = (record: EpisodeRecord & { language?: string | null }, channelLanguage: string | null | undefined): string =>
  (record.language || channelLanguage || 'en').toLowerCase();

/** Refuses what cannot be enriched, with a sentence: no transcript, or a transcript without speech. */
export function speechOf(record: EpisodeRecord): EnrichSegment[] {
  const segments = (record.transcript?.segments ?? []).filter((s) => s.text.trim() !== '');
  if (!record.transcript) throw new EnrichRefusal('it has no transcript yet');
  if (segments.length === 0) throw new EnrichRefusal('its transcript holds no speech');
  return segments;
}

/**
 * The episode with what was generated put in: chapters as made; facet ids in the generator's order. A field the
 * generator was not asked for stays as it was; an empty answer leaves the field as it was (nothing is erased).
 */
export function applyGenerated(record: EpisodeRecord, want: Wanted, made: Generated): EpisodeRecord {
  const next: EpisodeRecord & Record<string, unknown> = { ...record };
  if (want.chapters && made.chapters && made.chapters.length > 0) next.chapters = made.chapters;
  for (const { kind, field } of FACET_KINDS) {
    const facets = made[kind];
    if (want[kind] && facets && facets.length > 0) next[field] = facets.map((f) => f.id);
  }
  return next;
}

/** Enriches one record: the same record when nothing is wanted or nothing was made. */
export async function enrichRecord(
  record: EpisodeRecord & { language?: string | null },
  {
    generate,
    generatedIds,
    channelLanguage,
    force = false,
    signal,
  }: { generate: Generate; generatedIds: GeneratedIds; channelLanguage?: string | null; force?: boolean; signal?: AbortSignal },
): Promise<{ record: EpisodeRecord; made: Generated; want: Wanted }> {
  const want = wantedFor(record, generatedIds, { force });
  if (nothingWanted(want)) return { record, made: {}, want };
  const segments = speechOf(record);
  const made = await generate(
    { episodeId: record.id, title: record.title, description: record.description ?? null, language: languageOf(record, channelLanguage), segments, want },
    signal,
  );
  return { record: applyGenerated(record, want, made), made, want };
}

/** Serialises like the rest of the library's writers: two-space JSON and a final newline. */
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Writes a file whole or not at all (a temporary sibling renamed over it): a failed run never leaves half a file. */
async function writeAtomic(path: string, data: string | Buffer): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.enrich-${process.pid}.tmp`);
  try {
    await writeFile(temp, data);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** One episode file and the records it holds (one for `.json`, each line for `.jsonl`). */
interface EpisodeFile {
  path: string;
  /** Raw lines of a `.jsonl` file (blank and broken ones kept as they are), or the one record of a `.json` file. */
  lines: string[];
  jsonl: boolean;
  gz: boolean;
}

async function readEpisodeFile(path: string): Promise<EpisodeFile> {
  const gz = path.endsWith('.gz');
  const jsonl = /\.jsonl(\.gz)?$/.test(path);
  if (jsonl) {
    const lines: string[] = [];
    for await (const line of readLines(path)) lines.push(line);
    return { path, lines, jsonl, gz };
  }
  const raw = await readFile(path);
  return { path, lines: [(gz ? await gunzipAsync(raw) : raw).toString('utf8')], jsonl, gz };
}

async function writeEpisodeFile(file: EpisodeFile): Promise<void> {
  const text = file.jsonl ? `${file.lines.join('\n')}\n` : file.lines[0]!;
  // gzip's header carries no time from Node's zlib: the same text gives the same bytes.
  await writeAtomic(file.path, file.gz ? await gzipAsync(Buffer.from(text, 'utf8'), { level: 9 }) : text);
}

/** The record of a line, re-serialised the way the file holds its records. */
const serialise = (file: EpisodeFile, record: EpisodeRecord) => (file.jsonl ? JSON.stringify(record) : json(record));

export interface EnrichLibraryOptions {
  dir: string;
  generate: Generate;
  /** Only this channel (its slug or id). */
  channel?: string | undefined;
  /** Only this episode (its id). */
  episode?: string | undefined;
  /** Regenerate what was generated before (never the creator's data). */
  force?: boolean;
  /** Say what would change; write nothing. */
  dryRun?: boolean;
  log?: Logger | undefined;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface EnrichSummary {
  /** Episodes of the selection that were looked at. */
  episodes: number;
  /** Episodes given something generated (or that would be, in a dry run). */
  enriched: string[];
  /** Episodes that already had all they could have (the creator's or an earlier run's). */
  unchanged: number;
  /** Episodes not enriched, with the reason (no transcript yet, no speech). */
  refused: { id: string; reason: string }[];
  /** Episodes whose enrichment failed (the rest goes on). */
  failed: { id: string; reason: string }[];
  /** Facet names added per kind. */
  facets: Record<FacetKindName, number>;
  /** Files written (none in a dry run). */
  written: string[];
}

/** Refuses a library folder the run could not write back into (call it before any model loads). */
export async function assertWritable(dir: string): Promise<void> {
  await checkWritable([dir, join(dir, 'episodes'), ...(await listEpisodeFiles(dir)), ...FACET_KINDS.map((k) => join(dir, k.file))]);
}

async function checkWritable(paths: string[]): Promise<void> {
  for (const path of paths) {
    try {
      await access(path, constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      throw new EnrichRefusal(`${path} is not writable (${code}): enrichment writes into the library folder; nothing was changed`);
    }
  }
}

/**
 * Enriches a library folder. Each episode file is read, its records enriched one at a time, and rewritten only when a
 * record changed; facet names are added to `topics.json`, `people.json` and `entities.json` (existing entries kept as
 * they are, new ones after them in id order). A second run finds nothing wanted and writes nothing.
 */
export async function enrichLibrary(opts: EnrichLibraryOptions): Promise<EnrichSummary> {
  const { dir, generate, force = false, dryRun = false, log, signal } = opts;
  const meta = await readLibraryMeta(dir);
  for (const issue of meta.issues) log?.warn({ path: issue.path, reason: issue.reason }, 'library issue');
  if (meta.channels.length === 0) throw new EnrichRefusal(`${dir} holds no readable channel (channels.json): is it a library folder?`);
  const channel = opts.channel ? meta.channels.find((c) => c.slug === opts.channel || c.id === opts.channel) : undefined;
  if (opts.channel && !channel) throw new EnrichRefusal(`no channel ${JSON.stringify(opts.channel)} in ${dir}/channels.json`);
  const channels = new Map(meta.channels.map((c) => [c.id, c]));
  const generatedIds = new Set(meta.facets.filter((f) => (f.record as { generated?: boolean }).generated === true).map((f) => f.record.id));
  const known = new Set(meta.facets.map((f) => f.record.id));
  const files = await listEpisodeFiles(dir);
  const total = opts.onProgress ? await countEpisodes(dir) : 0;
  if (!dryRun) await assertWritable(dir);

  const summary: EnrichSummary = { episodes: 0, enriched: [], unchanged: 0, refused: [], failed: [], facets: { topics: 0, people: 0, entities: 0 }, written: [] };
  const added: Record<FacetKindName, Map<string, GeneratedFacet>> = { topics: new Map(), people: new Map(), entities: new Map() };
  let done = 0;
  for (const path of files) {
    signal?.throwIfAborted();
    const file = await readEpisodeFile(path);
    let changed = false;
    for (let i = 0; i < file.lines.length; i++) {
      const text = file.lines[i]!;
      if (text.trim() === '') continue;
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        continue; // ingest reports a broken record; enrichment leaves it as it is
      }
      const checked = checkEpisode(data);
      if (!checked.ok) continue;
      const record = checked.value as EpisodeRecord & { language?: string | null };
      const ch = channels.get(record.channelId);
      if (!ch || (channel && ch.id !== channel.id) || (opts.episode && record.id !== opts.episode)) continue;
      summary.episodes++;
      try {
        const out = await enrichRecord(record, { generate, generatedIds, channelLanguage: ch.language ?? null, force, ...(signal ? { signal } : {}) });
        if (out.record === record || JSON.stringify(out.record) === JSON.stringify(record)) {
          summary.unchanged++;
        } else {
          summary.enriched.push(record.id);
          file.lines[i] = serialise(file, out.record);
          changed = true;
          for (const { kind } of FACET_KINDS) {
            if (!out.want[kind]) continue;
            for (const f of out.made[kind] ?? []) if (!known.has(f.id) && !added[kind].has(f.id)) added[kind].set(f.id, f);
          }
        }
      } catch (err) {
        signal?.throwIfAborted();
        if (err instanceof EnrichRefusal) summary.refused.push({ id: record.id, reason: err.message });
        else {
          summary.failed.push({ id: record.id, reason: (err as Error).message });
          log?.warn({ episodeId: record.id, err }, 'enrichment failed');
        }
      }
      opts.onProgress?.(++done, total);
    }
    if (changed && !dryRun) {
      await writeEpisodeFile(file);
      summary.written.push(path);
    }
  }
  if (opts.episode && summary.episodes === 0) throw new EnrichRefusal(`no episode ${JSON.stringify(opts.episode)} in ${dir}${channel ? ` (channel ${channel.slug})` : ''}`);
  for (const { kind, file } of FACET_KINDS) {
    summary.facets[kind] = added[kind].size;
    if (added[kind].size === 0 || dryRun) continue;
    if (await addFacets(join(dir, file), [...added[kind].values()])) summary.written.push(join(dir, file));
  }
  return summary;
}

/** Adds facet names to a facet file: what is there stays as it is, the new names follow in id order; true when written. */
export async function addFacets(path: string, facets: readonly GeneratedFacet[]): Promise<boolean> {
  let existing: FacetRecord[] = [];
  try {
    existing = JSON.parse(await readFile(path, 'utf8')) as FacetRecord[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const have = new Set(existing.map((f) => f.id));
  const fresh = facets.filter((f) => !have.has(f.id)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (fresh.length === 0) return false;
  await writeAtomic(path, json([...existing, ...fresh.map(({ id, name, generated }) => ({ id, name, generated }))]));
  return true;
}

/** The summary a person reads: counts, then each refusal and failure on its own line. */
export function formatEnrichSummary(s: EnrichSummary, { dryRun = false } = {}): string {
  const verb = dryRun ? 'would enrich' : 'enriched';
  const facets = Object.entries(s.facets)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  const lines = [
    `${verb} ${s.enriched.length} of ${s.episodes} episodes; ${s.unchanged} already complete; ${s.refused.length} not enrichable; ${s.failed.length} failed` +
      (facets ? `; new names: ${facets}` : '') +
      (dryRun ? '' : `; ${s.written.length} files written`),
    ...s.refused.map((r) => `  ${r.id}: not enriched: ${r.reason}`),
    ...s.failed.map((f) => `  ${f.id}: failed: ${f.reason}`),
  ];
  return lines.join('\n');
}
