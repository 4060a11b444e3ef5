// One suite's API over the small world: a fresh prefix seeded, the API started over it, and both gone afterwards.
import type { Client } from '../../core/store/opensearch.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { startApi, type ApiHarness } from './api-harness.js';
import { createApiTestStore, seedWorld, type ApiTestStore } from './api-fixture.js';
import { worldClient } from './world.js';

export interface WorldStore {
  /** The small world's store, in its own index prefix; its `client` is the suite's. */
  store: ApiTestStore;
  /** The `alpha` episodes as seeded. */
  alpha: EpisodeRecord[];
}

export interface ApiWorld extends WorldStore {
  /** The API over that prefix (no embedder: search is keyword-only). */
  api: ApiHarness;
  /** A fresh key of `u_member`, a paid member of alpha, custom and free-show. */
  memberKey: string;
  /** `{ 'x-api-key': memberKey }`. */
  memberHeaders: Record<string, string>;
}

/**
 * Registers `before` and `after` hooks on the calling suite that seed the small world in
 * a fresh prefix and drop it afterwards, for suites that start their own apps over it.
 * The returned object is filled in by that `before`: read it inside hooks and tests.
 */
export function useWorldStore({ modelId }: { modelId?: string } = {}): WorldStore {
  const world = {} as WorldStore;
  let client: Client | undefined;
  before(async function () {
    client = worldClient(30_000);
    world.store = await createApiTestStore(client, modelId ? { modelId } : {});
    ({ alpha: world.alpha } = await seedWorld(world.store));
  });
  after(async function () {
    await world.store?.drop();
    await client?.close();
  });
  return world;
}

/**
 * {@link useWorldStore}, plus the API started over it with `env` in a second `before`
 * and closed afterwards. The returned object is filled in by those hooks: read it inside
 * hooks and tests, not at suite definition.
 */
export function useApiWorld({ env = {} }: { env?: Record<string, string> } = {}): ApiWorld {
  const world = useWorldStore() as ApiWorld;
  before(async function () {
    world.api = await startApi({ env: { INDEX_PREFIX: world.store.prefix, ...env } });
    world.memberKey = (await world.store.key('u_member')).key;
    world.memberHeaders = { 'x-api-key': world.memberKey };
  });
  after(async function () {
    await world.api?.close();
  });
  return world;
}
