// `npm run demo`: provisions OpenSearch, Redis and the model, loads the sample library,
// creates a key for a member, prints a ready curl line, and serves the API.
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { loadConfig } from '../src/config.js';
import { createEmbedder } from '../src/embedder.js';
import { createLogger } from '../src/logger.js';
import { createApiKey } from '../src/store/api-keys.js';
import { createOpenSearchClient, indexAliases } from '../src/store/opensearch.js';
import { loadLibrary } from '../indexer/load-library.js';
import { ensureModel } from './provision/model.js';
import { CACHE_DIR, PROJECT_ROOT } from './provision/paths.js';
import { servicesUp } from './provision/services.js';

const SAMPLE_LIBRARY = fileURLToPath(new URL('../sample-library/', import.meta.url));
const DEMO_USER = 'u_member';

const log = createLogger({ name: 'demo', fd: 2 });

async function main(): Promise<void> {
  const urls = await servicesUp({ log });
  const modelDir = process.env.MODEL_DIR || (await ensureModel({ cacheDir: CACHE_DIR, log }));
  const env = { ...process.env, OPENSEARCH_URL: urls.opensearchUrl, REDIS_URL: urls.redisUrl, MODEL_DIR: modelDir };
  const config = loadConfig(env);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 60_000 });
  const embedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize, log });

  log.info({ dir: SAMPLE_LIBRARY, prefix: config.indexPrefix }, 'loading the sample library');
  const summary = await loadLibrary({ client, embedder, prefix: config.indexPrefix, dir: SAMPLE_LIBRARY, log, layout: config.indexLayout });
  log.info({ summary }, 'sample library loaded');

  const { key } = await createApiKey({ client, aliases: indexAliases(config.indexPrefix) }, { userId: DEMO_USER, name: 'demo' });
  await client.close();

  const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  process.stdout.write(
    [
      '',
      `API key for ${DEMO_USER} (shown once): ${key}`,
      'Try:',
      `  curl -s -H "x-api-key: ${key}" ${base}/api/v1/channels`,
      `  curl -s -H "x-api-key: ${key}" "${base}/api/v1/channels/long-field/search?query=how+do+farmers+keep+soil+healthy"`,
      '',
    ].join('\n'),
  );

  // The API itself is the same entry point as `npm start`, with the provisioned URLs.
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: PROJECT_ROOT, env, stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => server.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  server.on('exit', (code) => process.exit(code ?? 0));
}

main().catch((err: unknown) => {
  process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
