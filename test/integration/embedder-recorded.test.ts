// Commands that create the indices without embedding anything (the keys and webhooks CLIs, queued ingest) record the
// configured embedder in the passages index as ingest does, so the API and the worker accept the store they made.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { signatureOf } from '../../core/embedding/embedder.js';
import { indexAliases, deleteIndices, type Client } from '../../core/store/opensearch.js';
import { createIndexerEmbedder } from '../../core/embedding/indexer-embedder.js';
import { createIngestQueue, createRedisConnection } from '../../indexer/queue.js';
import { runScript, serveInChildProcess } from '../../scripts/lib/child.js';
import { startHashEmbeddingsServer, type HashEmbeddingsServer } from '../../scripts/lib/fakes/hash-embeddings-server.js';
import { privatePrefix, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';
import { skipUnprovisioned } from '../support/skip.js';

/** The `_meta.embedder` the passages index behind `prefix`'s alias records, as stored. */
async function recordedEmbedder(client: Client, prefix: string): Promise<unknown> {
  const res = await client.indices.getMapping({ index: indexAliases(prefix).passages });
  const [entry] = Object.values(res.body as Record<string, { mappings?: { _meta?: { embedder?: unknown } } }>);
  return entry?.mappings?._meta?.embedder;
}

/** What ingest records for the configuration of `env`: the signature of the embedder it makes. */
async function ingestWouldRecord(env: Record<string, string>): Promise<unknown> {
  return signatureOf(await createIndexerEmbedder(loadConfig({ ...process.env, ...env })));
}

/** A repo script run to its end with `env` on top of this process's environment; its exit status must be 0. */
async function runToEnd(file: string, args: string[], env: Record<string, string>): Promise<void> {
  const child = runScript(file, args, { ...process.env, LOG_LEVEL: 'warn', ...env });
  expect(await child.exited, child.stderr()).to.equal(0);
}

describe('an empty store’s indices record the configured embedder, whichever command creates them', function () {
  this.timeout(180_000);
  let client: Client;
  let embeddings: HashEmbeddingsServer;
  const prefixes: string[] = [];
  const fresh = (kind: string): string => {
    const prefix = privatePrefix(kind);
    prefixes.push(prefix);
    return prefix;
  };

  before(async function () {
    client = testClient();
    embeddings = await startHashEmbeddingsServer();
  });

  after(async function () {
    for (const prefix of prefixes) await deleteIndices(client, prefix);
    await client?.close();
    await embeddings?.close();
  });

  it('keys CLI with EMBEDDER=openai: the remote embedder’s identity, and the API starts on that store', async function () {
    const prefix = fresh('rec-keys');
    await runToEnd('bin/keys.ts', ['list', '--user', 'u_nobody'], { INDEX_PREFIX: prefix, ...embeddings.env });
    const recorded = await recordedEmbedder(client, prefix);
    expect(recorded).to.deep.equal(await ingestWouldRecord(embeddings.env));
    expect(recorded).to.deep.include({ kind: 'openai', model: embeddings.model, dimension: 384, pooling: 'server' });
    // The API refuses (exit 2) a store whose passages index records another embedder; this one it serves.
    const api = await serveInChildProcess({ INDEX_PREFIX: prefix, ...embeddings.env });
    await api.stop();
  });

  it('queued ingest with EMBEDDER=openai: the same identity', async function () {
    const prefix = fresh('rec-queued');
    const queueName = `test-ingest-${randomBytes(4).toString('hex')}`;
    try {
      await runToEnd('bin/ingest.ts', [SAMPLE_LIBRARY, '--no-wait'], { INDEX_PREFIX: prefix, QUEUE_NAME: queueName, ...embeddings.env });
    } finally {
      const connection = createRedisConnection(loadConfig(process.env).redisUrl);
      const queue = createIngestQueue({ connection, name: queueName });
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
    expect(await recordedEmbedder(client, prefix)).to.deep.equal(await ingestWouldRecord(embeddings.env));
  });

  it('keys CLI with the local model and a pooling of its own: the local embedder’s identity, dimension from the model', async function () {
    if (loadConfig(process.env).modelDir === undefined) skipUnprovisioned(this, "MODEL_DIR is not set (the embedding model's files)");
    const prefix = fresh('rec-local');
    const env = { EMBEDDER: 'local', MODEL_POOLING: 'mean' };
    await runToEnd('bin/keys.ts', ['list', '--user', 'u_nobody'], { INDEX_PREFIX: prefix, ...env });
    const recorded = await recordedEmbedder(client, prefix);
    expect(recorded).to.deep.equal(await ingestWouldRecord(env));
    expect(recorded).to.deep.include({ kind: 'local', pooling: 'mean', dimension: 384 });
  });
});
