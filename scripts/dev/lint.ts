// `npm run lint` (also run by `npm test`): the format (Prettier, .prettierrc.json), ESLint (eslint.config.js), then the floors and import cycles (.dependency-cruiser.cjs).
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../ops/provision/paths.js';

/** The folders whose floors and cycles are checked (test/ may import across them freely). */
export const CYCLE_CHECKED = ['src', 'indexer', 'pipeline', 'scripts'];

/** What Prettier keeps formatted (`npm run format` rewrites them); prose (Markdown) is written by hand. */
export const FORMATTED = '**/*.{ts,js,cjs,mjs,json,css,yml}';

const STEPS: readonly (readonly string[])[] = [
  ['node_modules/prettier/bin/prettier.cjs', '--check', '--log-level', 'warn', FORMATTED],
  ['node_modules/eslint/bin/eslint.js', '.'],
  ['node_modules/dependency-cruiser/bin/dependency-cruise.mjs', '--config', '.dependency-cruiser.cjs', ...CYCLE_CHECKED],
];

/** Runs every check (their reports on this process's stdout/stderr); 1 when any failed, else 0. */
export function lint(): number {
  const failed = STEPS.filter((args) => spawnSync(process.execPath, args, { cwd: PROJECT_ROOT, stdio: 'inherit' }).status !== 0);
  return failed.length > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(lint());
