// The library format's record schemas (core/contract/library-format.ts) compiled once with ajv, and the checks a schema cannot say.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';

import {
  Channel,
  Collection,
  Episode,
  EPISODE_LIMITS,
  Facet,
  SEGMENT_OVERLAP_TOLERANCE_MS,
  User,
  type ChannelRecord,
  type EpisodeRecord,
  type FacetRecord,
  type UserRecord,
} from '../contract/library-format.js';

export type {
  ChannelRecord,
  ChapterRecord,
  EpisodeRecord,
  FacetRecord,
  KeyMomentRecord,
  SegmentRecord,
  TranscriptRecord,
  UserRecord,
  WordRecord,
} from '../contract/library-format.js';

// ajv-formats is CommonJS; under NodeNext its default import may arrive wrapped.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (ajv: Ajv) => Ajv;

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
addFormats(ajv);

/** A schema check: the typed record, or the reason it was refused. */
export type Check<T> = { ok: true; value: T } | { ok: false; reason: string };

function checker<T>(validate: ValidateFunction): (data: unknown) => Check<T> {
  return (data) => {
    if (validate(data)) return { ok: true, value: data as T };
    return { ok: false, reason: describe(validate.errors) };
  };
}

function describe(errors: ErrorObject[] | null | undefined): string {
  // The deepest error is the most specific one.
  const first = [...(errors ?? [])].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  if (!first) return 'invalid';
  const where = first.instancePath || '(record)';
  const allowed = first.keyword === 'enum' ? `: ${(first.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` : '';
  return `${where} ${first.message ?? 'is invalid'}${allowed}`;
}

/** A check of `schema` (a TypeBox schema of the library's, compiled once with the records' ajv). */
export const compileCheck = <T>(schema: object): ((data: unknown) => Check<T>) => checker<T>(ajv.compile(schema));

export const checkUser = checker<UserRecord>(ajv.compile(User));
export const checkChannel = checker<ChannelRecord>(ajv.compile(Channel));
export const checkFacet = checker<FacetRecord>(ajv.compile(Facet));
export const checkCollection = checker<FacetRecord>(ajv.compile(Collection));
const checkEpisodeShape = checker<EpisodeRecord>(ajv.compile(Episode));

const count = (n: number) => n.toLocaleString('en-US');

/** The first cap of EPISODE_LIMITS an episode passes, as a sentence naming the limit; undefined when within all. */
export function episodeOverLimit(ep: Pick<EpisodeRecord, 'transcript' | 'chapters'>): string | undefined {
  const segments = ep.transcript?.segments ?? [];
  const chapters = ep.chapters ?? [];
  const words = segments.reduce((n, s) => n + (s.words?.length ?? 0), 0);
  const moments = chapters.reduce((n, c) => n + c.moments.length, 0);
  if (segments.length > EPISODE_LIMITS.segments) return `transcript has ${count(segments.length)} segments: more than the ${count(EPISODE_LIMITS.segments)} allowed`;
  if (words > EPISODE_LIMITS.words) return `transcript has ${count(words)} words: more than the ${count(EPISODE_LIMITS.words)} allowed`;
  let chars = 0;
  for (let i = 0; i < segments.length; i++) {
    const n = segments[i]!.text.length;
    if (n > EPISODE_LIMITS.segmentChars) return `/transcript/segments/${i} has ${count(n)} characters: more than the ${count(EPISODE_LIMITS.segmentChars)} a segment may hold`;
    chars += n;
  }
  if (chars > EPISODE_LIMITS.transcriptChars) return `transcript has ${count(chars)} characters: more than the ${count(EPISODE_LIMITS.transcriptChars)} allowed`;
  if (chapters.length > EPISODE_LIMITS.chapters) return `episode has ${count(chapters.length)} chapters: more than the ${count(EPISODE_LIMITS.chapters)} allowed`;
  if (moments > EPISODE_LIMITS.moments) return `episode has ${count(moments)} key moments: more than the ${count(EPISODE_LIMITS.moments)} allowed`;
  return undefined;
}

let episodesChecked = 0;

/** How many episode records this process has checked ({@link checkEpisode}): a test counts it to hold a write path to one check. */
export const episodeChecksSoFar = (): number => episodesChecked;

/**
 * Validates an Episode: the schema, then what a schema cannot say: the caps of EPISODE_LIMITS, times that run
 * backwards, segments out of order or overlapping by more than SEGMENT_OVERLAP_TOLERANCE_MS. Returns the first
 * problem, with its JSON pointer.
 */
export function checkEpisode(data: unknown): Check<EpisodeRecord> {
  episodesChecked++;
  const shape = checkEpisodeShape(data);
  if (!shape.ok) return shape;
  const ep = shape.value;
  // Caps first: they bound the cost of everything after (and of every page rendered from the record).
  const over = episodeOverLimit(ep);
  if (over) return { ok: false, reason: over };
  const segments = ep.transcript?.segments ?? [];
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (seg.endMs < seg.startMs) {
      return { ok: false, reason: `/transcript/segments/${i} endMs ${seg.endMs} is before startMs ${seg.startMs}` };
    }
    const prev = segments[i - 1];
    if (prev && seg.startMs < prev.startMs) {
      return { ok: false, reason: `/transcript/segments/${i} startMs ${seg.startMs} is before the previous segment's start ${prev.startMs}: segments out of order` };
    }
    if (prev && prev.endMs - seg.startMs > SEGMENT_OVERLAP_TOLERANCE_MS) {
      return {
        ok: false,
        reason: `/transcript/segments/${i} starts at ${seg.startMs}, ${count(prev.endMs - seg.startMs)} ms before the previous segment ends: more than the ${count(SEGMENT_OVERLAP_TOLERANCE_MS)} ms of overlap allowed`,
      };
    }
    const words = seg.words ?? [];
    for (let w = 0; w < words.length; w++) {
      if (words[w]!.e < words[w]!.s) {
        return { ok: false, reason: `/transcript/segments/${i}/words/${w} e ${words[w]!.e} is before s ${words[w]!.s}` };
      }
    }
  }
  const chapters = ep.chapters ?? [];
  for (let i = 0; i < chapters.length; i++) {
    const ch = chapters[i]!;
    if (ch.endMs < ch.startMs) {
      return { ok: false, reason: `/chapters/${i} endMs ${ch.endMs} is before startMs ${ch.startMs}` };
    }
    for (let m = 0; m < ch.moments.length; m++) {
      const moment = ch.moments[m]!;
      if (moment.endMs !== undefined && moment.endMs !== null && moment.endMs < moment.startMs) {
        return { ok: false, reason: `/chapters/${i}/moments/${m} endMs ${moment.endMs} is before startMs ${moment.startMs}` };
      }
    }
  }
  return shape;
}

/**
 * An episode record that passed {@link checkEpisode}, held as it was checked: a copy made through JSON (as a reader
 * will read it), so the library writer writes exactly what was checked and checks nothing again. Only
 * {@link CheckedEpisode.check} makes one.
 */
export class CheckedEpisode {
  private constructor(readonly record: EpisodeRecord) {}

  /** The record checked once: the checked episode, or the reason the format refuses it. */
  static check(record: EpisodeRecord): { ok: true; episode: CheckedEpisode } | { ok: false; reason: string } {
    const copy = JSON.parse(JSON.stringify(record)) as EpisodeRecord;
    const checked = checkEpisode(copy);
    return checked.ok ? { ok: true, episode: new CheckedEpisode(copy) } : checked;
  }
}
