// Fetches the embedding model once and prints `MODEL_DIR=<dir>` on stdout (logs go to stderr).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/ground/logger.js';
import { ensureModel } from './provision/model.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const log = createLogger({ name: 'provision-model', level: loadConfig(process.env).logLevel, fd: 2 });

try {
  const modelDir = await ensureModel({ cacheDir: path.join(root, '.cache'), log });
  process.stdout.write(`MODEL_DIR=${modelDir}\n`);
} catch (err) {
  log.error((err as Error).message);
  process.exitCode = 1;
}
