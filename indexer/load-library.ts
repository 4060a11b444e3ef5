// Direct mode: loads a whole library in-process, running the same jobs the worker runs.
import type { Client } from '@opensearch-project/opensearch';
import type { Logger } from '../core/ground/logger.js';
import type { IndexLayout } from '../core/config/load.js';
import { ensureIndices, indexAliases, INDEX_NAMES } from '../core/store/opensearch.js';
import { embedInTurns } from './embed-turns.js';
import { signatureOf } from '../core/embedding/embedder.js';
import { RetryableIndexError, retryIndexErrors, storeCall } from './errors.js';
import { libraryJobs, runJob, type IngestJob, type JobResult } from './jobs.js';
import { formatIssue } from '../core/library/reader.js';
import { assertIndexModel, type IndexContext, type PassageEmbedder } from './load-episode.js';
import { createSummary, type LoadSummary } from './summary.js';

/** Consecutive jobs failing with a transient store error after all retries before a run stops. */
const MAX_STORE_DOWN = 3;

export interface LoadProgress {
  /** Episodes done (indexed, unchanged or failed). */
  done: number;
  /** Episode records in the library (known after the first event). */
  total: number;
  /** Passages embedded so far in this run. */
  embedded: number;
}

export interface LoadLibraryOptions {
  client: Client;
  embedder: PassageEmbedder;
  /** Index prefix; indices are created (with the embedder's model id) when missing. */
  prefix: string;
  dir: string;
  log?: Logger | undefined;
  onProgress?: ((progress: LoadProgress) => void) | undefined;
  /**
   * Tries per job on transient store errors, waiting `baseDelayMs`·2ⁿ between them.
   * Default 6 tries from 2 s: about a minute of waiting, enough to ride out a restart of OpenSearch.
   */
  retry?: { attempts: number; baseDelayMs: number };
  /** Texts per embedding call. */
  embedChunk?: number;
  /** Rewrite every episode even when unchanged (after changing derivation rules by hand); vectors are re-used. */
  force?: boolean;
  /** Shards and replicas of indices created here (INDEX_SHARDS, INDEX_REPLICAS). */
  layout?: IndexLayout | undefined;
  /**
   * Episodes worked on at once; default 2: the next episode is embedded while the one
   * before it waits for its writes (see {@link loadLibrary}). 1 runs them one after another.
   */
  episodesInFlight?: number;
  /** The change feed's retention (CHANGES_RETENTION_DAYS). */
  changeRetentionDays?: number | undefined;
  /** LANGUAGES: the languages given sub-fields of their own (default `en,es,de,fr,pt,it,nl`). */
  languages?: readonly string[] | undefined;
}

/** Runs a job, retrying {@link RetryableIndexError}s with exponential backoff, as the worker would. */
export function runWithRetries(
  ctx: IndexContext,
  job: IngestJob,
  { attempts, baseDelayMs }: { attempts: number; baseDelayMs: number },
  onEmbedded?: (n: number) => void,
): Promise<JobResult> {
  return retryIndexErrors(() => runJob(ctx, job, { ...(onEmbedded ? { onEmbedded } : {}) }), {
    attempts,
    baseDelayMs,
    onRetry: (err, attempt) => ctx.log?.warn({ err: err.message, attempt }, 'transient store error, retrying'),
  });
}

/**
 * Loads the library at `dir` into the indices of `prefix` without a queue: users,
 * channels and facets, then every episode (skipping unchanged ones), then removes
 * episodes of the library's channels that are no longer in it, then refreshes.
 * Bad files and records are skipped and listed in the summary; one failing episode
 * does not stop the others. Throws only when the store or the indices are unusable
 * (unreachable, or built for another embedding model).
 */
export async function loadLibrary({
  client,
  embedder,
  prefix,
  dir,
  log,
  onProgress,
  retry = { attempts: 6, baseDelayMs: 2000 },
  embedChunk,
  force = false,
  layout,
  episodesInFlight = 2,
  changeRetentionDays,
  languages,
}: LoadLibraryOptions): Promise<LoadSummary> {
  const summary = createSummary(dir);
  const aliases = await ensureIndices(client, { prefix, modelId: embedder.modelId, embedding: signatureOf(embedder), layout, ...(languages ? { languages } : {}) });
  await assertIndexModel(client, aliases, embedder);
  const ctx: IndexContext = {
    client,
    embedder,
    aliases,
    log,
    ...(embedChunk ? { embedChunk } : {}),
    changes: { retentionDays: changeRetentionDays },
    ...(languages ? { languages } : {}),
  };
  const embedderFor = embedInTurns(embedder);
  const progress: LoadProgress = { done: 0, total: 0, embedded: 0 };
  let storeDown = 0;
  let gaveUp: Error | undefined;
  const onEmbedded = (n: number): void => {
    progress.embedded += n;
    onProgress?.({ ...progress });
  };

  /** Runs one job to its summary line; never throws, but sets `gaveUp` when the store is gone. */
  const run = async (job: IngestJob, order: number): Promise<void> => {
    if (job.kind === 'episode') summary.episodeRead();
    try {
      const jobCtx = job.kind === 'episode' ? { ...ctx, embedder: embedderFor(order) } : ctx;
      summary.result(await runWithRetries(jobCtx, job.kind === 'episode' && force ? { ...job, force } : job, retry, onEmbedded));
      storeDown = 0;
    } catch (err) {
      const id = job.kind === 'episode' ? job.record.id : job.kind;
      const reason = err instanceof Error ? err.message : String(err);
      summary.failed(id, reason, { episode: job.kind === 'episode' });
      log?.error({ id, err: reason }, 'job failed');
      // The store is gone, not one record bad: stop instead of failing every remaining episode slowly.
      if (err instanceof RetryableIndexError && ++storeDown >= MAX_STORE_DOWN) {
        gaveUp ??= new Error(`OpenSearch unavailable for ${storeDown} jobs in a row, giving up: ${reason}`, { cause: err });
      }
    }
    if (job.kind === 'episode') {
      progress.done++;
      onProgress?.({ ...progress });
    }
  };

  // Episodes overlap: while one waits for its `_bulk` and catalog writes, the next one reads
  // its stored vectors and embeds. Users and channels come before any episode and the final
  // sync after all of them, so other jobs wait for every episode in flight.
  const inFlight = new Set<Promise<void>>();
  let order = 0;
  for await (const job of libraryJobs(dir, {
    onIssue: (issue) => {
      summary.issue(issue);
      log?.warn({ path: issue.path, line: issue.line, id: issue.id, reason: issue.reason }, `skipped: ${formatIssue(issue)}`);
    },
    onSyncWithheld: (reason) => {
      summary.syncWithheld(reason);
      log?.warn({ reason }, 'removal of missing episodes withheld');
    },
    onTotal: (total) => {
      progress.total = total;
      onProgress?.({ ...progress });
    },
  })) {
    if (job.kind !== 'episode') {
      await Promise.all(inFlight);
      if (!gaveUp) await run(job, order++);
    } else {
      while (inFlight.size >= episodesInFlight) await Promise.race(inFlight);
      if (!gaveUp) {
        const running: Promise<void> = run(job, order++).finally(() => inFlight.delete(running));
        inFlight.add(running);
      }
    }
    if (gaveUp) break;
  }
  await Promise.all(inFlight);
  if (gaveUp) throw gaveUp;
  const index = INDEX_NAMES.map((n) => indexAliases(prefix)[n]).join(',');
  await storeCall('refresh', () => client.indices.refresh({ index }));
  return summary.finish();
}
