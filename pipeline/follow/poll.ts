// One poll of a followed source: a conditional GET (or a re-read of a yt-dlp folder), the body hashed so an
// unchanged 200 costs nothing, each item's change written to the library folder and indexed, the items that need a
// transcript enqueued, and the poll state (validators, outcome, backoff) saved in follow.json.
import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { PipelineConfig } from '../../core/config/load.js';
import type { Logger } from '../../core/ground/logger.js';
import type { IndexContext } from '../../indexer/load-episode.js';
import { describeFetchError, FEED_MAX_BYTES, fetchBytes, FetchError, httpStatusError } from '../../core/ground/outbound/safe-fetch.js';
import { ImportProblem } from '../../importer/text.js';
import { archivedByFollower, decideItem, mergeRecord } from './changes.js';
import { FollowError } from './errors.js';
import { feedSnapshot, keepStoredIds, NotAFeedError, ytdlpSnapshot, type SourceSnapshot } from './feed-source.js';
import { indexEpisode, indexLibraryMeta, writeChannel } from './library.js';
import { readEpisodeRecord } from '../../core/library/reader.js';
import { writeEpisodeRecord } from '../../core/library/writer.js';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { enqueueProcess, FINISHED, MAX_PROCESS_STARTS, processJobId, readFronts, type ProcessJob } from './queues.js';
import { nextPollAt, parseMaxAge } from './schedule.js';
import { channelDir } from '../../core/library/layout.js';
import { readState, startsOf, withChannelLock, writeState, type FollowState } from '../../core/library/follow-state.js';
import { assignTurns, newItems, turnOfPriority, type Planned } from './work-order.js';

/** The settings of the work order (FOLLOW_RECENT_DAYS, FOLLOW_RECENT_ITEMS, FOLLOW_MAX_ITEMS_PER_POLL, FOLLOW_MAX_QUEUED_PER_CHANNEL). */
export type WorkOrderSettings = Pick<PipelineConfig, 'recentDays' | 'recentItems' | 'maxItemsPerPoll' | 'maxQueuedPerChannel'>;

/** What a poll and the processing jobs need, made once per process. */
export interface FollowDeps {
  pipeline: Pick<PipelineConfig, 'libraryDir' | 'pollIntervalSeconds' | 'maxBackoffSeconds' | 'userAgent' | 'allowPrivate'> & WorkOrderSettings;
  ctx: IndexContext;
  processQueue: Queue<ProcessJob>;
  log?: Logger | undefined;
}

export interface PollReport {
  slug: string;
  /** `200` (read and applied), `304`, `unchanged` (a 200 with the same body), `error`, `skipped` (before its time), `stopped`. */
  outcome: '200' | '304' | 'unchanged' | 'error' | 'skipped' | 'stopped';
  status: number | null;
  items: number;
  added: number;
  updated: number;
  reprocessed: number;
  archived: number;
  /** Processing jobs added now (new items, changed sources, lost jobs). */
  enqueued: number;
  /** New items of the feed past FOLLOW_MAX_ITEMS_PER_POLL (the oldest), left for the next polls. */
  deferredItems: number;
  /** Items to process past FOLLOW_MAX_QUEUED_PER_CHANNEL (its oldest backfill), queued by a later poll. */
  deferredJobs: number;
  skippedItems: { item: string; reason: string }[];
  error: string | null;
  nextPollAt: string | null;
}

/** Request headers of a conditional GET from the validators the last 200 gave. */
export function conditionalHeaders(state: Pick<FollowState, 'etag' | 'lastModified'>): Record<string, string> {
  return { ...(state.etag ? { 'If-None-Match': state.etag } : {}), ...(state.lastModified ? { 'If-Modified-Since': state.lastModified } : {}) };
}

/** A poll failure as the sentence `--list` shows. */
export function describePollError(err: unknown): string {
  if (err instanceof FetchError) return describeFetchError(err, 'the feed');
  if (err instanceof NotAFeedError) return `the feed is ${err.message}`;
  if (err instanceof ImportProblem) return err.message;
  return (err as Error).message;
}

interface Fetched {
  outcome: '200' | '304' | 'unchanged';
  status: number | null;
  snapshot?: SourceSnapshot;
  validators: Pick<FollowState, 'etag' | 'lastModified' | 'bodyHash'>;
  maxAgeSeconds?: number | undefined;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Reads the source: a conditional GET for a feed (304 and an unchanged body give no snapshot), a re-read for a folder. */
export async function fetchSource(state: FollowState, pipeline: FollowDeps['pipeline']): Promise<Fetched> {
  if (state.kind === 'ytdlp') {
    const snapshot = await ytdlpSnapshot(state.source, { slug: state.slug });
    const bodyHash = sha256(JSON.stringify(snapshot));
    const same = bodyHash === state.bodyHash;
    return { outcome: same ? 'unchanged' : '200', status: null, ...(same ? {} : { snapshot }), validators: { etag: null, lastModified: null, bodyHash } };
  }
  const res = await fetchBytes(state.source, {
    maxBytes: FEED_MAX_BYTES,
    allowPrivate: pipeline.allowPrivate,
    userAgent: pipeline.userAgent,
    headers: conditionalHeaders(state),
  });
  const maxAgeSeconds = parseMaxAge(res.headers.get('cache-control'));
  if (res.status === 304) return { outcome: '304', status: 304, validators: state, maxAgeSeconds };
  if (res.status < 200 || res.status > 299) throw httpStatusError(res.url, res.status, res.headers);
  const validators = { etag: res.headers.get('etag'), lastModified: res.headers.get('last-modified'), bodyHash: sha256(res.body) };
  if (validators.bodyHash === state.bodyHash) return { outcome: 'unchanged', status: res.status, validators, maxAgeSeconds };
  return {
    outcome: '200',
    status: res.status,
    snapshot: feedSnapshot(res.body.toString('utf8'), { slug: state.slug, feedUrl: res.url, ...(state.feedKey ? { feedKey: state.feedKey } : {}) }),
    validators,
    maxAgeSeconds,
  };
}

/**
 * The items of a snapshot not seen before past the first `max` by date (newest kept): a feed of 90,000 items is taken
 * a slice per poll, so one poll's writes, index requests and jobs stay bounded.
 */
export function itemsForLater(snapshot: SourceSnapshot, seen: Readonly<Record<string, unknown>>, max: number): Set<string> {
  const unseen = snapshot.items.filter((i) => !Object.hasOwn(seen, i.record.id));
  unseen.sort((a, b) => (a.record.publishedAt < b.record.publishedAt ? 1 : a.record.publishedAt > b.record.publishedAt ? -1 : 0));
  return new Set(unseen.slice(Math.max(0, max)).map((i) => i.record.id));
}

/**
 * Writes what changed in the snapshot, each change through the library step then the index step (the folder first:
 * it is the source of truth); returns the counts. Runs under the channel lock.
 */
async function applySnapshot(
  deps: FollowDeps,
  state: FollowState,
  read: SourceSnapshot,
): Promise<Pick<PollReport, 'added' | 'updated' | 'reprocessed' | 'archived' | 'deferredItems'>> {
  // Items an earlier key named otherwise keep the ids the follower or the store (an imported channel) holds them under.
  const snapshot = await keepStoredIds(read, state, deps.ctx);
  const dir = channelDir(deps.pipeline.libraryDir, state.slug);
  await writeChannel(dir, { slug: state.slug, ownerId: state.ownerId, channel: snapshot.channel, people: snapshot.people, topics: snapshot.topics });
  await indexLibraryMeta(deps.ctx, dir);
  const writeAndIndex = async (record: EpisodeRecord) => {
    await writeEpisodeRecord(dir, record);
    await indexEpisode(deps.ctx, dir, record);
  };
  const counts = { added: 0, updated: 0, reprocessed: 0, archived: 0 };
  const final = state.kind === 'ytdlp';
  // The feed's identity as first seen: a `<link>` that changes later does not rename every episode.
  if (!state.feedKey && snapshot.feedKey) state.feedKey = snapshot.feedKey;
  const later = itemsForLater(snapshot, state.items, deps.pipeline.maxItemsPerPoll);
  for (const item of snapshot.items) {
    const id = item.record.id;
    if (later.has(id)) continue;
    const stored = await readEpisodeRecord(dir, id);
    const previous = state.items[id];
    const action = decideItem(stored, previous, item, { final });
    if (action === 'new') {
      await writeAndIndex(item.record);
      counts.added++;
    } else if (action === 'reprocess') {
      // A failed or archived episode waits again; a published one stays live on its old transcript until the new one replaces it.
      const merged = mergeRecord(stored!, item.record);
      const status = merged.status === 'published' || merged.status === 'processing' ? merged.status : 'pending';
      await writeAndIndex({ ...merged, status, error: null });
      counts.reprocessed++;
    } else if (action === 'update') {
      const merged = final ? item.record : mergeRecord(stored!, item.record);
      await writeAndIndex(merged.status === 'archived' ? { ...merged, status: 'published' } : merged);
      counts.updated++;
    }
    // Work done for this very source version is remembered; a new version must be processed again.
    const same = previous?.digest === item.source.digest && action !== 'new';
    const processed = same ? previous.processed : final ? { digest: item.source.digest, outcome: 'published' as const } : undefined;
    state.items[id] = { ...item.source, ...(processed ? { processed } : {}), ...(same && previous.starts ? { starts: previous.starts } : {}) };
  }
  if (state.archiveMissing) {
    const present = new Set(snapshot.items.map((i) => i.record.id));
    for (const id of Object.keys(state.items)) {
      if (present.has(id)) continue;
      const stored = await readEpisodeRecord(dir, id);
      if (stored && stored.status !== 'archived') {
        await writeAndIndex(archivedByFollower(stored));
        counts.archived++;
      }
    }
  }
  return { ...counts, deferredItems: later.size };
}

/**
 * Enqueues the processing job of every feed item whose current source version has not been processed (new items,
 * changed sources, and jobs Redis lost), in the work order: recent items before backfill, each at the channel's turn,
 * at most FOLLOW_MAX_QUEUED_PER_CHANNEL queued or running per channel (the rest wait for a later poll). Deterministic
 * job ids make this safe to run on every poll.
 */
export async function enqueueUnprocessed(
  deps: Pick<FollowDeps, 'processQueue'> & { pipeline: Pick<WorkOrderSettings, 'recentDays' | 'recentItems' | 'maxQueuedPerChannel'> },
  state: FollowState,
  now: number = Date.now(),
): Promise<{ enqueued: number; deferred: number }> {
  // A stopped source included: its items already seen are still finished (or retried), only its polls end.
  if (state.kind !== 'feed') return { enqueued: 0, deferred: 0 };
  const queue = deps.processQueue;
  const fresh = newItems(
    Object.entries(state.items).map(([id, s]) => ({ id, publishedAt: s.publishedAt })),
    deps.pipeline,
    now,
  );
  const waiting = { new: 0, backfill: 0 };
  let queued = 0;
  const plan: Planned<ProcessJob>[] = [];
  for (const [episodeId, source] of Object.entries(state.items)) {
    if (source.processed?.digest === source.digest) continue;
    // Started more often than any job may start it and still no outcome: enqueueing again would only repeat that.
    if (startsOf(source, source.digest) > MAX_PROCESS_STARTS) continue;
    const job: ProcessJob = { slug: state.slug, episodeId, digest: source.digest };
    const existing = await queue.getJob(processJobId(job));
    const jobState = existing ? await existing.getState() : 'unknown';
    if (existing && !FINISHED.has(jobState)) {
      queued++;
      if (jobState !== 'active') waiting[turnOfPriority(existing.priority).cls]++;
      continue;
    }
    plan.push({ cls: fresh.has(episodeId) ? 'new' : 'backfill', publishedAt: source.publishedAt, job });
  }
  if (plan.length === 0) return { enqueued: 0, deferred: 0 };
  const { add, deferred } = assignTurns(plan, { room: deps.pipeline.maxQueuedPerChannel - queued, waiting, front: await readFronts(queue) });
  let enqueued = 0;
  for (const { job, priority } of add) if ((await enqueueProcess(queue, job, { priority })).added) enqueued++;
  return { enqueued, deferred };
}

/** The report of a poll that did nothing yet: the counts at zero, the state's last figures. */
function emptyReport(slug: string, state: FollowState): PollReport {
  return {
    slug,
    outcome: 'skipped',
    status: null,
    items: state.itemsSeen,
    added: 0,
    updated: 0,
    reprocessed: 0,
    archived: 0,
    enqueued: 0,
    deferredItems: 0,
    deferredJobs: 0,
    skippedItems: [],
    error: null,
    nextPollAt: state.nextPollAt,
  };
}

/**
 * Polls a followed source once: the feed is fetched without the channel's lock (a slow feed holds no other writer
 * of the channel), then what changed is written under the lock in one go, then the items to process are enqueued.
 * Before its next poll time it does nothing unless `force`. Failures are recorded (with backoff) and reported, never
 * thrown; a source that is not followed throws FollowError `not_followed`. When another poll of the same source lands
 * while this one fetches, this one's answer is dropped (the other's stands) and it reports `skipped`.
 */
export async function pollSource(deps: FollowDeps, slug: string, { force = false, now = () => Date.now() }: { force?: boolean; now?: () => number } = {}): Promise<PollReport> {
  const { libraryDir, pollIntervalSeconds, maxBackoffSeconds } = deps.pipeline;
  const read = await readState(libraryDir, slug);
  if (!read) throw new FollowError('not_followed', slug);
  if (read.stoppedAt) return { ...emptyReport(slug, read), outcome: 'stopped' };
  if (!force && read.nextPollAt && now() < Date.parse(read.nextPollAt)) return emptyReport(slug, read);

  let fetched: Fetched | undefined;
  let failure: unknown;
  try {
    fetched = await fetchSource(read, deps.pipeline);
  } catch (err) {
    failure = err;
  }

  const written = await withChannelLock(libraryDir, slug, async () => {
    const state = await readState(libraryDir, slug);
    if (!state) throw new FollowError('not_followed', slug);
    const report = emptyReport(slug, state);
    // Another poll (the worker's, or a CLI's --poll) landed while this one fetched, or the source was stopped: its
    // outcome stands, and this answer (conditional on the validators it read) is not applied over it.
    if (state.lastPollAt !== read.lastPollAt || state.stoppedAt) return { state, report: state.stoppedAt ? { ...report, outcome: 'stopped' as const } : report, applied: false };
    if (!fetched) {
      const sentence = describePollError(failure);
      // One clock reading for both times: `--list` shows the wait as their difference.
      const at = now();
      state.errors++;
      state.consecutiveFailures++;
      state.lastPollAt = new Date(at).toISOString();
      state.lastOutcome = 'error';
      state.lastStatus = failure instanceof FetchError ? (failure.status ?? null) : null;
      state.lastError = sentence;
      state.nextPollAt = new Date(
        nextPollAt({
          now: at,
          intervalSeconds: pollIntervalSeconds,
          maxBackoffSeconds,
          consecutiveFailures: state.consecutiveFailures,
          retryAfterMs: failure instanceof FetchError ? failure.retryAfterMs : undefined,
        }),
      ).toISOString();
      await writeState(libraryDir, state);
      deps.log?.warn({ slug, err: sentence, failures: state.consecutiveFailures, nextPollAt: state.nextPollAt }, 'poll failed');
      return { state, report: { ...report, outcome: 'error' as const, status: state.lastStatus, error: sentence, nextPollAt: state.nextPollAt }, applied: false };
    }
    if (fetched.snapshot) {
      Object.assign(report, await applySnapshot(deps, state, fetched.snapshot));
      report.skippedItems = fetched.snapshot.skipped;
      state.itemsSeen = fetched.snapshot.items.length;
    }
    // Validators are saved only after the changes are written: a poll that died halfway is read again in full, and so
    // is a feed whose items were not all taken (an unchanged body would otherwise never give the rest).
    Object.assign(state, report.deferredItems > 0 ? { etag: null, lastModified: null, bodyHash: null } : fetched.validators);
    state.consecutiveFailures = 0;
    const at = now();
    state.lastPollAt = new Date(at).toISOString();
    state.lastOutcome = fetched.outcome;
    state.lastStatus = fetched.status;
    state.lastError = null;
    state.nextPollAt = new Date(
      nextPollAt({ now: at, intervalSeconds: pollIntervalSeconds, maxBackoffSeconds, consecutiveFailures: 0, maxAgeSeconds: fetched.maxAgeSeconds }),
    ).toISOString();
    await writeState(libraryDir, state);
    return { state, report: { ...report, outcome: fetched.outcome, status: fetched.status, items: state.itemsSeen, nextPollAt: state.nextPollAt }, applied: true };
  });
  if (!written.applied) return written.report;

  // Enqueueing needs no lock: job ids are deterministic, and a job reads the folder under the lock when it runs.
  const { state, report } = written;
  const queued = await enqueueUnprocessed(deps, state, Date.parse(state.lastPollAt ?? new Date(now()).toISOString()));
  report.enqueued = queued.enqueued;
  report.deferredJobs = queued.deferred;
  deps.log?.info(
    {
      slug,
      outcome: report.outcome,
      added: report.added,
      updated: report.updated,
      reprocessed: report.reprocessed,
      enqueued: report.enqueued,
      deferredItems: report.deferredItems,
      deferredJobs: report.deferredJobs,
    },
    'polled',
  );
  return report;
}
