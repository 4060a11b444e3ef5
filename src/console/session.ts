// Console sessions: express-session in Redis, the `__Host-` cookie, regeneration at sign-in, idle and absolute expiry
// enforced here (never trusted to the cookie), and who is signed in.
import { randomBytes } from 'node:crypto';
import session from 'express-session';
import type { Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import { isLoopbackHost } from '../../core/config/values.js';
import { getAccount, type AccountRole, type AccountStoreDeps } from '../../core/store/accounts.js';
import { RedisSessionStore } from './session-store.js';

declare module 'express-session' {
  interface SessionData {
    /** The signed-in account; absent before sign-in. */
    userId?: string;
    /** `Date.now()` at sign-in: a password set after it ends the session. */
    signedInAt?: number;
    /** `Date.now()` past which the session is over, however active (the absolute expiry). */
    absoluteEnd?: number;
    /** Last request of the signed-in session, written at most once a minute (the idle expiry reads it). */
    seenAt?: number;
  }
}

/** The signed-in account of a console request. */
export interface SignedInUser {
  userId: string;
  role: AccountRole;
}

/** What a request needs to tell who is signed in, put on it by the session middleware. */
interface SessionContext {
  accounts: AccountStoreDeps;
  idleMs: number;
  maxMs: number;
  cookie: SessionCookie;
  user?: Promise<SignedInUser | undefined>;
}

declare module 'express-serve-static-core' {
  interface Request {
    consoleSession?: SessionContext;
  }
}

/** The cookie's name and whether it is `Secure`. */
export interface SessionCookie {
  name: string;
  secure: boolean;
}

/**
 * The session cookie for a public base URL. Over https: `__Host-cca_session`, `Secure`. Over http on a loopback host
 * (the demo's `http://localhost:8080`) the same: Chromium and Firefox treat `http://localhost` and `http://127.0.0.1` as
 * secure contexts and keep a `Secure`, `__Host-` cookie from them. Over http on any other host no browser keeps a
 * `Secure` cookie, so the console there uses `cca_session` without it (the API warns at start: use https).
 */
export function sessionCookie(publicBaseUrl: string): SessionCookie {
  const url = new URL(publicBaseUrl);
  const secure = url.protocol === 'https:' || isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ''));
  return { name: secure ? '__Host-cca_session' : 'cca_session', secure };
}

export interface ConsoleSessionOptions {
  redis: Redis;
  accounts: AccountStoreDeps;
  /** The deployment's index prefix: the sessions' Redis keys carry it. */
  prefix: string;
  publicBaseUrl: string;
  idleHours: number;
  maxDays: number;
}

/**
 * The session middleware of the console (and of any page that asks {@link signedInUser}, such as the OAuth sign-in).
 * The cookie signature's secret is made once per deployment and kept in Redis beside the sessions (every API process
 * reads the same one; losing Redis loses the sessions anyway). The session id itself, 24 random bytes, is the secret
 * that matters.
 */
export function consoleSession({ redis, accounts, prefix, publicBaseUrl, idleHours, maxDays }: ConsoleSessionOptions): RequestHandler {
  const cookie = sessionCookie(publicBaseUrl);
  const idleMs = idleHours * 3_600_000;
  const store = new RedisSessionStore(redis, prefix, idleHours * 3600);
  let built: Promise<RequestHandler> | undefined;
  const build = async () => {
    const key = `console:${prefix}cookie-secret`;
    await redis.set(key, randomBytes(32).toString('base64url'), 'NX');
    const secret = await redis.get(key);
    if (!secret) throw new Error('the console cookie secret vanished from Redis');
    return session({
      name: cookie.name,
      store,
      secret,
      resave: false,
      saveUninitialized: false,
      rolling: true,
      unset: 'destroy',
      cookie: { httpOnly: true, sameSite: 'lax', path: '/', secure: cookie.secure, maxAge: idleMs },
    });
  };
  return (req, res, next) => {
    req.consoleSession = { accounts, idleMs, maxMs: maxDays * 86_400_000, cookie };
    // The Secure flag follows the URL browsers use (PUBLIC_BASE_URL), not the hop in front: express-session would
    // otherwise drop a Secure cookie behind a TLS-terminating proxy, or on http://localhost.
    if (cookie.secure) Object.defineProperty(req, 'secure', { value: true, configurable: true });
    built ??= build().catch((err: unknown) => {
      built = undefined;
      throw err;
    });
    built.then((middleware) => middleware(req, res, next), next);
  };
}

const promisify = (run: (done: (err?: unknown) => void) => void) => new Promise<void>((resolve, reject) => run((err) => (err ? reject(err) : resolve())));

/** A fresh, empty session under a new id; the old one is gone from the store (its cookie opens nothing any more). */
function regenerate(req: Request): Promise<void> {
  return promisify((done) => req.session.regenerate(done));
}

/**
 * Signs `userId` in: a new session id (a cookie from before sign-in, the one a fixation attack planted, is useless
 * after it), the sign-in time and the absolute end.
 */
export async function signIn(req: Request, userId: string): Promise<void> {
  const ctx = req.consoleSession;
  if (!ctx) throw new Error('consoleSession() must run before signIn()');
  await regenerate(req);
  const now = Date.now();
  Object.assign(req.session, { userId, signedInAt: now, absoluteEnd: now + ctx.maxMs, seenAt: now });
  ctx.user = undefined;
  await promisify((done) => req.session.save(done));
}

/** Signs out: the session is destroyed in the store and the cookie cleared. */
export async function signOut(req: Request, res: Response): Promise<void> {
  const ctx = req.consoleSession;
  if (req.session) await promisify((done) => req.session.destroy(done));
  if (ctx) res.clearCookie(ctx.cookie.name, { path: '/', httpOnly: true, sameSite: 'lax', secure: ctx.cookie.secure });
}

/** How often at most the idle clock of a session is written (each write is a Redis SET). */
const SEEN_EVERY_MS = 60_000;

async function readSignedIn(req: Request, ctx: SessionContext): Promise<SignedInUser | undefined> {
  const s = req.session;
  if (!s?.userId || s.signedInAt === undefined) return undefined;
  const now = Date.now();
  const over = now >= (s.absoluteEnd ?? 0) || now - (s.seenAt ?? 0) > ctx.idleMs;
  const account = over ? undefined : await getAccount(ctx.accounts, s.userId);
  // Gone, no password any more, or a password set since this session signed in (a reset ends every other session).
  const changedAt = account?.passwordChangedAt ? Date.parse(account.passwordChangedAt) : 0;
  if (!account || !account.passwordHash || changedAt > s.signedInAt) {
    await regenerate(req);
    return undefined;
  }
  if (now - (s.seenAt ?? 0) > SEEN_EVERY_MS) s.seenAt = now;
  return { userId: account.userId, role: account.role };
}

/**
 * The account signed in on this request, or undefined: no session, or one past its idle or absolute expiry, or whose
 * account is gone or has had its password set since. The role is read from the account at call time. Needs
 * {@link consoleSession} to have run on the request.
 */
export function signedInUser(req: Request): Promise<SignedInUser | undefined> {
  const ctx = req.consoleSession;
  if (!ctx || !req.session) return Promise.resolve(undefined);
  ctx.user ??= readSignedIn(req, ctx);
  return ctx.user;
}
