// A snapshot repository of a suite's own: its snapshots, its registration and its folder under the node's path.repo removed afterwards.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '../../core/store/opensearch.js';
import { listBackups } from '../../core/store/snapshots.js';

/** Deletes every snapshot of `repository`, unregisters it, and removes its folder `location` when the node runs on this machine. */
export async function dropRepository(client: Client, { repository, location }: { repository: string; location: string }): Promise<void> {
  for (const b of await listBackups(client, { repository }).catch(() => [])) await client.snapshot.delete({ repository, snapshot: b.name }, { ignore: [404] });
  await client.snapshot.deleteRepository({ repository }, { ignore: [404] });
  const res = await client.nodes.info({ node_id: '_local', metric: 'settings' } as never);
  const nodes = Object.values((res.body as { nodes?: Record<string, { settings?: { path?: { repo?: string[] | string } } }> }).nodes ?? {});
  const root = [nodes[0]?.settings?.path?.repo ?? []].flat()[0];
  // Only a folder inside path.repo, by a plain relative name: never anything else of the machine.
  if (root && /^[a-z0-9-]+$/.test(location)) await rm(path.join(root, location), { recursive: true, force: true });
}
