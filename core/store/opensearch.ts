// OpenSearch client factory and index administration: versioned indices behind aliases.
import { readFile } from 'node:fs/promises';
import { Client } from '@opensearch-project/opensearch';
import { DEFAULT_INDEX_LAYOUT, type IndexLayout } from '../config/load.js';
import { packageFile } from '../ground/package-root.js';
import type { EmbedderSignature } from '../embedding/signature.js';
import { passagesMeta, withDefaultDimension, withVectorDimension } from './vector-field.js';
import { DEFAULT_LANGUAGES, LANGUAGE_FIELDS, languageSubFields, withLanguageFields } from './languages.js';

export type { Client };

/**
 * Every index the service uses, by logical name; each is reached through the alias `<prefix><name>`.
 * `changes` holds the per-channel change feed (core/changes/); a reindex copies it like the rest.
 * `webhooks` holds the registered webhook endpoints with their secrets and cursors (pipeline/webhooks/store.ts).
 */
import { INDEX_NAMES, type IndexDefinition, type IndexName } from './index-names.js';

export { INDEX_NAMES, type IndexDefinition, type IndexName };

/** Alias names for one prefix, keyed by logical name. */
export type IndexAliases = Readonly<Record<IndexName, string>>;

const MAPPINGS_DIR = packageFile('mappings') + '/';

/** The node URLs of an OPENSEARCH_URL-style value: one URL, or several comma-separated. */
export function nodeUrls(url: string | readonly string[]): string[] {
  return (typeof url === 'string' ? url.split(',') : [...url]).map((u) => u.trim()).filter(Boolean);
}

/**
 * Creates the one OpenSearch client of a process over one node or several (`url` as
 * OPENSEARCH_URL takes it: comma-separated). With several, requests go round-robin; a node
 * that refuses or drops a connection is set aside (and pinged back in later) and the request
 * is sent to the next one, up to once per other node, so a dead node costs no answer.
 */
export function createOpenSearchClient({
  url,
  timeoutMs = 1500,
  maxRetries,
}: {
  url: string | readonly string[];
  timeoutMs?: number;
  /** Default: one per other node (0 for a single node). */
  maxRetries?: number;
}): Client {
  const nodes = nodeUrls(url);
  return new Client({ nodes, requestTimeout: timeoutMs, maxRetries: maxRetries ?? nodes.length - 1 });
}

/** The alias of every index for `prefix`. */
export function indexAliases(prefix: string): IndexAliases {
  return Object.fromEntries(INDEX_NAMES.map((n) => [n, `${prefix}${n}`])) as Record<IndexName, string>;
}

/** Reads `mappings/<name>.json` (the passages vector field at the default dimension; an index gets its embedder's). */
export async function readIndexDefinition(name: IndexName): Promise<IndexDefinition> {
  return withDefaultDimension(JSON.parse(await readFile(`${MAPPINGS_DIR}${name}.json`, 'utf8')) as IndexDefinition);
}

/**
 * The settings an index is created with: those of its mapping file, with the shards and
 * replicas of `layout` (an auto-expand range becomes `auto_expand_replicas`).
 */
export function indexSettings(fileSettings: Record<string, unknown>, layout: IndexLayout = DEFAULT_INDEX_LAYOUT): Record<string, unknown> {
  const settings = { ...fileSettings };
  for (const key of ['number_of_shards', 'number_of_replicas', 'auto_expand_replicas']) {
    delete settings[key];
    delete settings[`index.${key}`];
  }
  const replicas = typeof layout.replicas === 'number' ? { number_of_replicas: layout.replicas } : { auto_expand_replicas: layout.replicas };
  const knn = settings['index.knn'] === true || (settings['index'] as { knn?: unknown } | undefined)?.knn === true;
  // Vectors out of the stored JSON: a hit's stored fields (its `_id` included) are read from
  // compressed blocks, and 384 floats of JSON per passage made those blocks 2.6 times larger.
  const derived = knn && (layout.vectorSource ?? DEFAULT_INDEX_LAYOUT.vectorSource) === 'derived' ? { 'index.knn.derived_source.enabled': true } : {};
  return { number_of_shards: layout.shards, ...replicas, ...settings, ...derived };
}

/** How text is analysed per language: LANGUAGES, and whether the ICU plugin is there for the fallback's folding. */
export interface LanguageOptions {
  /** Languages with a sub-field of their own (LANGUAGES); default `en,es,de,fr,pt,it,nl`. */
  languages?: readonly string[];
  /** Fold the fallback with `icu_folding`; default: asked of the engine (every node has `analysis-icu`). */
  icu?: boolean;
}

/** Whether every node of the cluster has the ICU analysis plugin (the fallback then folds accents and case with it). */
export async function icuProvisioned(client: Client): Promise<boolean> {
  const res = await client.cat.plugins({ format: 'json' } as never);
  const rows = (res.body ?? []) as { name?: string; component?: string }[];
  const nodes = new Set(rows.map((r) => r.name));
  const withIcu = new Set(rows.filter((r) => r.component === 'analysis-icu').map((r) => r.name));
  return nodes.size > 0 && withIcu.size === nodes.size;
}

/** {@link readIndexDefinition} with the language sub-fields of `languages` (see `withLanguageFields`). */
export async function languageIndexDefinition(name: IndexName, { languages = DEFAULT_LANGUAGES, icu = false }: LanguageOptions = {}): Promise<IndexDefinition> {
  return withLanguageFields(name, await readIndexDefinition(name), { languages, icu });
}

/**
 * Creates a new concrete index for each logical name, named
 * `<prefix><name>-v<mappingVersion>-<timestamp>`, without touching any alias.
 * The passages index gets the vector dimension of `embedding` and records it in `_meta.embedder`
 * (kind, model, dimension, pooling, prefixes; the model also in `_meta.model`), so a reindex
 * knows whether stored vectors can be re-used and a process whether its embedder fits. Shards and replicas come from `layout`
 * (INDEX_SHARDS, INDEX_REPLICAS).
 */
export async function createVersionedIndices(
  client: Client,
  {
    prefix,
    modelId,
    embedding,
    names = INDEX_NAMES,
    layout = DEFAULT_INDEX_LAYOUT,
    languages = DEFAULT_LANGUAGES,
    icu,
  }: {
    prefix: string;
    modelId: string;
    /** The embedder the passages index is for; unset: the local defaults of `modelId` at 384 dimensions. */
    embedding?: EmbedderSignature | undefined;
    names?: readonly IndexName[];
    layout?: IndexLayout;
  } & LanguageOptions,
): Promise<Record<IndexName, string>> {
  const stamp = Date.now().toString();
  const created = {} as Record<IndexName, string>;
  const folded = icu ?? (names.some((n) => LANGUAGE_FIELDS[n]) ? await icuProvisioned(client) : false);
  for (const name of names) {
    const read = await languageIndexDefinition(name, { languages, icu: folded });
    const def = name === 'passages' && embedding ? withVectorDimension(read, embedding.dimension) : read;
    const version = Number(def.mappings._meta?.version ?? 1);
    const index = `${prefix}${name}-v${version}-${stamp}`;
    const mappings = { ...def.mappings, _meta: name === 'passages' ? passagesMeta(def.mappings._meta, modelId, embedding) : { ...def.mappings._meta } };
    await client.indices.create({ index, body: { settings: indexSettings(def.settings, layout), mappings } as never });
    created[name] = index;
  }
  return created;
}

/** Concrete index behind each alias of `prefix` (missing aliases are left out). */
export async function resolveAliases(client: Client, prefix: string): Promise<Partial<Record<IndexName, string>>> {
  const aliases = indexAliases(prefix);
  const found: Partial<Record<IndexName, string>> = {};
  const res = await client.indices.getAlias({ name: `${prefix}*` }, { ignore: [404] });
  const body = (res.body ?? {}) as Record<string, { aliases?: Record<string, unknown> }>;
  for (const [index, entry] of Object.entries(body)) {
    for (const alias of Object.keys(entry.aliases ?? {})) {
      const name = INDEX_NAMES.find((n) => aliases[n] === alias);
      if (name) found[name] = index;
    }
  }
  return found;
}

/**
 * Makes sure every alias of `prefix` points at an index, creating versioned
 * indices for the missing ones and adding to existing ones the fields their mapping
 * file gained since (see {@link addMissingFields}). Safe to call on every start.
 */
export async function ensureIndices(
  client: Client,
  {
    prefix,
    modelId,
    embedding,
    layout,
    languages = DEFAULT_LANGUAGES,
  }: { prefix: string; modelId: string; embedding?: EmbedderSignature | undefined; layout?: IndexLayout; languages?: readonly string[] },
): Promise<IndexAliases> {
  const existing = await resolveAliases(client, prefix);
  const missing = INDEX_NAMES.filter((n) => !existing[n]);
  await addMissingFields(client, existing, { languages });
  if (missing.length > 0) {
    const created = await createVersionedIndices(client, { prefix, modelId, embedding, names: missing, languages, ...(layout ? { layout } : {}) });
    await swapAliases(client, prefix, created);
  }
  return indexAliases(prefix);
}

/**
 * Puts into each existing index the top-level fields of `mappings/<name>.json` it lacks:
 * the indices are `strict`, so a document with a field added after the index was
 * created would be rejected. Only additions: a changed field (type, analyzer, sub-field)
 * needs `npm run reindex`. Documents written before keep the new field empty until they
 * are re-derived (bump the indexer's derivation version). The language sub-fields of `languages` an index lacks
 * (LANGUAGES gained one) are added the same way, with the plain `standard` fallback: an analyzer of the settings
 * cannot be added to an open index. Returns the added fields (`text.es` for a sub-field) by index.
 */
export async function addMissingFields(
  client: Client,
  indices: Partial<Record<IndexName, string>>,
  { languages = DEFAULT_LANGUAGES }: { languages?: readonly string[] } = {},
): Promise<Record<string, string[]>> {
  const entries = Object.entries(indices) as [IndexName, string][];
  if (entries.length === 0) return {};
  const res = await client.indices.getMapping({ index: entries.map(([, index]) => index) });
  const current = res.body as Record<string, { mappings?: { properties?: Record<string, { fields?: Record<string, unknown> }> } }>;
  const added: Record<string, string[]> = {};
  for (const [name, index] of entries) {
    const stored = current[index]?.mappings?.properties ?? {};
    const wanted = (await readIndexDefinition(name)).mappings.properties;
    const fields = Object.keys(wanted).filter((f) => !(f in stored));
    // A new field analysed per language gets its language sub-fields at once.
    const analysed = new Set(LANGUAGE_FIELDS[name] ?? []);
    const properties: Record<string, unknown> = Object.fromEntries(
      fields.map((f) => [f, analysed.has(f) ? { ...(wanted[f] as object), fields: languageSubFields(languages) } : wanted[f]]),
    );
    const names = [...fields];
    // A multi-field can be added to an existing text field as long as the field's own analyzer is restated unchanged.
    for (const field of LANGUAGE_FIELDS[name] ?? []) {
      const have = field in stored ? stored[field]! : undefined;
      const lacking = Object.entries(languageSubFields(languages)).filter(([suffix]) => have && !(suffix in (have.fields ?? {})));
      if (!have || lacking.length === 0) continue;
      properties[field] = { ...have, fields: { ...have.fields, ...Object.fromEntries(lacking) } };
      names.push(...lacking.map(([suffix]) => `${field}.${suffix}`));
    }
    if (names.length === 0) continue;
    await client.indices.putMapping({ index, body: { properties } as never });
    added[index] = names;
  }
  return added;
}

/**
 * Points each alias at its new index in one atomic `_aliases` call, so a search
 * sees either all old or all new indices. Returns the indices the aliases left.
 */
export async function swapAliases(client: Client, prefix: string, next: Partial<Record<IndexName, string>>): Promise<string[]> {
  const aliases = indexAliases(prefix);
  const current = await resolveAliases(client, prefix);
  const actions: unknown[] = [];
  const retired: string[] = [];
  for (const [name, index] of Object.entries(next) as [IndexName, string][]) {
    const old = current[name];
    if (old && old !== index) {
      actions.push({ remove: { index: old, alias: aliases[name] } });
      retired.push(old);
    }
    actions.push({ add: { index, alias: aliases[name], is_write_index: true } });
  }
  if (actions.length > 0) await client.indices.updateAliases({ body: { actions } as never });
  return retired;
}

/** Deletes every index whose name starts with `prefix` (tests and teardown). */
export async function deleteIndices(client: Client, prefix: string): Promise<void> {
  if (!prefix) throw new Error('refusing to delete indices without a prefix');
  await client.indices.delete({ index: `${prefix}*`, expand_wildcards: 'all' } as never, { ignore: [404] });
}
