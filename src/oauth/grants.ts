// The grants users gave apps, as the console lists and revokes them, and the one read the API makes to refuse a revoked grant's tokens.
import type { Redis } from 'ioredis';
import { oauthKeys, type AdapterPayload } from './redis-adapter.js';

/** A connected app, as the console's "connected apps" page shows it. */
export interface GrantSummary {
  grantId: string;
  clientId: string;
  clientName: string;
  /** True for a client named by its client ID metadata document (its name is bound to that https host); false for a self-registered one. */
  verified: boolean;
  redirectHosts: string[];
  createdAt: string;
  /** When a token was last issued under the grant (sign-in or refresh); API calls themselves write nothing. */
  lastUsedAt: string | null;
}

/** What the consent page showed of the client, stored with the grant. */
export interface GrantClient {
  clientName: string;
  verified: boolean;
  redirectHosts: string[];
}

export interface GrantStore {
  listGrants(userId: string): Promise<GrantSummary[]>;
  /** Revokes one grant of `userId` and every token issued under it; false when it is not theirs (or gone), which is then left alone. */
  revokeGrant(userId: string, grantId: string): Promise<boolean>;
  /** Whether the grant still stands: one Redis read. */
  grantActive(grantId: string): Promise<boolean>;
  /** Stores what the consent page showed of the grant's client, for as long as the grant lives. */
  rememberClient(grantId: string, client: GrantClient): Promise<void>;
}

type GrantPayload = AdapterPayload & { clientId?: string; iat?: number; exp?: number };

async function readGrant(redis: Redis, key: string): Promise<GrantPayload | undefined> {
  const raw = await redis.hget(key, 'payload');
  return raw ? (JSON.parse(raw) as GrantPayload) : undefined;
}

/** The grant store over the authorization server's Redis state (the adapter's keys). */
export function createGrantStore({ redis, indexPrefix }: { redis: Redis; indexPrefix: string }): GrantStore {
  const keys = oauthKeys(indexPrefix);
  const grantKey = (grantId: string) => keys.record('Grant', grantId);

  return {
    async listGrants(userId) {
      const ids = await redis.smembers(keys.accountGrants(userId));
      const rows = await Promise.all(
        ids.map(async (grantId) => {
          const [grant, client, used] = await Promise.all([readGrant(redis, grantKey(grantId)), redis.get(keys.grantClient(grantId)), redis.get(keys.grantUsed(grantId))]);
          // Expired since it was indexed: the index forgets it.
          if (!grant || grant.accountId !== userId) {
            await redis.srem(keys.accountGrants(userId), grantId);
            return undefined;
          }
          const shown = client ? (JSON.parse(client) as GrantClient) : undefined;
          const summary: GrantSummary = {
            grantId,
            clientId: grant.clientId ?? '',
            clientName: shown?.clientName ?? grant.clientId ?? '',
            verified: shown?.verified ?? false,
            redirectHosts: shown?.redirectHosts ?? [],
            createdAt: new Date((grant.iat ?? 0) * 1000).toISOString(),
            lastUsedAt: used ? new Date(Number(used)).toISOString() : null,
          };
          return summary;
        }),
      );
      return rows.filter((row): row is GrantSummary => row !== undefined).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.grantId.localeCompare(b.grantId));
    },

    async revokeGrant(userId, grantId) {
      const grant = await readGrant(redis, grantKey(grantId));
      if (!grant || grant.accountId !== userId) return false;
      const members = keys.grantMembers(grantId);
      const tokens = await redis.smembers(members);
      await redis
        .multi()
        .del(grantKey(grantId), keys.grantUsed(grantId), keys.grantClient(grantId), members, ...tokens)
        .srem(keys.accountGrants(userId), grantId)
        .exec();
      return true;
    },

    async grantActive(grantId) {
      return (await redis.exists(grantKey(grantId))) === 1;
    },

    async rememberClient(grantId, client) {
      const ttl = await redis.ttl(grantKey(grantId));
      if (ttl > 0) await redis.set(keys.grantClient(grantId), JSON.stringify(client), 'EX', ttl);
    },
  };
}
