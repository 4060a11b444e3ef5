// The API's HTTP server: the one place its timeouts and the JSON answers to what Node refuses before Express are wired.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Config } from '../../core/config/load.js';
import type { Logger } from '../../core/ground/logger.js';
import { httpServerOptions, jsonClientErrors } from './client-error.js';

/**
 * An HTTP server (not yet listening) for `app`, with the header and request timeouts of
 * `config.http` set explicitly and every client error answered with the JSON error body.
 * The entry point (src/server.ts) and the test harness both build their server here, so
 * the tests exercise the wiring that runs in production rather than a copy of it.
 */
export function createApiServer({ config, app, log }: { config: Pick<Config, 'http'>; app: RequestListener; log?: Logger }): Server {
  const server = createServer(httpServerOptions(config.http), app);
  jsonClientErrors(server, { log });
  return server;
}
