// `npm run lint` (also run by `npm test`): the format (Prettier, .prettierrc.json), ESLint (eslint.config.js), the floors and import cycles (.dependency-cruiser.cjs), then the served OpenAPI document (Redocly).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../../core/config/load.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { PROJECT_ROOT } from '../ops/provision/paths.js';

/** The folders whose floors and cycles are checked (test/ may import across them freely). */
export const CYCLE_CHECKED = ['core', 'src', 'indexer', 'importer', 'pipeline', 'bin', 'scripts'];

/** What Prettier keeps formatted (`npm run format` rewrites them); prose (Markdown) is written by hand. */
export const FORMATTED = '**/*.{ts,js,cjs,mjs,json,css,yml}';

const STEPS: readonly (readonly string[])[] = [
  ['node_modules/prettier/bin/prettier.cjs', '--check', '--log-level', 'warn', FORMATTED],
  ['node_modules/eslint/bin/eslint.js', '.'],
  ['node_modules/dependency-cruiser/bin/dependency-cruise.mjs', '--config', '.dependency-cruiser.cjs', ...CYCLE_CHECKED],
];

/** Redocly's recommended rules with every warning made an error (its own `recommended-strict`): the document lints clean or fails. */
export const OPENAPI_RULES = 'recommended-strict';

const REDOCLY = join(PROJECT_ROOT, 'node_modules/@redocly/cli/bin/cli.js');

/** The OpenAPI documents the API can serve, by a file name for the report: anonymous reading off (the default) and on. */
export function servedOpenApiDocuments(): Record<string, unknown> {
  return {
    'openapi.json': buildOpenApiDocument(loadConfig({})),
    'openapi-anonymous-read.json': buildOpenApiDocument(loadConfig({ ANONYMOUS_READ: 'published' })),
  };
}

export interface OpenApiLint {
  ok: boolean;
  /** Redocly's report (problems with their rule names and places). */
  report: string;
}

/**
 * Lints OpenAPI documents with Redocly's CLI under {@link OPENAPI_RULES}, each written pretty-printed to a
 * temporary folder (so the report's line numbers point somewhere readable) and linted from there (so no
 * `redocly.yaml` of the tree changes the rules). Telemetry and update notices off: a lint sends nothing.
 */
export function lintOpenApiDocuments(documents: Record<string, unknown> = servedOpenApiDocuments()): OpenApiLint {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    const files = Object.entries(documents).map(([name, doc]) => {
      writeFileSync(join(dir, name), `${JSON.stringify(doc, null, 2)}\n`);
      return name;
    });
    const run = spawnSync(process.execPath, [REDOCLY, 'lint', `--extends=${OPENAPI_RULES}`, '--lint-config=off', ...files], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', NO_COLOR: '1' },
    });
    const report = `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? `\n${run.error.message}\n` : ''}`;
    return { ok: run.status === 0, report };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs every check (their reports on this process's stdout/stderr); 1 when any failed, else 0. */
export function lint(): number {
  const failed = STEPS.filter((args) => spawnSync(process.execPath, args, { cwd: PROJECT_ROOT, stdio: 'inherit' }).status !== 0);
  const openapi = lintOpenApiDocuments();
  // Redocly's report only when it failed: on success it is a banner and "valid".
  if (!openapi.ok) process.stderr.write(`${openapi.report}\nThe served OpenAPI document does not lint clean under Redocly's ${OPENAPI_RULES} rules.\n`);
  return failed.length > 0 || !openapi.ok ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(lint());
