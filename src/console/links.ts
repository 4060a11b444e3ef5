// One-time console links (invites and password resets): a random token in the URL, its sha256 in Redis with a TTL, consumed once.
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** What a link lets its holder do: set the account's password (first time or again), then be signed in. */
export interface LinkGrant {
  userId: string;
  purpose: 'invite' | 'reset';
}

export interface LinkStoreOptions {
  redis: Redis;
  /** The deployment's index prefix: two deployments on one Redis keep their own links. */
  prefix: string;
  ttlSeconds: number;
}

const keyOf = (prefix: string, token: string) => `console:${prefix}link:${createHash('sha256').update(token).digest('hex')}`;

/** Tokens are 32 random bytes in base64url: what the URL carries. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The URL a link is followed at. */
export function linkUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/console/link/${token}`;
}

/** Makes a link for `grant`; returns its token (shown once; only its hash is stored, for `ttlSeconds`). */
export async function createLink({ redis, prefix, ttlSeconds }: LinkStoreOptions, grant: LinkGrant): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await redis.set(keyOf(prefix, token), JSON.stringify(grant), 'EX', ttlSeconds);
  return token;
}

function parse(raw: string | null): LinkGrant | undefined {
  return raw ? (JSON.parse(raw) as LinkGrant) : undefined;
}

/** What a link grants, without using it up (the page that shows the form: a link scanner's GET must not burn it). */
export async function peekLink({ redis, prefix }: Pick<LinkStoreOptions, 'redis' | 'prefix'>, token: string): Promise<LinkGrant | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  return parse(await redis.get(keyOf(prefix, token)));
}

/** Uses a link up: GETDEL, so of two requests racing with one token exactly one gets its grant. */
export async function consumeLink({ redis, prefix }: Pick<LinkStoreOptions, 'redis' | 'prefix'>, token: string): Promise<LinkGrant | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  return parse(await redis.getdel(keyOf(prefix, token)));
}
