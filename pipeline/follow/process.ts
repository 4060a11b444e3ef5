// One episode made searchable: `processing` while its transcript is read from the feed's own transcript file or
// its audio is downloaded and transcribed, then `published` (indexed with its passages), or `failed` with a
// sentence a creator understands. Transient failures are left to BullMQ's retries until the last attempt. Every job
// ends by recording its outcome in follow.json, so a polled item is never processed again for the same source version.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnrecoverableError } from 'bullmq';
import type { PipelineConfig } from '../../core/config/load.js';
import type { ChapterRecord, TranscriptRecord, EpisodeRecord } from '../../core/contract/library-format.js';
import { jsonChapters, showNoteChapters } from '../../importer/chapters.js';
import { bestDraft } from '../../importer/feed.js';
import { withLibraryLock, writeEpisodeRecord } from '../../core/library/writer.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { embedAhead, type IndexContext } from '../../indexer/load-episode.js';
import { episodeEnd, transcriptRecord as draftRecord } from '../../importer/model.js';
import { parseChaptersText, parseTranscriptText, readSource, type OutboundOptions } from '../../importer/sources.js';
import { ImportProblem, primaryLanguage, type DraftTranscript } from '../../importer/text.js';
import { RetryableIndexError, UnrecoverableIndexError } from '../../indexer/errors.js';
import { CheckedEpisode, episodeOverLimit } from '../../core/library/checks.js';
import { describeFetchError, downloadToFile, FetchError } from '../../core/ground/outbound/safe-fetch.js';
import { describeTranscribeError, piecesDirOf, removePieces, servicesFor, TranscribeError, transcribeFile, transcriptRecord } from '../transcribe/transcribe.js';
import { notEnriched, saveGeneratedFacets, type PublishEnrichment } from '../enrich/publish.js';
import type { PublishEnricher } from '../enrich/enrich-thread.js';
import { recordChannelStats } from '../enrich/channel-stats.js';
import { indexEpisodeFile, indexLibraryMeta } from './library.js';
import { readEpisodeRecord, readLibraryArray } from '../../core/library/reader.js';
import type { FollowDeps } from './poll.js';
import { MAX_PROCESS_STARTS, type ProcessJob } from './queues.js';
import { channelDir, episodePath, LIBRARY_FILES } from '../../core/library/layout.js';
import { readState, startsOf, withChannelLock, writeState, type ItemSource, type TranscriptSource } from '../../core/library/follow-state.js';

export interface ProcessDeps extends Omit<FollowDeps, 'processQueue'> {
  pipeline: FollowDeps['pipeline'] & Pick<PipelineConfig, 'audioMaxBytes' | 'audioMaxSeconds' | 'audioMinBytesPerSecond' | 'audioRateWindowSeconds' | 'transcribe'>;
  /**
   * Generates what a transcribed episode lacks (chapters, moments, topics, people, entities) before it is published,
   * off the event loop and under a deadline (enrich-thread.ts); unset: published as made.
   */
  enrich?: PublishEnricher | undefined;
}

export interface ProcessResult {
  episodeId: string;
  /** `superseded`: the source changed (or the work was done) since the job was enqueued; nothing was written. */
  outcome: 'published' | 'superseded';
  transcriptFrom?: 'feed' | 'audio';
  audioSeconds?: number;
  transcribeSeconds?: number;
  /** Pieces the audio was cut into, and how many were kept from a run stopped before (not transcribed again). */
  pieces?: number;
  piecesReused?: number;
  /** What was left out to publish (chapters ingest would refuse). */
  notes?: string[];
  /** What enrichment did before publishing (absent: not configured); `failed` published the episode bare. */
  enrichment?: PublishEnrichment['outcome'];
  enrichSeconds?: number;
}

/** A failure as the episode's `error` (a sentence, no URL, no stack), and whether another attempt may succeed. */
export function describeFailure(err: unknown): { sentence: string; transient: boolean; retryAfterMs?: number | undefined } {
  if (err instanceof FetchError) return { sentence: describeFetchError(err, 'the audio URL'), transient: err.transient, retryAfterMs: err.retryAfterMs };
  if (err instanceof TranscribeError) return { sentence: describeTranscribeError(err), transient: err.transient, retryAfterMs: err.retryAfterMs };
  if (err instanceof NoTranscriptError || err instanceof ProcessFailure) return { sentence: err.message, transient: false };
  if (err instanceof RetryableIndexError) return { sentence: 'the search index could not be updated', transient: true };
  if (err instanceof UnrecoverableIndexError) return { sentence: 'the search index refused the episode (the reason is in the worker log)', transient: false };
  return { sentence: 'processing stopped on an unexpected error (it is in the worker log)', transient: false };
}

/** Nothing to transcribe from: no usable transcript file and no audio. */
export class NoTranscriptError extends Error {
  override name = 'NoTranscriptError';
}

/** The episode cannot be made and a retry cannot help (ingest would refuse the record; too many starts): the message is its sentence. */
export class ProcessFailure extends Error {
  override name = 'ProcessFailure';
}

/**
 * The published record of `stored` with what was made, checked once as ingest will check it (the library's
 * {@link CheckedEpisode}, which the writer then writes without checking again). Chapters that make it refused are left
 * out with a note, as a bad chapters file never fails the episode: the transcript is what the episode is for (the
 * record without them is checked then, a second time). A record refused without them too throws ProcessFailure with a
 * sentence naming the limit.
 */
export function publishedRecord(
  stored: EpisodeRecord,
  made: Pick<Made, 'transcript' | 'language' | 'durationMs' | 'chapters'>,
  enriched: Pick<PublishEnrichment, 'apply'> = { apply: (r) => r },
): { episode: CheckedEpisode; notes: string[] } {
  // A creator's chapters arriving with the new version replace what was generated; otherwise enrichment remakes them.
  const record: EpisodeRecord = enriched.apply({
    ...stored,
    durationMs: stored.durationMs ?? made.durationMs,
    status: 'published',
    error: null,
    transcript: made.transcript,
    chapters: made.chapters.length > 0 ? made.chapters : (stored.chapters ?? []),
    language: made.language ?? stored.language ?? null,
  });
  const checked = CheckedEpisode.check(record);
  if (checked.ok) return { episode: checked.episode, notes: [] };
  const problem = `not imported: ${checked.reason}`;
  const bare: EpisodeRecord = { ...record, chapters: [] };
  if ((record.chapters?.length ?? 0) > 0) {
    const withoutChapters = CheckedEpisode.check(bare);
    if (withoutChapters.ok) return { episode: withoutChapters.episode, notes: [`chapters left out: ${episodeOverLimit(record) ?? problem}`] };
  }
  const over = episodeOverLimit(bare);
  throw new ProcessFailure(`the episode could not be published: ${over ?? 'its transcript breaks the library format (the reason is in the worker log)'}`, { cause: problem });
}

/**
 * The feed's transcript files of the item, in the feed's language (all when none matches), read through the safe
 * fetcher and parsed by the importer; the best is kept by the importer's order: the source's own word times, then
 * captions-like cues, then HTML.
 */
async function feedTranscript(
  transcripts: readonly TranscriptSource[],
  { language, durationMs, baseDir, outbound, notes }: { language: string | null; durationMs: number | null; baseDir: string; outbound: OutboundOptions; notes: string[] },
): Promise<DraftTranscript | undefined> {
  const want = primaryLanguage(language);
  const mine = transcripts.filter((t) => !want || !t.language || primaryLanguage(t.language) === want);
  const drafts: { draft: DraftTranscript; captions: boolean }[] = [];
  for (const t of mine.length > 0 ? mine : transcripts) {
    try {
      const { text, name } = await readSource(t.url, { baseDir, fetch: true, outbound });
      drafts.push({ draft: await parseTranscriptText(text, name, durationMs), captions: t.rel === 'captions' });
    } catch (err) {
      notes.push(err instanceof ImportProblem ? err.message : (err as Error).message);
    }
  }
  return bestDraft(drafts);
}

/**
 * The item's JSON chapters (`podcast:chapters`), else timestamps in its show notes by the importer's rules, or
 * none; a bad chapters file never fails the episode.
 */
async function feedChapters(
  { url, showNotes }: { url: string | null; showNotes: string | null },
  endMs: number,
  { baseDir, outbound, notes }: { baseDir: string; outbound: OutboundOptions; notes: string[] },
): Promise<ChapterRecord[]> {
  if (!url) {
    if (!showNotes) return [];
    const fromNotes = showNoteChapters(showNotes, endMs);
    if (fromNotes.warning) notes.push(fromNotes.warning);
    return fromNotes.chapters;
  }
  try {
    const { text, name } = await readSource(url, { baseDir, fetch: true, outbound });
    return jsonChapters(parseChaptersText(text, name), endMs);
  } catch (err) {
    notes.push((err as Error).message);
    return [];
  }
}

interface Made {
  transcript: TranscriptRecord;
  language: string | null;
  durationMs: number | null;
  chapters: ChapterRecord[];
  from: 'feed' | 'audio';
  audioSeconds?: number;
  transcribeSeconds?: number;
  pieces?: number;
  piecesReused?: number;
}

/** Makes the transcript: the feed's own file when one is usable (creator-written beats machine-made), else the audio transcribed. */
async function makeTranscript(deps: ProcessDeps, baseDir: string, source: ItemSource, record: EpisodeRecord, channelLanguage: string | null, signal?: AbortSignal): Promise<Made> {
  const { pipeline } = deps;
  const outbound: OutboundOptions = { allowPrivate: pipeline.allowPrivate, userAgent: pipeline.userAgent };
  const notes: string[] = [];
  const draft = await feedTranscript(source.transcripts, { language: channelLanguage, durationMs: record.durationMs ?? null, baseDir, outbound, notes });
  if (draft) {
    const chapters = await feedChapters({ url: source.chaptersUrl, showNotes: source.notes }, episodeEnd(record.durationMs ?? null, draft), { baseDir, outbound, notes });
    if (notes.length) deps.log?.info({ episodeId: record.id, notes }, 'transcript file notes');
    return { transcript: draftRecord(draft), language: record.language ?? null, durationMs: record.durationMs ?? null, chapters, from: 'feed' };
  }
  if (!source.enclosureUrl) {
    // The notes name URLs (with their query) and what the fetcher found there: the log's, never the episode's error.
    if (notes.length) deps.log?.info({ episodeId: record.id, notes }, 'transcript file notes');
    throw new NoTranscriptError(notes.length ? 'the transcript file could not be read, and the item has no audio' : 'the item has neither a transcript file nor audio');
  }
  const { url, model, apiKey, maxUploadBytes, timeoutMs } = pipeline.transcribe;
  if (!url) throw new NoTranscriptError('no transcription service is configured, so audio cannot be transcribed');
  // One pool of the worker's services for all its jobs; the pieces kept beside the episode until it is published.
  const services = servicesFor(pipeline.transcribe, deps.log);
  const piecesDir = piecesDirOf(episodePath(baseDir, record.id));
  const work = await mkdtemp(join(tmpdir(), 'cca-follow-'));
  try {
    const audio = join(work, 'audio');
    // An hour of audio at a slow 1 MB/s is a few minutes; the byte cap and the rate floor, not this, bound a hostile server.
    const minRate = { bytesPerSecond: pipeline.audioMinBytesPerSecond, windowMs: pipeline.audioRateWindowSeconds * 1000 };
    await downloadToFile(source.enclosureUrl, audio, { maxBytes: pipeline.audioMaxBytes, timeoutMs: 30 * 60_000, minRate, ...outbound, ...(signal ? { signal } : {}) });
    const t = await transcribeFile(audio, {
      url,
      model,
      ...(apiKey ? { apiKey } : {}),
      language: primaryLanguage(channelLanguage) ?? null,
      maxUploadBytes,
      timeoutMs,
      maxSeconds: pipeline.audioMaxSeconds,
      services,
      piecesDir,
      // The channel folder's library lock: an import swapping the folder never meets a half-landed piece.
      piecesLock: (fn) => withLibraryLock(baseDir, fn),
      ...(signal ? { signal } : {}),
      ...(deps.log ? { log: deps.log } : {}),
    });
    const durationMs = record.durationMs ?? t.durationMs;
    const chapters = await feedChapters({ url: source.chaptersUrl, showNotes: source.notes }, durationMs, { baseDir, outbound, notes });
    const pieces = { pieces: t.pieces ?? 1, piecesReused: t.piecesReused ?? 0 };
    return { transcript: transcriptRecord(t), language: t.language, durationMs, chapters, from: 'audio', audioSeconds: t.audioSeconds, transcribeSeconds: t.seconds, ...pieces };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** How often the index step is tried on a store that could not be reached before the job is left to BullMQ's retry. */
const INDEX_TRIES = 3;
const INDEX_RETRY_MS = 1000;

/**
 * Runs one processing job in a straight line: a locked start (the start counted, `processing` shown), the transcript,
 * enrichment, the passages embedded, then one locked publishing write (the record checked before it is written, so
 * nothing is ever rolled back; the facet names, the episode, the channel statistics, the outcome in follow.json, the
 * pieces removed), then the index step outside the lock as a step of its own. Each locked write re-reads the files, so
 * a poll that changed the item meanwhile is neither overwritten nor lost: a job whose source version is no longer
 * current writes nothing. `lastAttempt`: a transient failure now ends in `failed`. A job re-run after its worker died
 * starts again from the download; its writes are keyed by ids, so the episode ends with one catalog row and one set of
 * passages. A job re-run after its publishing write landed and its index step failed only indexes. A source version
 * started MAX_PROCESS_STARTS times without an outcome (a worker killed each time) is failed.
 */
export async function processEpisode(deps: ProcessDeps, job: ProcessJob, { lastAttempt, signal }: { lastAttempt: boolean; signal?: AbortSignal }): Promise<ProcessResult> {
  const { libraryDir } = deps.pipeline;
  const dir = channelDir(libraryDir, job.slug);
  const current = async () => {
    const state = await readState(libraryDir, job.slug);
    const source = state?.items[job.episodeId];
    const record = await readEpisodeRecord(dir, job.episodeId);
    // A stopped source still finishes the items it had seen: stopping ends the polls, and an episode left pending
    // for ever would be a status that lies.
    const live = state && source && source.digest === job.digest && source.processed?.digest !== job.digest && record && record.status !== 'archived';
    return live ? { state, source, record } : undefined;
  };

  /**
   * The index step, outside the lock: the folder's names when the write changed them, then what the episode's file
   * holds now (indexEpisodeFile). A store that cannot be reached is tried INDEX_TRIES times, then the error goes up.
   */
  const indexStep = async ({ meta = false, ctx = deps.ctx }: { meta?: boolean; ctx?: IndexContext } = {}): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        if (meta) await indexLibraryMeta(ctx, dir);
        await indexEpisodeFile(ctx, dir, job.episodeId);
        return;
      } catch (err) {
        if (!(err instanceof RetryableIndexError) || attempt >= INDEX_TRIES || signal?.aborted) throw err;
        deps.log?.warn({ episodeId: job.episodeId, attempt, err: err.message }, 'the index step failed; trying again');
        await sleep(INDEX_RETRY_MS * attempt);
      }
    }
  };

  /**
   * The job's ending in one locked write: the episode as `change` makes it (which may throw ProcessFailure before
   * anything is written), the generated names it uses, the channel statistics and the outcome in follow.json. Names
   * that cannot be saved publish the episode as `bare` makes it (without what was generated) rather than with bare ids.
   * A `failed` write the library refuses is logged and the outcome still recorded, so the item is not processed again.
   */
  const finish = (
    change: (r: EpisodeRecord) => EpisodeRecord | CheckedEpisode,
    outcome: 'published' | 'failed',
    extra: {
      facets?: PublishEnrichment['facets'] | undefined;
      bare?: (r: EpisodeRecord) => CheckedEpisode;
      stats?: { channelLanguage: string | null; hint: PublishEnrichment['keyphrases'] };
    } = {},
  ): Promise<{ written: boolean; facetsSaved: boolean }> =>
    withChannelLock(libraryDir, job.slug, async () => {
      const now = await current();
      if (!now) return { written: false, facetsSaved: false };
      let next = change(now.record);
      let facetsSaved = false;
      if (extra.facets) {
        try {
          facetsSaved = await saveGeneratedFacets(dir, extra.facets);
        } catch (err) {
          // Without their names the generated ids would show as bare ids: publish bare rather than half.
          deps.log?.warn({ episodeId: job.episodeId, err: (err as Error).message }, 'generated names could not be saved: the episode is published without them');
          if (extra.bare) next = extra.bare(now.record);
        }
      }
      try {
        await writeEpisodeRecord(dir, next);
      } catch (err) {
        if (outcome === 'published') throw err;
        deps.log?.error({ episodeId: job.episodeId, err: (err as Error).message }, 'the failed status could not be written');
      }
      // The channel statistics the next enrichment reads, in the same locked write (never throws).
      if (extra.stats)
        await recordChannelStats(dir, {
          channelId: (next instanceof CheckedEpisode ? next.record : next).channelId,
          channelLanguage: extra.stats.channelLanguage,
          previous: now.record,
          hint: extra.stats.hint,
          log: deps.log,
        });
      now.state.items[job.episodeId] = { ...now.source, processed: { digest: job.digest, outcome } };
      await writeState(libraryDir, now.state);
      // The transcript is in the episode's file now: pieces of this or an earlier attempt are done with (removed in
      // the same write: an import copying the folder meanwhile would find half a pieces folder).
      if (outcome === 'published') await removePieces(piecesDirOf(episodePath(dir, job.episodeId)));
      return { written: true, facetsSaved };
    });

  /** Ends the job on `err`: rethrown for BullMQ's retry while one may help, else `failed` with its sentence. */
  const fail = async (err: unknown): Promise<never> => {
    const failure = describeFailure(err);
    deps.log?.warn({ episodeId: job.episodeId, err: (err as Error).message, cause: (err as Error).cause, transient: failure.transient, lastAttempt }, 'processing failed');
    if (failure.transient && !lastAttempt) {
      // The job waits in the queue again for BullMQ's retry: the catalog says `pending` (queued), not `processing`.
      const waiting = await withChannelLock(libraryDir, job.slug, async () => {
        const now = await current();
        if (now?.record.status !== 'processing') return false;
        await writeEpisodeRecord(dir, { ...now.record, status: 'pending' });
        return true;
      }).catch((e: Error) => deps.log?.warn({ episodeId: job.episodeId, err: e.message }, 'the waiting status could not be written'));
      if (waiting) await indexStep().catch((e: Error) => deps.log?.warn({ episodeId: job.episodeId, err: e.message }, 'the waiting status could not be indexed'));
      throw err;
    }
    const ended = await finish((record) => ({ ...record, status: 'failed', error: failure.sentence }), 'failed');
    if (ended.written) await indexStep().catch((e: Error) => deps.log?.error({ episodeId: job.episodeId, err: e.message }, 'the failed status could not be indexed'));
    throw new UnrecoverableError(failure.sentence);
  };

  // A retry after the publishing write landed and its index step failed: only the index step is left (an unchanged
  // record writes nothing to the store, so a job run twice costs one read).
  const done = (await readState(libraryDir, job.slug))?.items[job.episodeId]?.processed;
  if (done?.digest === job.digest && done.outcome === 'published') {
    try {
      await indexStep({ meta: true });
    } catch (err) {
      return fail(err);
    }
    return { episodeId: job.episodeId, outcome: 'published' };
  }

  const started = await withChannelLock(libraryDir, job.slug, async () => {
    const now = await current();
    if (!now) return undefined;
    // Counted before anything else is written, so a start that dies anywhere still counts.
    const starts = startsOf(now.source, job.digest) + 1;
    now.state.items[job.episodeId] = { ...now.source, starts: { digest: job.digest, count: starts } };
    await writeState(libraryDir, now.state);
    if (starts > MAX_PROCESS_STARTS) return { giveUp: starts - 1 };
    // A published episode being re-made stays live on its old transcript; anything else shows the work.
    const showsWork = now.record.status !== 'published' && now.record.status !== 'processing';
    if (showsWork) await writeEpisodeRecord(dir, { ...now.record, status: 'processing', error: null });
    const channels = await readLibraryArray<{ id: string; language?: string | null }>(dir, LIBRARY_FILES.channels);
    return { source: now.source, record: now.record, showsWork, language: channels.find((c) => c.id === now.record.channelId)?.language ?? null };
  });
  if (!started) return { episodeId: job.episodeId, outcome: 'superseded' };
  if ('giveUp' in started) return fail(new ProcessFailure(`processing was started ${started.giveUp} times without finishing, so it was stopped`));
  if (started.showsWork) {
    try {
      await indexStep();
    } catch (err) {
      return fail(err);
    }
  }

  let made: Made;
  try {
    made = await makeTranscript(deps, dir, started.source, started.record, started.language, signal);
  } catch (err) {
    return fail(err);
  }
  const enriched = deps.enrich ? await enrichBeforePublishing(deps.enrich, dir, started, made) : undefined;
  let notes: string[] = [];
  let ended: { written: boolean; facetsSaved: boolean };
  let ctx: IndexContext;
  try {
    // The new passages are embedded before the publishing write takes the lock; its index step finds them embedded.
    ctx = { ...deps.ctx, embedder: await embedAhead(deps.ctx, publishedRecord(started.record, made, enriched).episode.record) };
    ended = await finish(
      (record) => {
        const published = publishedRecord(record, made, enriched);
        notes = published.notes;
        return published.episode;
      },
      'published',
      {
        facets: enriched?.outcome === 'enriched' ? enriched.facets : undefined,
        bare: (record) => publishedRecord(record, made).episode,
        ...(deps.enrich ? { stats: { channelLanguage: started.language, hint: enriched?.keyphrases } } : {}),
      },
    );
  } catch (err) {
    return fail(err);
  }
  if (!ended.written) return { episodeId: job.episodeId, outcome: 'superseded' };
  try {
    await indexStep({ meta: ended.facetsSaved, ctx });
  } catch (err) {
    return fail(err);
  }
  return {
    episodeId: job.episodeId,
    outcome: 'published',
    transcriptFrom: made.from,
    ...(made.audioSeconds !== undefined ? { audioSeconds: made.audioSeconds } : {}),
    ...(made.transcribeSeconds !== undefined ? { transcribeSeconds: made.transcribeSeconds } : {}),
    ...(made.pieces !== undefined ? { pieces: made.pieces, piecesReused: made.piecesReused ?? 0 } : {}),
    ...(notes.length > 0 ? { notes } : {}),
    ...(enriched ? { enrichment: enriched.outcome, enrichSeconds: enriched.seconds } : {}),
  };

  /**
   * Enrichment of the record as it will be published, outside the channel's lock (it takes seconds); the names of
   * what it made are written by the publishing write and indexed before the episode that uses them.
   */
  async function enrichBeforePublishing(
    enricher: PublishEnricher,
    folder: string,
    from: { record: EpisodeRecord; language: string | null },
    what: Made,
  ): Promise<PublishEnrichment> {
    let candidate: EpisodeRecord;
    try {
      candidate = publishedRecord(from.record, what).episode.record;
    } catch {
      return notEnriched('refused');
    }
    const result = await enricher.enrich(candidate, { dir: folder, channelLanguage: from.language, signal });
    if (result.outcome !== 'enriched') return result;
    deps.log?.info({ episodeId: job.episodeId, seconds: result.seconds, chapters: result.made.chapters?.length ?? 0 }, 'episode enriched');
    return result;
  }
}
