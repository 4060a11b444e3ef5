// `npm run demo`: provisions OpenSearch, Redis, the transcription service and the model, loads the sample
// library, creates a key for a member, prints ready curl lines and serves the API; then follows a small spoken feed
// of its own (demo-feed.ts, demo-follow.ts) and prints each episode's status until all are live. Ctrl-C stops the
// API, the pipeline and the services the demo started (`--keep` leaves them running); see demo-exit.ts.
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcess } from 'node:child_process';
import { Command } from 'commander';
import { channelOrigin } from '../../core/ground/channel-urls.js';
import { loadConfig } from '../../core/config/load.js';
import path from 'node:path';
import type { Embedder } from '../../core/embedding/embedder.js';
import { Redis } from 'ioredis';
import { createApiKey } from '../../src/auth/key-store.js';
import { accountStore, inviteAccount, passwordLink } from '../../src/console/identity.js';
import { identityDeps } from '../../src/console/router.js';
import { getAccount } from '../../core/store/accounts.js';
import { createOpenSearchClient, ensureIndices, indexAliases, type Client } from '../../core/store/opensearch.js';
import { createIndexerEmbedder } from '../../core/embedding/indexer-embedder.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { ensureTools } from './provision/debian-tools.js';
import { ensureModel } from './provision/model.js';
import { CACHE_DIR, PROJECT_ROOT } from './provision/paths.js';
import { servicesDown, servicesStatus, servicesUp, type ServiceStatus } from './provision/services.js';
import { stopTranscriber } from './provision/transcriber.js';
import { planDemoExit, type DemoExitPlan } from './demo-exit.js';
import { ensureDemoAudio, readDemoFeed, startDemoFeed } from './demo-feed.js';
import { followDemoChannel, watchEpisodes, type DemoChannel } from './demo-follow.js';
import { apiLogFd, apiLogTail, demoLogDir, demoLogger } from './demo-logs.js';
import { ensureDemoSecretsKey } from './demo-secrets.js';

const SAMPLE_LIBRARY = fileURLToPath(new URL('../../sample-library/', import.meta.url));
const DEMO_USER = 'u_member';
/** The demo's followed channel (its owner: DEMO_USER, on the paid plan). */
const SPOKEN_SLUG = 'spoken-demo';

const opts = new Command()
  .name('demo')
  .description(
    'Provision the services, the transcriber and the model, load sample-library/, print a key and serve the API;\n' +
      'follow a spoken feed of its own (sample-feed/) and show its episodes go queued → indexing → live; until Ctrl-C.',
  )
  .option('--keep', 'leave OpenSearch, Redis and the transcription service running when the demo ends, even if it started them')
  .parse()
  .opts<{ keep?: boolean }>();

/** The demo's structured logs, its pipeline's and the API's go to files here; the terminal gets warnings and errors. */
const LOG_DIR = demoLogDir(CACHE_DIR);
const log = demoLogger(LOG_DIR, { name: 'demo' });
/** A folder as the terminal shows it: relative to the project when inside it. */
const shownDir = (dir: string): string => (dir.startsWith(PROJECT_ROOT) ? path.relative(PROJECT_ROOT, dir) || '.' : dir);

let plan: DemoExitPlan | undefined;
let server: ChildProcess | undefined;
let channel: DemoChannel | undefined;
let client: Client | undefined;
/** The transcription service before the demo provisioned it. */
let transcriberBefore: ServiceStatus | undefined;
let ending: Promise<void> | undefined;

/**
 * What happens to the transcription service when the demo ends, and the line that says so. `servicesDown` (run when
 * the plan stops OpenSearch and Redis) stops it too; otherwise the demo stops it alone when it started it.
 */
function planTranscriberExit(before: ServiceStatus | undefined, exit: DemoExitPlan, { keep = false }: { keep?: boolean } = {}): { stop: boolean; line: string } {
  const DOWN = '`npm run services -- down` stops it';
  if (!before) return { stop: false, line: 'The transcription service was not started.' };
  if (before.source === 'external') return { stop: false, line: "The transcription service comes from TRANSCRIBE_URL: not the demo's to stop." };
  if (before.running) return { stop: false, line: `The transcription service was running before the demo and keeps running; ${DOWN}.` };
  if (keep) return { stop: false, line: `The transcription service was started by the demo and keeps running (--keep); ${DOWN}.` };
  return { stop: !exit.stop, line: 'The transcription service was started by the demo: stopping it.' };
}

/** Ends the demo once, whatever asked first (Ctrl-C, SIGTERM, the API exiting, an error): the pipeline, the API, then the services. */
function end(code: number): Promise<void> {
  ending ??= (async () => {
    await channel?.close().catch((err: unknown) => log.warn({ err }, 'the demo pipeline did not close cleanly'));
    await client?.close().catch(() => undefined);
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    if (plan) {
      const transcriber = planTranscriberExit(transcriberBefore, plan, { keep: opts.keep });
      for (const line of [...plan.lines, transcriber.line]) process.stdout.write(`demo: ${line}\n`);
      if (plan.stop) await servicesDown({ log });
      else if (transcriber.stop) await stopTranscriber({ log });
    }
    process.exit(code);
  })();
  return ending;
}

async function main(): Promise<void> {
  // Taken before `up`, so that the demo knows which services are its own to stop.
  const before = await servicesStatus();
  plan = planDemoExit(before, { keep: opts.keep });
  transcriberBefore = before.transcriber;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void end(0));
  process.stdout.write(
    `Starting the services and loading the sample library (a few minutes the first time). Logs: ${shownDir(LOG_DIR)}/demo.log (the demo, its services and pipeline) and api.log (the API's requests); warnings and errors show here too.\n`,
  );
  const urls = await servicesUp({ log, transcriber: true });
  // espeak-ng speaks the demo feed; ffmpeg makes its MP3s and the transcription client probes them.
  await ensureTools({ env: process.env, log, tools: ['espeak-ng', 'ffmpeg', 'ffprobe'] });
  // EMBEDDER=openai embeds on its service (EMBEDDINGS_URL): no model to provision.
  const remote = loadConfig(process.env).embedding.kind === 'openai';
  const modelDir = process.env.MODEL_DIR || (remote ? '' : await ensureModel({ cacheDir: CACHE_DIR, log }));
  // Channel pages at http://<slug>.localhost:<port>/ (browsers and curl send *.localhost to loopback by themselves),
  // and the API's episode URLs and citations say so: a citation from the demo opens its moment.
  // The sample channel's custom domain is not this machine: custom domains are off.
  const sites = { CHANNEL_BASE_DOMAIN: 'localhost', CHANNEL_CUSTOM_DOMAINS: 'off', CHANNEL_URL_SCHEME: 'http', CHANNEL_URL_PORT: String(loadConfig(process.env).port) };
  const env = { ...sites, ...process.env, OPENSEARCH_URL: urls.opensearchUrl, REDIS_URL: urls.redisUrl, MODEL_DIR: modelDir, TRANSCRIBE_URL: urls.transcribeUrl ?? '' };
  // The key that seals webhook secrets, for the shells that run `npm run webhooks` and the worker (never the API): the
  // operator's SECRETS_KEY, else the demo's own, made once under .cache/.
  const secrets = process.env.SECRETS_KEY ? undefined : await ensureDemoSecretsKey(CACHE_DIR);
  const config = loadConfig(env);
  client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 60_000 });
  const embedder = await createIndexerEmbedder(config, { log });

  log.info({ dir: SAMPLE_LIBRARY, prefix: config.indexPrefix }, 'loading the sample library');
  const summary = await loadLibrary({
    client,
    embedder,
    prefix: config.indexPrefix,
    dir: SAMPLE_LIBRARY,
    log,
    layout: config.indexLayout,
    changeRetentionDays: config.changes.retentionDays,
  });
  log.info({ summary }, 'sample library loaded');

  const { key } = await createApiKey({ client, aliases: indexAliases(config.indexPrefix) }, { userId: DEMO_USER, name: 'demo' });
  const signIn = await consoleLink(config);

  const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  const site = channelOrigin({ slug: 'long-field' }, config.channelSites);
  process.stdout.write(
    [
      '',
      `API key for ${DEMO_USER} (shown once): ${key}`,
      `Console sign-in for ${DEMO_USER} (a one-time link; it sets a password): ${signIn}`,
      'Try:',
      `  curl -s -H "x-api-key: ${key}" ${base}/api/v1/channels`,
      `  curl -s -H "x-api-key: ${key}" "${base}/api/v1/channels/long-field/search?query=how+do+farmers+keep+soil+healthy"`,
      'The channel pages (public, published episodes; open them in a browser):',
      `  ${site}/search?q=how+do+farmers+keep+soil+healthy`,
      `  curl -s -H "Host: long-field.${config.channelSites.baseDomain}" "${base}/episodes/ep_lf_003.md"   # the Markdown twin`,
      `  curl -s -H "Host: long-field.${config.channelSites.baseDomain}" ${base}/llms.txt`,
      ...(secrets
        ? [
            `Webhook secrets are sealed with the demo's SECRETS_KEY, ${secrets.made ? 'made now' : 'kept'} in ${path.relative(PROJECT_ROOT, secrets.file)} (mode 0600); in another shell:`,
            `  export SECRETS_KEY="$(cat ${path.relative(PROJECT_ROOT, secrets.file)})"   # then npm run webhooks -- add …, npm run worker`,
          ]
        : []),
      '',
    ].join('\n'),
  );

  if (ending) return; // Ctrl-C while loading: no API to start
  // The API itself is the same entry point as `npm start`, with the provisioned URLs.
  const apiLog = apiLogFd(LOG_DIR);
  server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', apiLog, apiLog] });
  process.stdout.write('Ctrl-C stops the API and the pipeline' + (plan.stop ? ', and the services this demo started.\n' : '.\n'));
  server.on('exit', (code) => {
    // The API's own lines are in its file: when it ends by itself, its last ones say why here.
    if (!ending) process.stderr.write(`demo: the API exited (code ${code ?? 'none'}); the end of ${shownDir(LOG_DIR)}/api.log:\n${apiLogTail(LOG_DIR)}`);
    void end(code ?? 1);
  });
  await followSpokenFeed({ config, env, embedder, base, key });
}

/**
 * A one-time link that sets the demo creator's console password: the account is made the first time (admin, so the
 * admin page shows too), a new link each run after.
 */
async function consoleLink(config: ReturnType<typeof loadConfig>): Promise<string> {
  const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    const deps = identityDeps({ config, client: client!, redis });
    const existing = await getAccount(accountStore(deps), DEMO_USER);
    return (existing ? await passwordLink(deps, DEMO_USER) : await inviteAccount(deps, { userId: DEMO_USER, role: 'admin' })).url;
  } finally {
    redis.disconnect();
  }
}

/**
 * The pipeline where it shows: speaks the demo feed (cached), serves it on loopback, follows it as `spoken-demo`
 * (loopback is allowed for the demo only), runs the workers here, prints each status change seen through the API,
 * then a search for one spoken sentence.
 */
async function followSpokenFeed({
  config,
  env,
  embedder,
  base,
  key,
}: {
  config: ReturnType<typeof loadConfig>;
  env: NodeJS.ProcessEnv;
  embedder: Embedder;
  base: string;
  key: string;
}): Promise<void> {
  const feed = await readDemoFeed();
  const audio = await ensureDemoAudio(feed, { cacheDir: path.join(CACHE_DIR, 'demo-feed'), log });
  const ready = await waitForApi(base);
  if (!ready || ending) return;
  const pipelineConfig = loadConfig({ ...env, OUTBOUND_ALLOW_PRIVATE: 'true' });
  const aliases = await ensureIndices(client!, { prefix: config.indexPrefix, modelId: embedder.modelId, layout: config.indexLayout });
  // The workers log to the demo's file; only their warnings reach the terminal: the status lines are the story here.
  const quiet = demoLogger(LOG_DIR, { name: 'demo-pipeline' });
  const server = await startDemoFeed(feed, audio);
  channel = await followDemoChannel({
    config: pipelineConfig,
    ctx: { client: client!, embedder, aliases, log: quiet },
    feed: server,
    slug: SPOKEN_SLUG,
    ownerId: DEMO_USER,
    log: quiet,
  });
  // Ctrl-C while the channel was being set up: end() found no pipeline to close, so its queues' connections close here.
  if (ending) {
    await channel.close().catch(() => undefined);
    return;
  }
  process.stdout.write(
    [
      '',
      `Following ${server.feedUrl} (${feed.episodes.length} spoken episodes, served by the demo) as the channel ${SPOKEN_SLUG}.`,
      `Its episodes, as ${base}/api/v1/channels/${SPOKEN_SLUG}/episodes lists them (transcribing takes a few seconds each):`,
      '',
    ].join('\n'),
  );
  const print = (line: string) => process.stdout.write(`  ${new Date().toISOString().slice(11, 19)}  ${line}\n`);
  const seen = new Map<string, string>();
  // Every episode queued, before any worker runs (the catalog rows are searchable within the index's refresh second).
  for (let i = 0; seen.size < feed.episodes.length && i < 40; i++) {
    await watchEpisodes({ base, slug: SPOKEN_SLUG, key, print, seen, once: true });
    if (seen.size < feed.episodes.length) await new Promise((r) => setTimeout(r, 250));
  }
  await channel.startWorkers();
  const episodes = await watchEpisodes({ base, slug: SPOKEN_SLUG, key, print, seen });
  const live = episodes.filter((e) => e.status === 'published').length;
  const sentence = feed.episodes[1]?.sentences[1] ?? feed.episodes[0]!.sentences[0]!;
  const query = encodeURIComponent(sentence.replace(/[.,]/g, '').toLowerCase()).replace(/%20/g, '+');
  process.stdout.write(
    [
      '',
      `${live} of ${episodes.length} spoken episodes are live. Search what was said:`,
      `  curl -s -H "x-api-key: ${key}" "${base}/api/v1/channels/${SPOKEN_SLUG}/search?query=${query}"`,
      `  ${channelOrigin({ slug: SPOKEN_SLUG }, config.channelSites)}/search?q=${query}`,
      '',
    ].join('\n'),
  );
}

/** Waits for the API's /healthz (it loads the model first); false if the API exited. */
async function waitForApi(base: string): Promise<boolean> {
  for (;;) {
    if (ending || !server || server.exitCode !== null) return false;
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
}

main().catch((err: unknown) => {
  // Once the demo is ending, what fails is what the ending stopped (the API, the stores): nothing to report.
  if (ending) return;
  process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
  void end(1);
});
