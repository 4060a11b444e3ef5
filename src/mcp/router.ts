// The per-channel MCP tool server: stateless Streamable HTTP at `/mcp` on channel hosts and `/channels/{slug}/mcp`.
import { createRequire } from 'node:module';
import { Router, type Request, type RequestHandler } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createError, toApiError } from '../errors.js';
import type { Admission } from '../http/admission.js';
import type { Logger } from '../logger.js';
import type { ApiMetrics } from '../metrics/api-metrics.js';
import { runSearch, type SearchDeps } from '../search/search.js';
import type { ChannelDoc } from '../store/documents.js';
import { channelWithMcp, locateByHost, type ChannelLocator } from './channel.js';
import { SEARCH_INPUT, SEARCH_OUTPUT, renderSearchText, toSearchParams } from './search-tool.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** A tool call's JSON-RPC message is small; anything bigger is refused (413) before it is parsed. */
const MAX_BODY_BYTES = 64 * 1024;

export interface McpDeps {
  search: SearchDeps;
  metrics?: ApiMetrics | undefined;
  /** Shared with REST search: one bound on the searches running at once. */
  admission?: Admission | undefined;
}

/** The server of one channel for one request: one read-only tool, `search`, over published episodes. */
export function createChannelServer(channel: ChannelDoc, { search, metrics, admission }: McpDeps, log: Logger): McpServer {
  const server = new McpServer(
    { name: `${channel.slug}-search`, title: `${channel.title} search`, version },
    {
      instructions: `Searches the published episodes of ${channel.title}. Every hit cites moments of an episode, each with a URL that opens the episode at that moment; quote and link them.`,
    },
  );
  server.registerTool(
    'search',
    {
      title: `Search ${channel.title}`,
      description:
        `Hybrid (keyword + semantic) search over the published episodes of ${channel.title}. Returns ranked episodes, ` +
        'each with up to 3 best-matching moments: their words, start time (ms) and a citation URL.',
      inputSchema: SEARCH_INPUT,
      outputSchema: SEARCH_OUTPUT,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      let release: (() => void) | undefined;
      try {
        release = await admission?.admit();
        const { result, trace } = await runSearch(search, channel, toSearchParams(args));
        metrics?.observeSearch(trace);
        metrics?.toolCall('search', 'ok');
        return {
          content: [{ type: 'text', text: renderSearchText(result, channel.title) }],
          structuredContent: result as unknown as Record<string, unknown>,
        };
      } catch (err) {
        // An error result, never a protocol failure: the assistant reads the sentence, the log keeps the cause.
        const error = toApiError(err);
        metrics?.storeError(err);
        metrics?.toolCall('search', 'error');
        if (error.status === 500) log.error({ err, code: error.code }, 'MCP search failed');
        else log.warn({ err: error.cause ?? error, code: error.code }, 'MCP search failed');
        return { isError: true, content: [{ type: 'text', text: error.message }] };
      } finally {
        release?.();
      }
    },
  );
  return server;
}

function serve(deps: McpDeps, locate: (req: Request) => ChannelLocator | undefined): RequestHandler {
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
    // The search's round trips draw on the request's store budget, as REST search does.
    const search = { ...deps.search, storeTimeoutMs: () => req.queries.timeLeftMs() };
    const server = createChannelServer(channel, { ...deps, search }, req.log);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_BODY_BYTES });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (err) {
      next(err);
    }
  };
}

/**
 * The MCP routes: `/mcp` on a channel host (`<slug>.<channelBaseDomain>` or the channel's
 * custom domain) and `/channels/{slug}/mcp` on any host, for deployments without
 * wildcard DNS. Anonymous: credentials are not read; the caller's IP is its rate-limit bucket.
 */
export function mcpRouter(deps: McpDeps & { channelBaseDomain: string }): Router {
  const router = Router();
  router.all('/mcp', serve(deps, (req) => locateByHost(req.hostname, deps.channelBaseDomain)));
  router.all('/channels/:slug/mcp', serve(deps, (req) => ({ slug: String(req.params.slug) })));
  return router;
}
