// The API's test world in a store of its own, with an indexer context writing into it: the start of the suites that
// index episodes and read what the API or the webhook worker makes of them.
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { createApiTestStore, WORLD_CHANNELS, WORLD_USERS, type ApiTestStore } from './api-fixture.js';
import { countingEmbedder } from './indexer-env.js';
import type { IndexContext } from '../../indexer/load-episode.js';
import type { Client } from '../../core/store/opensearch.js';

/** A store of its own with the test world's users and channels, and an indexer context (hash embedder) on it. */
export async function createIndexedTestWorld(client: Client): Promise<{ store: ApiTestStore; ctx: IndexContext }> {
  const store = await createApiTestStore(client);
  await store.users(WORLD_USERS);
  await store.channels(WORLD_CHANNELS);
  return { store, ctx: { client, embedder: countingEmbedder(createHashEmbedder(), 'test-model'), aliases: store.aliases } };
}
