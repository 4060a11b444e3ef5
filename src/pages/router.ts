// The channel's public site on its host: the library root, episode pages, search, their Markdown twins and llms.txt (decisions 20 and 21). Other hosts fall through to the API's routes.
import { readFileSync } from 'node:fs';
import compression from 'compression';
import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { PAID_PLAN } from '../auth/access.js';
import { toApiError } from '../errors.js';
import { logFailure } from '../http/log-failure.js';
import { packageFile } from '../../core/ground/package-root.js';
import type { SearchAnswer } from '../../core/search/search.js';
import { SEARCH_LIMITS, type SearchParams } from '../../core/search/types.js';
import type { SearchService } from '../serve/search-service.js';
import { renderEpisodePage } from './html/episode.js';
import { errorText, renderBareErrorPage, renderErrorPage, renderLibraryPage, renderSearchPage } from './html/lists.js';
import {
  channelOfHost,
  createAroundCache,
  fetchEpisodeDocs,
  loadEpisodePage,
  loadLibraryPage,
  pageChannel,
  LIBRARY_PAGE_SIZE,
  type EpisodeDocs,
  type PageChannel,
} from './load.js';
import { locateByHost, type ChannelSites } from '../../core/ground/channel-urls.js';
import { episodeMarkdown, libraryMarkdown, llmsTxt, LLMS_EPISODES, notFoundMarkdown, searchMarkdown } from './markdown.js';
import { EMBED_ORIGIN } from './media.js';
import { wantsMarkdown } from './negotiate.js';
import { requestHost } from '../http/host.js';

export interface PagesDeps {
  /** A page search is anonymous: it waits in the anonymous share of the gate, never in a member's place. */
  search: SearchService;
  channelSites: ChannelSites;
  publicBaseUrl: string;
  /** The pages' own per-IP budget (decision 20). */
  limiter: RequestHandler;
  /** MCP tool servers are on (`MCP_SERVER`): llms.txt lists the channel's when its owner's plan has one. */
  mcpServer: boolean;
}

/** Page paths: anything else on a channel host (`/api`, `/mcp`, `/healthz`…) is not a page. */
const PAGE_PATH = /^\/(|index\.md|search|search\.md|llms\.txt|favicon\.ico|episodes\/[^/]+|assets\/page\.(css|js))$/;

/** No inline script or style, frames from the embed host only, never framed by others, nothing fetched from elsewhere but media. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  'media-src https: http:',
  `frame-src ${EMBED_ORIGIN}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

/** Headers of every page answer, errors (429, 503) included. */
const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'X-Content-Type-Options': 'nosniff',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

const ASSETS: Record<string, { type: string; body: Buffer; maxAge: number }> = {
  '/assets/page.css': { type: 'text/css; charset=utf-8', body: readFileSync(packageFile('web', 'page.css')), maxAge: 3600 },
  '/assets/page.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(packageFile('web', 'page.js')), maxAge: 3600 },
  // Browsers ask every host for it: the channel's host answers an icon, not the API's JSON 404.
  '/favicon.ico': { type: 'image/x-icon', body: readFileSync(packageFile('web', 'favicon.ico')), maxAge: 86_400 },
};

declare module 'express-serve-static-core' {
  interface Request {
    /** The channel whose host a page request came to. */
    pageChannel?: PageChannel;
    /** The host name of the page request's `Host` header. */
    pageHost?: string;
    /** An episode page's documents, asked for in the same tick as the channel (after the page limiter). */
    episodeDocs?: Promise<EpisodeDocs>;
  }
}

const MARKDOWN = 'text/markdown; charset=utf-8';
const HTML = 'text/html; charset=utf-8';

/** Sends a page; `twin` (the Markdown twin's URL) is advertised on an HTML answer with a `Link` header. */
function send(res: Response, status: number, type: string, body: string, { cache = true, vary = true, twin = undefined as string | undefined } = {}): void {
  res.status(status).type(type);
  res.setHeader('Cache-Control', cache && status === 200 ? 'public, max-age=60' : 'no-store');
  if (vary) res.setHeader('Vary', 'Accept');
  if (twin && type === HTML) res.setHeader('Link', `<${twin}>; rel="alternate"; type="text/markdown"`);
  res.send(body);
}

/** `t` of a citation: a non-negative integer of milliseconds, else none (the page opens at its start). */
function momentOf(req: Request): number | undefined {
  const t = req.query.t;
  return typeof t === 'string' && /^\d{1,10}$/.test(t) ? Number(t) : undefined;
}

/** The episode id of an episode page or twin path, decoded as Express decodes it; undefined for any other path. */
function episodeIdOf(path: string): string | undefined {
  const match = /^\/episodes\/([^/]+?)(\.md)?$/.exec(path);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

/**
 * `q` trimmed and cut at the longest query any search takes (`SEARCH_LIMITS.queryChars` code points), never inside a
 * surrogate pair: a lone surrogate would make `encodeURIComponent` throw after the search ran. Any lone one the
 * client sent becomes U+FFFD. A page does not refuse a long query as REST does: it searches its start.
 */
export function queryOf(q: unknown): string {
  if (typeof q !== 'string') return '';
  const max = SEARCH_LIMITS.queryChars;
  const chars = Array.from(q.trim().replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
  return chars.length > max ? chars.slice(0, max).join('').trim() : chars.join('');
}

/**
 * The search a page's `q` asks for: {@link queryOf} it, hybrid, the page's count of episodes, published ones only (a
 * page is anonymous); undefined when it is blank (the page then shows the search box alone).
 */
export function pageSearchParams(q: unknown): SearchParams | undefined {
  const query = queryOf(q);
  return query ? { query, fast: false, limit: SEARCH_LIMITS.pageEpisodes, publishedOnly: true } : undefined;
}

export function pagesRouter(deps: PagesDeps): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const around = createAroundCache();

  // Pages exist only on a channel's host (its `Host` header, never X-Forwarded-Host: see host.ts), and only at page
  // paths: anything else goes on to the API's routes. The page headers come first, so that a 429 or 503 carries them.
  router.use((req, res, next) => {
    const host = requestHost(req.headers);
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !PAGE_PATH.test(req.path) || !host || !locateByHost(host, deps.channelSites)) return next('router');
    req.pageHost = host;
    for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
    next();
  });
  // The limiter before any store read: a refused request costs its Redis call and nothing else (its 429 is a bare
  // page, rendered from nothing). Only then the channel and, for an episode page, its documents, in one round trip.
  router.use(deps.limiter);
  router.use(async (req, _res, next) => {
    const lookup = channelOfHost(req.queries, req.pageHost, deps.channelSites);
    const id = episodeIdOf(req.path);
    if (id !== undefined) {
      req.episodeDocs = fetchEpisodeDocs(req.queries, id);
      req.episodeDocs.catch(() => undefined);
    }
    const doc = await lookup;
    if (!doc) return next('router');
    req.pageChannel = pageChannel(doc, deps.channelSites);
    next();
  });
  router.use(compression());

  for (const [path, asset] of Object.entries(ASSETS)) {
    router.get(path, (_req, res) => {
      res.type(asset.type).setHeader('Cache-Control', `public, max-age=${asset.maxAge}`);
      res.send(asset.body);
    });
  }

  const channel = (req: Request) => req.pageChannel!;

  router.get('/llms.txt', async (req, res) => {
    const page = await loadLibraryPage(req.queries, channel(req), undefined, LLMS_EPISODES);
    // The MCP endpoint is listed only where it answers: tool servers on, and the owner's plan includes them.
    const owner = deps.mcpServer ? await req.queries.user(channel(req).doc.ownerId) : undefined;
    const mcp = owner?.plan === PAID_PLAN;
    send(res, 200, 'text/plain; charset=utf-8', llmsTxt(channel(req), page, { publicBaseUrl: deps.publicBaseUrl, mcp }), { vary: false });
  });

  const library =
    (markdown: boolean | undefined): RequestHandler =>
    async (req, res) => {
      const md = markdown ?? wantsMarkdown(req);
      if (md === undefined) return notAcceptable(req, res);
      const cursor = typeof req.query.cursor === 'string' && req.query.cursor !== '' ? req.query.cursor : undefined;
      const page = await loadLibraryPage(req.queries, channel(req), cursor, LIBRARY_PAGE_SIZE).catch((err: unknown) => {
        if (toApiError(err).code === 'invalid_cursor') return undefined;
        throw err;
      });
      if (!page) return notFound(req, res, md);
      const twin = `${channel(req).origin}/index.md${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`;
      send(res, 200, md ? MARKDOWN : HTML, md ? libraryMarkdown(page) : renderLibraryPage(page, cursor), { vary: markdown === undefined, twin });
    };
  router.get('/', library(undefined));
  router.get('/index.md', library(true));

  const search =
    (markdown: boolean | undefined): RequestHandler =>
    async (req, res) => {
      const md = markdown ?? wantsMarkdown(req);
      if (md === undefined) return notAcceptable(req, res);
      const params = pageSearchParams(req.query.q);
      const query = params?.query ?? '';
      const answer: SearchAnswer | undefined = params && (await deps.search.run(req, channel(req).doc, params));
      const twin = `${channel(req).origin}/search.md${query ? `?q=${encodeURIComponent(query)}` : ''}`;
      send(res, 200, md ? MARKDOWN : HTML, md ? searchMarkdown(channel(req), query, answer) : renderSearchPage(channel(req), query, answer), {
        vary: markdown === undefined,
        twin,
      });
    };
  router.get('/search', search(undefined));
  router.get('/search.md', search(true));

  router.get('/episodes/:id', async (req, res) => {
    const raw = String(req.params.id);
    const twin = raw.endsWith('.md');
    const md = twin ? true : wantsMarkdown(req);
    if (md === undefined) return notAcceptable(req, res);
    const id = twin ? raw.slice(0, -3) : raw;
    const page = await loadEpisodePage(req.queries, channel(req), id, req.episodeDocs, around);
    if (!page) return notFound(req, res, md);
    send(res, 200, md ? MARKDOWN : HTML, md ? episodeMarkdown(page, momentOf(req)) : renderEpisodePage(page, momentOf(req)), { vary: !twin, twin: `${page.url}.md` });
  });

  router.use(pageErrors);
  return router;
}

function notFound(req: Request, res: Response, markdown: boolean): void {
  const ch = req.pageChannel!;
  send(res, 404, markdown ? MARKDOWN : HTML, markdown ? notFoundMarkdown(ch) : renderErrorPage(ch, 404), { cache: false });
}

function notAcceptable(req: Request, res: Response): void {
  const ch = req.pageChannel!;
  send(res, 406, HTML, renderErrorPage(ch, 406), { cache: false });
}

/** Errors on page paths are pages too (429, 503, …), in the representation asked for; the log keeps the cause. */
const pageErrors: ErrorRequestHandler = (err, req, res, _next) => {
  const error = logFailure(req.log, err, 'page failed');
  if (res.headersSent) return void res.destroy();
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  // Before the channel was read (a 429 from the limiter, a failed lookup) there is no channel frame: a bare page.
  const ch = req.pageChannel;
  const status = error.status === 404 || error.status === 429 || error.status === 503 ? error.status : error.status >= 500 ? 503 : error.status;
  const markdown = req.path.endsWith('.md') || wantsMarkdown(req) === true;
  if (markdown) {
    const [title, text] = errorText(status);
    return send(res, status, MARKDOWN, status === 404 && ch ? notFoundMarkdown(ch) : `# ${title}\n\n${text}\n`, { cache: false });
  }
  if (!ch) return send(res, status, HTML, renderBareErrorPage(status), { cache: false });
  send(res, status, HTML, renderErrorPage(ch, status), { cache: false });
};
