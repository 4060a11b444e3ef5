// The API in-process on a loopback port over a loaded prefix, with throw-away API keys: shared by fuzz, bench:load and the drills.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Redis } from 'ioredis';
import { createApp } from '../../src/app.js';
import { jsonClientErrors } from '../../src/http/client-error.js';
import { loadConfig, type Config } from '../../core/config/load.js';
import type { Embedder } from '../../core/embedding/embedder.js';
import { createEmbedderPool, type EmbedderPool } from '../../core/embedding/embedder-pool.js';
import { createLogger, type Logger } from '../../core/ground/logger.js';
import { createApiKey } from '../../src/auth/key-store.js';
import { createOpenSearchClient, indexAliases, type Client } from '../../core/store/opensearch.js';
import { createRedisClient } from '../../core/store/redis.js';
import { serveInChildProcess, type Served } from '../lib/child.js';

/** The qmsum library the test suites load (see test/support/qmsum-fixture.ts). */
export const DEFAULT_PREFIX = 'test-qmsum-';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export interface LocalApi {
  baseUrl: string;
  config: Readonly<Config>;
  client: Client;
  redis: Redis;
  /** Keys created for `userId`, deleted again by `close()`. */
  keys: string[];
  /** Creates one more key (also deleted by `close()`). */
  addKey(userId: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts the app on 127.0.0.1:0 over `prefix` with `env` on top of the process environment
 * (OPENSEARCH_URL, REDIS_URL, MODEL_DIR …). Refuses non-loopback stores: these tools hammer
 * and break what they talk to. Fails with a clear message when the prefix holds no library.
 * `separateProcess`: the server runs as `npm start` does, in a process of its own (with its
 * model workers), so that what the caller does on its own event loop never slows the API's.
 */
export async function startLocalApi({
  prefix = DEFAULT_PREFIX,
  env = {},
  keys = 1,
  userId = 'u_member',
  embedder: withEmbedder = true,
  log = createLogger({ level: 'silent' }),
  separateProcess = false,
}: {
  prefix?: string;
  env?: Record<string, string>;
  keys?: number;
  userId?: string;
  /** In a separate process the server always loads the model as configured. */
  embedder?: boolean | Embedder;
  log?: Logger;
  separateProcess?: boolean;
} = {}): Promise<LocalApi> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', INDEX_PREFIX: prefix, ...env });
  for (const url of [...config.opensearchNodes, config.redisUrl]) {
    const host = new URL(url).hostname;
    if (!LOOPBACK.has(host)) throw new Error(`refusing a non-loopback store (${host}): these tools are for a local stack`);
  }
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: config.opensearchTimeoutMs });
  // Keys and checks go through their own client: `refresh: wait_for` can outlast the API's request budget.
  const admin = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
  const aliases = indexAliases(config.indexPrefix);
  const count = await admin
    .count({ index: aliases.episodes })
    .then((r) => Number(r.body.count))
    .catch(() => 0);
  if (count === 0) {
    await Promise.all([client.close(), admin.close()]);
    throw new Error(`prefix "${prefix}" holds no episodes: load a library first (npm test loads qmsum into ${DEFAULT_PREFIX})`);
  }
  const redis = createRedisClient(config.redisUrl, { log });
  await new Promise<void>((resolve) => {
    if (redis.status === 'ready') return resolve();
    redis.once('ready', () => resolve());
    setTimeout(resolve, 3000).unref();
  });
  const served = separateProcess ? await serveInChildProcess({ ...env, INDEX_PREFIX: prefix }) : await serveInProcess({ config, client, redis, withEmbedder, log });
  const { baseUrl } = served;
  const hashes: string[] = [];
  const addKey = async (user: string) => {
    const { key, record } = await createApiKey({ client: admin, aliases }, { userId: user, name: 'reliability (throw-away)' });
    hashes.push(record.hash);
    return key;
  };
  const created: string[] = [];
  for (let i = 0; i < keys; i++) created.push(await addKey(userId));

  return {
    baseUrl,
    config,
    client,
    redis,
    keys: created,
    addKey,
    async close() {
      await served.stop();
      await Promise.allSettled(hashes.map((id) => admin.delete({ index: aliases['api-keys'], id, refresh: true } as never)));
      redis.disconnect();
      await Promise.all([client.close(), admin.close()]);
    },
  };
}

async function serveInProcess({
  config,
  client,
  redis,
  withEmbedder,
  log,
}: {
  config: Readonly<Config>;
  client: Client;
  redis: Redis;
  withEmbedder: boolean | Embedder;
  log: Logger;
}): Promise<Served> {
  // `true`: the model in worker processes, as the production server runs it.
  const pool: EmbedderPool | undefined =
    withEmbedder === true
      ? await createEmbedderPool({
          modelId: config.modelId,
          modelDir: config.modelDir,
          workers: config.queryEmbedding.workers,
          maxQueue: config.queryEmbedding.maxQueue,
          queryTimeoutMs: config.queryEmbedding.timeoutMs,
          maxQueryTokens: config.queryEmbedding.maxTokens,
          nice: config.queryEmbedding.nice,
        })
      : undefined;
  const embedder = typeof withEmbedder === 'object' ? withEmbedder : pool;
  const app = createApp({ config, client, redis, embedder, log });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  jsonClientErrors(server, { log });
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool?.close();
    },
  };
}
