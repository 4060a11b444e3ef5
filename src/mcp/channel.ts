// Which channel an MCP request addresses, and whether that channel has a tool server.
import { PAID_PLAN } from '../auth/access.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { NO_SUCH_ID, type Queries } from '../store/queries.js';
import type { ChannelLocator } from '../../core/ground/channel-urls.js';

export { locateByHost, type ChannelLocator } from '../../core/ground/channel-urls.js';

/**
 * The channel when it has an MCP server: it exists and its owner's plan includes API
 * access (decision 7 for anonymous reads: a free-plan channel serves no anonymous
 * reader). Unknown and free-plan channels both give undefined, through the same reads
 * (the owner is looked up even when there is no channel), so neither the answer nor its
 * timing tells them apart.
 */
export async function channelWithMcp(queries: Queries, locator: ChannelLocator | undefined): Promise<ChannelDoc | undefined> {
  const channel =
    locator === undefined ? await queries.channelBySlug(NO_SUCH_ID) : 'slug' in locator ? await queries.channelBySlug(locator.slug) : await queries.channelByDomain(locator.domain);
  const owner = await queries.user(channel?.ownerId ?? NO_SUCH_ID);
  return channel && owner?.plan === PAID_PLAN ? channel : undefined;
}
