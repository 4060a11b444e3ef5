// The worker's side of a follow asked for in the console (requests.ts): the claim proven by the feed, then the CLI's
// followSource.
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { listStates } from '../../core/library/follow-state.js';
import { followSource, type CommandDeps } from './commands.js';
import { FollowError } from './errors.js';
import { assertNotFollowedByOther, assertProven, closeClaim, openClaim, previewFeed } from './ownership.js';
import type { FollowRequestJob, FollowRequestResult } from './requests.js';

/**
 * Runs a queued follow in the worker: the claim must be open, the feed (fetched again, through the safe fetcher) must
 * carry its token, no other owner may follow the feed; then `followSource` as the CLI runs it, which also refuses a
 * channel slug another owner has. The claim closes once the follow went ahead.
 */
export async function runFollowRequest(deps: CommandDeps & { redis: Redis; indexPrefix: string }, job: Pick<Job<FollowRequestJob>, 'data'>): Promise<FollowRequestResult> {
  const { userId, feedUrl } = job.data;
  const claim = await openClaim(deps.redis, deps.indexPrefix, userId, feedUrl);
  if (!claim) throw new FollowError('not_proven', 'no open claim on this feed (its token expired): ask again in the console');
  const preview = await previewFeed(feedUrl, { allowPrivate: deps.pipeline.allowPrivate, userAgent: deps.pipeline.userAgent });
  assertProven(preview, claim);
  assertNotFollowedByOther(await listStates(deps.pipeline.libraryDir), { feedUrls: [feedUrl, preview.url], ownerId: userId });
  const report = await followSource(deps, { source: feedUrl, slug: claim.slug, ownerId: userId });
  await closeClaim(deps.redis, deps.indexPrefix, claim);
  deps.log?.info({ slug: claim.slug, userId, items: report.items }, 'followed from the console');
  return { slug: claim.slug, items: report.items, added: report.added, enqueued: report.enqueued };
}
