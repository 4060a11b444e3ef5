// Webhooks end to end against the real OpenSearch and Redis: endpoints registered with the CLI, changes written by the
// indexer, delivered by the worker's queues to a loopback receiver that verifies them with the reference library.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { episodeRecord, type ApiTestStore } from '../support/api-fixture.js';
import { testClient } from '../support/indexer-env.js';
import { runEntry, type EntryRun } from '../support/run-entry.js';
import { createIndexedTestWorld } from '../support/indexed-world.js';
import { dropWebhookQueues, until } from '../support/webhooks-env.js';
import { indexEpisode, type IndexContext } from '../../indexer/load-episode.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { loadConfig } from '../../core/config/load.js';
import type { Client } from '../../core/store/opensearch.js';
import { changesAfter } from '../../core/changes/read.js';
import { memberView } from '../../core/changes/views.js';
import { deliveryJobId, webhookQueueNames } from '../../pipeline/webhooks/queues.js';
import { getEndpoint, listEndpoints, newEndpoint, removeEndpoint, storeEndpoint, type EndpointDoc } from '../../pipeline/webhooks/store.js';
import { startWebhookWorkers, type WebhookWorkers } from '../../pipeline/webhooks/worker.js';
import { testSecretsKey } from '../support/secrets-key.js';

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

type Responder = (req: IncomingMessage, res: ServerResponse, nth: number) => void;

/** A loopback receiver: records every request, answers each path with its responder (204 by default). */
async function startReceiver(): Promise<{
  url: (path: string) => string;
  requests: (path: string) => Received[];
  on: (path: string, r: Responder) => void;
  close: () => Promise<void>;
}> {
  const received: Received[] = [];
  const responders = new Map<string, Responder>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const nth = received.filter((r) => r.path === path).length;
      const respond = responders.get(path);
      if (respond) respond(req, res, nth);
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests: (path) => received.filter((r) => r.path === path),
    on: (path, r) => responders.set(path, r),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('webhooks: signed deliveries of the change feed', function () {
  this.timeout(120_000);
  let client: Client;
  let store: ApiTestStore;
  let ctx: IndexContext;
  let connection: Redis;
  let workers: WebhookWorkers;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let episodes = 0;
  const key = testSecretsKey();

  const cli = (args: string[], env: Record<string, string> = {}): Promise<EntryRun> =>
    runEntry('bin/webhooks.ts', args, { INDEX_PREFIX: store.prefix, OUTBOUND_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn', SECRETS_KEY: key.value, ...env });

  /** `add` through the CLI; returns the endpoint id and the secret from the last line. */
  async function addWithCli(path: string, channel = 'alpha'): Promise<{ id: string; secret: string }> {
    const run = await cli(['add', '--channel', channel, '--url', receiver.url(path)]);
    expect(run.code, run.stderr).to.equal(0);
    const lines = run.stdout.trim().split('\n');
    return { id: /^(wh_[0-9a-f]{16}) /.exec(lines[0]!)![1]!, secret: lines.at(-1)! };
  }

  async function addDirect(path: string): Promise<{ id: string; secret: string }> {
    const created = newEndpoint({ url: receiver.url(path), keyring: key.keyring, allowPrivate: true });
    await storeEndpoint({ client, aliases: store.aliases }, 'alpha', created);
    return created;
  }

  /** A new episode of alpha through the indexer: one `episode.created` change. Returns the change as the API shows it. */
  async function writeEpisode(): Promise<{ id: string; episodeId: string }> {
    const id = `ep_wh${String(++episodes).padStart(3, '0')}`;
    await indexEpisode(ctx, episodeRecord(id, 'ch_alpha', { status: 'indexed' }));
    await client.indices.refresh({ index: store.aliases.changes });
    const rows = await changesAfter(client, store.aliases.changes, { channelId: 'ch_alpha', afterSeq: 0, size: 1000 });
    const change = rows.find((r) => r.episodeId === id)!;
    return { id: change.id, episodeId: id };
  }

  const verify = (secret: string, r: Received) => new Webhook(secret).verify(r.body, r.headers);

  before(async function () {
    client = testClient();
    ({ store, ctx } = await createIndexedTestWorld(client));
    receiver = await startReceiver();
    connection = createRedisConnection(loadConfig(process.env).redisUrl);
    workers = await start();
  });

  /** The worker's webhook queues, as `npm run worker` starts them, with short waits. */
  function start(): Promise<WebhookWorkers> {
    return startWebhookWorkers({
      connection,
      indexPrefix: store.prefix,
      store: { client, aliases: store.aliases },
      keyring: key.keyring,
      outbound: { allowPrivate: true, userAgent: 'CreatorContentAPI/test (+http://localhost)', timeoutMs: 2000 },
      // Short waits through options: 150 ms between attempts, three attempts in all.
      retry: { schedule: [150, 150], jitter: 0, maxRetryAfterMs: 5000 },
      dispatchEveryMs: 150,
    });
  }

  afterEach(async function () {
    for (const e of await listEndpoints({ client, aliases: store.aliases })) await removeEndpoint({ client, aliases: store.aliases }, e.id);
  });

  after(async function () {
    await workers?.close();
    await dropWebhookQueues(connection, store.prefix);
    connection?.disconnect();
    await receiver?.close();
    await store?.drop();
    await client?.close();
  });

  it('delivers a change to a local receiver, signed so that the reference library verifies it', async function () {
    const { id, secret } = await addWithCli('/a');
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{32}$/);
    const change = await writeEpisode();
    await until(() => receiver.requests('/a').length === 1, 'the delivery');
    const [got] = receiver.requests('/a');
    const rows = await changesAfter(client, store.aliases.changes, { channelId: 'ch_alpha', afterSeq: 0, size: 1000 });
    const asTheApiShowsIt = memberView(rows.find((r) => r.id === change.id)!);
    expect(verify(secret, got!)).to.deep.equal({ type: 'episode.created', timestamp: asTheApiShowsIt.occurredAt, data: asTheApiShowsIt });
    expect(got!.headers['webhook-id']).to.equal(change.id);
    expect(got!.headers['content-type']).to.equal('application/json');
    expect(got!.headers['user-agent']).to.equal('CreatorContentAPI/test (+http://localhost)');
    expect(Math.abs(Number(got!.headers['webhook-timestamp']) - Date.now() / 1000)).to.be.below(60);
    // The signature is real: a changed body, or another secret, is refused by the same library.
    expect(() => new Webhook(secret).verify(got!.body.replace('episode.created', 'episode.deleted'), got!.headers)).to.throw('No matching signature found');
    expect(() => new Webhook('whsec_' + Buffer.alloc(24, 7).toString('base64')).verify(got!.body, got!.headers)).to.throw('No matching signature found');
    // The dispatcher moves the endpoint's cursor once the delivery is queued, which can be after the receiver has it.
    const seq = rows.find((r) => r.id === change.id)!.seq;
    await until(async () => (await getEndpoint({ client, aliases: store.aliases }, id))?.cursorSeq === seq, "the endpoint's cursor past the change");
  });

  it('sends a signed test event on asking (`test`), and `deliveries` lists it beside the changes, with status, latency and answer', async function () {
    receiver.on('/t', (_req, res, nth) => (nth === 1 ? res.writeHead(200).end('received <b>fine</b>\u0007') : res.writeHead(503).end('down')));
    const { id, secret } = await addWithCli('/t');
    const sent = await cli(['test', id]);
    expect(sent.code, sent.stderr).to.equal(0);
    const [got] = receiver.requests('/t');
    const body = verify(secret, got!) as { type: string; data: { endpointId: string; channel: string } };
    expect(body.type).to.equal('webhook.test');
    expect(body.data).to.include({ endpointId: id, channel: 'alpha' });
    expect(got!.headers['webhook-id']).to.match(/^test_[0-9a-f]{16}$/);
    const [at, kind, eventId, status, latency, answer] = sent.stdout.replace(/\n$/, '').split('\t');
    expect([kind, eventId, status, answer]).to.deep.equal(['test', got!.headers['webhook-id'], 'ok 200', 'received <b>fine</b> ']);
    expect(Date.parse(at!)).to.be.closeTo(Date.now(), 60_000);
    expect(latency).to.match(/^\d+ ms$/);
    // A test event is no change: the endpoint's record of deliveries is untouched.
    expect((await getEndpoint({ client, aliases: store.aliases }, id))?.lastDeliveryAt).to.equal(null);

    const failed = await cli(['test', id]);
    expect(failed.code).to.equal(1);
    expect(failed.stdout).to.match(/\ttest\ttest_[0-9a-f]{16}\tfailed 503\t\d+ ms\tdown\n$/);
    receiver.on('/t', (_req, res) => res.writeHead(204).end());
    const change = await writeEpisode();
    await until(async () => (await getEndpoint({ client, aliases: store.aliases }, id))?.lastDeliveryStatus === '204', 'the change to be delivered');
    const listed = await cli(['deliveries', id]);
    expect(listed.code, listed.stderr).to.equal(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((r) => [r[1], r[3]])).to.deep.equal([
      ['change', 'ok 204'],
      ['test', 'failed 503'],
      ['test', 'ok 200'],
    ]);
    expect(rows[0]![2]).to.equal(change.id);
  });

  it('retries after a 500 with the same webhook-id, and the retry verifies; list shows the last delivery', async function () {
    receiver.on('/b', (_req, res, nth) => res.writeHead(nth === 1 ? 500 : 200).end('ok'));
    const { id, secret } = await addWithCli('/b');
    const change = await writeEpisode();
    await until(() => receiver.requests('/b').length === 2, 'the retry');
    const [first, retry] = receiver.requests('/b');
    expect(first!.headers['webhook-id']).to.equal(change.id);
    expect(retry!.headers['webhook-id']).to.equal(change.id);
    expect((verify(secret, retry!) as { data: { id: string } }).data.id).to.equal(change.id);
    await until(async () => (await getEndpoint({ client, aliases: store.aliases }, id))?.lastDeliveryStatus === '200', 'the success to be recorded');
    const list = await cli(['list']);
    expect(list.code, list.stderr).to.equal(0);
    const line = list.stdout.split('\n').find((l) => l.startsWith(id))!;
    const [, channel, url, last, failures, state] = line.split('\t');
    expect([channel, url, failures, state]).to.deep.equal(['alpha', receiver.url('/b'), 'failures 0', 'ok']);
    expect(last).to.match(/^last \d{4}-\d\d-\d\dT\S+Z 200$/);
    expect(list.stdout).to.not.include(secret);
  });

  it('treats a redirect as a failure without following it, and marks the endpoint failing once retries run out', async function () {
    receiver.on('/c', (_req, res) => res.writeHead(307, { location: receiver.url('/c-elsewhere') }).end());
    const { id } = await addDirect('/c');
    await writeEpisode();
    await until(async () => (await getEndpoint({ client, aliases: store.aliases }, id))?.failingSince != null, 'the endpoint to be marked failing');
    expect(receiver.requests('/c')).to.have.length(3);
    expect(receiver.requests('/c-elsewhere')).to.have.length(0);
    const list = await cli(['list']);
    const line = list.stdout.split('\n').find((l) => l.startsWith(id))!;
    expect(line).to.match(/\tlast \S+ 307\tfailures 3\tfailing since \S+Z$/);
  });

  it('honours Retry-After on a 429 before trying again', async function () {
    receiver.on('/d', (_req, res, nth) => (nth === 1 ? res.writeHead(429, { 'retry-after': '2' }).end() : res.writeHead(204).end()));
    await addDirect('/d');
    await writeEpisode();
    await until(() => receiver.requests('/d').length === 2, 'the retry');
    const [first, retry] = receiver.requests('/d');
    // The schedule alone would retry after 150 ms; the endpoint asked for 2 s.
    expect(retry!.at - first!.at).to.be.at.least(1900);
  });

  it('signs with the new secret after rotate: the old one no longer verifies new deliveries (both do during a grace period)', async function () {
    const { id, secret: old } = await addWithCli('/e');
    await writeEpisode();
    await until(() => receiver.requests('/e').length === 1, 'the first delivery');
    expect(() => verify(old, receiver.requests('/e')[0]!)).to.not.throw();

    const rotated = await cli(['rotate', id]);
    expect(rotated.code, rotated.stderr).to.equal(0);
    const fresh = rotated.stdout.trim().split('\n').at(-1)!;
    expect(fresh)
      .to.match(/^whsec_/)
      .and.not.equal(old);
    await writeEpisode();
    await until(() => receiver.requests('/e').length === 2, 'the delivery after the rotation');
    const after = receiver.requests('/e')[1]!;
    expect(() => verify(fresh, after)).to.not.throw();
    expect(() => verify(old, after)).to.throw('No matching signature found');

    const graceful = await cli(['rotate', id, '--grace', '3600']);
    expect(graceful.code, graceful.stderr).to.equal(0);
    const newest = graceful.stdout.trim().split('\n').at(-1)!;
    await writeEpisode();
    await until(() => receiver.requests('/e').length === 3, 'the delivery during the grace period');
    const during = receiver.requests('/e')[2]!;
    expect(during.headers['webhook-signature']!.split(' ')).to.have.length(2);
    expect(() => verify(newest, during)).to.not.throw();
    expect(() => verify(fresh, during)).to.not.throw();
    expect(() => verify(old, during)).to.throw('No matching signature found');
  });

  it('stops deliveries once an endpoint is removed, pending retries included', async function () {
    // Retry-After keeps the retry pending (5 s) while the CLI removes the endpoint.
    receiver.on('/f', (_req, res) => res.writeHead(503, { 'retry-after': '5' }).end());
    const removed = await addWithCli('/f');
    const witness = await addDirect('/g');
    const first = await writeEpisode();
    await until(() => receiver.requests('/f').length >= 1, 'the first failed attempt');
    const run = await cli(['remove', removed.id]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout.trim()).to.equal(`${removed.id} removed`);
    const queue = new Queue(webhookQueueNames(store.prefix).deliver, { connection });
    try {
      // The pending retry finds the endpoint gone and ends without sending.
      await until(async () => (await queue.getJob(deliveryJobId(removed.id, first.id)))?.returnvalue?.status === 'removed', 'the pending retry to end');
    } finally {
      await queue.close();
    }
    const attempts = receiver.requests('/f').length;
    await writeEpisode();
    await until(() => receiver.requests('/g').length === 2, 'the witness to get the next change');
    expect(receiver.requests('/f')).to.have.length(attempts);
    expect(attempts).to.equal(1);
    expect(witness.id).to.match(/^wh_/);
  });

  it('resumes from the stored cursor after a restart: a change written while no worker ran is delivered', async function () {
    const { secret } = await addDirect('/r');
    await writeEpisode();
    await until(() => receiver.requests('/r').length === 1, 'the delivery before the restart');
    await workers.close();
    const missed = await writeEpisode();
    workers = await start();
    await until(() => receiver.requests('/r').length === 2, 'the delivery after the restart');
    const got = receiver.requests('/r')[1]!;
    expect(got.headers['webhook-id']).to.equal(missed.id);
    expect(() => verify(secret, got)).to.not.throw();
  });

  it('refuses an unknown channel, a plain http URL off loopback and an unknown id with one line and exit 1', async function () {
    const unknown = await cli(['add', '--channel', 'no-such-show', '--url', 'https://hooks.example.com/in']);
    expect([unknown.code, unknown.stderr.trim()]).to.deep.equal([1, 'webhooks: no channel "no-such-show"']);
    const insecure = await cli(['add', '--channel', 'alpha', '--url', 'http://hooks.example.com/in']);
    expect(insecure.code).to.equal(1);
    expect(insecure.stderr.trim().split('\n')).to.have.length(1);
    expect(insecure.stderr).to.match(/^webhooks: plain http is refused/);
    const loopbackWithoutOptIn = await cli(['add', '--channel', 'alpha', '--url', receiver.url('/h')], { OUTBOUND_ALLOW_PRIVATE: 'false' });
    expect(loopbackWithoutOptIn.code).to.equal(1);
    expect(loopbackWithoutOptIn.stderr).to.match(/^webhooks: plain http is refused/);
    const rotate = await cli(['rotate', 'wh_0000000000000000']);
    expect([rotate.code, rotate.stderr.trim()]).to.deep.equal([1, 'webhooks: no webhook endpoint "wh_0000000000000000"']);
    expect((await listEndpoints({ client, aliases: store.aliases })).map((e: EndpointDoc) => e.url)).to.deep.equal([]);
  });
});
