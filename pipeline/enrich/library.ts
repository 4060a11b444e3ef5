// Enrichment of a library folder (decisions 25 and 27): what an episode lacks of chapters, topics, people and entities
// is generated from its transcript and written back into the folder, marked `generated`; the creator's own data is
// never touched. `ingest` stays a loader: a rebuild from the folder needs no model.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { EpisodeRecord, FacetRecord } from '../../core/contract/library-format.js';
import type { Logger } from '../../core/ground/logger.js';
import { EPISODES_DIR, facetFile } from '../../core/library/layout.js';
import { serialiseIn, withLibraryLock, writeEpisodeFile, writeLibraryJson } from '../../core/library/writer.js';
import { episodesInFiles, listEpisodeFiles, readLibraryMeta, readRecordArray, type EpisodeFile, type LibraryMeta } from '../../core/library/reader.js';
import { rebuildTally, saveTally, STATS_FILE } from './channel-stats.js';
import { languageOf, speechText } from './speech.js';
import { assignNames, type EpisodeNames, type KnownName } from './people.js';
import type { DocumentFrequencies } from './phrases.js';
import { assignTopics, type Keyphrase } from './topics.js';
import type { EnrichSegment, GeneratedChapter, GeneratedFacet } from './types.js';

/** The facet kinds enrichment fills, with the episode field and the library file of each. */
export const FACET_KINDS = [
  { kind: 'topics', field: 'topicIds', file: facetFile('topic') },
  { kind: 'people', field: 'personIds', file: facetFile('person') },
  { kind: 'entities', field: 'entityIds', file: facetFile('entity') },
] as const;
export type FacetKindName = (typeof FACET_KINDS)[number]['kind'];

/** What an episode is to be given: only what it lacks (or what `--force` regenerates). */
export interface Wanted {
  chapters: boolean;
  topics: boolean;
  people: boolean;
  entities: boolean;
}

/** What enrichment decided for one episode; a field not wanted (or nothing found) is left out. */
export interface Generated {
  chapters?: GeneratedChapter[];
  topicIds?: string[];
  personIds?: string[];
  entityIds?: string[];
}

export interface GenerateInput {
  episodeId: string;
  title: string;
  description: string | null;
  /** BCP 47 of the speech: the episode's, else its channel's, else `en`. */
  language: string;
  segments: EnrichSegment[];
  want: Wanted;
  /** The channel's title: the show's own name is not one of its people. */
  channelName?: string | undefined;
}

/** Statistics of a channel's transcripts, which phrases are common there: the same for every episode of one run. */
export interface ChannelStats {
  freq: DocumentFrequencies;
}

/** What the costly step made of one episode. */
export interface EpisodeMade {
  chapters?: GeneratedChapter[];
  keyphrases: Keyphrase[];
  names?: EpisodeNames;
  /** What could not be made and why (people and entities when the NER service failed): the rest is kept. */
  notes?: string[];
}

/**
 * The stages enrichment runs (stages.ts puts together the configured ones: the embedder, the NER service, a language
 * model). Deterministic for a given input.
 */
export interface Stages {
  /** Statistics over the channel's transcript texts (cheap, text only). */
  stats(texts: readonly string[], language: string): ChannelStats;
  /** An episode's keyphrases from its text alone (cheap): episodes that take part in the channel's topic choice without being enriched. */
  keyphrases(text: string, language: string, stats: ChannelStats): Keyphrase[];
  /** Chapters (when wanted), keyphrases, and names (when wanted and a NER service is configured). */
  episode(input: GenerateInput, stats: ChannelStats, signal?: AbortSignal): Promise<EpisodeMade>;
}

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

/**
 * The speech segments of a record; refuses what cannot be enriched, with a sentence: no transcript, or a transcript
 * without speech. Word times spread over the cues by length (`wordTimings: 'interpolated'`) mark every segment, so
 * its moments start at the segment, as its citations do.
 */
export function speechOf(record: EpisodeRecord): EnrichSegment[] {
  const segments = (record.transcript?.segments ?? []).filter((s) => s.text.trim() !== '');
  if (!record.transcript) throw new EnrichRefusal('it has no transcript yet');
  if (segments.length === 0) throw new EnrichRefusal('its transcript holds no speech');
  return record.transcript.wordTimings === 'interpolated' ? segments.map((s) => ({ ...s, wordsInterpolated: true })) : segments;
}

/**
 * The episode with what was generated put in, by the rule of {@link wantedFor}: a field not wanted stays as it was,
 * and an empty answer leaves the field as it was (nothing is erased).
 */
export function applyGenerated<T extends EpisodeRecord>(record: T, want: Wanted, made: Generated): T {
  const next: T & Record<string, unknown> = { ...record };
  if (want.chapters && made.chapters && made.chapters.length > 0) next.chapters = made.chapters;
  for (const { kind, field } of FACET_KINDS) {
    const ids = made[field];
    if (want[kind] && ids && ids.length > 0) next[field] = ids;
  }
  return next;
}

/** One episode of a channel as the channel-level choice sees it. */
export interface ChannelEpisode {
  episodeId: string;
  language: string;
  text: string;
  /** Set for the episodes being enriched. */
  work?: GenerateInput;
  /** Its keyphrases as the channel statistics file keeps them (then `text` may be empty): not computed again. */
  keyphrases?: Keyphrase[];
}

/** What the channel-level choice gives: per episode what to put in, and the names to add to the facet files. */
export interface ChannelPlan {
  generated: Map<string, Generated>;
  facets: Record<FacetKindName, GeneratedFacet[]>;
  /** The keyphrases each episode took part in the topic choice with. */
  keyphrases: Map<string, Keyphrase[]>;
}

/**
 * Enriches the episodes of one channel that have `work`: the costly step per episode (`onEpisode` after each), then
 * the channel-level choice of topics (over every episode's keyphrases, so episodes meet on shared topics) and of
 * people and entities (names merged across the channel; `known` names keep their ids). Failures of one episode are
 * given to `onFailure` and the rest goes on.
 */
export async function planChannel(
  episodes: readonly ChannelEpisode[],
  {
    stages,
    channelLanguage,
    known,
    stats: given,
    signal,
    onEpisode,
    onFailure,
    onNote,
  }: {
    stages: Stages;
    channelLanguage: string;
    known: { people: KnownName[]; entities: KnownName[] };
    /** The channel's statistics when known (the channel statistics file's); else computed from the episodes' texts. */
    stats?: ChannelStats | undefined;
    signal?: AbortSignal | undefined;
    onEpisode?: (episodeId: string) => void;
    onFailure?: (episodeId: string, err: unknown) => void;
    onNote?: (episodeId: string, note: string) => void;
  },
): Promise<ChannelPlan> {
  const sorted = [...episodes].sort((a, b) => (a.episodeId < b.episodeId ? -1 : a.episodeId > b.episodeId ? 1 : 0));
  const stats =
    given ??
    stages.stats(
      sorted.map((e) => e.text),
      channelLanguage,
    );
  const made = new Map<string, EpisodeMade>();
  for (const e of sorted) {
    if (!e.work) continue;
    signal?.throwIfAborted();
    try {
      const m = await stages.episode(e.work, stats, signal);
      for (const note of m.notes ?? []) onNote?.(e.episodeId, note);
      made.set(e.episodeId, m);
    } catch (err) {
      signal?.throwIfAborted();
      onFailure?.(e.episodeId, err);
    }
    onEpisode?.(e.episodeId);
  }
  const keyphrases = new Map(
    sorted
      .filter((e) => e.text !== '' || e.keyphrases)
      .map((e) => [e.episodeId, made.get(e.episodeId)?.keyphrases ?? e.keyphrases ?? stages.keyphrases(e.text, e.language, stats)] as const),
  );
  const topics = assignTopics([...keyphrases].map(([episodeId, k]) => ({ episodeId, keyphrases: k })));
  const named = [...made].filter(([, m]) => m.names).map(([episodeId, m]) => ({ episodeId, names: m.names! }));
  const names = assignNames(named, { knownPeople: known.people, knownEntities: known.entities });
  const generated = new Map<string, Generated>();
  const used = { topics: new Set<string>(), people: new Set<string>(), entities: new Set<string>() };
  for (const { episodeId, work } of sorted) {
    const m = made.get(episodeId);
    if (!work || !m) continue;
    const { want } = work;
    const g: Generated = {};
    if (want.chapters && m.chapters?.length) g.chapters = m.chapters;
    const pick = (kind: FacetKindName, ids: string[] | undefined) => {
      if (!want[kind] || !ids?.length) return undefined;
      for (const id of ids) used[kind].add(id);
      return ids;
    };
    const topicIds = pick('topics', topics.topicIds.get(episodeId));
    const personIds = pick('people', names.personIds.get(episodeId));
    const entityIds = pick('entities', names.entityIds.get(episodeId));
    if (topicIds) g.topicIds = topicIds;
    if (personIds) g.personIds = personIds;
    if (entityIds) g.entityIds = entityIds;
    generated.set(episodeId, g);
  }
  return {
    generated,
    facets: {
      topics: topics.facets.filter((f) => used.topics.has(f.id)),
      people: names.people.filter((f) => used.people.has(f.id)),
      entities: names.entities.filter((f) => used.entities.has(f.id)),
    },
    keyphrases,
  };
}

/** The work of enriching `record`, or undefined when it lacks nothing; throws EnrichRefusal when it has no speech. */
export function workFor(
  record: EpisodeRecord,
  { generatedIds, channelLanguage, channelName, force = false }: { generatedIds: GeneratedIds; channelLanguage: string | null | undefined; channelName?: string; force?: boolean },
): GenerateInput | undefined {
  const want = wantedFor(record, generatedIds, { force });
  if (nothingWanted(want)) return undefined;
  const segments = speechOf(record);
  return {
    episodeId: record.id,
    title: record.title,
    description: record.description ?? null,
    language: languageOf(record, channelLanguage),
    segments,
    want,
    ...(channelName ? { channelName } : {}),
  };
}

/** Generated ids and known names of a library's facet files. */
export function facetsOf(meta: Pick<LibraryMeta, 'facets'>): { generatedIds: Set<string>; known: { people: KnownName[]; entities: KnownName[] }; ids: Set<string> } {
  const generatedIds = new Set(meta.facets.filter((f) => (f.record as { generated?: boolean }).generated === true).map((f) => f.record.id));
  const named = (kind: string) => meta.facets.filter((f) => f.kind === kind).map((f) => ({ id: f.record.id, name: f.record.name }));
  return { generatedIds, known: { people: named('person'), entities: named('entity') }, ids: new Set(meta.facets.map((f) => f.record.id)) };
}

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
    ...s.notes.map((n) => `  ${n.id}: ${n.note}`),
    ...s.failed.map((f) => `  ${f.id}: failed: ${f.reason}`),
  ];
  return lines.join('\n');
}
