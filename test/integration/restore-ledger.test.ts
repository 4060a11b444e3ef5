// A restore never resurrects (decision 34), on the real engine with a real snapshot repository: a key revoked after the
// backup stays refused by the API, a removed endpoint stays removed, a snapshot of another deployment is refused unless
// named, and `npm run restore -- --force` replaces the live indices and prints the snapshot's folders shell-quoted.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { revokeApiKey } from '../../src/auth/key-store.js';
import { deleteIndices, ensureIndices, indexAliases, resolveAliases, type Client } from '../../core/store/opensearch.js';
import { readIdentity } from '../../core/store/ledger.js';
import { BackupError, createBackup, listBackups } from '../../core/store/snapshots.js';
import { currentMappingVersions, restoreBackup, type RestoreExpectations } from '../../core/store/snapshot-restore.js';
import { deliverChange } from '../../pipeline/webhooks/deliver.js';
import { getEndpoint, listEndpoints, newEndpoint, removeEndpoint, storeEndpoint } from '../../pipeline/webhooks/store.js';
import { createApiTestStore, WORLD_CHANNELS, WORLD_USERS, type ApiTestStore } from '../support/api-fixture.js';
import { startApi, type ApiHarness } from '../support/api-harness.js';
import { dropRepository } from '../support/backup-repository.js';
import { REPO_ROOT, privatePrefix, testClient } from '../support/indexer-env.js';
import { testSecretsKey } from '../support/secrets-key.js';

const run = promisify(execFile);

describe('a restore never resurrects (decision 34)', function () {
  this.timeout(180_000);
  const repository = `test-ledger-${randomBytes(4).toString('hex')}`;
  const repo = { repository, location: repository };
  const other = privatePrefix('ledger-other');
  const inspected = privatePrefix('ledger-as');
  const secrets = testSecretsKey();
  let client: Client;
  let store: ApiTestStore;
  let api: ApiHarness;
  let expected: RestoreExpectations;

  const status = async (key: string) => (await api.request('/api/v1/channels', { headers: { 'x-api-key': key } })).status;
  const backup = async (prefix: string, libraries: string[] = []) => (await createBackup(client, { ...repo, prefix, keep: 20, libraries })).snapshot;
  const endpoint = async (path: string) => {
    const created = newEndpoint({ url: `http://127.0.0.1:9/${path}`, keyring: secrets.keyring, allowPrivate: true });
    return storeEndpoint({ client, aliases: store.aliases }, 'alpha', created);
  };

  before(async function () {
    client = testClient();
    store = await createApiTestStore(client);
    await store.users(WORLD_USERS);
    await store.channels(WORLD_CHANNELS);
    api = await startApi({ env: { INDEX_PREFIX: store.prefix }, client });
    const first = await backup(store.prefix);
    // The embedder the passages index records, as the restore compares it.
    const manifest = (await listBackups(client, { repository, prefix: store.prefix })).find((b) => b.name === first)!.manifest!;
    expected = { embedder: manifest.embedder!, mappings: await currentMappingVersions() };
  });

  after(async function () {
    await api?.close();
    await dropRepository(client, repo);
    for (const p of [store.prefix, other, inspected]) await deleteIndices(client, p);
    await client.close();
  });

  it('keeps a key revoked after the backup refused by the API after a --swap restore, and lists the keys that came back', async function () {
    const kept = await store.key('u_member');
    const leaked = await store.key('u_member');
    const snapshot = await backup(store.prefix);
    await revokeApiKey({ client, aliases: store.aliases }, leaked.keyId);
    expect(await status(leaked.key)).to.equal(401);

    const result = await restoreBackup(client, { ...repo, from: store.prefix, snapshot, swap: true, expected, graceMs: 0 });
    expect(await status(leaked.key)).to.equal(401);
    expect(await status(kept.key)).to.equal(200);
    expect(result.reapplied.keysRevoked).to.deep.equal([leaked.keyId]);
    expect(result.cameBack.keys.map((k) => k.keyId))
      .to.include(kept.keyId)
      .and.not.include(leaked.keyId);
    expect(result.cameBack.activeKeys).to.equal(result.cameBack.keys.length);
    expect(result.deployment.foreign).to.equal(false);
  });

  it('keeps an endpoint removed after the backup removed: not listed for the dispatcher, its pending deliveries send nothing', async function () {
    const stays = await endpoint('stays');
    const dropped = await endpoint('dropped');
    const snapshot = await backup(store.prefix);
    expect(await removeEndpoint({ client, aliases: store.aliases }, dropped.id)).to.equal(true);

    const result = await restoreBackup(client, { ...repo, from: store.prefix, snapshot, swap: true, expected, graceMs: 0 });
    const deps = { client, aliases: store.aliases };
    expect(await getEndpoint(deps, dropped.id)).to.equal(undefined);
    const listed = (await listEndpoints(deps)).map((e) => e.id);
    expect(listed).to.include(stays.id).and.not.include(dropped.id);
    const change = { id: 'chg_ledger', type: 'episode.updated', episodeId: 'ep_1', status: 'published', occurredAt: new Date().toISOString() } as const;
    const outbound = { allowPrivate: true, userAgent: 'CreatorContentAPI/test', timeoutMs: 1000 };
    expect((await deliverChange({ store: deps, keyring: secrets.keyring, outbound }, { endpointId: dropped.id, change })).status).to.equal('removed');
    expect(result.reapplied.endpointsRemoved).to.deep.equal([dropped.id]);
    expect(result.cameBack.endpoints).to.deep.include({ id: stays.id, channelSlug: 'alpha', origin: 'http://127.0.0.1:9' });
    expect(result.cameBack.endpoints.map((e) => e.id)).to.not.include(dropped.id);
  });

  it("refuses another deployment's snapshot showing both identities, and restores it when --foreign names it", async function () {
    const aliases = await ensureIndices(client, { prefix: other, modelId: 'test-model' });
    await client.index({ index: aliases.users, id: 'u_staging', body: { id: 'u_staging', name: 'Staging', plan: 'paid' }, refresh: 'true' } as never);
    const theirs = await backup(other);
    const them = (await readIdentity(client, other))!;
    const us = (await readIdentity(client, store.prefix))!;
    expect(them.id).to.not.equal(us.id);

    const error = await restoreBackup(client, { ...repo, from: store.prefix, snapshot: theirs, as: inspected, expected }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(BackupError).and.to.have.property('code', 'foreign_snapshot');
    expect((error as Error).message)
      .to.include(them.id)
      .and.to.include(us.id)
      .and.to.include(`--foreign ${them.id}`);
    expect(await resolveAliases(client, inspected)).to.deep.equal({});
    const wrong = await restoreBackup(client, { ...repo, from: store.prefix, snapshot: theirs, as: inspected, expected, foreign: us.id }).catch((e: unknown) => e);
    expect(wrong).to.have.property('code', 'foreign_snapshot');

    const result = await restoreBackup(client, { ...repo, from: store.prefix, snapshot: theirs, as: inspected, expected, foreign: them.id });
    expect(result.deployment).to.deep.equal({ self: us, snapshot: them, foreign: true });
    const users = await client.search({ index: indexAliases(inspected).users, body: { query: { match_all: {} } } } as never);
    expect((users.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id)).to.deep.equal(['u_staging']);
  });

  it('npm run restore -- --force deletes the live indices, restores, re-applies the ledger and prints the folders shell-quoted', async function () {
    const leaked = await store.key('u_member');
    const hostile = ['/srv/library; rm -rf ~', "/srv/it's \u001b[2J\u009b31m\u202eevil"];
    const snapshot = await backup(store.prefix, hostile);
    await revokeApiKey({ client, aliases: store.aliases }, leaked.keyId);
    const live = Object.values(await resolveAliases(client, store.prefix)).sort();

    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'bin/restore.ts', snapshot, '--force'], {
      cwd: REPO_ROOT,
      env: { ...process.env, INDEX_PREFIX: store.prefix, BACKUP_REPOSITORY: repository, BACKUP_LOCATION: repository, MODEL_ID: 'test-model', LOG_LEVEL: 'warn' },
    });
    const result = JSON.parse(stdout) as { replaced: string[]; reapplied: { keysRevoked: string[] }; indices: Record<string, string> };
    expect(result.replaced.sort()).to.deep.equal(live);
    const now = await resolveAliases(client, store.prefix);
    expect(Object.values(now).sort()).to.deep.equal(Object.values(result.indices).sort());
    expect((await client.indices.exists({ index: live.join(',') })).body).to.equal(false);
    expect(await status(leaked.key)).to.equal(401);
    expect(result.reapplied.keysRevoked).to.include(leaked.keyId);

    expect(stderr).to.include(`npm run ingest -- '/srv/library; rm -rf ~'`);
    expect(stderr).to.include(`npm run ingest -- '/srv/it'\\''s \uFFFD[2J\uFFFD31m\uFFFDevil'`);
    expect(stderr).to.match(new RegExp(`re-applied from the ledger: \\d+ key revocations \\([^)]*${leaked.keyId}`));
    // eslint-disable-next-line no-control-regex
    expect(`${stdout}${stderr}`).to.not.match(/[\u001b\u009b\u202e]/);
  });
});
