// The stores: OpenSearch nodes and budget, Redis, the index prefix and layout, the queue.
import { address, choice, custom, integer, optionalText } from '../values.js';
import { computed, type Schema } from '../tree.js';
import { MAX_REPLICAS, readReplicas } from '../readers.js';
import { OPENSEARCH_URL, INDEX_PREFIX } from './shared.js';

export const STORES = {
  // Stores
  /** `OPENSEARCH_URL` normalised and joined again: what the client and child processes take. */
  opensearchUrl: computed([OPENSEARCH_URL], (nodes) => nodes.join(',')),
  /** Each node URL of `OPENSEARCH_URL`; the client spreads requests over them and routes around a dead one. */
  opensearchNodes: OPENSEARCH_URL,
  opensearchTimeoutMs: integer('OPENSEARCH_TIMEOUT_MS', 1500, 100, 600_000, "one request's budget over all its store reads; a store that does not answer in time is a 503"),
  redisUrl: address('REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:'], 'Redis: the ingest queue and the shared rate-limit counters (a password goes in the URL)'),
  indexPrefix: INDEX_PREFIX,
  /** How each new index is laid out over the nodes. */
  indexLayout: {
    shards: integer('INDEX_SHARDS', 1, 1, 1024, 'primary shards of every index created (ingest, worker, keys, reindex)'),
    replicas: custom(
      'INDEX_REPLICAS',
      { fallback: '0-1', accepts: `count 0–${MAX_REPLICAS}, or a range \`min-max\` (\`max\` a number or \`all\`)` },
      'replicas of every index created; a range follows the number of data nodes (none on one node, one on two or more)',
      readReplicas,
    ),
    vectorSource: choice(
      'INDEX_VECTOR_SOURCE',
      'derived',
      ['derived', 'stored'],
      'where a passages index created from now on keeps its vectors for `_source` reads: `derived` rebuilds them from the vector field (OpenSearch 2.19+), `stored` keeps them in `_source`',
    ),
  },
  queueName: computed(
    [optionalText('QUEUE_NAME', 'BullMQ queue of the indexer', { shown: '`$INDEX_PREFIX` + `ingest`' }), INDEX_PREFIX],
    (name, prefix) => name ?? `${prefix}ingest`,
  ),
} satisfies Schema;
