// oidc-provider's storage on the project's Redis: every record under the deployment's prefix with its TTL, a grant's tokens indexed for revocation, and each account's grants for the console.
import type { Redis } from 'ioredis';

/** What oidc-provider stores for a model (an opaque JSON object to us, bar the fields read here). */
export interface AdapterPayload {
  accountId?: string;
  grantId?: string;
  uid?: string;
  jti?: string;
  consumed?: number;
  [field: string]: unknown;
}

/** Models whose records belong to a grant (revoked together with it). */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode']);

/** The keys of one deployment's authorization server state. */
export function oauthKeys(indexPrefix: string) {
  const base = `${indexPrefix}oauth:`;
  return {
    record: (model: string, id: string) => `${base}${model}:${id}`,
    /** The keys of every record issued under a grant (a set). */
    grantMembers: (grantId: string) => `${base}grant-members:${grantId}`,
    /** When a token was last issued under a grant (sign-in or refresh), epoch ms. */
    grantUsed: (grantId: string) => `${base}grant-used:${grantId}`,
    /** What the consent page showed of a grant's client (JSON), kept beside the grant: the console lists it without fetching a document. */
    grantClient: (grantId: string) => `${base}grant-client:${grantId}`,
    /** The grant ids of an account (a set): the console's connected apps. */
    accountGrants: (accountId: string) => `${base}account-grants:${accountId}`,
    sessionUid: (uid: string) => `${base}session-uid:${uid}`,
  };
}

export type OauthKeys = ReturnType<typeof oauthKeys>;

/** Options of the adapter factory. */
export interface RedisAdapterOptions {
  redis: Redis;
  indexPrefix: string;
  /** Idle lifetime of a stored (dynamically registered) client, refreshed each time it is read: unused clients go by themselves. */
  clientIdleSeconds: number;
  /** oidc-provider's clock tolerance, added to every TTL so a record outlives its own expiry check. */
  clockToleranceSeconds?: number;
  now?: () => number;
}

/**
 * An oidc-provider adapter class over Redis. A record is a hash (`payload`, and `consumed` once used) so that
 * consuming one is a single atomic field write that keeps its TTL.
 */
export function redisAdapter({ redis, indexPrefix, clientIdleSeconds, clockToleranceSeconds = 0, now = Date.now }: RedisAdapterOptions) {
  const keys = oauthKeys(indexPrefix);

  return class RedisAdapter {
    constructor(readonly model: string) {}

    private key(id: string): string {
      return keys.record(this.model, id);
    }

    /** Seconds a record written with `expiresIn` lives; a client lives `clientIdleSeconds` from its last use. */
    private ttl(expiresIn: number | undefined): number | undefined {
      if (this.model === 'Client') return clientIdleSeconds;
      return typeof expiresIn === 'number' ? expiresIn + clockToleranceSeconds : undefined;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const key = this.key(id);
      const ttl = this.ttl(expiresIn);
      const multi = redis.multi().del(key).hset(key, 'payload', JSON.stringify(payload));
      if (ttl !== undefined) multi.expire(key, ttl);
      if (this.model === 'Session' && payload.uid) {
        multi.set(keys.sessionUid(payload.uid), id);
        if (ttl !== undefined) multi.expire(keys.sessionUid(payload.uid), ttl);
      }
      if (GRANTABLE.has(this.model) && payload.grantId) {
        const members = keys.grantMembers(payload.grantId);
        multi.sadd(members, key);
        // The index lives as long as its longest-lived member (GT: never shortened by a shorter one).
        if (ttl !== undefined) multi.expire(members, ttl, 'GT').expire(members, ttl, 'NX');
        multi.set(keys.grantUsed(payload.grantId), String(now()), 'KEEPTTL', 'XX');
      }
      if (this.model === 'Grant' && payload.accountId && ttl !== undefined) {
        const account = keys.accountGrants(payload.accountId);
        multi.sadd(account, id).expire(account, ttl, 'GT').expire(account, ttl, 'NX');
        multi.set(keys.grantUsed(id), String(now()), 'EX', ttl);
      }
      await multi.exec().then(failed);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const key = this.key(id);
      const record = await redis.hgetall(key);
      if (!record.payload) return undefined;
      // A client's idle lifetime starts again with each use.
      if (this.model === 'Client') await redis.expire(key, clientIdleSeconds);
      const payload = JSON.parse(record.payload) as AdapterPayload;
      return record.consumed ? { ...payload, consumed: Number(record.consumed) } : payload;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = await redis.get(keys.sessionUid(uid));
      return id ? this.find(id) : undefined;
    }

    async findByUserCode(): Promise<undefined> {
      // The device flow is off: no user codes are issued.
      return undefined;
    }

    async consume(id: string): Promise<void> {
      const key = this.key(id);
      // Only a record that still exists is marked (HSET on a missing key would make one without a TTL).
      await redis.eval("if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HSET', KEYS[1], 'consumed', ARGV[1]) end return 0", 1, key, String(Math.floor(now() / 1000)));
    }

    async destroy(id: string): Promise<void> {
      const key = this.key(id);
      if (this.model === 'Grant') {
        const payload = await this.find(id);
        const multi = redis.multi().del(key, keys.grantUsed(id), keys.grantClient(id));
        if (payload?.accountId) multi.srem(keys.accountGrants(payload.accountId), id);
        await multi.exec().then(failed);
        return;
      }
      const payload = GRANTABLE.has(this.model) ? await this.find(id) : undefined;
      const multi = redis.multi().del(key);
      if (payload?.grantId) multi.srem(keys.grantMembers(payload.grantId), key);
      await multi.exec().then(failed);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      const members = keys.grantMembers(grantId);
      const tokens = await redis.smembers(members);
      await redis.del(members, ...tokens);
    }
  };
}

/** A MULTI's answer: throws its first failed command's error (ioredis reports them per command, not by rejecting). */
function failed(results: [Error | null, unknown][] | null): void {
  if (results === null) throw new Error('redis transaction aborted');
  const error = results.find(([err]) => err)?.[0];
  if (error) throw error;
}
