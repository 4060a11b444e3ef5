// The rule "the creator's data wins" (decision 27), pure: what an episode lacks (wantedFor), its speech as enrichment
// reads it (speechOf), and what was generated put into it (applyGenerated); with the shapes a stage is asked and answers.
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { facetFile } from '../../core/library/layout.js';
import { type EpisodeNames } from './people.js';
import type { DocumentFrequencies } from './phrases.js';
import { type Keyphrase } from './topics.js';
import type { EnrichSegment, GeneratedChapter } from './types.js';

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

export const nothingWanted = (w: Wanted) => !w.chapters && !w.topics && !w.people && !w.entities;

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
