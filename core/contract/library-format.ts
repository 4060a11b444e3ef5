// The library format's records as JSON Schemas (TypeBox), with their TypeScript types derived from them: the one source the indexer validates against and the OpenAPI document publishes.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/** Episode statuses as stored; `archived` is stored but never returned by any endpoint. */
export const EPISODE_STATUSES = ['pending', 'processing', 'indexed', 'failed', 'published', 'archived'] as const;
export type EpisodeStatus = (typeof EPISODE_STATUSES)[number];
/** The statuses the API shows: every status but `archived` (an archived episode is not shown at all). */
export const SHOWN_STATUSES = EPISODE_STATUSES.filter((s): s is Exclude<EpisodeStatus, 'archived'> => s !== 'archived');

// Nullable values and string enums are written as `type: [t, 'null']` and `enum`, not as
// TypeBox unions (`anyOf`), so ajv's errors name the field and the published schemas stay plain.
export const Nullable = <T extends TSchema & { type: string }>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
export const StringEnum = <T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });

const Id = Type.String({ minLength: 1 });
const Ms = Type.Integer({ minimum: 0 });
const IdList = Type.Array(Id);

// Object schemas accept additional fields (TypeBox leaves `additionalProperties` out): the
// spec lets the format grow additively.

/** A library user (`users.json`). */
export const User = Type.Object({ id: Id, name: Type.String(), plan: Type.String({ minLength: 1 }) });
export type UserRecord = Static<typeof User>;

/** A library channel (`channels.json`). */
export const Channel = Type.Object({
  id: Id,
  slug: Type.String({ pattern: '^[a-z0-9-]{1,63}$' }),
  title: Type.String(),
  providerType: StringEnum(['youtube', 'rss'] as const),
  ownerId: Id,
  memberIds: IdList,
  customDomain: Type.Optional(Nullable(Type.String({ format: 'hostname' }))),
  /** BCP 47 (`en`, `es`, `de-AT`): what its episodes are spoken in unless one says otherwise; absent means `en`. */
  language: Type.Optional(Nullable(Type.String())),
  /** The source's description of the channel (a feed's `<description>`), plain text as the follower keeps it. */
  description: Type.Optional(Nullable(Type.String())),
  /** The channel's artwork URL (a feed's `<itunes:image>` or `<image>`). */
  artwork: Type.Optional(Nullable(Type.String())),
  /** Where the importer took the channel from; an import from another source is refused unless told. */
  source: Type.Optional(
    Type.Object({
      kind: StringEnum(['rss', 'youtube'] as const),
      id: Type.String({ minLength: 1, description: "The source's identity: a feed's podcast:guid (else its link), a YouTube channel id (else the uploader's)." }),
      url: Type.Optional(Nullable(Type.String())),
    }),
  ),
});
export type ChannelRecord = Static<typeof Channel>;
export type ChannelSourceRecord = NonNullable<ChannelRecord['source']>;

/** True on what enrichment made from a transcript rather than the creator (decision 27); absent or false: the creator's. */
const Generated = (what: string) =>
  Type.Optional(Type.Boolean({ description: `True when this ${what} was made from the transcript by enrichment, not by the creator; absent or false: the creator's own.` }));

/** What a facet file holds: a topic, a person, an entity, or a collection (a playlist). */
export type FacetKind = 'topic' | 'person' | 'entity' | 'collection';

/** A facet display name (`topics.json`, `people.json`, `entities.json`); collections only: the channel whose playlist it mirrors. */
export const Facet = Type.Object({ id: Id, name: Type.String(), channelId: Type.Optional(Nullable(Type.String())), generated: Generated('name') });
export type FacetRecord = Static<typeof Facet>;

/** A collection (`collections.json`): a facet that always names its channel. */
export const Collection = Type.Object({ id: Id, name: Type.String(), channelId: Id });

export const Word = Type.Object({
  t: Type.String({ description: 'The word.' }),
  s: Type.Integer({ minimum: 0, description: 'Start, ms.' }),
  e: Type.Integer({ minimum: 0, description: 'End, ms.' }),
});
export type WordRecord = Static<typeof Word>;

export const Segment = Type.Object(
  {
    speakerLabel: Type.Optional(Nullable(Type.String({ description: "Speaker's name once attributed; null when unknown." }))),
    startMs: Ms,
    endMs: Ms,
    text: Type.String(),
    words: Type.Optional(Type.Array(Word)),
    wordsInterpolated: Type.Optional(
      Type.Boolean({ description: "True when this segment's word times were spread over it by length (its source timed some words only): its citations start at the segment." }),
    ),
  },
  { description: 'One utterance.' },
);
export type SegmentRecord = Static<typeof Segment>;

/** The spec's TranscriptDocument, format version 1: stored as given, served exactly as stored. */
export const TranscriptDocument = Type.Object(
  {
    formatVersion: Type.Unsafe<1>({ type: 'integer', const: 1, description: 'Format version; /api/v1 serves version 1 only.' }),
    segments: Type.Array(Segment),
    wordTimings: Type.Optional(
      StringEnum(['source', 'interpolated'] as const, {
        description:
          "Where the word times come from: `source` (the transcript's own, e.g. speech-to-text) or `interpolated` (spread inside each caption cue by length, for sources without word times: citations start at the cue). Absent: as `source`.",
      }),
    ),
  },
  { description: 'Word-timed transcript, format version 1. Served exactly as stored; a stored transcript that does not match this schema is a 502.' },
);
export type TranscriptRecord = Static<typeof TranscriptDocument>;

export const KeyMoment = Type.Object({
  type: Type.String({ minLength: 1 }),
  title: Type.String(),
  startMs: Ms,
  endMs: Type.Optional(Nullable(Ms)),
  generated: Generated('key moment'),
});
export type KeyMomentRecord = Static<typeof KeyMoment>;

export const Chapter = Type.Object({ title: Type.String(), startMs: Ms, endMs: Ms, moments: Type.Array(KeyMoment), generated: Generated('chapter') });
export type ChapterRecord = Static<typeof Chapter>;

/** The values of an episode's `archivedBy`: who archived it because its item left the source. */
export const ARCHIVED_BY = Object.freeze({ import: 'archive-missing', follow: 'follow-archive-missing' } as const);

/** One episode as the library holds it: catalog row, facet ids, transcript and chapters. */
export const Episode = Type.Object({
  id: Id,
  channelId: Id,
  title: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  link: Type.Optional(Nullable(Type.String())),
  thumbnail: Type.Optional(Nullable(Type.String())),
  mediaUrl: Type.Optional(Nullable(Type.String())),
  durationMs: Type.Optional(Nullable(Ms)),
  publishedAt: Type.String({ format: 'date-time' }),
  viewCount: Type.Optional(Nullable(Ms)),
  status: StringEnum(EPISODE_STATUSES),
  summary: Type.Optional(Nullable(Type.String())),
  error: Type.Optional(Nullable(Type.String())),
  topicIds: Type.Optional(IdList),
  personIds: Type.Optional(IdList),
  entityIds: Type.Optional(IdList),
  collectionIds: Type.Optional(IdList),
  transcript: Type.Optional(Nullable(TranscriptDocument)),
  chapters: Type.Optional(Nullable(Type.Array(Chapter))),
  /** BCP 47; overrides the channel's (a transcriber's detection lands here). */
  language: Type.Optional(Nullable(Type.String())),
  /**
   * Who archived it, when `status` is `archived` (ARCHIVED_BY): an import whose source no longer holds the item, or a
   * followed feed that dropped it, both with `--archive-missing`; either is published again when the item comes back.
   * Absent: archived by hand, and kept archived.
   */
  archivedBy: Type.Optional(Type.Unsafe<(typeof ARCHIVED_BY)[keyof typeof ARCHIVED_BY] | null>({ type: ['string', 'null'], enum: [...Object.values(ARCHIVED_BY), null] })),
});
export type EpisodeRecord = Static<typeof Episode>;

/**
 * The most an episode may hold, checked at import and at ingest with an error naming the limit. Far
 * above real episodes (the longest of our data sets, a 6-hour podcast, has about 10,400 segments), and
 * low enough that the largest episode allowed renders as a page in well under a second. Text is counted
 * in UTF-16 code units: the longest segment of our data sets has 7,800 (a committee speaker's turn), the
 * longest transcript 439,142 (the 6-hour podcast); the caps bound what one feed's text costs enrichment.
 */
export const EPISODE_LIMITS = Object.freeze({
  segments: 50_000,
  words: 1_000_000,
  chapters: 2_000,
  moments: 10_000,
  segmentChars: 30_000,
  transcriptChars: 4_000_000,
});

/**
 * How far a transcript segment may start before the previous one ends. Real transcripts overlap: crosstalk, an
 * interjection inside a long turn, timings rounded to the second (one of our data sets overlaps 83 times, by up to
 * 14 s). A minute is not that: a segment overlapping more, or starting before the previous one started, is refused
 * at ingest. The importer writes no overlap at all.
 */
export const SEGMENT_OVERLAP_TOLERANCE_MS = 60_000;
