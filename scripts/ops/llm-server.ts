// A small OpenAI-compatible `POST /v1/chat/completions` over node-llama-cpp, on loopback, for the tests of the
// language-model path of enrichment: a real model over the real protocol. One request at a time; `response_format`
// `json_schema` and `json_object` become a grammar that constrains what the model can write.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { isLoopbackHost } from '../../core/config/values.js';
import { createLogger } from '../../core/ground/logger.js';

// The few parts of node-llama-cpp used here: it is installed under .cache by the provisioner, not in the project's
// node_modules, so its own types are not in reach of the type check.
type HistoryItem = { type: 'system'; text: string } | { type: 'user'; text: string } | { type: 'model'; response: string[] };
/** A grammar node-llama-cpp made; only handed back to it. */
type Grammar = object;
interface Sequence {
  clearHistory(): Promise<void>;
}
interface Session {
  setChatHistory(history: HistoryItem[]): void;
  promptWithMeta(
    prompt: string,
    options: { grammar?: Grammar; temperature: number; seed?: number; maxTokens: number; signal: AbortSignal; stopOnAbortSignal: boolean },
  ): Promise<{ responseText: string; stopReason: string }>;
  dispose(options?: { disposeSequence?: boolean }): void;
}
interface NodeLlamaCpp {
  getLlama(options: { gpu: false; build: 'never'; logLevel: string }): Promise<{
    loadModel(options: { modelPath: string }): Promise<{
      tokenize(text: string): unknown[];
      createContext(options: { contextSize: number; threads: number }): Promise<{ getSequence(): Sequence }>;
    }>;
    createGrammarForJsonSchema(schema: unknown): Promise<Grammar>;
    getGrammarFor(type: 'json'): Promise<Grammar>;
  }>;
  LlamaChatSession: new (options: { contextSequence: Sequence; autoDisposeSequence: boolean }) => Session;
}

const opts = new Command()
  .name('llm-server')
  .description('Serve a GGUF model as an OpenAI-compatible POST /v1/chat/completions on loopback (tests only).')
  .option('--model <file>', 'GGUF model file', process.env.LLM_MODEL_PATH)
  .option('--runtime <dir>', 'folder whose node_modules holds node-llama-cpp (scripts/ops/provision/llm.ts)', process.env.LLM_RUNTIME_DIR)
  .option('--host <host>', 'loopback interface to bind', process.env.HOST ?? '127.0.0.1')
  .option('--port <port>', 'port (0: any free one)', process.env.PORT ?? '0')
  .option('--context-size <tokens>', 'context of the model, in tokens', '4096')
  // Two threads on two busy cores were ten times slower than one here: they wait on each other.
  .option('--threads <n>', 'CPU threads of the model', '1')
  .parse()
  .opts<{ model?: string; runtime?: string; host: string; port: string; contextSize: string; threads: string }>();

const log = createLogger({ name: 'llm-server', level: process.env.LOG_LEVEL ?? 'info', fd: 2 });

/** Largest request body read. */
const MAX_BODY_BYTES = 1024 ** 2;
/** Tokens written when the request sets no `max_tokens`. */
const DEFAULT_MAX_TOKENS = 512;

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

interface ChatRequest {
  messages: ChatMessage[];
  temperature: number;
  seed: number | undefined;
  maxTokens: number;
  responseFormat: { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; schema: unknown };
}

/** The request body as far as this server reads it; anything it cannot honour is a 400, as OpenAI answers. */
function readRequest(body: unknown): ChatRequest {
  const b = (body ?? {}) as Record<string, unknown>;
  const messages = b.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw new RequestError(400, 'messages must be a non-empty array', 'messages');
  for (const m of messages as Record<string, unknown>[]) {
    if (!['system', 'user', 'assistant'].includes(m?.role as string) || typeof m?.content !== 'string') {
      throw new RequestError(400, 'each message needs a role (system, user, assistant) and a string content', 'messages');
    }
  }
  if ((messages.at(-1) as ChatMessage).role !== 'user') throw new RequestError(400, 'the last message must be the user’s', 'messages');
  const format = (b.response_format ?? { type: 'text' }) as Record<string, unknown>;
  let responseFormat: ChatRequest['responseFormat'];
  if (format.type === 'text' || format.type === 'json_object') responseFormat = { type: format.type };
  else if (format.type === 'json_schema' && typeof (format.json_schema as { schema?: unknown } | undefined)?.schema === 'object') {
    responseFormat = { type: 'json_schema', schema: (format.json_schema as { schema: unknown }).schema };
  } else throw new RequestError(400, 'response_format must be text, json_object, or json_schema with a schema', 'response_format');
  const number = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
  return {
    messages: messages as ChatMessage[],
    temperature: number(b.temperature, 1),
    seed: typeof b.seed === 'number' ? b.seed : undefined,
    maxTokens: Math.max(1, Math.min(4096, number(b.max_tokens ?? b.max_completion_tokens, DEFAULT_MAX_TOKENS))),
    responseFormat,
  };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new RequestError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new RequestError(400, 'the body is not JSON');
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function main(): Promise<void> {
  if (!opts.model || !opts.runtime) throw new Error('--model and --runtime (or LLM_MODEL_PATH and LLM_RUNTIME_DIR) are required: see scripts/ops/provision/llm.ts');
  if (!isLoopbackHost(opts.host)) throw new Error(`--host ${opts.host} is not loopback: this server has no authentication and is for tests only`);
  const entry = path.join(opts.runtime, 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
  const { getLlama, LlamaChatSession } = (await import(pathToFileURL(entry).href)) as NodeLlamaCpp;
  const started = Date.now();
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'warn' });
  const model = await llama.loadModel({ modelPath: opts.model });
  const context = await model.createContext({ contextSize: Number(opts.contextSize), threads: Number(opts.threads) });
  const sequence = context.getSequence();
  const modelName = path.basename(opts.model).replace(/\.gguf$/i, '');
  const grammars = new Map<string, Promise<Grammar>>();
  const grammarFor = (format: ChatRequest['responseFormat']): Promise<Grammar> | undefined => {
    if (format.type === 'text') return undefined;
    const key = format.type === 'json_object' ? 'json' : JSON.stringify(format.schema);
    if (!grammars.has(key)) {
      const made = format.type === 'json_object' ? llama.getGrammarFor('json') : llama.createGrammarForJsonSchema(format.schema);
      made.catch(() => grammars.delete(key));
      grammars.set(key, made);
    }
    return grammars.get(key);
  };

  /** One completion on the one sequence, which is cleared afterwards. */
  async function complete(request: ChatRequest, signal: AbortSignal) {
    let grammar: Grammar | undefined;
    try {
      grammar = await grammarFor(request.responseFormat);
    } catch (error) {
      throw new RequestError(400, `the JSON schema cannot be turned into a grammar: ${(error as Error).message}`, 'response_format');
    }
    const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
    const turns = request.messages.filter((m) => m.role !== 'system');
    const history: HistoryItem[] = [
      ...(system.length > 0 ? [{ type: 'system' as const, text: system.join('\n\n') }] : []),
      ...turns.slice(0, -1).map((m): HistoryItem => (m.role === 'user' ? { type: 'user', text: m.content } : { type: 'model', response: [m.content] })),
    ];
    const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
    try {
      session.setChatHistory(history);
      const prompt = turns.at(-1)!.content;
      const promptTokens = model.tokenize(request.messages.map((m) => m.content).join('\n')).length;
      const answer = await session.promptWithMeta(prompt, {
        ...(grammar ? { grammar } : {}),
        temperature: request.temperature,
        ...(request.seed === undefined ? {} : { seed: request.seed }),
        maxTokens: request.maxTokens,
        signal,
        stopOnAbortSignal: true,
      });
      const completionTokens = model.tokenize(answer.responseText).length;
      return {
        id: `chatcmpl-${Date.now().toString(36)}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: modelName,
        choices: [{ index: 0, message: { role: 'assistant', content: answer.responseText }, finish_reason: answer.stopReason === 'maxTokens' ? 'length' : 'stop' }],
        usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      };
    } finally {
      session.dispose({ disposeSequence: false });
      await sequence.clearHistory();
    }
  }

  // One request at a time: each waits for the one before it; a client that left while waiting is skipped.
  let queue: Promise<unknown> = Promise.resolve();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && (url.pathname === '/healthz' || url.pathname === '/health')) return send(res, 200, { status: 'ok', model: modelName });
    if (req.method === 'GET' && url.pathname === '/v1/models') return send(res, 200, { object: 'list', data: [{ id: modelName, object: 'model', owned_by: 'local' }] });
    if (url.pathname !== '/v1/chat/completions') return send(res, 404, { error: { message: `no route ${req.method} ${url.pathname}`, type: 'invalid_request_error' } });
    if (req.method !== 'POST') return send(res, 405, { error: { message: 'use POST', type: 'invalid_request_error' } });
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const handle = async () => {
      const request = readRequest(await readBody(req));
      if (gone.signal.aborted) return;
      const started = Date.now();
      const answer = await complete(request, gone.signal);
      log.info({ ms: Date.now() - started, format: request.responseFormat.type, aborted: gone.signal.aborted, tokens: answer.usage.completion_tokens }, 'chat completion');
      send(res, 200, answer);
    };
    const turn = queue.then(handle).catch((error: unknown) => {
      if (error instanceof RequestError) return send(res, error.status, { error: { message: error.message, type: 'invalid_request_error', param: error.param ?? null } });
      log.error({ err: (error as Error).message }, 'chat completion failed');
      send(res, 500, { error: { message: (error as Error).message, type: 'server_error' } });
    });
    queue = turn;
  });
  server.listen(Number(opts.port), opts.host, () => {
    const { port } = server.address() as AddressInfo;
    log.info({ url: `http://${opts.host}:${port}`, model: modelName, ms: Date.now() - started }, 'chat server ready');
  });
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop).once('SIGINT', stop);
}

main().catch((error: unknown) => {
  log.fatal({ err: (error as Error).message }, 'the chat server did not start');
  process.exit(1);
});
