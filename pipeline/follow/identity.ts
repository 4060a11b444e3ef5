// Who an item of a feed is: its guid, else its enclosure URL without the query, else its link; and the episode id
// the importer gives it, so that following and importing one feed name the same episodes.
import { stableHash } from '../../importer/text.js';

/** What an item offers to identify it by (a parsed feed item's fields). */
export interface ItemIds {
  guid?: string | undefined;
  enclosureUrl?: string | undefined;
  link?: string | undefined;
}

/**
 * A URL without its query and fragment: hosts rotate `?updated=`, `?modified=` or tokens on the same file, and an
 * item keyed on the whole URL would come back as a new episode each time.
 */
export function withoutQuery(url: string): string {
  return url.replace(/[?#].*$/s, '');
}

/** The item's identity key, or undefined when it offers nothing stable. */
export function itemKey({ guid, enclosureUrl, link }: ItemIds): string | undefined {
  const g = guid?.trim();
  if (g) return g;
  const e = enclosureUrl?.trim();
  if (e) return withoutQuery(e);
  return link?.trim() || undefined;
}

/** The episode id of an item: `ep_<slug>_<stableHash(feedKey, key)>`, as the importer builds it. */
export function episodeIdOf(slug: string, feedKey: string, key: string): string {
  return `ep_${slug}_${stableHash(feedKey, key)}`;
}

/** The channel id of a slug, as the importer builds it. */
export const channelIdOf = (slug: string): string => `ch_${slug}`;

/** Slugs are subdomains: `[a-z0-9-]{1,63}`. */
export const isSlug = (value: string): boolean => /^[a-z0-9-]{1,63}$/.test(value);
