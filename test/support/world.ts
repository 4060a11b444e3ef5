// The one world builder of the integration suites: an index prefix of the suite's own (or a fixed one, for a library
// loaded once per run), its indices made from mappings/, a library folder when asked for, and one drop that undoes
// all of it and whatever the suite added (queues, servers), last made first undone. Every setup module builds on it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../core/config/load.js';
import { createOpenSearchClient, deleteIndices, ensureIndices, type Client, type IndexAliases } from '../../core/store/opensearch.js';

/** What ensureIndices is told besides the prefix and the model. */
type IndexOptions = Omit<Parameters<typeof ensureIndices>[1], 'prefix' | 'modelId'>;

/** A prefix of its own for a suite that writes: `test-<kind>-<8 hex>-`. */
export function newPrefix(kind = 'idx'): string {
  return `test-${kind}-${randomBytes(4).toString('hex')}-`;
}

/** A client of the test OpenSearch (OPENSEARCH_URL as the test command provisions it). */
export function worldClient(timeoutMs = 120_000): Client {
  return createOpenSearchClient({ url: loadConfig(process.env).opensearchUrl, timeoutMs });
}

export interface WorldOptions extends IndexOptions {
  /** Names the new prefix (`test-<kind>-…`); ignored with `prefix`. */
  kind?: string;
  /** A fixed prefix instead of a new one (a library loaded once per run): its indices are kept by {@link World.drop}. */
  prefix?: string;
  /** The suite's client; without one the world opens its own and closes it on drop. */
  client?: Client;
  /** The model the passages index says it was built for (default `test-model`: the world holds no real vectors). */
  modelId?: string;
  /** Also make a library folder under the system's temporary folder, named after `kind`, removed on drop. */
  library?: boolean;
}

export interface World {
  client: Client;
  prefix: string;
  aliases: IndexAliases;
  /** The world's library folder (with `library: true`). */
  libraryDir: string | undefined;
  /** Registers something to undo on drop (a queue, a server); undone before what was registered earlier. */
  onDrop(undo: () => Promise<void> | void): void;
  /** Undoes what the suite registered, deletes a new prefix's indices and the library folder, closes an own client. */
  drop(): Promise<void>;
}

/** Builds a world: the prefix and its indices, a library folder when asked for. */
export async function openWorld({ kind = 'idx', prefix: fixed, client: given, modelId = 'test-model', library = false, ...indices }: WorldOptions = {}): Promise<World> {
  const client = given ?? worldClient();
  const prefix = fixed ?? newPrefix(kind);
  const aliases = await ensureIndices(client, { prefix, modelId, ...indices });
  const libraryDir = library ? await mkdtemp(join(tmpdir(), `${kind}-lib-`)) : undefined;
  const undo: (() => Promise<void> | void)[] = [];
  return {
    client,
    prefix,
    aliases,
    libraryDir,
    onDrop: (fn) => void undo.push(fn),
    async drop() {
      for (const fn of undo.splice(0).reverse()) await fn();
      if (fixed === undefined) await deleteIndices(client, prefix);
      if (libraryDir) await rm(libraryDir, { recursive: true, force: true });
      if (!given) await client.close();
    },
  };
}
