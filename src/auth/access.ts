// Membership and plan, read from the store at call time (decisions 7 and 11).
import { isArchived, type ChannelDoc, type EpisodeDoc } from '../../core/store/documents.js';
import { NO_SUCH_ID, type Queries } from '../store/queries.js';
import { createError } from '../errors.js';
import type { Principal } from './principal.js';

import { PAID_PLAN } from '../../core/contract/plans.js';

/** Only this plan includes API access (declared in the contract; the routes and pages read it from here). */
export { PAID_PLAN };

export interface ChannelAccess {
  channel: ChannelDoc;
  /** Anonymous reads see published episodes only. */
  publishedOnly: boolean;
}

function isMember(principal: Principal, channel: ChannelDoc): boolean {
  // Anonymous readers reach here only where the deployment allows anonymous reading.
  return principal.userId === null || channel.memberIds.includes(principal.userId) || channel.ownerId === principal.userId;
}

/**
 * The channel behind `slug` when the caller may read it. Unknown and not-a-member are
 * the same 404, and both take the same path: one round trip (the slug search, with the
 * read of the owner the slug had last time beside it, or of an id nothing has), then the
 * refusal, so timing does not tell them apart. Only a member whose channel changed owner,
 * or was not read before by this process, waits for a second read of the owner. Visibility
 * is decided before the plan, so a free plan is only revealed to members.
 */
export async function accessChannel(queries: Queries, principal: Principal, slug: string): Promise<ChannelAccess> {
  const { channel, owner } = await queries.channelAndOwner(slug);
  if (!channel || !isMember(principal, channel)) throw createError('channel_not_found');
  if ((await owner())?.plan !== PAID_PLAN) throw createError('plan_required');
  return { channel, publishedOnly: principal.kind === 'anonymous' };
}

/** The episode and its channel when the caller may read it; the same 404 for unknown, archived, not-a-member, and (anonymous) unpublished. */
export async function accessEpisode(queries: Queries, principal: Principal, episodeId: string): Promise<ChannelAccess & { episode: EpisodeDoc }> {
  const found = await queries.episode(episodeId);
  const episode = found && !isArchived(found) ? found : undefined;
  const channel = await queries.channelById(episode?.channelId ?? NO_SUCH_ID);
  const owner = await queries.user(channel?.ownerId ?? NO_SUCH_ID);
  const publishedOnly = principal.kind === 'anonymous';
  if (!episode || !channel || !isMember(principal, channel) || (publishedOnly && episode.status !== 'published')) {
    throw createError('episode_not_found');
  }
  if (owner?.plan !== PAID_PLAN) throw createError('plan_required');
  return { channel, episode, publishedOnly };
}
