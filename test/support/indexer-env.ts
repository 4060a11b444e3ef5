// Helpers of the indexer's integration suites: private prefixes, library copies, counts, a counting embedder.
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { indexAliases, type Client, type IndexName } from '../../core/store/opensearch.js';
import type { PassageEmbedder } from '../../indexer/load-episode.js';
import { newPrefix, worldClient } from './world.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SAMPLE_LIBRARY = join(REPO_ROOT, 'sample-library');
/** The shared data sets (`DATASETS_DIR` or `../shared/data`); only there on some clones, see datasets.ts. */
export { DATASETS_DIR as SHARED_DATA } from './datasets.js';

/** A prefix of its own for a suite that writes ({@link newPrefix}); delete it with `deleteIndices` afterwards, or build the suite on openWorld. */
export const privatePrefix = newPrefix;

/** A client of the test OpenSearch ({@link worldClient}). */
export const testClient = (): Client => worldClient();

/**
 * A writable temporary copy of a library: its top-level JSON files and the episode
 * files `pick` keeps (all by default). Remove it with `rm(dir, { recursive: true })`.
 */
export async function copyLibrary(source: string, pick: (file: string, index: number) => boolean = () => true): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'indexer-lib-'));
  try {
    for (const f of await readdir(source)) if (f.endsWith('.json')) await cp(join(source, f), join(dir, f));
    await mkdir(join(dir, 'episodes'));
    const files = (await readdir(join(source, 'episodes'))).sort();
    for (const [i, f] of files.entries()) if (pick(f, i)) await cp(join(source, 'episodes', f), join(dir, 'episodes', f));
    return dir;
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir) await rm(dir, { recursive: true, force: true });
}

/** Documents in the index behind `prefix` + `name` (refreshed first), optionally matching `query`. */
export async function countDocs(client: Client, prefix: string, name: IndexName, query?: object): Promise<number> {
  const index = indexAliases(prefix)[name];
  await client.indices.refresh({ index });
  const res = await client.count({ index, ...(query ? { body: { query } } : {}) } as never);
  return (res.body as { count: number }).count;
}

/** Wraps an embedder and counts the texts it was asked to embed. */
export function countingEmbedder(inner: PassageEmbedder, modelId = inner.modelId): PassageEmbedder & { calls: number; texts: number } {
  const counted = {
    modelId,
    dimension: inner.dimension,
    calls: 0,
    texts: 0,
    async embedPassages(texts: string[]) {
      counted.calls++;
      counted.texts += texts.length;
      return inner.embedPassages(texts);
    },
  };
  return counted;
}
