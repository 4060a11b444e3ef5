// Backups on the real engine's snapshot API: a backup restored under another prefix answers as the original, a backup of
// another embedder is refused with what to do, retention keeps BACKUP_KEEP, and `npm run backup -- --list` shows them.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createApiKey } from '../../src/auth/key-store.js';
import { deleteIndices, indexAliases, INDEX_NAMES, resolveAliases, type Client, type IndexName } from '../../core/store/opensearch.js';
import { BackupError, createBackup, listBackups } from '../../core/store/snapshots.js';
import { currentMappingVersions, restoreBackup, type RestoreExpectations } from '../../core/store/snapshot-restore.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { lastSeq } from '../../core/changes/read.js';
import { dropRepository } from '../support/backup-repository.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { privatePrefix, REPO_ROOT, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';

const run = promisify(execFile);

describe('backup and restore on the snapshot API', function () {
  this.timeout(180_000);
  const prefix = privatePrefix('bak');
  const restored = privatePrefix('bak-as');
  // A repository of the suite's own, in a folder of its own under the node's path.repo.
  const repository = `test-backup-${randomBytes(4).toString('hex')}`;
  const repo = { repository, location: repository };
  let client: Client;
  let expected: RestoreExpectations;

  const counts = async (p: string): Promise<Partial<Record<IndexName, number>>> => {
    const live = await resolveAliases(client, p);
    await client.indices.refresh({ index: Object.values(live).join(',') });
    const out: Partial<Record<IndexName, number>> = {};
    for (const name of Object.keys(live) as IndexName[]) out[name] = Number((await client.count({ index: indexAliases(p)[name] })).body.count);
    return out;
  };
  const topPassages = async (p: string): Promise<string[]> => {
    const res = await client.search({ index: indexAliases(p).passages, body: { query: { match: { text: 'groundwater electricity pumps' } }, size: 5 } } as never);
    return (res.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id);
  };

  before(async function () {
    client = testClient();
    const embedder = createHashEmbedder();
    await loadLibrary({ client, embedder, prefix, dir: SAMPLE_LIBRARY });
    await createApiKey({ client, aliases: indexAliases(prefix) }, { userId: 'u_member', name: 'backup suite' });
    const first = await createBackup(client, { ...repo, prefix, keep: 5, libraries: [SAMPLE_LIBRARY] });
    const manifest = (await listBackups(client, { repository, prefix })).find((b) => b.name === first.snapshot)!.manifest!;
    expected = { embedder: manifest.embedder!, mappings: await currentMappingVersions() };
  });

  after(async function () {
    await dropRepository(client, repo);
    await deleteIndices(client, prefix);
    await deleteIndices(client, restored);
    await client.close();
  });

  it('restores every index of the prefix under another prefix with the same documents and the same search answer', async function () {
    const result = await restoreBackup(client, { ...repo, from: prefix, as: restored, expected });
    expect(Object.keys(result.indices).sort()).to.deep.equal([...INDEX_NAMES].sort());
    const before = await counts(prefix);
    expect(before['api-keys']).to.equal(1);
    expect(await counts(restored)).to.deep.equal(before);
    expect(await topPassages(restored))
      .to.deep.equal(await topPassages(prefix))
      .and.to.have.length.greaterThan(0);
    // Seqs handed out after the backup are never handed out again: the restored counters are advanced.
    const channel = 'ch_long-field';
    expect(await lastSeq(client, indexAliases(restored).changes, channel)).to.equal((await lastSeq(client, indexAliases(prefix).changes, channel)) + 1_000_000);
    // The live prefix is untouched.
    expect(Object.values(await resolveAliases(client, prefix)).every((i) => i.startsWith(prefix))).to.equal(true);
  });

  it('refuses a backup of another embedder with a sentence naming both ways out, and restores nothing', async function () {
    const other = { ...expected, embedder: { ...expected.embedder, model: 'test/another-model' } };
    const target = privatePrefix('bak-refused');
    const error = await restoreBackup(client, { ...repo, from: prefix, as: target, expected: other }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(BackupError).and.to.have.property('code', 'embedder_mismatch');
    expect((error as Error).message)
      .to.match(/restore with the matching model/)
      .and.to.match(/npm run ingest -- /)
      .and.to.include(SAMPLE_LIBRARY);
    expect(await resolveAliases(client, target)).to.deep.equal({});
  });

  it('refuses to restore over live indices unless told to swap, and --swap moves the aliases to restored copies', async function () {
    const error = await restoreBackup(client, { ...repo, from: prefix, expected }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(BackupError).and.to.have.property('code', 'live_indices');
    const live = await resolveAliases(client, prefix);
    const before = await counts(prefix);
    const result = await restoreBackup(client, { ...repo, from: prefix, swap: true, expected });
    const now = await resolveAliases(client, prefix);
    for (const name of Object.keys(live) as IndexName[]) expect(now[name], name).to.not.equal(live[name]);
    expect(result.replaced.sort()).to.deep.equal(Object.values(live).sort());
    expect(await counts(prefix)).to.deep.equal(before);
  });

  it('keeps the newest BACKUP_KEEP good backups of the prefix and deletes the older ones', async function () {
    const before = (await listBackups(client, { repository, prefix })).map((b) => b.name);
    const second = await createBackup(client, { ...repo, prefix, keep: 5 });
    const third = await createBackup(client, { ...repo, prefix, keep: 2 });
    const names = (await listBackups(client, { repository, prefix })).map((b) => b.name);
    expect(names).to.deep.equal([second.snapshot, third.snapshot]);
    expect(third.deleted).to.deep.equal(before);
  });

  it('lists the backups of the prefix with name, date, indices, size and state (npm run backup -- --list)', async function () {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/backup.ts', '--list'], {
      cwd: REPO_ROOT,
      env: { ...process.env, INDEX_PREFIX: prefix, BACKUP_REPOSITORY: repository, BACKUP_LOCATION: repository, LOG_LEVEL: 'warn' },
    });
    const [header, ...rows] = stdout.trim().split('\n');
    expect(header!.split('\t')).to.deep.equal(['name', 'date', 'indices', 'size', 'state', 'prefix']);
    const names = (await listBackups(client, { repository, prefix })).map((b) => b.name);
    expect(rows.map((r) => r.split('\t')[0])).to.deep.equal(names);
    for (const row of rows) {
      const [, date, indices, size, state, of] = row.split('\t');
      expect(Date.parse(date!), row).to.be.greaterThan(0);
      expect(indices, row).to.equal(String(INDEX_NAMES.length));
      expect(size, row).to.match(/^\d+(\.\d)? (B|kB|MB)$/);
      expect([state, of], row).to.deep.equal(['SUCCESS', prefix]);
    }
  });
});
