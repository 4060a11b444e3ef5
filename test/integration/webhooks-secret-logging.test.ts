// A webhook secret never reaches a log line when the real OpenSearch refuses its write for good (here the webhooks
// alias names two indices and no write index: a 400 no retry helps): the store client's error carries the request it
// sent, and the CLI logs that error whole (security review 2026-11-27, item 10).
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { createApiTestStore, WORLD_CHANNELS, WORLD_USERS, type ApiTestStore } from '../support/api-fixture.js';
import { REPO_ROOT, testClient } from '../support/indexer-env.js';
import type { Client } from '../../src/store/opensearch.js';
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

  function cli(args: string[]): Promise<CliRun> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/webhooks.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, INDEX_PREFIX: store.prefix, OUTBOUND_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'info', SECRETS_KEY: key.value },
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
});
