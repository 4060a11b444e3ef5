// Library records → the stored documents the API reads (pure).
import { createHash } from 'node:crypto';
import type { ChannelDoc, ChaptersDoc, EpisodeDoc, FacetDoc, PassageDoc, TranscriptDoc, UserDoc } from '../core/store/documents.js';
import type { FacetEntry } from '../core/library/reader.js';
import { buildPassages, searchedChapters, type PassageOptions } from '../core/passages/passages.js';
import type { ChannelRecord, EpisodeRecord, UserRecord } from '../core/library/checks.js';

/**
 * Version of the rules that turn a record into documents (passage packing, fields).
 * It is part of {@link sourceHash}: bump it when those rules change, and the next
 * ingest re-derives every episode (re-using vectors whose text did not change).
 * 2: passages gained `mainSpeakers`.
 * 3: passages gained `marks` (sentence starts, where citations begin).
 * 4: passages gained `sourceHash` (the API caches what it shows by it).
 * 5: episodes gained `language`; passages, titles and moments gained a sub-field per analysed language.
 * 6: speech passages gained `generatedContext` (the generated chapter's title they lie in).
 * 7: transcripts gained `speech` and `speechMs` (the whole speech and where it ends, for the episode leg of search).
 * 8: `generatedContext` only in episodes whose generated chapters span 20 minutes or more.
 * 9: facet names stored per channel (decision 33). An episode's own documents derive as before; the bump makes the
 *    first ingest after it rewrite every episode (and drop what caches hold by its hash) beside its channel's new
 *    facet documents, so no store keeps a mix of both rules. Its cost: each episode is announced once as updated.
 */
export const DERIVATION_VERSION = 9;

/**
 * sha256 hex of the derivation version and the record's JSON: the same record, read
 * from disk or from a job payload, hashes the same.
 */
export function sourceHash(record: unknown): string {
  return createHash('sha256')
    .update(`derivation-v${DERIVATION_VERSION}\n${JSON.stringify(record)}`)
    .digest('hex');
}

/** sha256 hex of model id and text: a stored vector is re-used only while both are unchanged. */
export function textHash(modelId: string, text: string): string {
  return createHash('sha256').update(`${modelId}\n${text}`).digest('hex');
}

/** A passage document still waiting for its vector. */
export type PassageDraft = Omit<PassageDoc, 'embedding'>;

/** Every document one episode gives. */
export interface EpisodeDocuments {
  episode: EpisodeDoc;
  /** Absent when the episode has no transcript yet (the stored one, if any, is deleted). */
  transcript: TranscriptDoc | null;
  chapters: ChaptersDoc;
  passages: PassageDraft[];
}

/** The whole speech of an episode, its segments' text in order, one line each, and where it ends: what the episode leg scores it by. */
export function searchedSpeech(record: Pick<EpisodeRecord, 'transcript'>): { speech: string; speechMs: number } {
  const segments = record.transcript?.segments ?? [];
  return { speech: segments.map((s) => s.text).join('\n'), speechMs: segments.reduce((end, s) => Math.max(end, s.endMs), 0) };
}

/** UTC year of an ISO timestamp. */
function yearOf(iso: string): number {
  return new Date(iso).getUTCFullYear();
}

/**
 * Derives the stored documents of one episode. `archived` is set on every document
 * so that any query can exclude it with one filter.
 */
export function episodeDocuments(
  record: EpisodeRecord,
  {
    modelId,
    indexedAt,
    hash = sourceHash(record),
    passageOptions,
  }: {
    modelId: string;
    indexedAt: string;
    hash?: string;
    passageOptions?: PassageOptions;
  },
): EpisodeDocuments {
  const status = record.status;
  const archived = status === 'archived';
  const chapters = record.chapters ?? [];
  const facets = {
    topicIds: record.topicIds ?? [],
    personIds: record.personIds ?? [],
    entityIds: record.entityIds ?? [],
    collectionIds: record.collectionIds ?? [],
  };
  const year = yearOf(record.publishedAt);
  const episode: EpisodeDoc = {
    id: record.id,
    channelId: record.channelId,
    title: record.title,
    description: record.description ?? null,
    summary: record.summary ?? null,
    link: record.link ?? null,
    thumbnail: record.thumbnail ?? null,
    mediaUrl: record.mediaUrl ?? null,
    durationMs: record.durationMs ?? null,
    publishedAt: record.publishedAt,
    year,
    viewCount: record.viewCount ?? null,
    status,
    archived,
    error: record.error ?? null,
    ...facets,
    // Searched titles: the creator's only (see searchedChapters).
    chapterTitles: searchedChapters(chapters).map((c) => c.title),
    momentTitles: searchedChapters(chapters).flatMap((c) => c.moments.map((m) => m.title)),
    hasTranscript: record.transcript != null,
    sourceHash: hash,
    indexedAt,
    ...(record.language ? { language: record.language } : {}),
  };
  const owner = { episodeId: record.id, channelId: record.channelId, status, archived };
  const passages = buildPassages(record, passageOptions).map((p): PassageDraft => ({
    ...p,
    episodeId: record.id,
    channelId: record.channelId,
    status,
    archived,
    publishedAt: record.publishedAt,
    year,
    ...facets,
    textHash: textHash(modelId, p.text),
    sourceHash: hash,
  }));
  return {
    episode,
    transcript: record.transcript != null ? { ...owner, ...searchedSpeech(record), document: record.transcript } : null,
    chapters: {
      ...owner,
      chapters: chapters.map((c) => ({
        title: c.title,
        startMs: c.startMs,
        endMs: c.endMs,
        moments: c.moments.map((m) => ({
          type: m.type,
          title: m.title,
          startMs: m.startMs,
          ...(m.endMs != null ? { endMs: m.endMs } : {}),
          ...generatedMark(m),
        })),
        ...generatedMark(c),
      })),
    },
    passages,
  };
}

export function userDocument(u: UserRecord): UserDoc {
  return { id: u.id, name: u.name, plan: u.plan };
}

export function channelDocument(c: ChannelRecord): ChannelDoc {
  return {
    id: c.id,
    slug: c.slug,
    title: c.title,
    providerType: c.providerType,
    ownerId: c.ownerId,
    memberIds: c.memberIds.includes(c.ownerId) ? [...c.memberIds] : [...c.memberIds, c.ownerId],
    customDomain: c.customDomain ?? null,
    ...(c.language ? { language: c.language } : {}),
  };
}

/**
 * The documents of one facet name (decision 33), one per channel it belongs to: the channel it names, else every
 * channel of its library (a library's facet files are shared by its channels; a followed feed's folder holds one).
 */
export function facetDocuments({ kind, record }: FacetEntry, libraryChannelIds: readonly string[]): FacetDoc[] {
  const channelIds = record.channelId != null ? [record.channelId] : libraryChannelIds;
  return channelIds.map((channelId) => ({ id: record.id, kind, name: record.name, channelId, ...generatedMark(record) }));
}

/**
 * `{ generated: true }` on what enrichment made (decision 27), nothing on the creator's: the documents of a record
 * without the field stay byte-identical, so no derivation version bump is needed (a record that gains it hashes anew).
 */
function generatedMark(record: { generated?: boolean | undefined }): { generated?: true } {
  return record.generated === true ? { generated: true } : {};
}
