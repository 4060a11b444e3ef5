// Keeps a running process's embedder from meeting an index built by another one (after `npm run reindex` swapped the alias).
import type { Client } from '@opensearch-project/opensearch';
import { signatureOf, type Embedder } from './embedder.js';
import { EmbedderUnavailableError } from './embedder-pool.js';
import type { Logger } from '../ground/logger.js';
import { indexEmbedder, mismatchMessage } from './index-signature.js';

/** The index behind the alias was built by another embedder: this one's vectors must not meet it. */
export class IndexEmbedderMismatchError extends EmbedderUnavailableError {
  readonly code = 'embedder_mismatch';
  constructor(message: string) {
    super('failed', message);
    this.name = 'IndexEmbedderMismatchError';
  }
}

export interface IndexGuardOptions {
  client: Client;
  /** The passages alias searches and writes go through. */
  alias: string;
  /** How often the alias is looked at in the background, in ms. Default 1000. */
  recheckMs?: number;
  /** Called once per index found to be of another embedder (the worker stops there; the API goes on keyword-only). */
  onMismatch?: (message: string) => void;
  log?: Logger | undefined;
}

/** An embedder that checks the index behind the alias before each use; `stop()` ends its background check. */
export type GuardedEmbedder<E extends Embedder> = E & { stop(): void };

/**
 * Wraps `embedder` so that its vectors never meet an index of another embedder: before each
 * query or passages call, and every `recheckMs` in the background, the concrete index behind
 * `alias` is resolved, and its recorded embedder (read once per index) compared with this
 * one. Once they differ, every call fails with {@link IndexEmbedderMismatchError} (a search
 * then answers keyword-only, `degraded: "embedder_failed"`), until the process is restarted with
 * the new configuration. While the store cannot be asked, the last answer stands.
 */
export function guardIndexEmbedder<E extends Embedder>(embedder: E, { client, alias, recheckMs = 1000, onMismatch, log }: IndexGuardOptions): GuardedEmbedder<E> {
  const expected = signatureOf(embedder);
  const verdicts = new Map<string, string | null>(); // index → mismatch message, or null when it fits
  let refusal: string | undefined;

  const verdictFor = async (index: string): Promise<string | null> => {
    const known = verdicts.get(index);
    if (known !== undefined) return known;
    const verdict = mismatchMessage(await indexEmbedder(client, index), expected) ?? null;
    verdicts.set(index, verdict);
    if (verdict) {
      log?.error({ index, alias }, verdict);
      onMismatch?.(verdict);
    }
    return verdict;
  };

  const check = async (): Promise<void> => {
    try {
      const res = await client.indices.getAlias({ name: alias }, { ignore: [404] });
      const [index] = Object.keys((res.body ?? {}) as Record<string, unknown>).filter((k) => k !== 'error' && k !== 'status');
      if (!index) return; // no index yet: the first writer creates it for this embedder
      refusal = (await verdictFor(index)) ?? undefined;
    } catch (error) {
      log?.debug({ err: (error as Error).message }, 'could not check the passages index embedder; keeping the last answer');
    }
  };

  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    await check();
    if (refusal) throw new IndexEmbedderMismatchError(refusal);
    return work();
  };

  const timer = setInterval(() => void check(), recheckMs);
  timer.unref();

  return new Proxy(embedder, {
    get(target, prop, receiver) {
      if (prop === 'embedQuery') return (text: string) => guarded(() => target.embedQuery(text));
      if (prop === 'embedPassages') return (texts: string[]) => guarded(() => target.embedPassages(texts));
      if (prop === 'stop') return () => clearInterval(timer);
      if (prop === 'confirmIndex') return () => guarded(() => Promise.resolve());
      // Query-vector caches key on modelId: once the index is of another embedder, no cached vector is found for it.
      if (prop === 'modelId' && refusal) return `${target.modelId}\u0000refused`;
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as GuardedEmbedder<E>;
}

/**
 * At start: the one-line refusal when the index behind `alias` was built by another embedder
 * than `embedder`; undefined when it fits or there is no index yet (the first writer makes it).
 */
export async function startupMismatch(client: Client, alias: string, embedder: Embedder): Promise<string | undefined> {
  const res = await client.indices.getAlias({ name: alias }, { ignore: [404] });
  const [index] = Object.keys((res.body ?? {}) as Record<string, unknown>).filter((k) => k !== 'error' && k !== 'status');
  if (!index) return undefined;
  return mismatchMessage(await indexEmbedder(client, index), signatureOf(embedder));
}
