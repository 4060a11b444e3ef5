// Enrichment inside the follow pipeline: the episode about to be published gets what it lacks, or is published bare
// with the reason logged and counted; it never loses its transcript.
import { join } from 'node:path';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import type { Logger } from '../../core/ground/logger.js';
import { readLibraryMeta } from '../../core/library/reader.js';
import { channelView, countedText, loadTally, rebuildTally, StaleStats, type ChannelTally, type KeyphraseHint } from './channel-stats.js';
import { episodesInFiles } from '../../core/library/reader.js';
import { speechText } from './speech.js';
import { addFacets } from './library.js';
import { applyGenerated, EnrichRefusal, FACET_KINDS, wantedFor, type FacetKindName, type Generated, type Stages } from './rules.js';
import { facetsOf, planChannel, workFor } from './plan.js';
import type { GeneratedFacet } from './types.js';

export interface PublishEnrichment {
  /** What was generated for the episode (empty when nothing was wanted, or on failure). */
  made: Generated;
  /** Names to add to the channel's facet files (those it does not have yet). */
  facets: Record<FacetKindName, GeneratedFacet[]>;
  /**
   * Puts what was generated into a record by the same rule (the record as it is at the publishing write, which may
   * have changed since): a field the creator filled meanwhile stays the creator's.
   */
  apply<T extends EpisodeRecord>(record: T): T;
  /** `enriched`, `complete` (nothing lacked), `refused` (no speech), `failed` (published bare). */
  outcome: 'enriched' | 'complete' | 'refused' | 'failed';
  seconds: number;
  /** The episode's keyphrases as the channel statistics keep them, for the publishing write (absent: computed there). */
  keyphrases?: KeyphraseHint & { episodeId: string };
}

const NO_FACETS: Record<FacetKindName, GeneratedFacet[]> = { topics: [], people: [], entities: [] };

/**
 * The publishing write's `apply`: what was generated put into the record as it is at that write, by the rule "the
 * creator's data wins" (a field the creator filled meanwhile stays the creator's). The enrichment thread rebuilds it
 * from the same two values, since a function cannot leave the thread.
 */
export const applierOf =
  (made: Generated, generatedIds: ReadonlySet<string>) =>
  <T extends EpisodeRecord>(r: T): T =>
    applyGenerated(r, wantedFor(r, generatedIds, { force: true }), made);

/** An episode published as it came: nothing generated, nothing to apply. */
export const notEnriched = (outcome: 'complete' | 'refused' | 'failed', seconds = 0): PublishEnrichment => ({ made: {}, facets: NO_FACETS, apply: (r) => r, outcome, seconds });

/**
 * Enriches an episode about to be published, among the episodes of its channel: their part in the choice of topics
 * (document frequencies, keyphrases) comes from the channel statistics file, so only this episode's file is read
 * (and any episode file changed since the statistics were written). What an earlier run generated is regenerated (the
 * transcript may have changed since); the creator's chapters and facet ids stay. A failure leaves the record as it
 * came, with `failed`.
 */
export async function enrichForPublish(
  record: EpisodeRecord,
  { stages, dir, channelLanguage, log, signal }: { stages: Stages; dir: string; channelLanguage: string | null; log?: Logger | undefined; signal?: AbortSignal | undefined },
): Promise<PublishEnrichment> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const unchanged = (outcome: 'complete' | 'refused' | 'failed') => notEnriched(outcome, seconds());
  try {
    const meta = await readLibraryMeta(dir);
    const { generatedIds, known, ids } = facetsOf(meta);
    const channelName = meta.channels.find((c) => c.id === record.channelId)?.title;
    const work = workFor(record, { generatedIds, channelLanguage, force: true, ...(channelName ? { channelName } : {}) });
    if (!work) return unchanged('complete');
    const language = (channelLanguage || 'en').toLowerCase();
    const body = speechText(work.segments);
    const viewOf = async (tally: ChannelTally) => {
      const stored = tally.episodes.get(record.id);
      return channelView(tally, { episodeId: record.id, body, previous: stored ? await recordIn(join(dir, stored.file), record) : undefined });
    };
    const { tally, from, read } = await loadTally(dir, record.channelId, language, { log });
    if (from === 'rebuilt') log?.info({ episodeId: record.id, files: read.length }, 'channel statistics missing or stale: made from the episode files');
    // The episode's file changed between the statistics' check and its read (a poll's write): once more from the files.
    const view = await viewOf(tally).catch(async (err: unknown) => {
      if (!(err instanceof StaleStats)) throw err;
      return viewOf(await rebuildTally(dir, record.channelId, language));
    });
    let failure: unknown;
    const plan = await planChannel([...view.others.map((o) => ({ ...o, language: '', text: '' })), { episodeId: record.id, language: work.language, text: body, work }], {
      stages,
      channelLanguage: language,
      known,
      stats: { freq: view.freq },
      signal,
      onFailure: (_id, err) => (failure = err),
      onNote: (episodeId, note) => log?.warn({ episodeId }, note),
    });
    if (failure !== undefined) throw failure;
    const made = plan.generated.get(record.id) ?? {};
    const facets = Object.fromEntries(FACET_KINDS.map(({ kind }) => [kind, plan.facets[kind].filter((f) => !ids.has(f.id))])) as Record<FacetKindName, GeneratedFacet[]>;
    const apply = applierOf(made, generatedIds);
    const changed = JSON.stringify(apply(record)) !== JSON.stringify(record);
    const text = countedText(record, channelLanguage);
    const keyphrases = plan.keyphrases.get(record.id);
    return {
      made,
      facets,
      apply,
      outcome: changed ? 'enriched' : 'complete',
      seconds: seconds(),
      ...(text && keyphrases ? { keyphrases: { episodeId: record.id, text, keyphrases } } : {}),
    };
  } catch (err) {
    signal?.throwIfAborted();
    if (err instanceof EnrichRefusal) return unchanged('refused');
    log?.warn({ episodeId: record.id, err: (err as Error).message }, 'enrichment failed: the episode is published without generated chapters');
    return unchanged('failed');
  }
}

/** The episode's record as its file holds it now (its counted text), read from that file alone. */
async function recordIn(path: string, record: EpisodeRecord): Promise<EpisodeRecord | undefined> {
  for await (const r of episodesInFiles([path], new Set([record.channelId]))) if (r.record.id === record.id) return r.record;
  return undefined;
}

/** Adds the names of what was generated to the channel folder's facet files; true when a file changed. */
export async function saveGeneratedFacets(dir: string, facets: Record<FacetKindName, GeneratedFacet[]>): Promise<boolean> {
  let changed = false;
  for (const { kind, file } of FACET_KINDS) {
    if (facets[kind].length === 0) continue;
    if (await addFacets(join(dir, file), facets[kind])) changed = true;
  }
  return changed;
}
