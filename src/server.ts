// Entry point: real dependencies, listen, and a graceful shutdown that lets in-flight requests finish.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { createOpenSearchClient } from './store/opensearch.js';
import { createRedisClient } from './store/redis.js';
import { createEmbedderPool, type EmbedderPool } from './embedder-pool.js';
import { createApp, createSearchCaches } from './app.js';
import { shutdown } from './http/shutdown.js';
import { httpServerOptions, jsonClientErrors } from './http/client-error.js';
import { createApiMetrics } from './metrics/api-metrics.js';
import { startMetricsListener } from './metrics/listener.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger({ level: config.logLevel });
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: config.opensearchTimeoutMs });
  const redis = createRedisClient(config.redisUrl, { log });
  let embedder: EmbedderPool | undefined;
  try {
    // Query embedding runs in worker processes: the model never holds up /healthz, lists or transcripts.
    const { workers, maxQueue, maxTokens, timeoutMs, nice } = config.queryEmbedding;
    embedder = await createEmbedderPool({
      modelId: config.modelId,
      modelDir: config.modelDir,
      workers,
      maxQueue,
      queryTimeoutMs: timeoutMs,
      maxQueryTokens: maxTokens,
      nice,
      log,
    });
  } catch (error) {
    // Search still answers, keyword-only; the log says why.
    log.error({ err: error }, 'embedding model unavailable: search runs keyword-only');
  }
  // Give Redis a moment so the first requests are rate limited; without it the API starts anyway (fail open).
  await Promise.race([once(redis, 'ready'), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  // The process's search caches, read by the metrics and used by the app.
  const caches = createSearchCaches(config);
  // `/metrics` on its own port (METRICS_PORT), never the public one.
  const metrics =
    config.metrics.apiPort === undefined
      ? undefined
      : createApiMetrics({
          queryCache: embedder && caches.query,
          hydrationCache: caches.hydration,
          embedQueue: embedder,
        });
  const metricsListener = metrics && (await startMetricsListener({ registry: metrics.registry, host: config.metrics.host, port: config.metrics.apiPort!, log }));
  const app = createApp({ config, client, redis, embedder, log, metrics, caches });
  const server = createServer(httpServerOptions(config.http), app);
  server.listen(config.port, config.host, () => {
    log.info({ host: config.host, port: config.port, publicBaseUrl: config.publicBaseUrl }, 'API listening');
  });
  jsonClientErrors(server, { log });
  server.on('error', (error) => {
    log.fatal({ err: error }, 'cannot listen');
    process.exit(1);
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    shutdown(server, {
      log,
      close: async () => {
        await Promise.allSettled([client.close(), redis.quit(), embedder?.close(), metricsListener?.close()]);
      },
    }).then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`server failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
