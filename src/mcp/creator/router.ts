// The creator tool server at `BASE/mcp` on the API host (decision 31): our own authentication in front of the SDK's stateless Streamable HTTP transport, and its RFC 9728 metadata.
import type { TokenVerifier } from '../../auth/jwt.js';
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Config } from '../../../core/config/load.js';
import { authenticate } from '../../auth/authenticate.js';
import type { KeyLookupGuard } from '../../auth/key-lookup-guard.js';
import { credentialPresented } from '../../auth/presented.js';
import { createError } from '../../errors.js';
import { requestHost } from '../../http/host.js';
import { logFailure } from '../../http/log-failure.js';
import type { ApiMetrics } from '../../metrics/api-metrics.js';
import type { SearchService } from '../../serve/search-service.js';
import { answerOnce, bodyErrors, jsonRpcError, readBody } from '../router.js';
import { creatorCors, metadataCors } from './cors.js';
import { CREATOR_MCP_PATH, creatorBearerChallenge, creatorResourceMetadata, creatorScopeChallenge, creatorTokenVerifier } from './resource.js';
import { createCreatorServer } from './server.js';

/** Path of its metadata document (RFC 9728 §3.1: the well-known prefix, then the resource's path). */
export const CREATOR_METADATA_PATH = `/.well-known/oauth-protected-resource${CREATOR_MCP_PATH}`;

/** JSON-RPC's "server error" code, for answers outside the protocol (a refused credential, a limit), as the transport answers its own. */
const SERVER_ERROR = -32000;

export interface CreatorMcpDeps {
  config: Pick<Config, 'publicBaseUrl' | 'authorizationServers' | 'jwt' | 'channelSites'> & { mcp: Pick<Config['mcp'], 'allowedOrigins'> };
  /** Tool calls search by the caller's credential, in the members' share of the gate. */
  search: SearchService;
  /** The failed-key-lookup guard REST's keys go through: the same budget per IP. */
  guard: KeyLookupGuard;
  /** The per-credential limiter (REST's buckets: a key's MCP calls and REST calls count together). */
  limiter: RequestHandler;
  /** The app's token verifier (external issuer and the service's own); asked here for the audience `BASE/mcp`. */
  verifier: TokenVerifier;
  /** Records a key's last use after the response (src/auth/key-usage.ts), as REST does. */
  keyUsed?: ((keyHash: string) => void) | undefined;
  metrics?: ApiMetrics | undefined;
}

/**
 * Every error of `POST /mcp` as a JSON-RPC error with the API's status and headers; `data` carries the API's stable
 * `code` and the request id. A 401 carries the challenge naming this server's metadata and scope (`error="invalid_token"`
 * when a credential was presented, amendment A2); a 403 `insufficient_scope` its scope challenge.
 */
function renderRpcErrors(publicBaseUrl: string): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = logFailure(req.log, err, 'creator MCP request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    if (error.status === 401) res.setHeader('WWW-Authenticate', creatorBearerChallenge(publicBaseUrl, { credentialPresented: credentialPresented(req.headers) }));
    else if (error.code === 'insufficient_scope') res.setHeader('WWW-Authenticate', creatorScopeChallenge(publicBaseUrl));
    res.status(error.status).json({ jsonrpc: '2.0', error: { code: SERVER_ERROR, message: error.message, data: { code: error.code, requestId: req.requestId } }, id: null });
  };
}

/**
 * `/mcp` and `/.well-known/oauth-protected-resource/mcp` on the API host (the host of `PUBLIC_BASE_URL`; the `Host`
 * header only, as for channel hosts); every other host and path goes on, so a channel host keeps its anonymous `/mcp`.
 * A POST: CORS and Origin, the credential (an API key, or an access token whose audience is `BASE/mcp`) with REST's
 * key-lookup guard, REST's per-credential limiter, then the refusal (401/403/429) or one MCP request on a fresh server.
 */
export function creatorMcpRouter(deps: CreatorMcpDeps): Router {
  const { config } = deps;
  const apiHost = new URL(config.publicBaseUrl).hostname.toLowerCase();
  const metadata = creatorResourceMetadata(config);
  const verifier = creatorTokenVerifier(deps.verifier, config.publicBaseUrl);
  const router = Router({ caseSensitive: true, strict: false });

  router.use((req, _res, next) => (requestHost(req.headers) === apiHost ? next() : next('router')));

  router.all(CREATOR_METADATA_PATH, metadataCors(), (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw createError('method_not_allowed', { headers: { Allow: 'GET, HEAD, OPTIONS' } });
    res.json(metadata);
  });

  const postOnly: RequestHandler = (req, _res, next) => {
    // Stateless: no SSE stream to open (GET) and no session to end (DELETE).
    if (req.method !== 'POST') {
      throw createError('method_not_allowed', {
        headers: { Allow: 'POST, OPTIONS' },
        message: 'This MCP endpoint takes POST only (stateless Streamable HTTP: no SSE stream, no session).',
      });
    }
    next();
  };
  const checkGuard: RequestHandler = async (req, res, next) => {
    await deps.guard.check(req, res);
    next();
  };
  const requireCreator: RequestHandler = (req, _res, next) => {
    if (req.refusal !== undefined) throw req.refusal;
    if (!req.principal || req.principal.kind === 'anonymous') throw createError('credential_missing');
    next();
  };
  const serve: RequestHandler = async (req, res, next) => {
    // MCP 2025-06-18 removed JSON-RPC batching: one request is one call.
    if (Array.isArray(req.body))
      return jsonRpcError(res, 400, -32600, 'Invalid Request: JSON-RPC batches are not accepted (MCP 2025-06-18 removed batching); send one message per request.');
    await answerOnce(createCreatorServer(req, { search: deps.search, channelSites: config.channelSites, metrics: deps.metrics }), req, res, next);
  };

  router.all(
    CREATOR_MCP_PATH,
    creatorCors({ publicBaseUrl: config.publicBaseUrl, allowedOrigins: config.mcp.allowedOrigins }),
    postOnly,
    checkGuard,
    authenticate({ verifier, guard: deps.guard, appliesTo: () => true, keyUsed: deps.keyUsed }),
    deps.limiter,
    requireCreator,
    ...readBody(),
    serve,
    bodyErrors,
    renderRpcErrors(config.publicBaseUrl),
  );
  return router;
}
