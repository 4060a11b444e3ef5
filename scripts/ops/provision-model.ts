// Fetches an embedding model once (bge-small unless `--model` names another) and prints `MODEL_DIR=<dir>` on stdout (logs go to stderr).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { loadConfig } from '../../core/config/load.js';
import { createLogger } from '../../core/ground/logger.js';
import { ensureModel, MODELS, type ModelName } from './provision/model.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { model } = new Command()
  .name('provision-model')
  .description('Put an embedding model under .cache/models/<hub id>/ from Maven Central and print MODEL_DIR.')
  .addOption(new Option('--model <name>', 'which model').choices(Object.keys(MODELS)).default('bge-small-en-v1.5'))
  .parse()
  .opts<{ model: ModelName }>();
const log = createLogger({ name: 'provision-model', level: loadConfig(process.env).logLevel, fd: 2 });

try {
  const modelDir = await ensureModel({ cacheDir: path.join(root, '.cache'), log, model });
  process.stdout.write(`MODEL_DIR=${modelDir}\nMODEL_ID=${MODELS[model].hubId}\n`);
} catch (err) {
  log.error((err as Error).message);
  process.exitCode = 1;
}
