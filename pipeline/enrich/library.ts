// The batch run of enrichment over a library folder (decisions 25 and 27, `npm run enrich`): what an episode lacks of
// chapters, topics, people and entities is generated from its transcript and written back into the folder through
// core/library, marked `generated`; the creator's own data is never touched (the rule: rules.ts; the channel's
// planning: plan.ts; the printout: bin/lib/enrich-output.ts). `ingest` stays a loader: a rebuild needs no model.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { EpisodeRecord, FacetRecord } from '../../core/contract/library-format.js';
import type { Logger } from '../../core/ground/logger.js';
import { EPISODES_DIR } from '../../core/library/layout.js';
import { serialiseIn, withLibraryLock, writeEpisodeFile, writeLibraryJson } from '../../core/library/writer.js';
import { episodesInFiles, listEpisodeFiles, readLibraryMeta, readRecordArray, type EpisodeFile } from '../../core/library/reader.js';
import { rebuildTally, saveTally, STATS_FILE } from './channel-stats.js';
import { languageOf, speechText } from './speech.js';
import type { EnrichSegment, GeneratedFacet } from './types.js';
import { applyGenerated, EnrichRefusal, FACET_KINDS, speechOf, wantedFor, type FacetKindName, type Generated, type Stages } from './rules.js';
import { facetsOf, planChannel, workFor, type ChannelEpisode } from './plan.js';

export interface EnrichLibraryOptions {
  dir: string;
  stages: Stages;
  /** Only this channel (its slug or id). */
  channel?: string | undefined;
  /** Only this episode (its id). */
  episode?: string | undefined;
  /** Regenerate what was generated before (never the creator's data). */
  force?: boolean;
  /** Say what would change; write nothing. */
  dryRun?: boolean;
  log?: Logger | undefined;
  /** After each episode the costly step ran on: how many of how many. */
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
  /** Episodes enriched in part, with what was left out and why. */
  notes: { id: string; note: string }[];
  /** Facet names added per kind. */
  facets: Record<FacetKindName, number>;
  /** Files written (none in a dry run). */
  written: string[];
}

/** Refuses a library folder the run could not write back into (call it before any model loads). */
export async function assertWritable(dir: string): Promise<void> {
  await checkWritable([dir, join(dir, EPISODES_DIR), ...(await listEpisodeFiles(dir)), ...FACET_KINDS.map((k) => join(dir, k.file))]);
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
 * Enriches a library folder in three reads: the channels' transcript texts (their statistics, and the keyphrases of
 * episodes that take part in the topic choice without being enriched), the costly step on each episode that lacks
 * something, then each episode file rewritten only when one of its records changed; facet names are added to
 * `topics.json`, `people.json` and `entities.json` (existing entries kept as they are, new ones after them in id order).
 * A second run finds nothing wanted and writes nothing.
 */
export async function enrichLibrary(opts: EnrichLibraryOptions): Promise<EnrichSummary> {
  const { dir, stages, force = false, dryRun = false, log, signal } = opts;
  const meta = await readLibraryMeta(dir);
  for (const issue of meta.issues) log?.warn({ path: issue.path, reason: issue.reason }, 'library issue');
  if (meta.channels.length === 0) throw new EnrichRefusal(`${dir} holds no readable channel (channels.json): is it a library folder?`);
  const channel = opts.channel ? meta.channels.find((c) => c.slug === opts.channel || c.id === opts.channel) : undefined;
  if (opts.channel && !channel) throw new EnrichRefusal(`no channel ${JSON.stringify(opts.channel)} in ${dir}/channels.json`);
  const channels = new Map(meta.channels.map((c) => [c.id, c]));
  const channelIds = new Set(channels.keys());
  const { generatedIds, known, ids } = facetsOf(meta);
  const files = await listEpisodeFiles(dir);
  if (!dryRun) await assertWritable(dir);

  const summary: EnrichSummary = { episodes: 0, enriched: [], unchanged: 0, refused: [], failed: [], notes: [], facets: { topics: 0, people: 0, entities: 0 }, written: [] };
  const selected = (record: EpisodeRecord) => (!channel || record.channelId === channel.id) && (!opts.episode || record.id === opts.episode);
  // The first read: what each episode lacks, and every transcript's text for its channel's statistics.
  const byChannel = new Map<string, ChannelEpisode[]>();
  /** Where each episode to enrich is: its segments are read again from that file alone. */
  const fileOf = new Map<string, string>();
  /** The transcript each plan is made from: a record saved with another one meanwhile is not given it. */
  const plannedOn = new Map<string, string>();
  for await (const { file, record } of episodesInFiles(files, channelIds)) {
    if (channel && record.channelId !== channel.id) continue;
    const ch = channels.get(record.channelId)!;
    const list = byChannel.get(ch.id) ?? [];
    byChannel.set(ch.id, list);
    const entry: ChannelEpisode = { episodeId: record.id, language: languageOf(record, ch.language), text: speechText(record.transcript?.segments ?? []) };
    list.push(entry);
    if (!selected(record)) continue;
    summary.episodes++;
    try {
      const work = workFor(record, { generatedIds, channelLanguage: ch.language, channelName: ch.title, force });
      // The segments are read again when the episode's turn comes: a library's transcripts are not all held at once.
      if (work) {
        entry.work = { ...work, segments: [] };
        fileOf.set(record.id, file.path);
        plannedOn.set(record.id, transcriptKey(record));
      } else summary.unchanged++;
    } catch (err) {
      if (!(err instanceof EnrichRefusal)) throw err;
      summary.refused.push({ id: record.id, reason: err.message });
    }
  }
  if (opts.episode && summary.episodes === 0) throw new EnrichRefusal(`no episode ${JSON.stringify(opts.episode)} in ${dir}${channel ? ` (channel ${channel.slug})` : ''}`);

  // The second read: the costly step, channel by channel, then each channel's choice of topics and names.
  const total = [...byChannel.values()].reduce((n, list) => n + list.filter((e) => e.work).length, 0);
  let done = 0;
  const plans = new Map<string, Generated>();
  const added: Record<FacetKindName, Map<string, GeneratedFacet>> = { topics: new Map(), people: new Map(), entities: new Map() };
  for (const [channelId, list] of [...byChannel].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (!list.some((e) => e.work)) continue;
    const wanted = list.filter((e) => e.work).map((e) => e.episodeId);
    const segmentsOf = await readSegments([...new Set(wanted.map((id) => fileOf.get(id)!))].sort(), channelIds, new Set(wanted));
    const episodes = list.map((e) => (e.work ? { ...e, work: { ...e.work, segments: segmentsOf.get(e.episodeId) ?? [] } } : e));
    const plan = await planChannel(episodes, {
      stages,
      channelLanguage: (channels.get(channelId)!.language || 'en').toLowerCase(),
      known,
      signal,
      onEpisode: () => opts.onProgress?.(++done, total),
      onFailure: (id, err) => {
        summary.failed.push({ id, reason: (err as Error).message });
        log?.warn({ episodeId: id, err: (err as Error).message }, 'enrichment failed');
      },
      onNote: (id, note) => summary.notes.push({ id, note }),
    });
    for (const [id, g] of plan.generated) plans.set(id, g);
    for (const { kind } of FACET_KINDS) for (const f of plan.facets[kind]) if (!ids.has(f.id)) added[kind].set(f.id, f);
  }

  // The third read, under the folder's lock (the library writer's, which an import and a follow poll hold too): the
  // files are listed and read again as they are now, what was generated is applied to each record by the same rule, and
  // a file is rewritten when one of its records changed. A record whose transcript changed since it was planned was
  // written meanwhile by another writer: it is left as that writer made it.
  const writeBack = async () => {
    let current: EpisodeFile | undefined;
    let changed = false;
    const flush = async () => {
      if (current && changed && !dryRun) {
        await writeEpisodeFile(current);
        summary.written.push(current.path);
      }
      changed = false;
    };
    for await (const { file, index, record } of episodesInFiles(await listEpisodeFiles(dir), channelIds)) {
      if (file !== current) {
        await flush();
        current = file;
      }
      const g = plans.get(record.id);
      if (!g) continue;
      if (transcriptKey(record) !== plannedOn.get(record.id)) {
        summary.refused.push({ id: record.id, reason: 'its transcript changed while it was enriched (another writer saved the episode); run enrich again' });
        continue;
      }
      const next = applyGenerated(record, wantedFor(record, generatedIds, { force }), g);
      if (JSON.stringify(next) === JSON.stringify(record)) {
        summary.unchanged++;
        continue;
      }
      summary.enriched.push(record.id);
      file.lines[index] = serialiseIn(file, next);
      changed = true;
    }
    await flush();
    for (const { kind, file } of FACET_KINDS) {
      summary.facets[kind] = added[kind].size;
      if (added[kind].size === 0 || dryRun) continue;
      if (await addFacets(join(dir, file), [...added[kind].values()])) summary.written.push(join(dir, file));
    }
    // The channel statistics file, made again from the episodes as now written: what publishing one episode reads.
    if (dryRun) return;
    for (const id of [...byChannel.keys()].sort()) {
      if (await saveTally(dir, await rebuildTally(dir, id, (channels.get(id)!.language || 'en').toLowerCase()))) {
        if (!summary.written.includes(join(dir, STATS_FILE))) summary.written.push(join(dir, STATS_FILE));
      }
    }
  };
  if (dryRun) await writeBack();
  else await withLibraryLock(dir, writeBack);
  return summary;
}

/** What a plan was made from: the episode's transcript, as its record holds it. */
const transcriptKey = (record: EpisodeRecord): string =>
  createHash('sha256')
    .update(JSON.stringify(record.transcript ?? null))
    .digest('hex');

/** The speech segments of the episodes named, read from `files` (those that hold them). */
async function readSegments(files: readonly string[], channelIds: ReadonlySet<string>, wanted: ReadonlySet<string>): Promise<Map<string, EnrichSegment[]>> {
  const out = new Map<string, EnrichSegment[]>();
  for await (const { record } of episodesInFiles(files, channelIds)) if (wanted.has(record.id)) out.set(record.id, speechOf(record));
  return out;
}

/** Adds facet names to a facet file: what is there stays as it is, the new names follow in id order; true when written. */
export async function addFacets(path: string, facets: readonly GeneratedFacet[]): Promise<boolean> {
  const existing = await readRecordArray<FacetRecord>(path);
  const have = new Set(existing.map((f) => f.id));
  const fresh = facets.filter((f) => !have.has(f.id)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (fresh.length === 0) return false;
  await writeLibraryJson(path, [...existing, ...fresh.map(({ id, name, generated }) => ({ id, name, generated }))]);
  return true;
}
