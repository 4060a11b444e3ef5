// What a poll does with each item: new, its source changed (process again), only its catalog fields changed, or
// nothing (pure; unit-tested).
import { ARCHIVED_BY, type EpisodeRecord } from '../../core/contract/library-format.js';
import type { ItemSource } from '../../core/library/follow-state.js';

export type ItemAction = 'new' | 'reprocess' | 'update' | 'unchanged';

/**
 * What the follower writes in `archivedBy` when it archives an episode whose item left the source (`--archive-missing`):
 * only those come back when their item does. Any other archived episode was archived by hand (a takedown) and stays so.
 */
export const ARCHIVED_BY_FOLLOW = ARCHIVED_BY.follow;

/** `record` archived by the follower (its item left the source), marked so that it comes back with its item. */
export const archivedByFollower = <T extends EpisodeRecord>(record: T): T => ({ ...record, status: 'archived', archivedBy: ARCHIVED_BY_FOLLOW });

/** Archived by someone other than the follower: the source never brings it back (review 2026-11-27, item 12). */
export const archivedByHand = (stored: EpisodeRecord): boolean => stored.status === 'archived' && stored.archivedBy !== ARCHIVED_BY_FOLLOW;

/** Fields the pipeline owns (what processing made), kept when the source's catalog fields are applied. */
const PIPELINE_FIELDS = ['status', 'error', 'transcript', 'chapters', 'language'] as const;

/** Facet lists enrichment fills where the source gives none. */
const FACET_FIELDS = ['topicIds', 'personIds', 'entityIds'] as const;

/** An id enrichment made (`tp_g-`, `pe_g-`, `en_g-`: pipeline/enrich/topics.ts and people.ts), never a creator's. */
const isGeneratedFacetId = (id: string): boolean => /^(tp|pe|en)_g-/.test(id);

/**
 * The stored record with the source's catalog fields applied and the pipeline's own fields kept. A duration the feed
 * does not give keeps the one measured when the audio was transcribed (most feeds carry no `itunes:duration`; without
 * this every later change of the feed would count as an update of each such episode). A facet list the source leaves
 * empty keeps the generated ids enrichment put there (the creator's own, when the source brings some, win; without
 * this the next poll emptied every enriched episode's topics, people and entities, and `/related` with them).
 */
export function mergeRecord(stored: EpisodeRecord, fresh: EpisodeRecord): EpisodeRecord {
  const merged: Record<string, unknown> = { ...fresh };
  for (const field of PIPELINE_FIELDS) {
    if (field in stored) merged[field] = stored[field];
  }
  for (const field of FACET_FIELDS) {
    const generated = (stored[field] ?? []).filter(isGeneratedFacetId);
    if ((fresh[field] ?? []).length === 0 && generated.length > 0) merged[field] = generated;
  }
  if (fresh.durationMs == null && stored.durationMs != null) merged.durationMs = stored.durationMs;
  return merged as EpisodeRecord;
}

/**
 * The action for one item of a feed. A changed enclosure or transcript URL under the same identity is the same
 * episode made again (a failed one retried, a transcribed one re-transcribed: its old transcript may no longer
 * match the audio); an item the follower archived that came back is processed again unless it kept a transcript.
 * An episode archived by hand is left alone, whatever its item says, as the importer keeps hand-set statuses.
 * `final`: the source's records are complete as read (a yt-dlp folder), nothing is processed.
 */
export function decideItem(
  stored: EpisodeRecord | undefined,
  storedSource: ItemSource | undefined,
  fresh: { record: EpisodeRecord; source: ItemSource },
  { final = false }: { final?: boolean } = {},
): ItemAction {
  if (!stored) return 'new';
  if (archivedByHand(stored)) return 'unchanged';
  if (final) return JSON.stringify(stored) === JSON.stringify(fresh.record) ? 'unchanged' : 'update';
  if (storedSource?.digest !== fresh.source.digest) return 'reprocess';
  if (stored.status === 'archived') return stored.transcript ? 'update' : 'reprocess';
  return JSON.stringify(mergeRecord(stored, fresh.record)) === JSON.stringify(stored) ? 'unchanged' : 'update';
}
