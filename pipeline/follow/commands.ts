// What `npm run follow` does: follow a source (owner checked, source recorded, first poll), list, stop, retry.
import { rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Queue } from 'bullmq';
import type { UserRecord } from '../../src/contract/library-format.js';
import { FollowError } from './errors.js';
import { channelIdOf, isSlug } from './identity.js';
import { readEpisode, saveEpisode, saveOwner } from './library.js';
import { enqueueUnprocessed, pollSource, type FollowDeps, type PollReport } from './poll.js';
import { schedulerId, upsertPollScheduler, type PollJob } from './queues.js';
import { channelDir, listStates, readState, withChannelLock, writeState, type FollowState } from './state.js';

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
  const { client, aliases } = deps.ctx;
  const res = await client.get({ index: aliases.users, id: ownerId } as never, { ignore: [404] });
  const body = res.body as { found?: boolean; _source?: UserRecord };
  if (!body.found || !body._source) throw new FollowError('unknown_owner', ownerId);
  if (body._source.plan !== 'paid') throw new FollowError('not_paid', `user "${ownerId}" is on the "${body._source.plan}" plan`);
  return body._source;
}

function newState(slug: string, kind: 'feed' | 'ytdlp', source: string, ownerId: string, archiveMissing: boolean, now: Date): FollowState {
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
 * Follows `source` as channel `slug` of `ownerId`: refuses an unknown or unpaid owner and a bad source, records the
 * source in `<libraryDir>/<slug>/follow.json` (a source followed before keeps its poll state and items; a new URL
 * resets the validators), polls it at once and makes its scheduler. A first poll that fails leaves nothing behind.
 */
export async function followSource(
  deps: CommandDeps,
  { source, slug, ownerId, archiveMissing = false, now = new Date() }: { source: string; slug: string; ownerId: string; archiveMissing?: boolean; now?: Date },
): Promise<PollReport> {
  if (!isSlug(slug)) throw new FollowError('bad_slug', slug);
  const given = await classifySource(source);
  const owner = await paidOwner(deps, ownerId);
  const { libraryDir } = deps.pipeline;
  const created = await withChannelLock(libraryDir, slug, async () => {
    const before = await readState(libraryDir, slug);
    if (before && before.ownerId !== ownerId) throw new FollowError('owner_mismatch', `${slug} belongs to ${before.ownerId}`);
    const moved = before && (before.source !== given.source || before.kind !== given.kind);
    const state: FollowState = before
      ? {
          ...before,
          kind: given.kind,
          source: given.source,
          archiveMissing,
          stoppedAt: null,
          nextPollAt: null,
          ...(moved ? { etag: null, lastModified: null, bodyHash: null } : {}),
        }
      : newState(slug, given.kind, given.source, ownerId, archiveMissing, now);
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
      const record = await readEpisode(dir, id);
      if (record?.status === 'failed') await saveEpisode(dir, { ...record, status: 'pending', error: null }, deps.ctx);
      retried++;
    }
    await writeState(libraryDir, state);
    await enqueueUnprocessed(deps, state);
    return retried;
  });
}

/** One line per followed source for `--list`. */
export function formatSource(s: FollowState): string {
  const status = s.stoppedAt ? `stopped ${s.stoppedAt}` : `next poll ${s.nextPollAt ?? 'now'}`;
  const outcome = s.lastOutcome ? `${s.lastOutcome}${s.lastStatus && String(s.lastStatus) !== s.lastOutcome ? ` (HTTP ${s.lastStatus})` : ''}` : 'never polled';
  const failed = Object.values(s.items).filter((i) => i.processed?.outcome === 'failed').length;
  return [
    s.slug,
    s.source,
    `last poll ${s.lastPollAt ?? '-'}: ${outcome}`,
    `${s.itemsSeen} items`,
    `${s.errors} poll errors${s.lastError ? ` (last: ${s.lastError})` : ''}`,
    `${failed} failed episodes`,
    status,
  ].join('\t');
}

export const listSources = (libraryDir: string): Promise<FollowState[]> => listStates(libraryDir);
