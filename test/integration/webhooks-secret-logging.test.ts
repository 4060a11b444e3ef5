// A webhook secret never reaches a log line when the real OpenSearch refuses a webhooks command for good (here the
// webhooks alias names two indices and no write index: a 400 no retry helps, to the reads and the writes): the store
// client's error carries the request it sent and the answer, so the CLI logs the store's failure, and the logger
// redacts both wherever an error is logged whole (security review 2026-11-27, item 10).
import { execFileSync, spawn } from 'node:child_process';
import { expect } from 'chai';
import { createApiTestStore, WORLD_CHANNELS, WORLD_USERS, type ApiTestStore } from '../support/api-fixture.js';
import { REPO_ROOT, testClient } from '../support/indexer-env.js';
import type { Client } from '../../core/store/opensearch.js';
import { newEndpoint, storeEndpoint } from '../../pipeline/webhooks/store.js';
import { testSecretsKey } from '../support/secrets-key.js';

interface CliRun {
  code: number | null;
  output: string;
}

describe('webhooks: secrets and a refused store write', function () {
  this.timeout(60_000);
  let client: Client;
  let store: ApiTestStore;
  let endpointId: string;
  let firstSecret: string;
  const key = testSecretsKey();

  function cli(args: string[], env: Record<string, string> = key.env): Promise<CliRun> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/webhooks.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, INDEX_PREFIX: store.prefix, OUTBOUND_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, output }));
    });
  }

  before(async function () {
    client = testClient();
    store = await createApiTestStore(client);
    await store.users(WORLD_USERS);
    await store.channels(WORLD_CHANNELS);
    const created = newEndpoint({ url: 'http://127.0.0.1:9/hook', keyring: key.keyring, allowPrivate: true });
    await storeEndpoint({ client, aliases: store.aliases }, 'alpha', created);
    endpointId = created.id;
    firstSecret = created.secret;
    const alias = store.aliases.webhooks;
    const [real] = Object.keys((await client.indices.getAlias({ name: alias } as never)).body as Record<string, unknown>);
    const extra = `${store.prefix}webhooks-second`;
    await client.indices.create({ index: extra } as never);
    await client.indices.updateAliases({
      body: { actions: [{ add: { index: real, alias, is_write_index: false } }, { add: { index: extra, alias, is_write_index: false } }] },
    } as never);
  });

  after(async function () {
    await store?.drop();
    await client?.close();
  });

  it('logs the refused add, with the store error, and no secret', async function () {
    const run = await cli(['add', '--channel', 'alpha', '--url', 'http://127.0.0.1:9/other']);
    expect(run.code, run.output).to.equal(1);
    expect(run.output).to.match(/"msg":"webhooks failed"/);
    expect(run.output).to.contain('illegal_argument_exception');
    expect(run.output).to.not.match(/whsec_/);
  });

  it('logs the refused rotation, with the store error, and neither the new secret nor the old one', async function () {
    const run = await cli(['rotate', endpointId]);
    expect(run.code, run.output).to.equal(1);
    expect(run.output).to.match(/"msg":"webhooks failed"/);
    expect(run.output).to.contain('illegal_argument_exception');
    expect(run.output).to.not.match(/whsec_/);
    expect(run.output).to.not.contain(firstSecret.slice('whsec_'.length));
  });

  it('logs the refused rotate-key, with the store error, and no secret, sealed or opened', async function () {
    const next = testSecretsKey({ previous: key });
    const run = await cli(['rotate-key'], next.env);
    expect(run.code, run.output).to.equal(1);
    expect(run.output).to.match(/"msg":"webhooks failed"/);
    expect(run.output).to.contain('illegal_argument_exception');
    expect(run.output).to.not.match(/whsec_|sealed:v1/);
    expect(run.output).to.not.contain(firstSecret.slice('whsec_'.length));
  });

  it("redacts a store error's request and answer, sealed secrets and the sealing keys wherever they are logged", function () {
    const sealed = 'sealed:v1:0e9fbdac:AAAA:BBBB';
    // createLogger writes to a file descriptor: a child's stdout is where its lines can be read.
    const script = `import { createLogger } from './core/ground/logger.ts';
const log = createLogger({ name: 't' });
const err = Object.assign(new Error('refused'), { name: 'ResponseError', meta: { body: { _source: { secret: '${sealed}' } }, meta: { request: { params: { body: '${sealed}' } } } } });
log.error({ err }, 'store refused');
log.info({ created: { sealedSecret: '${sealed}' }, secrets: ['${firstSecret}'], config: { secrets: { key: { id: 'k', base64: '${key.value}' } } } }, 'settings');`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(out.split('\n').filter(Boolean)).to.have.lengthOf(2);
    expect(out).to.contain('refused');
    for (const value of [sealed, firstSecret, key.value]) expect(out).to.not.contain(value);
  });
});
