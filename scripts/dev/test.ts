// `npm test`: provisions OpenSearch, Redis, the transcription service and the model, type-checks, lints, then runs every suite.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { x } from 'tinyexec';
import { createLogger } from '../../core/ground/logger.js';
import { ensureChromium } from '../ops/provision/chromium.js';
import { ensureLlm } from '../ops/provision/llm.js';
import { ensureModel, modelDirFor } from '../ops/provision/model.js';
import { CACHE_DIR, PROJECT_ROOT } from '../ops/provision/paths.js';
import { ensureTools } from '../ops/provision/debian-tools.js';
import { servicesDown, servicesStatus, servicesUp } from '../ops/provision/services.js';
import { stopTranscriber } from '../ops/provision/transcriber.js';
import { lint } from './lint.js';
import { PROVISIONED_ENV } from '../../test/support/skip.js';

const program = new Command()
  .name('test')
  .description('Provision the local services and the model, type-check, lint, and run the test suites.')
  .option('--unit', 'unit suites only (no services)')
  .option('--keep', 'leave services started by this run running afterwards')
  .option('--grep <pattern>', 'only tests whose title matches')
  .argument('[files...]', 'test files (default: every suite)')
  .parse();

const opts = program.opts<{ unit?: boolean; keep?: boolean; grep?: string }>();
const log = createLogger({ name: 'test', fd: 2 });

/** Runs a command with our terminal; resolves with its exit code (1 when a signal ended it). */
async function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { exitCode } = await x(cmd, args, { nodeOptions: { cwd: PROJECT_ROOT, env, stdio: 'inherit' }, nodePath: false });
  return exitCode ?? 1;
}

async function main(): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  let startedHere = false;
  let startedTranscriber = false;
  if (!opts.unit) {
    const before = await servicesStatus();
    // The model first: the transcription service also serves it on /v1/embeddings (the remote embedder's tests).
    env.MODEL_DIR = env.MODEL_DIR || (await ensureModel({ cacheDir: CACHE_DIR, log }));
    // A second model of the same dimension beside it, which a suite switches embedders to; a MODEL_DIR of one's own is left alone.
    if (env.MODEL_DIR === modelDirFor(CACHE_DIR)) await ensureModel({ cacheDir: CACHE_DIR, log, model: 'all-minilm-l6-v2' });
    const services = await servicesUp({ log, transcriber: true });
    startedHere = !before.opensearch.running || !before.redis.running;
    startedTranscriber = before.transcriber?.running === false;
    env.OPENSEARCH_URL = services.opensearchUrl;
    env.REDIS_URL = services.redisUrl;
    env.TRANSCRIBE_URL = services.transcribeUrl;
    // The transcription suites speak real sentences (espeak-ng) and cut audio (ffmpeg).
    await ensureTools({ env, log, tools: ['espeak-ng', 'ffmpeg', 'ffprobe'] });
    env.CHROMIUM_PATH = await ensureChromium({ env, log });
    // The language-model suite's chat server (enrich-llm): node-llama-cpp and SmolLM2-135M under .cache/llm, ~180 MB and ~25 s cold.
    const llm = await ensureLlm({ env, log });
    env.LLM_RUNTIME_DIR = llm.runtimeDir;
    env.LLM_MODEL_PATH = llm.modelPath;
    // Outside the clone, so a fresh clone on the same machine does not re-embed the test libraries.
    env.EMBED_CACHE_DIR = env.EMBED_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'creator-content-api', 'embeddings');
    // Everything above is provisioned: a suite that finds a service or model missing fails instead of skipping (test/support/skip.ts).
    env[PROVISIONED_ENV] = '1';
  }
  try {
    log.info({ node: process.version }, 'type-checking');
    const tsc = await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit'], env);
    if (tsc !== 0) {
      log.error('type check failed');
      return tsc;
    }
    log.info('linting');
    const lintExit = lint();
    if (lintExit !== 0) {
      log.error('lint failed (npm run lint)');
      return lintExit;
    }
    const files = program.args.length > 0 ? program.args : opts.unit ? ['test/unit/**/*.test.ts'] : ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'];
    const mochaArgs = ['node_modules/mocha/bin/mocha.js', '--reporter', 'test/support/summary-reporter.cjs', ...files];
    if (opts.grep) mochaArgs.push('--grep', opts.grep);
    return await run(process.execPath, mochaArgs, env);
  } finally {
    if (startedHere && !opts.keep) await servicesDown({ log });
    else if (startedTranscriber && !opts.keep) await stopTranscriber({ log });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log.error({ err }, 'test run failed');
    process.stderr.write(`test: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
