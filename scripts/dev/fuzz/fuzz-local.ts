// One fuzz run end to end: provision schemathesis, start the API over the qmsum prefix with a key, fuzz, stop.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../../../core/config/load.js';
import type { Embedder } from '../../../core/embedding/embedder.js';
import { OPERATIONS } from '../../../src/openapi/operations.js';
import { DEFAULT_PREFIX, startLocalApi } from '../../drills/local-api.js';
import { ensureSchemathesis, runFuzz, type FuzzResult } from './schemathesis.js';

export interface FuzzLocalOptions {
  maxExamples?: number;
  seconds?: number;
  prefix?: string;
  seed?: number;
  echo?: boolean;
  /** An embedder to share (tests), or whether to load the model (default: when MODEL_DIR is set). */
  embedder?: Embedder | boolean;
  progress?: (line: string) => void;
}

/**
 * `npm run fuzz` and the bounded suite in `npm test` both run this. The rate limit is set
 * out of reach (a 429 would hide what the generated request does) and search runs
 * keyword-only when no model is configured; everything else is the production app.
 */
export async function fuzzLocalApi({
  maxExamples = 25,
  seconds = 90,
  prefix = DEFAULT_PREFIX,
  seed,
  echo = false,
  embedder = loadConfig(process.env).modelDir !== undefined,
  progress = (line) => process.stderr.write(`${line}\n`),
}: FuzzLocalOptions = {}): Promise<FuzzResult & { statuses: Record<string, Record<string, number>> }> {
  const cli = await ensureSchemathesis({ log: progress });
  // The API's own request log, counted by operation and status: shows which operations the run reached with real ids (200s).
  const statuses: Record<string, Record<string, number>> = {};
  const routes = OPERATIONS.map((op) => ({ id: op.operationId, regex: new RegExp(`^${op.path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`) }));
  const counter = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        const { msg, path, status } = JSON.parse(line) as { msg?: string; path?: string; status?: number };
        if (msg !== 'request' || path === undefined) continue;
        const id = routes.find((r) => r.regex.test(path))?.id ?? 'unrouted';
        (statuses[id] ??= {})[String(status)] = (statuses[id]![String(status)] ?? 0) + 1;
      }
      done();
    },
  });
  const api = await startLocalApi({ prefix, env: { RATE_LIMIT_MAX: '10000000' }, embedder, log: pino({ level: 'info' }, counter) });
  try {
    progress(`fuzz: API on ${api.baseUrl} over prefix ${prefix}; schemathesis, ${maxExamples} examples per operation, ${seconds} s budget`);
    const result = await runFuzz(cli, { baseUrl: api.baseUrl, apiKey: api.keys[0]!, maxExamples, maxSeconds: seconds, seed, echo });
    return { ...result, statuses };
  } finally {
    await api.close();
  }
}
