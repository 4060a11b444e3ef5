// Following a feed from the console needs proof that the one asking owns it (decision 32): the console shows a one-time
// token, the creator puts it in the feed as `<podcast:txt purpose="verify">TOKEN</podcast:txt>` at channel level, and the
// follow goes ahead only when the feed, fetched again, carries it. A feed another owner follows is never taken.
import { createHash, randomBytes } from 'node:crypto';
import { parseRssFeed } from 'feedsmith';
import type { Redis } from 'ioredis';
import { FEED_MAX_BYTES, fetchBytes, httpStatusError, type SafeFetchOptions } from '../../core/ground/outbound/safe-fetch.js';
import type { FollowState } from '../../core/library/follow-state.js';
import { FollowError } from './errors.js';

/** What the console shows of a feed before anything is followed. */
export interface FeedPreview {
  /** The feed's URL after redirects. */
  url: string;
  title: string;
  itemCount: number;
  /** The channel-level `<podcast:txt purpose="verify">` values (at most a few kept). */
  verifyTokens: string[];
}

/** How long a token shown in the console stays good for putting in the feed. */
export const CLAIM_TTL_SECONDS = 7 * 86_400;
/** Verify values kept from one feed: a feed with thousands of them is not read further. */
const MAX_VERIFY_VALUES = 20;
/** Where a value longer than any token we make is cut before comparing (a hostile feed's megabyte of text). */
const MAX_VERIFY_CHARS = 200;

/** Outbound rules of a preview: the pipeline's (address rule, User-Agent). */
export type PreviewFetch = Pick<SafeFetchOptions, 'allowPrivate' | 'userAgent' | 'isAllowedAddress' | 'timeoutMs'>;

/** Parses a feed's text into its preview (pure): title, item count and the channel-level verify values. */
export function previewOf(xml: string, url: string): FeedPreview {
  let feed: ReturnType<typeof parseRssFeed>;
  try {
    feed = parseRssFeed(xml);
  } catch (error) {
    throw new FollowError('bad_source', `${url} is not an RSS feed (${(error as Error).message})`);
  }
  const txts: readonly { display?: unknown; purpose?: unknown }[] = feed.podcast?.txts ?? [];
  const verifyTokens = txts
    .filter((t): t is { display: string; purpose: string } => typeof t.purpose === 'string' && t.purpose.trim().toLowerCase() === 'verify' && typeof t.display === 'string')
    .slice(0, MAX_VERIFY_VALUES)
    .map((t) => t.display.trim().slice(0, MAX_VERIFY_CHARS));
  return { url, title: (feed.title ?? '').trim() || url, itemCount: feed.items?.length ?? 0, verifyTokens };
}

/** Fetches `url` through the safe fetcher (address rule, size and time bounds) and previews it. */
export async function previewFeed(url: string, outbound: PreviewFetch): Promise<FeedPreview> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FollowError('bad_source', url);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new FollowError('bad_source', url);
  const res = await fetchBytes(parsed.href, { maxBytes: FEED_MAX_BYTES, ...outbound });
  if (res.status < 200 || res.status > 299) throw httpStatusError(res.url, res.status, res.headers);
  return previewOf(res.body.toString('utf8'), res.url);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A claim: who asked to follow which feed as which channel, and the token that proves it. */
export interface FollowClaim {
  userId: string;
  feedUrl: string;
  slug: string;
  token: string;
  createdAt: string;
}

/** Redis key of one user's claim on one feed (the URL hashed: keys stay short whatever the URL). */
const claimKey = (prefix: string, userId: string, feedUrl: string) => `${prefix}follow-claim:${sha256(`${userId}\n${feedUrl}`)}`;

/**
 * The user's claim on `feedUrl`: the one made before while it lasts (the token the creator may already have put in the
 * feed stays good), a new one otherwise. The slug of the latest ask is kept.
 */
export async function claimFeed(
  redis: Redis,
  prefix: string,
  { userId, feedUrl, slug, now = new Date() }: { userId: string; feedUrl: string; slug: string; now?: Date },
): Promise<FollowClaim> {
  const key = claimKey(prefix, userId, feedUrl);
  const fresh: FollowClaim = { userId, feedUrl, slug, token: `cca-verify-${randomBytes(18).toString('base64url')}`, createdAt: now.toISOString() };
  // SET NX keeps a claim made before; then the slug is the latest one asked for.
  await redis.set(key, JSON.stringify(fresh), 'EX', CLAIM_TTL_SECONDS, 'NX');
  const stored = JSON.parse((await redis.get(key)) ?? JSON.stringify(fresh)) as FollowClaim;
  if (stored.slug === slug) return stored;
  const moved = { ...stored, slug };
  await redis.set(key, JSON.stringify(moved), 'EX', CLAIM_TTL_SECONDS);
  return moved;
}

/** The user's claim on `feedUrl`, if one is open. */
export async function openClaim(redis: Redis, prefix: string, userId: string, feedUrl: string): Promise<FollowClaim | undefined> {
  const raw = await redis.get(claimKey(prefix, userId, feedUrl));
  return raw ? (JSON.parse(raw) as FollowClaim) : undefined;
}

/** Closes a claim once its follow went ahead: the token cannot be used again. */
export async function closeClaim(redis: Redis, prefix: string, claim: Pick<FollowClaim, 'userId' | 'feedUrl'>): Promise<void> {
  await redis.del(claimKey(prefix, claim.userId, claim.feedUrl));
}

/** Refuses a follow whose feed does not carry the claim's token (compared in constant time per value). */
export function assertProven(preview: FeedPreview, claim: FollowClaim): void {
  const want = Buffer.from(claim.token);
  const found = preview.verifyTokens.some((value) => {
    const got = Buffer.from(value);
    return got.length === want.length && createHash('sha256').update(got).digest().equals(createHash('sha256').update(want).digest());
  });
  if (!found) {
    throw new FollowError('not_proven', `${preview.url} does not carry <podcast:txt purpose="verify">${claim.token}</podcast:txt> at channel level yet`);
  }
}

/** Feed URLs compared as followed: scheme and host lower-cased by URL, no fragment. */
const sameFeed = (a: string, b: string): boolean => {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    x.hash = '';
    y.hash = '';
    return x.href === y.href;
  } catch {
    return a === b;
  }
};

/** Refuses a feed another owner already follows (as any channel): a follow never takes it. */
export function assertNotFollowedByOther(states: readonly FollowState[], { feedUrls, ownerId }: { feedUrls: readonly string[]; ownerId: string }): void {
  const other = states.find((s) => s.kind === 'feed' && s.stoppedAt === null && s.ownerId !== ownerId && feedUrls.some((u) => sameFeed(u, s.source)));
  if (other) throw new FollowError('feed_taken', `as "${other.slug}"`);
}
