// The per-channel MCP tool server: stateless Streamable HTTP at `/mcp` on channel hosts and `/channels/{slug}/mcp`.
import { readFileSync } from 'node:fs';
import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createError } from '../errors.js';
import { logFailure } from '../http/log-failure.js';
import type { ApiMetrics } from '../metrics/api-metrics.js';
import type { SearchService } from '../serve/search-service.js';
import type { ChannelSites } from '../../core/ground/channel-urls.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { channelWithMcp, locateByHost, type ChannelLocator } from './channel.js';
import { originAllowed } from './origin.js';
import { requestHost } from '../http/host.js';
import { SEARCH_INPUT, SEARCH_OUTPUT, generatedMarks, oneLine, renderSearchText, toSearchParams } from './search-tool.js';
import { packageFile } from '../../core/ground/package-root.js';

const { version } = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string };

/** Longest channel title shown in the server's and the tool's display titles. */
const TITLE_CHARS = 60;

/** A tool call's JSON-RPC message is small; anything bigger is refused (413) before it is parsed. */
export const MAX_BODY_BYTES = 64 * 1024;

export interface McpDeps {
  /** A tool call's search is anonymous: it waits in the anonymous share of the gate (by the client's address), never in a member's place. */
  search: SearchService;
  metrics?: ApiMetrics | undefined;
}

/** What the routes need beyond the tool server's dependencies. */
export interface McpRouterDeps extends McpDeps {
  channelSites: ChannelSites;
  /** The API's own public URL: its host may call `/channels/{slug}/mcp` from a browser. */
  publicBaseUrl: string;
  /** Further origins (`scheme://host[:port]`) whose browsers may call the tool servers. */
  allowedOrigins: readonly string[];
  /** Per-IP limiter of tool-server requests, its own budget (smaller than a key's); undefined: none. */
  limiter?: RequestHandler | undefined;
}

/** A JSON-RPC error answer with no id, as the transport writes its own. */
export function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** The server of one channel for one request (`req`: whose budget, hang-up and log the searches use): one read-only tool, `search`, over published episodes. */
export function createChannelServer(channel: ChannelDoc, { search, metrics }: McpDeps, req: Request): McpServer {
  // What the assistant reads as instructions names the channel by its slug (checked `[a-z0-9-]`), never by its free-text
  // title (prompt injection through a feed title); the display titles carry the title folded to one short line.
  const label = oneLine(channel.title, TITLE_CHARS);
  const server = new McpServer(
    { name: `${channel.slug}-search`, title: `${label} search`, version },
    {
      instructions: `Searches the published episodes of the channel "${channel.slug}". Every hit cites moments of an episode, each with a URL that opens the episode at that moment; quote and link them.`,
    },
  );
  server.registerTool(
    'search',
    {
      title: `Search ${label}`,
      description:
        `Hybrid (keyword + semantic) search over the published episodes of the channel "${channel.slug}". Returns ranked episodes, ` +
        'each with up to 3 best-matching moments: their words, start time (ms) and a citation URL.',
      inputSchema: SEARCH_INPUT,
      outputSchema: SEARCH_OUTPUT,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        const result = await search.run(req, channel, toSearchParams(args));
        const marks = await generatedMarks(result, (id) => req.queries.chapters(id));
        metrics?.toolCall('search', 'ok');
        return {
          content: [{ type: 'text', text: renderSearchText(result, channel.title, marks) }],
          structuredContent: result as unknown as Record<string, unknown>,
        };
      } catch (err) {
        // An error result, never a protocol failure: the assistant reads the sentence, the log keeps the cause.
        const error = logFailure(req.log, err, 'MCP search failed');
        metrics?.toolCall('search', 'error');
        return { isError: true, content: [{ type: 'text', text: error.message }] };
      }
    },
  );
  return server;
}

function serve(deps: McpRouterDeps, locate: (req: Request) => ChannelLocator | undefined): RequestHandler {
  return async (req, res, next) => {
    // Stateless: no SSE stream to open (GET) and no session to end (DELETE).
    if (req.method !== 'POST') {
      throw createError('method_not_allowed', {
        headers: { Allow: 'POST' },
        message: 'This MCP endpoint takes POST only (stateless Streamable HTTP: no SSE stream, no session).',
      });
    }
    // Unknown and free-plan channels look like a path that does not exist.
    const channel = await channelWithMcp(req.queries, locate(req));
    if (!channel) throw createError('route_not_found');
    // DNS-rebinding protection (MCP transport spec): a browser page of another site cannot drive the tool server.
    if (!originAllowed(req.get('origin'), channel, deps)) throw createError('origin_forbidden');
    // MCP 2025-06-18 removed JSON-RPC batching: one request is one call, so one POST cannot run a hundred searches.
    if (Array.isArray(req.body))
      return jsonRpcError(res, 400, -32600, 'Invalid Request: JSON-RPC batches are not accepted (MCP 2025-06-18 removed batching); send one message per request.');
    await answerOnce(createChannelServer(channel, deps, req), req, res, next);
  };
}

/**
 * One JSON-RPC request answered by `server` on a stateless transport (no session, JSON answers), both closed when the
 * response ends: the anonymous channel servers and the creator tool server answer every POST this way.
 */
export async function answerOnce(server: McpServer, req: Request, res: Response, next: (err: unknown) => void): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_BODY_BYTES });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  } catch (err) {
    next(err);
  }
}

/** The body as JSON, read here (not by the transport) so that a batch is seen before any call runs; read errors answered as the transport would. */
export function readBody(): RequestHandler[] {
  const raw = express.raw({ type: () => true, limit: MAX_BODY_BYTES });
  const parse: RequestHandler = (req, res, next) => {
    if (!Buffer.isBuffer(req.body) || req.body.length === 0) {
      req.body = undefined;
      return next();
    }
    try {
      req.body = JSON.parse(req.body.toString('utf8')) as unknown;
    } catch {
      return jsonRpcError(res, 400, -32700, 'Parse error: the body is not JSON');
    }
    next();
  };
  return [raw, parse];
}

/** Body read errors as JSON-RPC errors (413, 400); anything else goes on. */
export const bodyErrors: ErrorRequestHandler = (err: { type?: string }, _req, res, next) => {
  if (err.type === 'entity.too.large') return jsonRpcError(res, 413, -32000, `Payload Too Large: a message is at most ${MAX_BODY_BYTES} bytes`);
  if (typeof err.type === 'string' && err.type.startsWith('entity.')) return jsonRpcError(res, 400, -32700, 'Parse error: the body could not be read');
  next(err);
};

/**
 * The MCP routes: `/mcp` on a channel host (`<slug>.<base domain>` or the channel's
 * custom domain) and `/channels/{slug}/mcp` on any host, for deployments without
 * wildcard DNS. Exact case, as every other route. Anonymous: credentials are not read; the
 * caller's IP is its rate-limit bucket, with the tool servers' own budget.
 */
export function mcpRouter(deps: McpRouterDeps): Router {
  const router = Router({ caseSensitive: true, strict: false });
  const front = [deps.limiter ?? ((_req, _res, next) => next()), ...readBody()] satisfies RequestHandler[];
  router.all(
    '/mcp',
    (req, _res, next) => {
      // An HTTP/1.0 request may name no host at all: nothing to locate the channel by. Host only, never
      // X-Forwarded-Host (see src/http/host.ts).
      if (!requestHost(req.headers)) throw createError('host_missing');
      next();
    },
    ...front,
    serve(deps, (req) => locateByHost(requestHost(req.headers)!, deps.channelSites)),
  );
  router.all(
    '/channels/:slug/mcp',
    ...front,
    serve(deps, (req) => ({ slug: String(req.params.slug) })),
  );
  router.use(bodyErrors);
  return router;
}
