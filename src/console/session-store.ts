// express-session's store on the process's one ioredis connection (connect-redis 10 wants a second client, `redis`).
import session, { type SessionData } from 'express-session';
import type { Redis } from 'ioredis';

type Callback = (err?: unknown) => void;

/**
 * Sessions as JSON under `console:<prefix>sess:<id>`, each with a TTL: the idle expiry, never past the session's
 * absolute end (`absoluteEnd` of its data, set at sign-in), so Redis forgets a session when either is reached.
 */
export class RedisSessionStore extends session.Store {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly idleSeconds: number,
  ) {
    super();
  }

  private key(sid: string): string {
    return `console:${this.prefix}sess:${sid}`;
  }

  /** Seconds the session may still live: the idle expiry, cut at its absolute end; 0 when that has passed. */
  private ttl(sess: SessionData): number {
    const end = sess.absoluteEnd;
    const left = end === undefined ? this.idleSeconds : Math.floor((end - Date.now()) / 1000);
    return Math.max(0, Math.min(this.idleSeconds, left));
  }

  override get(sid: string, callback: (err: unknown, session?: SessionData | null) => void): void {
    this.redis.get(this.key(sid)).then(
      (raw) => callback(null, raw ? (JSON.parse(raw) as SessionData) : null),
      (err: unknown) => callback(err),
    );
  }

  override set(sid: string, sess: SessionData, callback?: Callback): void {
    const ttl = this.ttl(sess);
    const done = ttl > 0 ? this.redis.set(this.key(sid), JSON.stringify(sess), 'EX', ttl) : this.redis.del(this.key(sid));
    done.then(
      () => callback?.(),
      (err: unknown) => callback?.(err),
    );
  }

  override touch(sid: string, sess: SessionData, callback?: Callback): void {
    const ttl = this.ttl(sess);
    const done = ttl > 0 ? this.redis.expire(this.key(sid), ttl) : this.redis.del(this.key(sid));
    done.then(
      () => callback?.(),
      (err: unknown) => callback?.(err),
    );
  }

  override destroy(sid: string, callback?: Callback): void {
    this.redis.del(this.key(sid)).then(
      () => callback?.(),
      (err: unknown) => callback?.(err),
    );
  }
}
