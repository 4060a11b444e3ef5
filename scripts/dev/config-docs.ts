// `npm run docs:config`: writes docs/configuration.md from the declarations of core/config/groups/ (a unit test keeps the two equal).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { configurationTable } from '../../core/config/schema.js';
import { PROJECT_ROOT } from '../ops/provision/paths.js';

export const CONFIGURATION_DOC = join(PROJECT_ROOT, 'docs', 'configuration.md');

/** The whole document: a short preface and the table, one row per declared variable. */
export function renderConfigurationDoc(): string {
  return [
    '# Configuration',
    '',
    'Every setting is an environment variable, read once by `loadConfig()` (`core/config/load.ts`) through',
    'its declaration in `core/config/groups/` (one file per group, gathered by `core/config/schema.ts`); nothing else in `core/`, `src/` or `indexer/` reads the environment',
    '(the tooling variables of the scripts are in [operations.md](operations.md)). A bad value stops the',
    'process with a message naming the variable and what it accepts. Blank counts as unset.',
    '',
    'This file is generated: `npm run docs:config` writes it from the declarations, and a unit test',
    'fails when the two differ.',
    '',
    configurationTable(),
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(CONFIGURATION_DOC, renderConfigurationDoc());
  process.stderr.write(`wrote ${CONFIGURATION_DOC}\n`);
}
