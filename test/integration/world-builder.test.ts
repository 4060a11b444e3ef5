// The test world builder (test/support/world.ts) on the real OpenSearch: a new prefix's indices are made and dropped,
// a fixed prefix's are kept, and what a suite registers is undone last-made-first.
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { deleteIndices } from '../../core/store/opensearch.js';
import { newPrefix, openWorld, worldClient } from '../support/world.js';

const exists = async (client: ReturnType<typeof worldClient>, index: string): Promise<boolean> => (await client.indices.exists({ index })).body === true;

describe('test support: one world builder', function () {
  this.timeout(60_000);

  it('makes a new prefix’s indices and a library folder, and drop removes them after undoing what was registered, last first', async function () {
    const client = worldClient();
    try {
      const world = await openWorld({ client, kind: 'world', library: true });
      expect(world.prefix).to.match(/^test-world-[0-9a-f]{8}-$/);
      expect(await exists(client, world.aliases.episodes)).to.equal(true);
      expect(existsSync(world.libraryDir!)).to.equal(true);
      const undone: string[] = [];
      world.onDrop(() => void undone.push('queues'));
      world.onDrop(() => void undone.push('server'));
      await world.drop();
      expect(undone).to.deep.equal(['server', 'queues']);
      expect(await exists(client, world.aliases.episodes)).to.equal(false);
      expect(existsSync(world.libraryDir!)).to.equal(false);
    } finally {
      await client.close();
    }
  });

  it('keeps the indices of a fixed prefix (a library loaded once per run)', async function () {
    const client = worldClient();
    const prefix = newPrefix('world-fixed');
    try {
      const world = await openWorld({ client, prefix });
      await world.drop();
      expect(await exists(client, world.aliases.passages)).to.equal(true);
    } finally {
      await deleteIndices(client, prefix);
      await client.close();
    }
  });
});
