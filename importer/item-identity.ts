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

/** How an episode stored under an earlier key is found again (keepHeldIds). */
export interface FormerIdentity {
  /** The ids the earlier keys gave the item, besides the one it has now. */
  ids: string[];
  /** An item keyed by its enclosure: the key of its http(s) URL, compared with stored episodes' `mediaUrl`. */
  mediaKey: string | null;
}

/**
 * What an item keyed by its enclosure (no guid) needs to find its stored episode: the ids the keys used before this
 * one gave it (the importer's: the whole enclosure URL; the follower's: the URL without any query), and the key of
 * its media URL, for an episode stored when a rotating parameter had another value (which no key can give again).
 */
export function formerIdentity(slug: string, feedKey: string, ids: ItemIds, mediaUrl: string | null): FormerIdentity {
  const now = itemKey(ids);
  const e = ids.enclosureUrl?.trim();
  if (ids.guid?.trim() || !e || now === undefined) return { ids: [], mediaKey: null };
  const keys = [...new Set([e, e.replace(/[?#].*$/s, '')])].filter((k) => k !== now);
  return { ids: keys.map((k) => episodeIdOf(slug, feedKey, k)), mediaKey: mediaUrl ? enclosureKey(mediaUrl) : null };
}

/** An episode the library or the store already holds for the channel. */
export interface HeldEpisode {
  id: string;
  mediaUrl?: string | null | undefined;
}

/**
 * `items` with the ids already held kept. An item whose id is not held takes, when no other item of the feed has or
 * takes it, the id of a held episode that an earlier key gave it, else of one whose `mediaUrl` has its media key (the
 * first by id). `loadHeld` gives the channel's held episodes (the library's files, the store's episodes, what a
 * follower has seen); it is called only when some item was keyed by its enclosure.
 */
export async function keepHeldIds<T extends { record: { id: string }; former: FormerIdentity }>(
  items: readonly T[],
  loadHeld: () => Promise<readonly HeldEpisode[]>,
): Promise<T[]> {
  if (!items.some((i) => i.former.ids.length > 0 || i.former.mediaKey)) return [...items];
  const held = [...(await loadHeld())].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const heldIds = new Set(held.map((h) => h.id));
  const taken = new Set(items.map((i) => i.record.id));
  return items.map((item) => {
    if (heldIds.has(item.record.id)) return item;
    const { ids, mediaKey } = item.former;
    const id =
      ids.find((f) => heldIds.has(f) && !taken.has(f)) ?? (mediaKey ? held.find((h) => !taken.has(h.id) && h.mediaUrl && enclosureKey(h.mediaUrl) === mediaKey)?.id : undefined);
    if (!id) return item;
    taken.add(id);
    return { ...item, record: { ...item.record, id } };
  });
}
