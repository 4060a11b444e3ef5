// `npm run demo`: provisions OpenSearch, Redis and the model, loads the sample library,
// creates a key for a member, prints a ready curl line, and serves the API. Ctrl-C stops the
// API and the services the demo started (`--keep` leaves them running); see demo-exit.ts.
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcess } from 'node:child_process';
import { Command } from 'commander';
import { channelOrigin } from '../../src/channel-urls.js';
import { loadConfig } from '../../src/config.js';
import { createEmbedder } from '../../src/embedder.js';
import { createLogger } from '../../src/logger.js';
import { createApiKey } from '../../src/auth/key-store.js';
import { createOpenSearchClient, indexAliases } from '../../src/store/opensearch.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { ensureModel } from './provision/model.js';
import { CACHE_DIR, PROJECT_ROOT } from './provision/paths.js';
import { servicesDown, servicesStatus, servicesUp } from './provision/services.js';
import { planDemoExit, type DemoExitPlan } from './demo-exit.js';

const SAMPLE_LIBRARY = fileURLToPath(new URL('../../sample-library/', import.meta.url));
const DEMO_USER = 'u_member';

const opts = new Command()
  .name('demo')
  .description('Provision the services and the model, load sample-library/, print a key and serve the API until Ctrl-C.')
  .option('--keep', 'leave OpenSearch and Redis running when the demo ends, even if it started them')
  .parse()
  .opts<{ keep?: boolean }>();

const log = createLogger({ name: 'demo', fd: 2 });

let plan: DemoExitPlan | undefined;
let server: ChildProcess | undefined;
let ending: Promise<void> | undefined;

/** Ends the demo once, whatever asked first (Ctrl-C, SIGTERM, the API exiting, an error): the API, then the services. */
function end(code: number): Promise<void> {
  ending ??= (async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    if (plan) {
      for (const line of plan.lines) process.stdout.write(`demo: ${line}\n`);
      if (plan.stop) await servicesDown({ log });
    }
    process.exit(code);
  })();
  return ending;
}

async function main(): Promise<void> {
  // Taken before `up`, so that the demo knows which services are its own to stop.
  plan = planDemoExit(await servicesStatus(), { keep: opts.keep });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void end(0));
  const urls = await servicesUp({ log });
  const modelDir = process.env.MODEL_DIR || (await ensureModel({ cacheDir: CACHE_DIR, log }));
  // Channel pages at http://<slug>.localhost:<port>/ (browsers and curl send *.localhost to loopback by themselves),
  // and the API's episode URLs and citations say so: a citation from the demo opens its moment.
  // The sample channel's custom domain is not this machine: custom domains are off.
  const sites = { CHANNEL_BASE_DOMAIN: 'localhost', CHANNEL_CUSTOM_DOMAINS: 'off', CHANNEL_URL_SCHEME: 'http', CHANNEL_URL_PORT: String(loadConfig(process.env).port) };
  const env = { ...sites, ...process.env, OPENSEARCH_URL: urls.opensearchUrl, REDIS_URL: urls.redisUrl, MODEL_DIR: modelDir };
  const config = loadConfig(env);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 60_000 });
  const embedder = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize, log });

  log.info({ dir: SAMPLE_LIBRARY, prefix: config.indexPrefix }, 'loading the sample library');
  const summary = await loadLibrary({ client, embedder, prefix: config.indexPrefix, dir: SAMPLE_LIBRARY, log, layout: config.indexLayout });
  log.info({ summary }, 'sample library loaded');

  const { key } = await createApiKey({ client, aliases: indexAliases(config.indexPrefix) }, { userId: DEMO_USER, name: 'demo' });
  await client.close();

  const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  const site = channelOrigin({ slug: 'long-field' }, config.channelSites);
  process.stdout.write(
    [
      '',
      `API key for ${DEMO_USER} (shown once): ${key}`,
      'Try:',
      `  curl -s -H "x-api-key: ${key}" ${base}/api/v1/channels`,
      `  curl -s -H "x-api-key: ${key}" "${base}/api/v1/channels/long-field/search?query=how+do+farmers+keep+soil+healthy"`,
      'The channel pages (public, published episodes; open them in a browser):',
      `  ${site}/search?q=how+do+farmers+keep+soil+healthy`,
      `  curl -s -H "Host: long-field.${config.channelSites.baseDomain}" "${base}/episodes/ep_lf_003.md"   # the Markdown twin`,
      `  curl -s -H "Host: long-field.${config.channelSites.baseDomain}" ${base}/llms.txt`,
      '',
    ].join('\n'),
  );

  if (ending) return; // Ctrl-C while loading: no API to start
  // The API itself is the same entry point as `npm start`, with the provisioned URLs.
  server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: PROJECT_ROOT, env, stdio: 'inherit' });
  process.stdout.write('Ctrl-C stops the API' + (plan.stop ? ' and the OpenSearch and Redis this demo started.\n' : '.\n'));
  server.on('exit', (code) => void end(code ?? 1));
}

main().catch((err: unknown) => {
  process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
  void end(1);
});
