// Where the shared data sets are, and how a suite that needs one is skipped (saying why) on a clone without them, or
// fails there when REQUIRE_DATASETS=1 (CI: the data sets are beside its clone, and a suite that drops out is a failure).
//
//   before(function () {
//     skipWithoutDataset(this, 'qmsum');
//   });
//
// Suites that only need a realistic library read the compact corpus in the repository
// (test/data/qmsum-cut, see qmsum-fixture.ts) and run everywhere.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipBecause } from './skip.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `DATASETS_DIR`, or `../shared/data` beside the repository (where this workplace and its CI keep them). */
export const DATASETS_DIR = resolve(process.env.DATASETS_DIR || join(REPO_ROOT, '..', 'shared', 'data'));

export type DatasetName = 'qmsum' | 'seen-unseen' | 'tutorialvqa';

export function datasetDir(name: DatasetName): string {
  return join(DATASETS_DIR, name);
}

/** Why the data set cannot be read, or undefined when it is there (a library has a `channels.json`). */
export function missingDataset(name: DatasetName): string | undefined {
  const dir = datasetDir(name);
  if (existsSync(join(dir, 'channels.json'))) return undefined;
  return `the ${name} data set is not in ${dir} (put the shared data sets at ../shared/data beside the repository, or set DATASETS_DIR)`;
}

/**
 * In a suite's `before` hook: when the data set is missing, skips every test of the suite (mocha counts them as skipped,
 * and the closing summary says why), or, with `REQUIRE_DATASETS=1` (as `.ci/run` sets it), fails the suite instead.
 */
export function skipWithoutDataset(ctx: Mocha.Context, name: DatasetName): void {
  const reason = missingDataset(name);
  if (!reason) return;
  if (process.env.REQUIRE_DATASETS === '1') throw new Error(`${reason}; REQUIRE_DATASETS=1 asks for every data set`);
  skipBecause(ctx, reason);
}
