// Shapes of the documents the indexer writes and the API reads: the contract between them. Where a document stores a
// library record's fields as the record gives them, its type is read from the record's schema (core/contract/library-format.ts).
import type { ChannelRecord, EpisodeRecord, EpisodeStatus, UserRecord } from '../contract/library-format.js';
import type { Chapter } from '../contract/shapes.js';

export { EPISODE_STATUSES, type EpisodeStatus } from '../contract/library-format.js';
/**
 * Chapters are stored as the API serves them: a key moment's missing end is left out, never `null` as the library may write it;
 * `generated` is stored only where true, and the API answers `false` for the rest.
 */
export type { Chapter, KeyMoment } from '../contract/shapes.js';

/** A user as stored: the library record, field for field (`plan` `paid` includes API access; any other value does not). */
export type UserDoc = UserRecord;

/**
 * A channel as stored: its library record without where the importer took it from (`source`), `customDomain` always
 * present (`null` for none), and `language` present only when the record names one (absent means `en`; the keyword leg
 * analyses queries in it). `memberIds` always includes the owner.
 */
export type ChannelDoc = Omit<ChannelRecord, 'source' | 'customDomain' | 'language'> & Required<Pick<ChannelRecord, 'customDomain'>> & { language?: string };

export interface ApiKeyDoc {
  keyId: string;
  userId: string;
  name: string | null;
  /** sha256 hex of the full key; the key itself is never stored. */
  hash: string;
  last4: string;
  createdAt: string;
  revokedAt: string | null;
  /** When the key stops working; null or absent (records made before expiry existed): never. */
  expiresAt?: string | null;
  /** The last call made with it, written at most every few minutes (src/auth/key-usage.ts); absent: never used since then. */
  lastUsedAt?: string | null;
}

export type { FacetKind } from '../contract/library-format.js';
import type { FacetKind } from '../contract/library-format.js';

/** A facet's display name in one channel (decision 33): `_id` is {@link facetDocId}, so two channels' `p_john-smith` are two documents. */
export interface FacetDoc {
  /** The facet id the channel's episodes hold (`t_vaccines`), unique within the channel only. */
  id: string;
  kind: FacetKind;
  name: string;
  channelId: string;
  /** Present (true) only on a name enrichment found in this channel's transcripts (decision 27). */
  generated?: true;
}

/**
 * `_id` of a facet's document: `<channelId>:<facetId>`, with `%` and `:` of the channel id escaped so that no two
 * (channel, facet) pairs share one.
 */
export function facetDocId(channelId: string, facetId: string): string {
  return `${channelId.replace(/%/g, '%25').replace(/:/g, '%3A')}:${facetId}`;
}

/**
 * Archived rows are invisible everywhere, whichever of the two markers says so (the `archived` flag or the status).
 * The API, the pages and the change log's writer all ask this one rule.
 */
export function isArchived(row: { status: EpisodeStatus; archived?: boolean | undefined }): boolean {
  return row.archived === true || row.status === 'archived';
}

/**
 * The record's catalog fields as an episode's documents store them: every one present, an absent value `null` (an
 * absent facet list `[]`).
 */
type EpisodeCatalog = Required<
  Pick<
    EpisodeRecord,
    | 'id'
    | 'channelId'
    | 'title'
    | 'description'
    | 'summary'
    | 'link'
    | 'thumbnail'
    | 'mediaUrl'
    | 'durationMs'
    | 'publishedAt'
    | 'viewCount'
    | 'status'
    | 'error'
    | 'topicIds'
    | 'personIds'
    | 'entityIds'
    | 'collectionIds'
  >
>;

/** Catalog row, one per episode; `_id` is the episode id. */
export type EpisodeDoc = EpisodeCatalog & {
  /** UTC year of `publishedAt`, for the `year` filter. */
  year: number;
  /** `status` is `archived`: one flag every read excludes. */
  archived: boolean;
  chapterTitles: string[];
  momentTitles: string[];
  hasTranscript: boolean;
  /** sha256 of the episode record as read; an unchanged record is not re-derived. */
  sourceHash: string;
  indexedAt: string;
  /** The episode's own BCP 47 `language` when the record has one; absent: the channel's. */
  language?: string;
};

/** What every passage copies from its episode's catalog row, so that a search filters passages without a join. */
type EpisodeFilterFields = Pick<EpisodeDoc, 'status' | 'archived' | 'publishedAt' | 'year' | 'topicIds' | 'personIds' | 'entityIds' | 'collectionIds'>;

/** What an episode's transcript and chapters copy from its catalog row: a read of them checks channel and visibility alone. */
type EpisodeScopeFields = Pick<EpisodeDoc, 'channelId' | 'status' | 'archived'>;

/** The transcript exactly as read from the library; `_id` is the episode id. */
export interface TranscriptDoc extends EpisodeScopeFields {
  episodeId: string;
  /**
   * The whole speech, its segments' text in order: what the episode leg of search scores an episode by (BM25 over
   * whole episodes). Absent in stores derived before it existed. Never read back: transcript reads leave it out.
   */
  speech?: string;
  /** Where the speech ends (its last segment's end), ms: the episode leg scores only episodes this long or longer. */
  speechMs?: number;
  document: unknown;
}

/** All chapters of one episode; `_id` is the episode id. */
export interface ChaptersDoc extends EpisodeScopeFields {
  episodeId: string;
  chapters: Chapter[];
}

/** What a passage cites: transcript speech, a chapter title, or a key-moment title. */
export type PassageKind = 'transcript' | 'chapter' | 'moment';

/** The unit of search and citation; `_id` is `id`. */
export interface PassageDoc extends EpisodeFilterFields {
  id: string;
  episodeId: string;
  channelId: string;
  kind: PassageKind;
  text: string;
  chapterTitle: string | null;
  /** The generated chapter's title on its speech passages: matched by the keyword leg only to raise a passage found otherwise. */
  generatedContext: string | null;
  startMs: number;
  endMs: number;
  speaker: string | null;
  /** Speakers holding at least a quarter of the speech time: the keyword leg matches speaker names here. */
  mainSpeakers: string[];
  momentType: string | null;
  /** Sentence and turn starts in `text`, flat `[charOffset, ms, …]` (stored, not indexed): where a citation may begin. */
  marks: number[];
  /** sha256 of `text` and the model id: a vector is re-used while both are unchanged. */
  textHash: string;
  /** The episode record's version (its catalog row's `sourceHash`): the same hash, the same passage. */
  sourceHash: string;
  embedding: number[];
}
