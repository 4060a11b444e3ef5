// The store as the operator's command lines (keys, webhooks) use it: indices ensured for the configured embedder, one
// operation run again with backoff while the store fails transiently, for up to `waitSeconds`.
import type { Config } from '../../core/config/load.js';
import type { Logger } from '../../core/ground/logger.js';
import { createOpenSearchClient, type Client, type IndexAliases } from '../../core/store/opensearch.js';
import { ensureConfiguredIndices } from '../../indexer/ensure-indices.js';
import { isTransientStoreError, retryTransient, storeFailure } from '../../core/store/transient.js';
import { describeFailure } from './reach.js';

/**
 * Runs `run` against the store. A reindex write-blocks the old indices until its alias swap, so a write during one
 * fails with `cluster_block_exception` and succeeds once it is over; an attempt may also time out after its write
 * landed, so `run` must be safe to run again. Past `waitSeconds`, `refuse` turns the last failure's one-line
 * explanation into the command's own error.
 */
export async function withOperatorStore<T>(
  { config, log, waitSeconds, index, refuse }: { config: Config; log: Logger; waitSeconds: number; index: string; refuse: (message: string) => Error },
  run: (deps: { client: Client; aliases: IndexAliases }) => Promise<T>,
): Promise<T> {
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
  try {
    return await retryTransient(
      async () => {
        const aliases = await ensureConfiguredIndices(client, config, { log });
        return await run({ client, aliases });
      },
      { budgetMs: waitSeconds * 1000, onRetry: (err, attempt) => log.warn({ reason: storeFailure(err)?.reason, attempt }, 'store busy; retrying') },
    );
  } catch (error) {
    if (!isTransientStoreError(error)) throw error;
    const failure = storeFailure(error);
    throw refuse(
      failure?.type === 'cluster_block_exception'
        ? `the ${index} index is still write-blocked after ${waitSeconds} s: a reindex is probably in progress; retry when it has finished`
        : failure?.unreachable
          ? `${describeFailure(error, config)} (tried for ${waitSeconds} s)`
          : `OpenSearch at ${config.opensearchUrl} still failing after ${waitSeconds} s (${failure?.reason}); retry shortly`,
    );
  } finally {
    await client.close();
  }
}
