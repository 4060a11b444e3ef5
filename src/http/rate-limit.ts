// Per-credential rate limiting shared by every API process through Redis; fails open when Redis is down.
import { rateLimit, ipKeyGenerator, type RateLimitRequestHandler } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { Request } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from '../../core/ground/logger.js';
import { principalBucket } from '../auth/principal.js';
import { createError } from '../errors.js';

/**
 * rate-limit-redis loads its Lua script in `init()`, at start-up (when Redis may still be
 * connecting) and keeps that promise: if the load failed, every later call rejects with
 * the stale error even after Redis is back. This store loads the script on first use
 * and again after any failure, so limiting resumes by itself when Redis returns.
 */
class ReconnectingRedisStore extends RedisStore {
  private scriptLoaded = false;

  override async init(options: Parameters<RedisStore['init']>[0]): Promise<void> {
    this.windowMs = options.windowMs;
  }

  override async increment(key: string) {
    try {
      if (!this.scriptLoaded) {
        this.incrementScriptSha = this.loadIncrementScript();
        await this.incrementScriptSha;
        this.scriptLoaded = true;
      }
      return await super.increment(key);
    } catch (error) {
      this.scriptLoaded = false;
      throw error;
    }
  }
}

/**
 * The rate limiter: `max` requests per `windowSeconds` per API key id, per token subject,
 * or per client IP (IPv6 by /56) without a credential. Headers follow the IETF draft 8
 * (`RateLimit`, `RateLimit-Policy`; `Retry-After` on 429). When Redis cannot answer, the
 * request passes unlimited and the outage is logged: a read API stays up without its limiter.
 */
export function rateLimiter({
  redis,
  max,
  windowSeconds,
  prefix = 'rl:',
  exempt = () => false,
  log,
}: {
  redis: Redis;
  max: number;
  windowSeconds: number;
  prefix?: string;
  /** Requests neither counted nor given rate-limit headers. */
  exempt?: (req: Request) => boolean;
  log: Logger;
}): RateLimitRequestHandler {
  let lastLogged = 0;
  /** Store errors repeat on every request during an outage: one line per 10 s; anything else as it comes. */
  const logError = (error: unknown, message?: string) => {
    const storeError = typeof message === 'string' && message.includes('store');
    if (storeError && Date.now() - lastLogged < 10_000) return;
    if (storeError) lastLogged = Date.now();
    log.error({ err: error }, storeError ? 'rate limit store unavailable; serving without rate limiting' : 'rate limiter');
  };
  return rateLimit({
    windowMs: windowSeconds * 1000,
    limit: max,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    passOnStoreError: true,
    store: new ReconnectingRedisStore({
      prefix,
      sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<RedisReply>,
    }),
    keyGenerator: (req) => (req.principal && principalBucket(req.principal)) ?? `ip:${ipKeyGenerator(req.ip ?? 'unknown')}`,
    handler: (_req, _res, next) => next(createError('rate_limited')),
    skip: exempt,
    logger: { warn: (error: unknown) => log.warn({ err: error }, 'rate limiter'), error: logError },
  });
}
