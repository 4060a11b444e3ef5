// Single documents by id, as every program outside the API reads them (the API has its own per-request reads in
// src/store/queries.ts, with their time budget and errors): a user or a channel, or several users at once.
import type { ChannelDoc, UserDoc } from './documents.js';
import type { Client, IndexAliases } from './opensearch.js';

type Store = { client: Client; aliases: Pick<IndexAliases, 'users' | 'channels'> };

/** The document `id` of `index`, or undefined when there is none. */
async function byId<T>(client: Client, index: string, id: string): Promise<T | undefined> {
  const res = await client.get({ index, id } as never, { ignore: [404] });
  const body = res.body as { found?: boolean; _source?: T };
  return body.found ? body._source : undefined;
}

/** A user as the store holds it (users are stored under their id). */
export const storedUser = ({ client, aliases }: Store, id: string): Promise<UserDoc | undefined> => byId<UserDoc>(client, aliases.users, id);

/** A channel as the store holds it, by id. */
export const storedChannelById = ({ client, aliases }: Store, id: string): Promise<ChannelDoc | undefined> => byId<ChannelDoc>(client, aliases.channels, id);

/** The users of `ids` the store holds, in the order asked (those it does not hold left out). */
export async function storedUsers({ client, aliases }: Store, ids: readonly string[]): Promise<UserDoc[]> {
  if (ids.length === 0) return [];
  const res = await client.mget({ index: aliases.users, body: { ids } } as never);
  return (res.body as { docs: { found?: boolean; _source?: UserDoc }[] }).docs.flatMap((d) => (d.found && d._source ? [d._source] : []));
}
