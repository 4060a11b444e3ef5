// The logical indices and the shape of their definitions (mappings/*.json): read by the store and by the language fields.

/** Every index, by its logical name; each lives behind the alias `<prefix><name>`. */
export const INDEX_NAMES = ['channels', 'users', 'api-keys', 'facets', 'episodes', 'transcripts', 'chapters', 'passages', 'changes', 'webhooks', 'accounts'] as const;
export type IndexName = (typeof INDEX_NAMES)[number];

/** An index's settings and mappings, as mappings/<name>.json holds them. */
export interface IndexDefinition {
  settings: Record<string, unknown>;
  mappings: { _meta?: Record<string, unknown>; properties: Record<string, unknown>; [k: string]: unknown };
}
