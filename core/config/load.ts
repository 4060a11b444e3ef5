// The one reader of the environment: typed, validated, frozen. Each setting is declared once, in config/schema.ts, and its type follows from there.
import { ENV, SCHEMA } from './schema.js';
import { isSet, readSchema, type ConfigOf } from './tree.js';
import type { Env } from './values.js';

export { ConfigError } from './values.js';
export { DEFAULT_HYDRATION_CACHE_MB, MIN_HS_SECRET_BYTES, type TrustProxy } from './schema.js';

/**
 * Every setting the service, the worker and the scripts read, as `SCHEMA` in config/schema.ts
 * declares it: "go to definition" on a field opens its declaration (variable, default, meaning).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an interface, so that hovers and errors say `Config` rather than spell out the mapped type
export interface Config extends ConfigOf<typeof SCHEMA> {}

/** The feed-following pipeline: polling, outbound fetching and transcription. */
export type PipelineConfig = Config['pipeline'];

/** How a new index is laid out over the nodes; without `vectorSource`, the configured default's. */
export type IndexLayout = Omit<Config['indexLayout'], 'vectorSource'> & Partial<Pick<Config['indexLayout'], 'vectorSource'>>;

/** The index layout of an environment that sets none of `INDEX_*`: the schema's defaults. */
export const DEFAULT_INDEX_LAYOUT: Readonly<Config['indexLayout']> = Object.freeze(readSchema(SCHEMA.indexLayout, {}));

/**
 * Reads and validates the environment once, through the declarations of config/schema.ts.
 * Throws a `ConfigError` naming the first bad variable; returns a frozen object otherwise.
 */
export function loadConfig(env: Env = process.env): Readonly<Config> {
  return deepFreeze(readSchema(SCHEMA, env));
}

/** The deprecated former names `env` still sets, each with the name that replaces it: what a process warns about at start. */
export function deprecatedNamesIn(env: Env = process.env): { name: string; use: string }[] {
  return [...ENV.values()].flatMap((setting) => (setting.aliases ?? []).filter((alias) => isSet(env, alias)).map((alias) => ({ name: alias, use: setting.name })));
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
