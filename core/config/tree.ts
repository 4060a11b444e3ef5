// How the schema's tree of settings becomes the configuration object and its type: one walk reads it, one mapped type types it.
import { ConfigError, type Env, type Setting } from './values.js';

/** A field computed from the values of declared variables (a default taken from another one, a unit, a join). */
export interface Computed<T> {
  from: readonly Setting<unknown>[];
  compute(...values: unknown[]): T;
}

/** The values of a list of settings, position by position. */
export type ValuesOf<S extends readonly Setting<unknown>[]> = { [I in keyof S]: S[I] extends Setting<infer T> ? T : never };

/** A field computed by `compute` from the values of the settings `from`, in that order. */
export function computed<const S extends readonly Setting<unknown>[], T>(from: S, compute: (...values: ValuesOf<S>) => T): Computed<T> {
  return { from, compute: compute as (...values: unknown[]) => T };
}

/** The configuration as declared: each field a setting, a computed field or a group of fields. */
export interface Schema {
  readonly [field: string]: Setting<unknown> | Computed<unknown> | Schema;
}

/**
 * The type of the object a schema reads into, field by field. The mapped type keeps each field
 * tied to its declaration: "go to definition" on a config field opens the line that declares it.
 */
export type ConfigOf<S> = { [K in keyof S]: FieldOf<S[K]> };

/** A setting's or computed field's value, or a group's object (spelled out, so hovers show its fields rather than `ConfigOf<…>`). */
type FieldOf<F> = F extends Setting<infer T> ? T : F extends Computed<infer T> ? T : { [K in keyof F]: FieldOf<F[K]> };

const isSetting = (node: Schema[string]): node is Setting<unknown> => typeof (node as Setting<unknown>).read === 'function';
const isComputed = (node: Schema[string]): node is Computed<unknown> => typeof (node as Computed<unknown>).compute === 'function';

/** Whether `env` sets the variable `name`: blank counts as unset, as everywhere in the configuration. */
export function isSet(env: Env, name: string): boolean {
  return (env[name] ?? '').trim() !== '';
}

/** Reads one variable, or the first of its former names that is set when it is not; the error names the one read. */
export function readSetting<T>(setting: Setting<T>, env: Env): T {
  const set = (name: string) => isSet(env, name);
  const name = set(setting.name) ? setting.name : (setting.aliases?.find(set) ?? setting.name);
  return setting.read(env[name], name);
}

/** Reads `schema` from `env`, each variable once; throws a ConfigError naming the first bad one. */
export function readSchema<S extends Schema>(schema: S, env: Env): ConfigOf<S> {
  const read = new Map<Setting<unknown>, unknown>();
  const value = (setting: Setting<unknown>) => {
    if (!read.has(setting)) read.set(setting, readSetting(setting, env));
    return read.get(setting);
  };
  const walk = (node: Schema[string]): unknown => {
    if (isSetting(node)) return value(node);
    if (isComputed(node)) return node.compute(...node.from.map(value));
    return Object.fromEntries(Object.entries(node).map(([field, child]) => [field, walk(child)]));
  };
  return walk(schema) as ConfigOf<S>;
}

/**
 * Every variable of `schema` once, by name, in the order the fields first name them (a computed
 * field's inputs in their order). Two declarations of one name are a mistake in the schema.
 */
export function settingsOf(schema: Schema): ReadonlyMap<string, Setting<unknown>> {
  const byName = new Map<string, Setting<unknown>>();
  const add = (setting: Setting<unknown>) => {
    const seen = byName.get(setting.name);
    if (seen !== undefined && seen !== setting) throw new ConfigError(setting.name, 'declared twice in the configuration schema');
    byName.set(setting.name, setting);
  };
  const walk = (node: Schema[string]): void => {
    if (isSetting(node)) add(node);
    else if (isComputed(node)) node.from.forEach(add);
    else Object.values(node).forEach(walk);
  };
  walk(schema);
  return byName;
}

/** A setting that also answers to its former name, until that name is removed. */
export function formerly<T>(setting: Setting<T>, alias: string): Setting<T> {
  return { ...setting, aliases: [...(setting.aliases ?? []), alias] };
}
