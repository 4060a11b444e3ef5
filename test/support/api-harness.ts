// Runs the API in-process on port 0 against the real OpenSearch and Redis, on the entry point's own server; every response is checked against the served OpenAPI document and for nosniff.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Redis } from 'ioredis';
import { loadConfig, type Config } from '../../core/config/load.js';
import { createApp, type AppDeps } from '../../src/app.js';
import { createApiServer } from '../../src/http/server.js';
import { createLogger } from '../../core/ground/logger.js';
import { createOpenSearchClient, type Client } from '../../core/store/opensearch.js';
import { createRedisClient } from '../../core/store/redis.js';
import type { Embedder } from '../../core/embedding/embedder.js';
import type { ApiMetrics } from '../../src/metrics/api-metrics.js';
import { createOpenApiValidator, type OpenApiValidator } from './openapi-validator.js';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON body (undefined for HEAD and 204); `any` so that tests read answers of every shape without a cast each. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** Milliseconds from sending to the full body. */
  ms: number;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Skip the OpenAPI check (only for responses the document cannot describe, e.g. a raw OPTIONS probe); `nosniff` is checked all the same. */
  unchecked?: boolean;
}

export interface ApiHarness {
  baseUrl: string;
  config: Readonly<Config>;
  client: Client;
  redis: Redis;
  validator: OpenApiValidator;
  request(path: string, options?: RequestOptions): Promise<ApiResponse>;
  close(): Promise<void>;
}

/** One HTTP request with node:http, so the path is sent byte for byte and `Host` can be set. */
export function rawRequest(baseUrl: string, path: string, { method = 'GET', headers = {} }: RequestOptions = {}): Promise<ApiResponse> {
  const url = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body, ms: Date.now() - started });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Starts an app with `env` over the test environment (OPENSEARCH_URL, REDIS_URL …).
 * Pass `client` to share a connection, or let the harness make (and close) its own.
 */
export async function startApi({
  env = {},
  embedder,
  client: givenClient,
  metrics,
  caches,
  oauth,
  port = 0,
}: {
  env?: Record<string, string | undefined>;
  /** The authorization server's sign-in and document fetch (it runs when `env` names signing keys). */
  oauth?: AppDeps['oauth'];
  /** The port to listen on (default any free one): a suite whose PUBLIC_BASE_URL must be the server's own address picks it first. */
  port?: number;
  embedder?: Embedder;
  client?: Client;
  metrics?: ApiMetrics;
  /** The search caches the app uses (the metrics' own, when they watch them); default: fresh ones. */
  caches?: AppDeps['caches'];
} = {}): Promise<ApiHarness> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', ...env });
  const log = createLogger({ level: config.logLevel });
  const client = givenClient ?? createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: config.opensearchTimeoutMs });
  const redis = createRedisClient(config.redisUrl, { log });
  await new Promise<void>((resolve) => {
    if (redis.status === 'ready') return resolve();
    redis.once('ready', () => resolve());
    setTimeout(resolve, 3000).unref();
  });
  let app: ReturnType<typeof createApp>;
  try {
    app = createApp({ config, client, redis, embedder, log, metrics, caches, oauth });
  } catch (error) {
    // A start refused (a keys file that cannot be used): the connections made for it go too.
    redis.disconnect();
    if (!givenClient) await client.close();
    throw error;
  }
  // The entry point's own server: its timeouts (HTTP_*_TIMEOUT_MS in `env`) and JSON client errors, not a copy.
  const server: Server = createApiServer({ config, app, log });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    redis.disconnect();
    if (!givenClient) await client.close();
  };
  // The document this very server serves is the one its responses are checked against.
  const docResponse = await rawRequest(baseUrl, '/api/v1/openapi.json');
  if (docResponse.status !== 200) {
    await close();
    throw new Error(`GET /api/v1/openapi.json answered ${docResponse.status}: ${docResponse.text.slice(0, 200)}`);
  }
  const validator = createOpenApiValidator(docResponse.body);

  return {
    baseUrl,
    config,
    client,
    redis,
    validator,
    async request(path, options = {}) {
      const res = await rawRequest(baseUrl, path, options);
      // Every response, whatever its status or path, and those the document cannot describe too (docs/api.md).
      if (res.headers['x-content-type-options'] !== 'nosniff') {
        throw new Error(`${options.method ?? 'GET'} ${path} answered ${res.status} without X-Content-Type-Options: nosniff`);
      }
      if (!options.unchecked) {
        validator.check({ method: options.method ?? 'GET', path, status: res.status, headers: res.headers, text: res.text });
      }
      return res;
    },
    close,
  };
}
