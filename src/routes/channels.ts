// GET /api/v1/channels: the caller's channels, with `apiAccess` from each owner's plan at call time.
import { PAID_PLAN } from '../auth/access.js';
import { route, type Route } from '../http/route.js';
import { ListChannels } from '../openapi/operations.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import type { ChannelSummary } from '../../core/contract/shapes.js';
import type { Queries } from '../store/queries.js';

/** A channel as the list shows it; `apiAccess` from its owner's plan. */
export function toChannelSummary(c: ChannelDoc, apiAccess: boolean): ChannelSummary {
  return { id: c.id, slug: c.slug, title: c.title, providerType: c.providerType, apiAccess, language: c.language ?? 'en' };
}

/** The channels `userId` is a member of, by slug, each with whether its owner's plan includes API access (read now). */
export async function memberChannels(queries: Queries, userId: string): Promise<{ channel: ChannelDoc; apiAccess: boolean }[]> {
  const channels = await queries.channelsOfMember(userId);
  const owners = await queries.users([...new Set(channels.map((c) => c.ownerId))]);
  const paid = new Set(owners.filter((u) => u.plan === PAID_PLAN).map((u) => u.id));
  return channels.map((channel) => ({ channel, apiAccess: paid.has(channel.ownerId) }));
}

export function listChannels(): Route {
  return route(ListChannels, async (_input, req) => {
    // requireCredential() refuses anonymous callers here: they always have a user id.
    const channels = await memberChannels(req.queries, req.principal!.userId!);
    return { channels: channels.map(({ channel, apiAccess }) => toChannelSummary(channel, apiAccess)) };
  });
}
