// The keys CLI while a reindex write-blocks the api-keys index: it waits for the block to go, or gives up with one clear line;
// a retried create stores its one key once.
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { newApiKey, storeApiKey } from '../../src/auth/key-store.js';
import { deleteIndices, ensureIndices, type Client, type IndexAliases } from '../../core/store/opensearch.js';
import { REPO_ROOT, privatePrefix, testClient } from '../support/indexer-env.js';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

describe('keys CLI during a reindex write block', function () {
  this.timeout(90_000);
  const prefix = privatePrefix('keys');
  let client: Client;
  let aliases: IndexAliases;

  /** Runs the CLI; `whenStderr` is called once, on the first stderr output matching its pattern. */
  function cli(args: string[], whenStderr?: { pattern: RegExp; then: () => Promise<void> }): Promise<CliRun> {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/keys.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, INDEX_PREFIX: prefix, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run = { stdout: '', stderr: '' };
    let reacted: Promise<void> = Promise.resolve();
    child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      run.stderr += chunk.toString();
      if (whenStderr && whenStderr.pattern.test(run.stderr)) {
        reacted = whenStderr.then();
        whenStderr = undefined;
      }
    });
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => {
        reacted.then(() => resolve({ code, ...run, ms: Date.now() - started }), reject);
      });
    });
  }

  const setWriteBlock = (blocked: boolean) => client.indices.putSettings({ index: aliases['api-keys'], body: { 'index.blocks.write': blocked } } as never);

  const keysOf = async (userId: string): Promise<number> => {
    await client.indices.refresh({ index: aliases['api-keys'] });
    const res = await client.count({ index: aliases['api-keys'], body: { query: { term: { userId } } } } as never);
    return (res.body as { count: number }).count;
  };

  before(async function () {
    client = testClient();
    aliases = await ensureIndices(client, { prefix, modelId: 'test-model' });
    for (const id of ['u_paid', 'u_retry']) {
      await client.index({ index: aliases.users, id, body: { id, name: 'Paid', plan: 'paid' }, refresh: 'true' } as never);
    }
  });

  afterEach(async function () {
    await setWriteBlock(false);
  });

  after(async function () {
    await deleteIndices(client, prefix);
    await client.close();
  });

  it('waits while the api-keys index is write-blocked and creates the key once the block is lifted', async function () {
    await setWriteBlock(true);
    let liftedAt = 0;
    const run = await cli(['create', '--user', 'u_paid', '--name', 'during-reindex'], {
      // Lift the block only once the CLI has hit it, then give it a couple of retries' worth of time.
      pattern: /store busy; retrying/,
      then: async () => {
        await new Promise((r) => setTimeout(r, 2000));
        liftedAt = Date.now();
        await setWriteBlock(false);
      },
    });
    expect(run.code, run.stderr).to.equal(0);
    expect(liftedAt, 'the CLI met the block').to.be.greaterThan(0);
    expect(run.stderr).to.include('cluster_block_exception');
    const key = run.stdout.trim().split('\n').at(-1)!;
    expect(key).to.match(/^svc_[0-9A-Za-z]{38}$/);
    const stored = await client.get({ index: aliases['api-keys'], id: hashApiKey(key) });
    expect((stored.body._source as { userId: string; name: string }).name).to.equal('during-reindex');
    expect(await keysOf('u_paid')).to.equal(1);
  });

  it('gives up after --wait seconds with exit 1 and one line saying a reindex is probably running', async function () {
    await setWriteBlock(true);
    const before = await keysOf('u_paid');
    const run = await cli(['--wait', '2', 'create', '--user', 'u_paid']);
    expect(run.code).to.equal(1);
    expect(run.ms).to.be.at.least(2000);
    expect(run.stdout).to.equal('');
    const last = run.stderr.trim().split('\n').at(-1)!;
    expect(last).to.equal('keys: the api-keys index is still write-blocked after 2 s: a reindex is probably in progress; retry when it has finished');
    expect(await keysOf('u_paid')).to.equal(before);
  });

  it('stores a key once however often its write is repeated, as a retry after a lost answer does', async function () {
    const created = newApiKey({ userId: 'u_retry', name: 'retried' });
    const deps = { client, aliases };
    expect(await storeApiKey(deps, created)).to.equal(created);
    expect(await storeApiKey(deps, created)).to.equal(created);
    expect(await keysOf('u_retry')).to.equal(1);
    const stored = await client.get({ index: aliases['api-keys'], id: created.record.hash });
    expect(stored.body._source).to.deep.equal(created.record);
  });
});
