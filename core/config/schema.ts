// Every setting, declared once where it lands in the configuration object: its variable, kind, default, range and meaning.
// loadConfig reads the environment through it, the Config type is computed from it, docs/configuration.md is generated from it.
// The groups live in ./groups/, one file each, in the order of the documentation.
import { settingsOf, type Schema } from './tree.js';
import type { Setting } from './values.js';
import { API } from './groups/api.js';
import { STORES } from './groups/stores.js';
import { MODEL } from './groups/model.js';
import { ACCESS } from './groups/access.js';
import { OAUTH } from './groups/oauth.js';
import { SEARCH } from './groups/search.js';
import { CHANGES } from './groups/changes.js';
import { PIPELINE } from './groups/pipeline.js';
import { ENRICH } from './groups/enrich.js';
import { OPERATIONS } from './groups/operations.js';
import { CONSOLE } from './groups/console.js';
import { UPSTREAM } from './groups/upstream.js';

export { MIN_HS_SECRET_BYTES, DEFAULT_HYDRATION_CACHE_MB, type TrustProxy, type SecretsKey } from './readers.js';

/**
 * Every setting the service, the worker and the scripts read, where it lands in the object
 * `loadConfig` returns. The documentation lists the variables in this order.
 */
export const SCHEMA = {
  ...API,
  ...STORES,
  ...MODEL,
  ...ACCESS,
  ...OAUTH,
  ...SEARCH,
  ...CHANGES,
  ...PIPELINE,
  ...ENRICH,
  ...OPERATIONS,
  ...CONSOLE,
  ...UPSTREAM,
} satisfies Schema;

/** Every variable, by name, in the order of the documentation. */
export const ENV: ReadonlyMap<string, Setting<unknown>> = settingsOf(SCHEMA);

/** The configuration table of docs/configuration.md, from the declarations. */
export function configurationTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const formerNames = (setting: Setting<unknown>) =>
    (setting.aliases ?? []).map((alias) => `; \`${alias}\`, its deprecated former name, is read when this is unset (until the next release)`).join('');
  const rows = [...ENV.values()].map(
    (setting) => `| \`${setting.name}\` | ${cell(setting.shown)} | ${cell(setting.accepts)} | ${cell(setting.description + formerNames(setting))} |`,
  );
  return ['| Variable | Default | Accepts | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
