// Facet ids from names (decision 33): the ASCII slug every id has always had, plus a short hash of the whole name when
// the slug lost a letter or digit of a script other than Latin, so `東京`, `Москва` and `John Smith (ЅСАМ)` get ids of
// their own while every Latin name keeps the id clients already hold.
import { createHash } from 'node:crypto';

/** Between the slug and the hash: a slug is `[a-z0-9-]` and never holds it, so a hashed id is never a Latin one. */
export const NAME_HASH_MARK = '~';

// NFKD first, as the slugs do: fullwidth and other compatibility forms of Latin letters and digits fold to ASCII there.
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const LATIN = /\p{Script=Latin}/u;
const ASCII_KEPT = /[a-zA-Z0-9]/;

/**
 * True when the ASCII slug of `name` drops a letter or digit that is not Latin (Cyrillic, Greek, CJK, Arabic…). A
 * Latin letter the slug drops (`ß`, `ł`) is not counted: those ids are today's and stay as they are.
 */
export function losesOtherScripts(name: string): boolean {
  for (const ch of name.normalize('NFKD')) {
    if (ASCII_KEPT.test(ch) || !LETTER_OR_DIGIT.test(ch) || LATIN.test(ch)) continue;
    return true;
  }
  return false;
}

/** 8 hex digits of sha256 of the name as one spelling (NFKC, lower case, spaces collapsed): case variants share it. */
export function nameHash(name: string): string {
  const canonical = name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return createHash('sha256').update(canonical).digest('hex').slice(0, 8);
}

/**
 * The slug part of a facet id: `slug` as is when it says the name (every Latin name), else `slug~hash` (`~hash`
 * when nothing was left), the hash taken over the whole `name`.
 */
export function facetSlug(slug: string, name: string): string {
  return slug !== '' && !losesOtherScripts(name) ? slug : `${slug}${NAME_HASH_MARK}${nameHash(name)}`;
}
