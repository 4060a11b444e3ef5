// One fuzz run end to end: provision schemathesis, start the API over the qmsum prefix with a key, fuzz, stop.
import type { Embedder } from '../../src/embedder.js';
import { DEFAULT_PREFIX, startLocalApi } from '../drills/local-api.js';
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
  embedder = Boolean(process.env.MODEL_DIR),
  progress = (line) => process.stderr.write(`${line}\n`),
}: FuzzLocalOptions = {}): Promise<FuzzResult> {
  const cli = await ensureSchemathesis({ log: progress });
  const api = await startLocalApi({ prefix, env: { RATE_LIMIT_MAX: '10000000' }, embedder });
  try {
    progress(`fuzz: API on ${api.baseUrl} over prefix ${prefix}; schemathesis, ${maxExamples} examples per operation, ${seconds} s budget`);
    return await runFuzz(cli, { baseUrl: api.baseUrl, apiKey: api.keys[0]!, maxExamples, maxSeconds: seconds, seed, echo });
  } finally {
    await api.close();
  }
}
