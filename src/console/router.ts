// The creator console at /console on the API host (never on a channel's host): its headers, assets, session, CSRF
// checks, the ways in and out, then each section's routes; errors as console pages.
import { readFileSync } from 'node:fs';
import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { h } from 'preact';
import type { Redis } from 'ioredis';
import type { Config } from '../../core/config/load.js';
import type { Logger } from '../../core/ground/logger.js';
import { packageFile } from '../../core/ground/package-root.js';
import { indexAliases, type Client } from '../../core/store/opensearch.js';
import { isTransientStoreError } from '../../core/store/transient.js';
import { requestHost } from '../http/host.js';
import { createQueries } from '../store/queries.js';
import { OwnerHints } from '../store/owner-hints.js';
import { CrossSiteError, csrfProtection, isCsrfError, sameOriginOnly } from './csrf.js';
import { accountStore, type IdentityDeps } from './identity.js';
import { renderConsolePage } from './layout.js';
import { ConsolePageError, sectionPage, type ConsoleDeps, type ConsoleSection } from './section.js';
import { consoleSession } from './session.js';
import { signInThrottle } from './throttle.js';
import { CONSOLE_HOME, mountEntry } from './pages/entry.js';
import { mountUpstreamEntry } from './pages/upstream.js';
import { createUpstreamProvider, type UpstreamProvider } from './upstream.js';
import { channelsSection } from './pages/channels.js';
import { keysSection } from './pages/keys.js';
import { accountSection } from './pages/account.js';
import { adminSection } from './pages/admin.js';
import { followSection } from './pages/follow.js';
import { episodesSection } from './pages/episodes.js';
import { webhooksSection } from './pages/webhooks.js';
import { appsSection } from './pages/apps.js';
import { createFollowRequestQueue, type FollowRequestJob, type FollowRequestResult } from '../../pipeline/follow/requests.js';
import { keyringOf } from '../../pipeline/webhooks/sealed.js';
import type { Queue } from 'bullmq';

/**
 * The console's sections in navigation order. A new one is a module under pages/ exporting a {@link ConsoleSection},
 * added here.
 */
export const SECTIONS: readonly ConsoleSection[] = [channelsSection, episodesSection, followSection, keysSection, webhooksSection, appsSection, accountSection, adminSection];

/**
 * Console pages load nothing from elsewhere, run no inline code, and are never framed. Forms post to the console only;
 * `formTargets` adds the upstream provider's origins, because Chromium applies form-action to the redirect that follows
 * a post too (the sign-in and link buttons post here, and are answered with a redirect to the provider).
 */
export function consoleCsp(formTargets: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    // The progressive script re-reads the page it is on (episode statuses, a follow's state): same origin only.
    "connect-src 'self'",
    ["form-action 'self'", ...formTargets].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The console's policy without an upstream provider. */
export const CONSOLE_CSP = consoleCsp();

/** Headers of every console answer; a page is never cached, and never sends its URL (a one-time link's) to another site as a Referer. */
const CONSOLE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONSOLE_CSP,
  // `same-origin`, not `no-referrer`: under `no-referrer` Chromium sends `Origin: null` on the console's own form posts.
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  'Cache-Control': 'no-store',
};

const ASSETS: Record<string, { type: string; body: Buffer }> = {
  '/console/assets/console.css': { type: 'text/css; charset=utf-8', body: readFileSync(packageFile('web', 'console.css')) },
  '/console/assets/console.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(packageFile('web', 'console.js')) },
};

export interface ConsoleRouterDeps {
  config: Readonly<Config>;
  client: Client;
  /** The process's one Redis connection: sessions, one-time links, the sign-in throttle. */
  redis: Redis;
  log: Logger;
  /** Default: {@link SECTIONS}. */
  sections?: readonly ConsoleSection[];
  /** The upstream OpenID Connect provider; default: the one CONSOLE_OIDC_ISSUER configures (none when unset). */
  upstream?: UpstreamProvider | undefined;
  /** The session middleware ({@link consoleSessionFor}), when the app shares one with its other pages; default: one of its own. */
  sessions?: RequestHandler | undefined;
}

/** What the console and the users CLI share to make and read accounts and links. */
export function identityDeps({ config, client, redis }: Pick<ConsoleRouterDeps, 'config' | 'client' | 'redis'>): IdentityDeps {
  return {
    client,
    aliases: indexAliases(config.indexPrefix),
    links: { redis, prefix: config.indexPrefix, ttlSeconds: config.console.linkTtlHours * 3600 },
    publicBaseUrl: config.publicBaseUrl,
  };
}

/** The session middleware as the console uses it; other pages of the API host (the OAuth sign-in) mount the same. */
export function consoleSessionFor({ config, client, redis }: Pick<ConsoleRouterDeps, 'config' | 'client' | 'redis'>) {
  return consoleSession({
    redis,
    accounts: accountStore(identityDeps({ config, client, redis })),
    prefix: config.indexPrefix,
    publicBaseUrl: config.publicBaseUrl,
    idleHours: config.console.sessionIdleHours,
    maxDays: config.console.sessionMaxDays,
  });
}

const isConsolePath = (path: string) => path === '/console' || path.startsWith('/console/');

export function consoleRouter({
  config,
  client,
  redis,
  log,
  sections = SECTIONS,
  upstream = config.upstream && createUpstreamProvider({ config: config.upstream, publicBaseUrl: config.publicBaseUrl, log }),
  sessions = consoleSessionFor({ config, client, redis }),
}: ConsoleRouterDeps): Router {
  const aliases = indexAliases(config.indexPrefix);
  const apiHost = new URL(config.publicBaseUrl).hostname;
  const ownerHints = new OwnerHints();
  let followQueue: Queue<FollowRequestJob, FollowRequestResult> | undefined;
  const deps: ConsoleDeps = {
    client,
    aliases,
    redis,
    log,
    publicBaseUrl: config.publicBaseUrl,
    identity: identityDeps({ config, client, redis }),
    keys: { client, aliases },
    throttle: signInThrottle({ redis, prefix: config.indexPrefix, ...config.console.signIn }),
    queries: () => createQueries({ client, aliases, ownerHints }, { budgetMs: config.opensearchTimeoutMs }),
    indexPrefix: config.indexPrefix,
    outbound: { allowPrivate: config.pipeline.allowPrivate, userAgent: config.pipeline.userAgent },
    keyring: keyringOf(config.secrets),
    followRequests: () => (followQueue ??= createFollowRequestQueue(redis, config.indexPrefix)),
    upstream,
  };
  // Discovered now, so that a provider out of reach is in the log at start (and its sign-in page's origin is known).
  void upstream?.ready();

  const router = Router({ caseSensitive: true, strict: false });
  // The API's host only (its Host header, as pages are told apart: src/http/host.ts); a channel host has no console.
  router.use((req, res, next) => {
    if (!isConsolePath(req.path) || requestHost(req.headers) !== apiHost) return next('router');
    for (const [name, value] of Object.entries(CONSOLE_HEADERS)) res.setHeader(name, value);
    if (upstream) res.setHeader('Content-Security-Policy', consoleCsp(upstream.formTargets()));
    next();
  });
  for (const [path, asset] of Object.entries(ASSETS)) {
    router.get(path, (_req, res) => {
      res.type(asset.type).setHeader('Cache-Control', 'public, max-age=3600');
      res.send(asset.body);
    });
  }
  router.use(sessions);
  router.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 }));
  router.use(sameOriginOnly(config.publicBaseUrl), csrfProtection);

  router.get('/console', (_req, res) => res.redirect(303, CONSOLE_HOME));
  mountEntry(router, deps);
  mountUpstreamEntry(router, deps);
  for (const section of sections) section.mount(router, deps, (handle) => sectionPage(sections, section, handle));
  router.use(() => {
    throw new ConsolePageError(404, 'There is no such page in the console.');
  });
  router.use(consoleErrors(log));
  return router;
}

/** A failure as the console says it: its status, and a sentence for the reader. */
function pageOf(err: unknown): { status: number; message: string; headers: Record<string, string> } {
  if (err instanceof ConsolePageError) return { status: err.status, message: err.message, headers: err.headers };
  if (isCsrfError(err)) return { status: 403, message: 'This form has expired or did not come from this site; reload the page and send it again.', headers: {} };
  if (err instanceof CrossSiteError) return { status: 403, message: 'This request came from another site, so it was refused.', headers: {} };
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) return { status, message: 'The form could not be read; reload the page and send it again.', headers: {} };
  // The store away, or Redis (sessions, links, the throttle): ioredis fails fast while disconnected (no offline queue).
  const redisDown = /Connection is closed|Command timed out|Stream isn't writeable|enableOfflineQueue/i.test(String((err as Error | undefined)?.message));
  if (isTransientStoreError(err) || redisDown)
    return { status: 503, message: 'The console cannot reach its store right now; try again in a moment.', headers: { 'Retry-After': '5' } };
  return { status: 500, message: 'Something went wrong on our side.', headers: {} };
}

function consoleErrors(log: Logger): ErrorRequestHandler {
  return (err: unknown, req: Request, res, _next) => {
    const { status, message, headers } = pageOf(err);
    if (status >= 500) (req.log ?? log).error({ err }, 'console request failed');
    if (res.headersSent) return res.end();
    res.status(status).set(headers).type('html');
    res.send(
      renderConsolePage(req, { title: status === 404 ? 'Not found' : status === 429 ? 'Slow down' : 'Refused' }, [
        h('p', { class: 'error-message' }, message),
        h('p', null, h('a', { href: '/console' }, 'Back to the console')),
      ]),
    );
  };
}
