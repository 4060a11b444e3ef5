// Which channel a console page may show: one the signed-in user is a member of (owner included), read at call time.
// Unknown and not-a-member are the same 404 after the same read; an owner-only action refused to a member is a 403.
import type { ChannelDoc } from '../../core/store/documents.js';
import { ConsolePageError, type ConsoleDeps } from './section.js';

/** The sentence of a channel the user may not see: the same for one that does not exist. */
export const NO_SUCH_CHANNEL = 'You have no such channel.';

/** A channel the user is a member of, and whether they own it. */
export interface MemberChannel {
  channel: ChannelDoc;
  isOwner: boolean;
}

const isSlug = (slug: string) => /^[a-z0-9-]{1,63}$/.test(slug);

/** The channel `slug` when `userId` is its owner or a member; a 404 page otherwise (one slug search either way). */
export async function memberChannel(deps: Pick<ConsoleDeps, 'queries'>, userId: string, slug: string): Promise<MemberChannel> {
  const channel = isSlug(slug) ? await deps.queries().channelBySlug(slug) : undefined;
  const isOwner = channel?.ownerId === userId;
  if (!channel || !(isOwner || channel.memberIds.includes(userId))) throw new ConsolePageError(404, NO_SUCH_CHANNEL);
  return { channel, isOwner };
}

/**
 * The channel `slug` when `userId` owns it: a 404 page when they are not even a member, a 403 page saying who may when
 * they are a member only. `what` finishes "Only the channel's owner …".
 */
export async function ownedChannel(deps: Pick<ConsoleDeps, 'queries'>, userId: string, slug: string, what: string): Promise<ChannelDoc> {
  const { channel, isOwner } = await memberChannel(deps, userId, slug);
  if (!isOwner) throw new ConsolePageError(403, `Only the channel's owner ${what}; you are a member of ${channel.slug}.`);
  return channel;
}
