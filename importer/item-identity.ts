// Who an item of a feed is, for the importer and the follower alike: its guid, else its enclosure URL (its fragment
// and rotating parameters left out), else its link; the episode id that key gives; and the ids the two earlier keys
// gave it, so that episodes a library or the store already holds keep their ids.
import { stableHash } from './text.js';

/** What an item offers to identify it by (a parsed feed item's fields, as written in the feed). */
export interface ItemIds {
  guid?: string | undefined;
  enclosureUrl?: string | undefined;
  link?: string | undefined;
}

/**
 * Query parameters that change between fetches of the same file: tracking (`utm_*`), cache busters (`updated`,
 * `modified`, `ts`, `_`) and signed-URL expiries (CloudFront's `Expires`/`Signature`/`Key-Pair-Id`, S3's `X-Amz-*`).
 */
const VOLATILE_PARAM = /^(?:utm_.*|updated|modified|timestamp|ts|_|token|expires|signature|sig|key-pair-id|policy|x-amz-.*)$/i;

const paramName = (part: string): string => {
  const raw = part.split('=', 1)[0]!;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
};

/**
 * The identity of an enclosure URL: without its fragment and without the parameters that rotate on the same file
 * (VOLATILE_PARAM); every other parameter is kept, in its order. Some hosts name the file in the query
 * (`download.php?id=42`), and dropping the whole query would make all their items one episode; a rotating parameter
 * we do not know gives a second episode, which shows, where a merged one would silently take another's place.
 */
export function enclosureKey(url: string): string {
  const bare = url.replace(/#.*$/s, '');
  const q = bare.indexOf('?');
  if (q < 0) return bare;
  const kept = bare
    .slice(q + 1)
    .split('&')
    .filter((part) => part !== '' && !VOLATILE_PARAM.test(paramName(part)));
  return kept.length > 0 ? `${bare.slice(0, q)}?${kept.join('&')}` : bare.slice(0, q);
}

/** The item's identity key: its guid trimmed, else its enclosure's key, else its link; undefined when it offers none. */
export function itemKey({ guid, enclosureUrl, link }: ItemIds): string | undefined {
  const g = guid?.trim();
  if (g) return g;
  const e = enclosureUrl?.trim();
  if (e) return enclosureKey(e);
  return link?.trim() || undefined;
}

/** The episode id of an item: `ep_<slug>_<stableHash(feedKey, key)>`. */
export function episodeIdOf(slug: string, feedKey: string, key: string): string {
  return `ep_${slug}_${stableHash(feedKey, key)}`;
}

/** The channel id of a slug. */
export const channelIdOf = (slug: string): string => `ch_${slug}`;

/**
 * The ids the keys used before this one gave an item, besides the id it has now: the importer's (guid, else the
 * whole enclosure URL, else the link) and the follower's (guid, else the enclosure URL without any query, else the
 * link). Only an item without a guid whose enclosure URL has a query can have one.
 */
export function formerIds(slug: string, feedKey: string, ids: ItemIds): string[] {
  const now = itemKey(ids);
  const g = ids.guid?.trim();
  const e = ids.enclosureUrl?.trim();
  if (g || !e || now === undefined) return [];
  const importer = e;
  const follower = e.replace(/[?#].*$/s, '');
  return [...new Set([importer, follower])].filter((k) => k !== now).map((k) => episodeIdOf(slug, feedKey, k));
}

/**
 * `items` with the ids already held kept: an item whose id is not held, but one of whose former ids is (and no other
 * item of the feed has or takes that id), takes that id back. `held` answers which of the ids asked are held (the
 * library's episode files, the store's episodes, the ids a follower has seen); it is asked once, only when some item
 * has former ids.
 */
export async function keepHeldIds<T extends { record: { id: string }; formerIds: readonly string[] }>(
  items: readonly T[],
  held: (ids: readonly string[]) => Promise<ReadonlySet<string>>,
): Promise<T[]> {
  const asked = items.filter((i) => i.formerIds.length > 0);
  if (asked.length === 0) return [...items];
  const have = await held([...new Set(asked.flatMap((i) => [i.record.id, ...i.formerIds]))]);
  const taken = new Set(items.map((i) => i.record.id));
  return items.map((item) => {
    if (item.formerIds.length === 0 || have.has(item.record.id)) return item;
    const id = item.formerIds.find((f) => have.has(f) && !taken.has(f));
    if (!id) return item;
    taken.add(id);
    return { ...item, record: { ...item.record, id } };
  });
}
