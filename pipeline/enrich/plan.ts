// The channel-level planning of an enrichment run: which episodes of a channel get what, with the channel's
// statistics and known names (planChannel, workFor, facetsOf). No file is written here.
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { type LibraryMeta } from '../../core/library/reader.js';
import { languageOf } from './speech.js';
import { assignNames, type KnownName } from './people.js';
import { assignTopics, type Keyphrase } from './topics.js';
import type { GeneratedFacet } from './types.js';
import {
  nothingWanted,
  speechOf,
  wantedFor,
  type ChannelStats,
  type EpisodeMade,
  type FacetKindName,
  type GenerateInput,
  type Generated,
  type GeneratedIds,
  type Stages,
} from './rules.js';

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
