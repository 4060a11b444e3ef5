// `npm run demo`: provisions OpenSearch, Redis and the model, creates the indices, and serves the API's health endpoint.
import { createServer } from 'node:http';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createOpenSearchClient, ensureIndices } from '../src/store/opensearch.js';
import { ensureModel } from './provision/model.js';
import { CACHE_DIR } from './provision/paths.js';
import { servicesUp } from './provision/services.js';

const log = createLogger({ name: 'demo', fd: 2 });

async function main(): Promise<void> {
  const urls = await servicesUp({ log });
  const modelDir = process.env.MODEL_DIR || (await ensureModel({ cacheDir: CACHE_DIR, log }));
  const config = loadConfig({ ...process.env, OPENSEARCH_URL: urls.opensearchUrl, REDIS_URL: urls.redisUrl, MODEL_DIR: modelDir });
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
  await ensureIndices(client, { prefix: config.indexPrefix, modelId: config.modelId });
  const server = createServer((req, res) => {
    const ok = req.url === '/healthz';
    res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { status: 'ok' } : { error: 'Not found.', code: 'not_found' }));
  });
  server.listen(config.port, config.host, () => {
    process.stdout.write(`API health endpoint: curl http://${config.host}:${config.port}/healthz\n`);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
