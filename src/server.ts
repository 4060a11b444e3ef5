// Entry point: real dependencies, listen, and a graceful shutdown that lets in-flight requests finish.
import { once } from 'node:events';
import { ConfigError, deprecatedNamesIn, loadConfig } from '../core/config/load.js';
import { createLogger } from '../core/ground/logger.js';
import { createOpenSearchClient, indexAliases } from '../core/store/opensearch.js';
import { createRedisClient } from '../core/store/redis.js';
import type { EmbedderPool } from '../core/embedding/embedder-pool.js';
import { createQueryEmbedder } from '../core/embedding/configured.js';
import { guardIndexEmbedder, startupMismatch } from '../core/embedding/index-guard.js';
import { createApp, createSearchCaches } from './app.js';
import { shutdown } from './http/shutdown.js';
import { createApiServer } from './http/server.js';
import { createApiMetrics } from './metrics/api-metrics.js';
import { startMetricsListener } from '../core/ground/metrics-listener.js';

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
  for (const { name, use } of deprecatedNamesIn()) log.warn({ variable: name, use }, `${name} is deprecated: set ${use} instead (the old name is read until the next release)`);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: config.opensearchTimeoutMs });
  const redis = createRedisClient(config.redisUrl, { log });
  let embedder: EmbedderPool | undefined;
  try {
    // Query embedding runs in worker processes (EMBEDDER=local) or the remote service: the model never holds up /healthz, lists or transcripts.
    embedder = await createQueryEmbedder(config, { log });
  } catch (error) {
    // Search still answers, keyword-only; the log says why.
    log.error({ err: error }, 'embedding model unavailable: search runs keyword-only');
  }
  if (embedder) {
    // Refuse to start with an embedder the live passages index was not built by; after a reindex swaps one in, keyword-only.
    const refusal = await startupMismatch(client, indexAliases(config.indexPrefix).passages, embedder).catch((error: unknown) => {
      log.warn({ err: error }, 'could not check the passages index embedder at start; searches check it');
      return undefined;
    });
    if (refusal) {
      process.stderr.write(`embedder mismatch: ${refusal}\n`);
      await embedder.close();
      process.exit(2);
    }
    embedder = guardIndexEmbedder(embedder, { client, alias: indexAliases(config.indexPrefix).passages, log });
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
  // Its timeouts and JSON client errors are wired there, shared with the test harness.
  const server = createApiServer({ config, app, log });
  server.listen(config.port, config.host, () => {
    log.info({ host: config.host, port: config.port, publicBaseUrl: config.publicBaseUrl }, 'API listening');
  });
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
