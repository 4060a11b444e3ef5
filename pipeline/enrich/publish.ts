// Enrichment inside the follow pipeline: the episode about to be published gets what it lacks, or is published bare
// with the reason logged and counted; it never loses its transcript.
import { join } from 'node:path';
import type { EpisodeRecord } from '../../src/contract/library-format.js';
import type { Logger } from '../../src/ground/logger.js';
import { readLibraryMeta } from '../../indexer/library-reader.js';
import { addFacets, EnrichRefusal, enrichRecord, FACET_KINDS, type Generate, type Generated } from './library.js';

export interface PublishEnrichment<R extends EpisodeRecord> {
  record: R;
  /** What was generated (empty when nothing was wanted, or on failure). */
  made: Generated;
  /** `enriched`, `complete` (nothing lacked), `refused` (no speech), `failed` (published bare). */
  outcome: 'enriched' | 'complete' | 'refused' | 'failed';
  seconds: number;
}

/**
 * Enriches an episode about to be published from its channel folder. What an earlier run generated is regenerated
 * (the transcript may have changed since); the creator's chapters and facet ids stay. A failure returns the record as
 * it came, with `failed`.
 */
export async function enrichForPublish<R extends EpisodeRecord>(
  record: R,
  { generate, dir, channelLanguage, log, signal }: { generate: Generate; dir: string; channelLanguage: string | null; log?: Logger | undefined; signal?: AbortSignal | undefined },
): Promise<PublishEnrichment<R>> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const meta = await readLibraryMeta(dir);
    const generatedIds = new Set(meta.facets.filter((f) => (f.record as { generated?: boolean }).generated === true).map((f) => f.record.id));
    const out = await enrichRecord(record, { generate, generatedIds, channelLanguage, force: true, ...(signal ? { signal } : {}) });
    const changed = JSON.stringify(out.record) !== JSON.stringify(record);
    return { record: out.record as R, made: out.made, outcome: changed ? 'enriched' : 'complete', seconds: seconds() };
  } catch (err) {
    signal?.throwIfAborted();
    if (err instanceof EnrichRefusal) return { record, made: {}, outcome: 'refused', seconds: seconds() };
    log?.warn({ episodeId: record.id, err: (err as Error).message }, 'enrichment failed: the episode is published without generated chapters');
    return { record, made: {}, outcome: 'failed', seconds: seconds() };
  }
}

/** Adds the names of what was generated to the channel folder's facet files; true when a file changed. */
export async function saveGeneratedFacets(dir: string, made: Generated): Promise<boolean> {
  let changed = false;
  for (const { kind, file } of FACET_KINDS) {
    const facets = made[kind] ?? [];
    if (facets.length === 0) continue;
    if (await addFacets(join(dir, file), facets)) changed = true;
  }
  return changed;
}
