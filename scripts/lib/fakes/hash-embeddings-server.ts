// An OpenAI-compatible `POST /v1/embeddings` on loopback that answers with the hash embedder's vectors: the CLIs under
// test run with `EMBEDDER=openai` pointed at it, through the product's remote path, without a model.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../../core/config/load.js';
import type { Embedder } from '../../../core/embedding/embedder.js';
import { configuredSignature } from '../../../core/embedding/configured.js';
import type { EmbedderSignature } from '../../../core/embedding/signature.js';
import { createHashEmbedder } from './hash-embedder.js';

export interface HashEmbeddingsServer {
  /** `EMBEDDINGS_URL`. */
  readonly url: string;
  /** `EMBEDDINGS_MODEL`: the only model the server answers for. */
  readonly model: string;
  /**
   * The variables that point a CLI (or `loadConfig`) at this server. The passage-vector cache is off, so every text
   * a CLI embeds reaches the server (and a slowed server slows every batch).
   */
  readonly env: Readonly<Record<string, string>>;
  /** The identity a process configured with {@link env} records in a passages index it creates. */
  readonly signature: EmbedderSignature;
  /** Texts embedded so far, over every request (a client's one-text dimension probe at start included). */
  readonly embedded: number;
  /** Requests answered with vectors so far. */
  readonly requests: number;
  /**
   * The hash embedder in this process under {@link signature}: the vectors the server gives, for what a test runs
   * in-process beside the CLIs (a worker, indices created first) so that both write one index.
   */
  embedder(): Embedder;
  close(): Promise<void>;
}

export interface HashEmbeddingsServerOptions {
  /** Vector length. Default 384 (bge-small's). */
  dimension?: number;
  /** Wait before answering each request, in ms: a worker's job stays in flight long enough to be caught. Default 0. */
  delayMs?: number;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Starts the server on a free loopback port. */
export async function startHashEmbeddingsServer({ dimension = 384, delayMs = 0 }: HashEmbeddingsServerOptions = {}): Promise<HashEmbeddingsServer> {
  const model = `test-hash-${dimension}`;
  const hash = createHashEmbedder(dimension);
  let embedded = 0;
  let requests = 0;

  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/v1/embeddings') {
        return answer(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
      }
      let body: { model?: unknown; input?: unknown };
      try {
        body = JSON.parse(await readBody(req)) as typeof body;
      } catch (error) {
        return answer(res, 400, { error: { message: `unreadable body: ${(error as Error).message}` } });
      }
      if (body.model !== model) return answer(res, 404, { error: { message: `model ${JSON.stringify(body.model)} not found; this server serves ${model}` } });
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      if (!Array.isArray(input) || input.length === 0 || !input.every((t): t is string => typeof t === 'string')) {
        return answer(res, 400, { error: { message: '`input` must be a string or a non-empty array of strings' } });
      }
      if (delayMs > 0) await sleep(delayMs);
      const vectors = await hash.embedPassages(input);
      embedded += input.length;
      requests++;
      answer(res, 200, {
        object: 'list',
        model,
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    })().catch((error: unknown) => {
      if (!res.headersSent) answer(res, 500, { error: { message: (error as Error).message } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = { EMBEDDER: 'openai', EMBEDDINGS_URL: url, EMBEDDINGS_MODEL: model, EMBED_CACHE_DIR: '' };
  // Derived as the product derives it from the same variables, so a drift in either shows as a refused index.
  const signature: EmbedderSignature = { ...configuredSignature(loadConfig({ ...process.env, ...env })), dimension };

  return {
    url,
    model,
    env,
    signature,
    get embedded() {
      return embedded;
    },
    get requests() {
      return requests;
    },
    embedder() {
      const inner = createHashEmbedder(dimension);
      return {
        modelId: model,
        dimension,
        signature,
        get embeddedCount() {
          return inner.embeddedCount;
        },
        embedPassages: (texts) => inner.embedPassages(texts),
        embedQuery: (text) => inner.embedQuery(text),
      };
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
