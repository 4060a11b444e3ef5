// What `npm run follow` does: follow a source (owner checked, source recorded, first poll), list, stop, retry.
import { rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Queue } from 'bullmq';
import type { ChannelRecord, UserRecord } from '../../core/contract/library-format.js';
import { PAID_PLAN } from '../../core/contract/plans.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { storedChannelById, storedUser, storedUsers } from '../../core/store/records.js';
import { writeLibraryJson } from '../../core/library/writer.js';
import { FollowError } from './errors.js';
import { channelIdOf } from '../../importer/item-identity.js';
import { saveEpisode, saveOwner } from './library.js';
import { readEpisodeRecord, readRecordArray } from '../../core/library/reader.js';
import { enqueueUnprocessed, pollSource, type FollowDeps, type PollReport } from './poll.js';
import { schedulerId, upsertPollScheduler, type PollJob, type ProcessJob } from './queues.js';
import { channelDir, LIBRARY_FILES } from '../../core/library/layout.js';
import { listStates, readState, withChannelLock, writeState, type FollowState, type FollowStateError } from '../../core/library/follow-state.js';
import { measuredRate, readProgress, withEtas, type Progress } from './progress.js';
import type { RecentRule } from './work-order.js';

/** Slugs are subdomains: `[a-z0-9-]{1,63}`. */
const isSlug = (value: string): boolean => /^[a-z0-9-]{1,63}$/.test(value);

export interface CommandDeps extends FollowDeps {
  pollQueue: Queue<PollJob>;
}

/** A source as given on the command line: an http(s) URL is a feed, an existing folder a yt-dlp download. */
export async function classifySource(source: string): Promise<{ kind: 'feed' | 'ytdlp'; source: string }> {
  if (/^https?:\/\//i.test(source)) {
    try {
      const url = new URL(source);
      if (!url.hostname) throw new Error('no host');
      return { kind: 'feed', source: url.href };
    } catch {
      throw new FollowError('bad_source', source);
    }
  }
  const info = await stat(source).catch(() => undefined);
  if (info?.isDirectory()) return { kind: 'ytdlp', source: resolve(source) };
  throw new FollowError('bad_source', source);
}

/** The owner as the store holds it (users are stored under their id), checked to be on the paid plan. */
export async function paidOwner(deps: Pick<FollowDeps, 'ctx'>, ownerId: string): Promise<UserRecord> {
  const owner = await storedUser(deps.ctx, ownerId);
  if (!owner) throw new FollowError('unknown_owner', ownerId);
  if (owner.plan !== PAID_PLAN) throw new FollowError('not_paid', `user "${ownerId}" is on the "${owner.plan}" plan`);
  return { id: owner.id, name: owner.name, plan: owner.plan };
}

/** The channel `slug` as the store holds it (imported, or followed from another library folder), if any. */
export async function storedChannel(deps: Pick<FollowDeps, 'ctx'>, slug: string): Promise<ChannelDoc | undefined> {
  return storedChannelById(deps.ctx, channelIdOf(slug));
}

/**
 * Seeds the follower's channels.json with the stored channel's members and custom domain when it has no record of the
 * channel yet, and users.json with those members as the store holds them (the library reader drops a channel naming an
 * unknown user): the channel the poll writes keeps them instead of replacing them with the owner alone.
 */
async function adoptStoredChannel(deps: Pick<FollowDeps, 'ctx'>, dir: string, stored: ChannelDoc): Promise<void> {
  const channelsPath = join(dir, LIBRARY_FILES.channels);
  const channels = await readRecordArray<ChannelRecord>(channelsPath);
  if (channels.some((c) => c.id === stored.id)) return;
  const found = await storedUsers(deps.ctx, [...new Set([stored.ownerId, ...stored.memberIds])]);
  const usersPath = join(dir, LIBRARY_FILES.users);
  const users = await readRecordArray<UserRecord>(usersPath);
  const known = new Set(users.map((u) => u.id));
  const added = found.filter((u) => !known.has(u.id)).map(({ id, name, plan }) => ({ id, name, plan }));
  await writeLibraryJson(usersPath, [...users, ...added]);
  const present = new Set([...known, ...found.map((u) => u.id)]);
  const { id, slug, title, providerType, ownerId, customDomain } = stored;
  await writeLibraryJson(channelsPath, [...channels, { id, slug, title, providerType, ownerId, memberIds: stored.memberIds.filter((m) => present.has(m)), customDomain }]);
}

/** The follow state of a source followed for the first time: nothing polled, no item seen. */
export function newState(slug: string, kind: 'feed' | 'ytdlp', source: string, ownerId: string, archiveMissing: boolean, now: Date): FollowState {
  return {
    version: 1,
    slug,
    channelId: channelIdOf(slug),
    kind,
    source,
    ownerId,
    archiveMissing,
    createdAt: now.toISOString(),
    stoppedAt: null,
    etag: null,
    lastModified: null,
    bodyHash: null,
    lastPollAt: null,
    lastOutcome: null,
    lastStatus: null,
    lastError: null,
    itemsSeen: 0,
    errors: 0,
    consecutiveFailures: 0,
    nextPollAt: null,
    items: {},
  };
}

/**
 * Follows `source` as channel `slug` of `ownerId`: refuses an unknown or unpaid owner and a bad source, and a channel
 * the store (or an earlier follow) holds for another owner unless `forceOwner`; records the source in
 * `<libraryDir>/<slug>/follow.json` (a source followed before keeps its poll state and items; a new URL resets the
 * validators), polls it at once and makes its scheduler. An existing channel keeps its members and custom domain. A
 * first poll that fails leaves nothing behind.
 */
export async function followSource(
  deps: CommandDeps,
  {
    source,
    slug,
    ownerId,
    archiveMissing = false,
    forceOwner = false,
    now = new Date(),
  }: { source: string; slug: string; ownerId: string; archiveMissing?: boolean; forceOwner?: boolean; now?: Date },
): Promise<PollReport> {
  if (!isSlug(slug)) throw new FollowError('bad_slug', slug);
  const given = await classifySource(source);
  const owner = await paidOwner(deps, ownerId);
  // The meta write of the first poll indexes ch_<slug> over whatever the store holds: an existing channel of another
  // owner, with its members, drafts and domain, would change hands (security review 2026-11-27, item 8).
  const stored = await storedChannel(deps, slug);
  if (stored && stored.ownerId !== ownerId && !forceOwner) {
    throw new FollowError(
      'channel_taken',
      `"${slug}" belongs to ${stored.ownerId}; following it for ${ownerId} would hand it and its episodes over (pass --force-owner to do that)`,
    );
  }
  const { libraryDir } = deps.pipeline;
  const created = await withChannelLock(libraryDir, slug, async () => {
    const before = await readState(libraryDir, slug);
    if (before && before.ownerId !== ownerId && !forceOwner) throw new FollowError('owner_mismatch', `${slug} belongs to ${before.ownerId} (pass --force-owner to hand it over)`);
    const moved = before && (before.source !== given.source || before.kind !== given.kind);
    const state: FollowState = before
      ? {
          ...before,
          ownerId,
          kind: given.kind,
          source: given.source,
          archiveMissing,
          stoppedAt: null,
          nextPollAt: null,
          ...(moved ? { etag: null, lastModified: null, bodyHash: null } : {}),
        }
      : newState(slug, given.kind, given.source, ownerId, archiveMissing, now);
    if (stored) await adoptStoredChannel(deps, channelDir(libraryDir, slug), stored);
    await saveOwner(channelDir(libraryDir, slug), owner);
    await writeState(libraryDir, state);
    return !before;
  });
  const report = await pollSource(deps, slug, { force: true });
  if (report.outcome === 'error' && created) {
    await rm(channelDir(libraryDir, slug), { recursive: true, force: true });
    throw new FollowError('first_poll_failed', report.error ?? undefined);
  }
  await upsertPollScheduler(deps.pollQueue, slug, deps.pipeline.pollIntervalSeconds);
  return report;
}

/**
 * Stops following: the scheduler goes, the source stays recorded (stopped), every episode stays. Items already seen
 * are still finished by the worker and `--retry` still retries them: no episode is left pending.
 */
export async function stopFollowing(deps: Pick<CommandDeps, 'pipeline' | 'pollQueue'>, slug: string, now = new Date()): Promise<FollowState> {
  const { libraryDir } = deps.pipeline;
  const state = await withChannelLock(libraryDir, slug, async () => {
    const s = await readState(libraryDir, slug);
    if (!s) throw new FollowError('not_followed', slug);
    s.stoppedAt ??= now.toISOString();
    s.nextPollAt = null;
    await writeState(libraryDir, s);
    return s;
  });
  await deps.pollQueue.removeJobScheduler(schedulerId(slug));
  return state;
}

/** Sets the channel's failed episodes back to `pending` and enqueues them now; returns how many. */
export async function retryFailed(deps: FollowDeps, slug: string): Promise<number> {
  const { libraryDir } = deps.pipeline;
  return withChannelLock(libraryDir, slug, async () => {
    const state = await readState(libraryDir, slug);
    if (!state) throw new FollowError('not_followed', slug);
    const dir = channelDir(libraryDir, slug);
    let retried = 0;
    for (const [id, source] of Object.entries(state.items)) {
      if (source.processed?.outcome !== 'failed') continue;
      delete source.processed;
      delete source.starts;
      const record = await readEpisodeRecord(dir, id);
      if (record?.status === 'failed') await saveEpisode(dir, { ...record, status: 'pending', error: null }, deps.ctx);
      retried++;
    }
    await writeState(libraryDir, state);
    await enqueueUnprocessed(deps, state);
    return retried;
  });
}

/** Every followed source; one whose follow.json fails its schema is left out and reported to `onBroken` (its sentence names the file). */
export const listSources = (libraryDir: string, onBroken?: (err: FollowStateError) => void): Promise<FollowState[]> => listStates(libraryDir, { onBroken });

/**
 * What `--list` shows of the work: every source's waiting episodes by class, what runs, what failed, with estimates at
 * the rate measured on the queue's last completed transcriptions and the queue's slots (workers connected × `concurrency`).
 */
export async function listProgress(
  {
    libraryDir,
    processQueue,
    rule,
    concurrency,
    states,
  }: { libraryDir: string; processQueue: Queue<ProcessJob>; rule: RecentRule; concurrency: number; states?: readonly FollowState[] },
  now = Date.now(),
): Promise<Progress> {
  const [progress, rate, workers] = await Promise.all([
    readProgress({ libraryDir, queue: processQueue, rule, now, ...(states ? { states } : {}) }),
    measuredRate(processQueue),
    processQueue.getWorkersCount(),
  ]);
  return withEtas(progress, rate, Math.max(1, workers) * Math.max(1, concurrency));
}
