// One suite's API over the small world: a fresh prefix seeded, the API started over it, and both gone afterwards.
import { loadConfig } from '../../src/config.js';
import { createOpenSearchClient, type Client } from '../../src/store/opensearch.js';
import type { EpisodeRecord } from '../../indexer/schemas.js';
import { startApi, type ApiHarness } from './api-harness.js';
import { createApiTestStore, seedWorld, type ApiTestStore } from './api-fixture.js';

export interface ApiWorld {
  /** The small world's store, in its own index prefix; its `client` is the suite's. */
  store: ApiTestStore;
  /** The API over that prefix (no embedder: search is keyword-only). */
  api: ApiHarness;
  /** The `alpha` episodes as seeded. */
  alpha: EpisodeRecord[];
  /** A fresh key of `u_member`, a paid member of alpha, custom and free-show. */
  memberKey: string;
  /** `{ 'x-api-key': memberKey }`. */
  memberHeaders: Record<string, string>;
}

/**
 * Registers `before` and `after` hooks on the calling suite that build the small world
 * in a fresh prefix, start the API over it, and tear both down. The returned object is
 * filled in by that `before`: read it inside hooks and tests, not at suite definition.
 */
export function useApiWorld({ env = {} }: { env?: Record<string, string> } = {}): ApiWorld {
  const world = {} as ApiWorld;
  let client: Client | undefined;
  before(async function () {
    const config = loadConfig(process.env);
    client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
    world.store = await createApiTestStore(client);
    ({ alpha: world.alpha } = await seedWorld(world.store));
    world.api = await startApi({ env: { INDEX_PREFIX: world.store.prefix, ...env } });
    world.memberKey = (await world.store.key('u_member')).key;
    world.memberHeaders = { 'x-api-key': world.memberKey };
  });
  after(async function () {
    await world.api?.close();
    await world.store?.drop();
    await client?.close();
  });
  return world;
}
