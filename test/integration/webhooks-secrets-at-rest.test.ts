// Webhook secrets sealed at rest, against the real OpenSearch and Redis: the stored document holds only ciphertext
// naming its key; a wrong key is refused with a sentence; `rotate-key` re-seals under a new key and deliveries to a
// loopback receiver still verify with each endpoint's secret; a secret stored in clear is sealed when the worker starts;
// the worker refuses to start without SECRETS_KEY (or with another key) while endpoints exist.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { episodeRecord, type ApiTestStore } from '../support/api-fixture.js';
import { testClient } from '../support/indexer-env.js';
import { runEntry, type EntryRun } from '../support/run-entry.js';
import { createIndexedTestWorld } from '../support/indexed-world.js';
import { dropWebhookQueues, startRecordingEndpoint, until, type Received } from '../support/webhooks-env.js';
import { testSecretsKey, type TestSecretsKey } from '../support/secrets-key.js';
import { indexEpisode, type IndexContext } from '../../indexer/load-episode.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { loadConfig } from '../../core/config/load.js';
import type { Client } from '../../core/store/opensearch.js';
import { keyringOf } from '../../pipeline/webhooks/sealed.js';
import { listEndpoints, removeEndpoint, type EndpointDoc } from '../../pipeline/webhooks/store.js';
import { startWebhookWorkers, type WebhookWorkers } from '../../pipeline/webhooks/worker.js';
import { newSecret } from '../../pipeline/webhooks/signing.js';

/** Runs a project entry point to its end with `env` over the test's environment, no key unless `env` gives one. */
function run(entry: string, args: string[], env: Record<string, string | undefined>): Promise<EntryRun> {
  return runEntry(entry, args, { OUTBOUND_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'info', SECRETS_KEY: undefined, SECRETS_KEY_PREVIOUS: undefined, ...env });
}

describe('webhooks: secrets sealed at rest', function () {
  this.timeout(240_000);
  let client: Client;
  let store: ApiTestStore;
  let ctx: IndexContext;
  let connection: Redis;
  let workers: WebhookWorkers | undefined;
  let endpoint: Awaited<ReturnType<typeof startRecordingEndpoint>> | undefined;
  let base: string;
  let received: Received[] = [];
  let episodes = 0;
  /** The first key, then the one `rotate-key` moves to (holding the first as SECRETS_KEY_PREVIOUS), and one never used. */
  const first = testSecretsKey();
  const second = testSecretsKey({ previous: first });
  const stranger = testSecretsKey();
  const endpoints: { id: string; secret: string; path: string }[] = [];

  const cli = (args: string[], key: TestSecretsKey | undefined, extra: Record<string, string> = {}) =>
    run('bin/webhooks.ts', args, { INDEX_PREFIX: store.prefix, ...key?.env, ...extra });

  /** The endpoint's document as OpenSearch holds it (a plain GET of `_source`, as the API's read role could). */
  async function raw(id: string): Promise<EndpointDoc> {
    const res = await client.get({ index: store.aliases.webhooks, id });
    return (res.body as { _source: EndpointDoc })._source;
  }

  async function add(path: string, key: TestSecretsKey): Promise<{ id: string; secret: string; path: string }> {
    const result = await cli(['add', '--channel', 'alpha', '--url', `${base}${path}`], key);
    expect(result.code, result.stderr).to.equal(0);
    const lines = result.stdout.trim().split('\n');
    const endpoint = { id: /^(wh_[0-9a-f]{16}) /.exec(lines[0]!)![1]!, secret: lines.at(-1)!, path };
    endpoints.push(endpoint);
    return endpoint;
  }

  async function writeEpisode(): Promise<void> {
    await indexEpisode(ctx, episodeRecord(`ep_sealed${String(++episodes).padStart(3, '0')}`, 'ch_alpha', { status: 'indexed' }));
    await client.indices.refresh({ index: store.aliases.changes });
  }

  function start(key: TestSecretsKey | undefined): Promise<WebhookWorkers> {
    return startWebhookWorkers({
      connection,
      indexPrefix: store.prefix,
      store: { client, aliases: store.aliases },
      keyring: key?.keyring,
      outbound: { allowPrivate: true, userAgent: 'CreatorContentAPI/test (+http://localhost)', timeoutMs: 2000 },
      retry: { schedule: [150, 150], jitter: 0, maxRetryAfterMs: 5000 },
      dispatchEveryMs: 150,
    });
  }

  const verifies = (secret: string, r: Received) => {
    try {
      new Webhook(secret).verify(r.body, r.headers);
      return true;
    } catch {
      return false;
    }
  };

  before(async function () {
    client = testClient();
    ({ store, ctx } = await createIndexedTestWorld(client));
    connection = createRedisConnection(loadConfig(process.env).redisUrl);
    endpoint = await startRecordingEndpoint();
    ({ base, received } = endpoint);
  });

  after(async function () {
    await workers?.close();
    await dropWebhookQueues(connection, store.prefix);
    connection?.disconnect();
    await endpoint?.close();
    await store?.drop();
    await client?.close();
  });

  it('stores only ciphertext naming its key: neither the secret nor the previous one is in the document', async function () {
    const { id, secret } = await add('/one', first);
    const rotated = await cli(['rotate', id, '--grace', '3600'], first);
    expect(rotated.code, rotated.stderr).to.equal(0);
    const next = rotated.stdout.trim().split('\n').at(-1)!;
    expect(next).to.match(/^whsec_/);
    endpoints[0]!.secret = next;
    const doc = await raw(id);
    const text = JSON.stringify(doc);
    for (const clear of [secret, next]) {
      expect(text).to.not.contain(clear.slice('whsec_'.length));
      expect(text).to.not.contain(Buffer.from(clear.slice('whsec_'.length), 'base64').toString('hex'));
    }
    expect(text).to.not.contain('whsec_');
    expect(doc.secret).to.match(new RegExp(`^sealed:v1:${first.id}:`));
    expect(doc.previousSecret).to.match(new RegExp(`^sealed:v1:${first.id}:`));
    // What the CLI prints never includes a stored value either.
    expect(rotated.stdout + rotated.stderr).to.not.contain('sealed:v1');
  });

  it('refuses a key the secrets were not sealed under, naming the key expected and the key held, and writes nothing', async function () {
    const before = await raw(endpoints[0]!.id);
    for (const args of [['rotate-key'], ['rotate', endpoints[0]!.id], ['add', '--channel', 'alpha', '--url', `${base}/never`]]) {
      const result = await cli(args, stranger);
      expect(result.code, `${args[0]}: ${result.stderr}`).to.equal(1);
      expect(result.stderr).to.contain(`under key ${first.id}`);
      expect(result.stderr).to.contain(`SECRETS_KEY is key ${stranger.id}`);
      expect(result.stderr).to.contain(`set SECRETS_KEY_PREVIOUS (or SECRETS_KEY) to the key with id ${first.id}`);
    }
    expect(await raw(endpoints[0]!.id)).to.deep.equal(before);
    const missing = await cli(['add', '--channel', 'alpha', '--url', `${base}/never`], undefined);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('SECRETS_KEY is unset');
    expect((await store.client.count({ index: store.aliases.webhooks })).body.count).to.equal(1);
  });

  it('re-seals every secret under the new key with rotate-key (again: nothing to do), and deliveries still verify', async function () {
    await add('/two', first);
    const rotation = await cli(['rotate-key'], second);
    expect(rotation.code, rotation.stderr).to.equal(0);
    expect(rotation.stdout).to.contain(`2 of 2 endpoints re-sealed under key ${second.id}; 0 already were`);
    // Progress: one line per endpoint, on stderr.
    for (const e of endpoints) expect(rotation.stderr).to.match(new RegExp(`"endpointId":"${e.id}".*"msg":"webhook secret sealed under the current key"`));
    for (const e of endpoints) {
      const doc = await raw(e.id);
      expect(doc.secret).to.match(new RegExp(`^sealed:v1:${second.id}:`));
      if (doc.previousSecret !== null) expect(doc.previousSecret).to.match(new RegExp(`^sealed:v1:${second.id}:`));
    }
    const again = await cli(['rotate-key'], second);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.contain(`0 of 2 endpoints re-sealed under key ${second.id}; 2 already were`);

    // The worker holds the new key alone: the old one is no longer needed.
    workers = await start(testSecretsKeyAlone(second));
    await writeEpisode();
    await until(() => endpoints.every((e) => received.some((r) => r.path === e.path)), 'a delivery to each endpoint', { limitMs: 60_000 });
    for (const e of endpoints) {
      const got = received.find((r) => r.path === e.path)!;
      expect(verifies(e.secret, got), `${e.id} verifies with its secret`).to.equal(true);
      expect(verifies(newSecret(), got)).to.equal(false);
    }
  });

  it('seals a secret stored in clear (before sealing existed) when the worker starts, and signs with it', async function () {
    await workers?.close();
    workers = undefined;
    const legacy = { id: 'wh_00000000000c1ea2', secret: newSecret(), path: '/legacy' };
    const now = new Date().toISOString();
    const head = await raw(endpoints[0]!.id);
    await store.put('webhooks', legacy.id, {
      ...head,
      id: legacy.id,
      url: `${base}${legacy.path}`,
      secret: legacy.secret,
      previousSecret: null,
      previousSecretUntil: null,
      createdAt: now,
      rotatedAt: null,
    });
    expect((await raw(legacy.id)).secret).to.equal(legacy.secret);
    workers = await start(testSecretsKeyAlone(second));
    const doc = await raw(legacy.id);
    expect(doc.secret).to.match(new RegExp(`^sealed:v1:${second.id}:`));
    expect(JSON.stringify(doc)).to.not.contain(legacy.secret.slice('whsec_'.length));
    const before = received.length;
    await writeEpisode();
    await until(() => received.slice(before).some((r) => r.path === legacy.path), 'a delivery to the former clear endpoint', { limitMs: 60_000 });
    expect(
      verifies(
        legacy.secret,
        received.slice(before).find((r) => r.path === legacy.path)!,
      ),
    ).to.equal(true);
    await workers.close();
    workers = undefined;
  });

  it('holds the deliveries of an endpoint registered while the worker has no key, and delivers them once one with the key starts', async function () {
    for (const e of await listEndpoints({ client, aliases: store.aliases })) await removeEndpoint({ client, aliases: store.aliases }, e.id);
    workers = await start(undefined);
    const late = await add('/late', second);
    const cursor = (await raw(late.id)).cursorSeq;
    await writeEpisode();
    // Several dispatch runs (every 150 ms) see the endpoint and its new change without the key: none is sent. Counted
    // from the dispatcher's own completed runs, so a slow machine waits longer instead of checking too early.
    let runs = 0;
    workers.dispatch.on('completed', (_job, result: { endpoints: number }) => {
      if (result.endpoints > 0) runs++;
    });
    await until(() => runs >= 3, 'three dispatch runs that saw the endpoint', { limitMs: 60_000 });
    expect(received.filter((r) => r.path === late.path)).to.have.length(0);
    expect((await raw(late.id)).cursorSeq).to.equal(cursor);
    await workers.close();
    workers = await start(testSecretsKeyAlone(second));
    await until(() => received.some((r) => r.path === late.path), 'the held delivery', { limitMs: 60_000 });
    expect(
      verifies(
        late.secret,
        received.find((r) => r.path === late.path)!,
      ),
    ).to.equal(true);
    await workers.close();
    workers = undefined;
  });

  it('refuses to start the worker without SECRETS_KEY, or with another key, while endpoints exist', async function () {
    // The worker checks the passages index against its own embedder first: it makes its own in this prefix.
    const passages = Object.keys((await client.indices.getAlias({ name: store.aliases.passages })).body as Record<string, unknown>);
    await client.indices.delete({ index: passages.join(',') });
    const env = { INDEX_PREFIX: store.prefix, QUEUE_NAME: `${store.prefix}q` };
    const unset = await run('bin/worker.ts', ['--no-pipeline'], env);
    expect(unset.code, unset.stderr).to.equal(1);
    expect(unset.stderr).to.contain(`1 webhook endpoint exists and SECRETS_KEY is unset: set SECRETS_KEY to the key their secrets are sealed under (id ${second.id})`);
    expect(unset.stderr).to.not.contain('worker started');
    const wrong = await run('bin/worker.ts', ['--no-pipeline'], { ...env, SECRETS_KEY: stranger.value });
    expect(wrong.code, wrong.stderr).to.equal(1);
    expect(wrong.stderr).to.contain(`under key ${second.id}`);
    expect(wrong.stderr).to.contain(`SECRETS_KEY is key ${stranger.id}`);
    expect(wrong.stderr).to.not.contain('worker started');
  });
});

/** The keyring of `key` without its SECRETS_KEY_PREVIOUS. */
function testSecretsKeyAlone(key: TestSecretsKey): TestSecretsKey {
  return { ...key, env: { SECRETS_KEY: key.value }, keyring: keyringOf(loadConfig({ SECRETS_KEY: key.value }).secrets)! };
}
