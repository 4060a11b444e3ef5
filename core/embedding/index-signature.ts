// Which embedder a passages index was built with: read from its `_meta`, and compared with the configured one.
import type { Client } from '@opensearch-project/opensearch';
import { describeSignature, legacySignature, readSignature, signatureDifferences, type EmbedderSignature } from './signature.js';

/** The concrete index behind a passages alias (or the index itself) and the embedder it records. */
export interface IndexEmbedder {
  index: string;
  /** Undefined: the index records no model at all. */
  signature: EmbedderSignature | undefined;
}

interface StoredMapping {
  mappings?: { _meta?: { model?: unknown; embedder?: unknown }; properties?: { embedding?: { dimension?: unknown } } };
}

/** The signature a stored mapping records: `_meta.embedder`, or for an index older than it, `_meta.model` with the field's dimension. */
export function mappingSignature(entry: StoredMapping | undefined): EmbedderSignature | undefined {
  const meta = entry?.mappings?._meta;
  const recorded = readSignature(meta?.embedder);
  if (recorded) return recorded;
  const dimension = Number(entry?.mappings?.properties?.embedding?.dimension);
  return typeof meta?.model === 'string' && Number.isInteger(dimension) ? legacySignature(meta.model, dimension) : undefined;
}

/** The embedder the index behind `aliasOrIndex` records (one mapping read). Throws when the alias resolves to no index. */
export async function indexEmbedder(client: Client, aliasOrIndex: string): Promise<IndexEmbedder> {
  const res = await client.indices.getMapping({ index: aliasOrIndex });
  const [entry] = Object.entries(res.body as Record<string, StoredMapping>);
  if (!entry) throw new Error(`${aliasOrIndex}: no index`);
  return { index: entry[0], signature: mappingSignature(entry[1]) };
}

/** The one-line refusal naming both embedders, or undefined when the configured one fits the index. */
export function mismatchMessage(live: IndexEmbedder, configured: EmbedderSignature): string | undefined {
  if (live.signature && signatureDifferences(live.signature, configured).length === 0) return undefined;
  const model = live.signature?.model ?? 'unknown';
  const detail = live.signature
    ? `index: ${describeSignature(live.signature)}; configured: ${describeSignature(configured)}; they differ in ${signatureDifferences(live.signature, configured).join(', ')}`
    : `configured: ${describeSignature(configured)}`;
  return `${live.index} holds vectors of model "${model}" but the embedder is "${configured.model}"; run \`npm run reindex\` with the new configuration, or configure the embedder the index was built with (${detail})`;
}
