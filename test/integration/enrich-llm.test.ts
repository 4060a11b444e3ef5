// The language-model path of enrichment against a real OpenAI-compatible chat server on loopback: node-llama-cpp serving
// SmolLM2-135M-Instruct (scripts/ops/llm-server.ts). A weak model, but a real one over the real protocol: what it writes
// is used only when it passes the schema and the checks, and every other answer leaves the local text, counted.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { createChatWriter, TITLE_MAX_CHARS, type ChatOutcome, type ChatWriterOptions } from '../../pipeline/enrich/llm.js';
import type { ChapterBrief } from '../../pipeline/enrich/types.js';
import { createLogger } from '../../core/ground/logger.js';
import { serveInChildProcess, type Served } from '../../scripts/lib/child.js';
import { ensureLlm } from '../../scripts/ops/provision/llm.js';

/** A chapter the small model answers well under the schema's grammar. */
const BEES: ChapterBrief = {
  language: 'en',
  localTitle: 'Bees Hives Winter',
  transcript:
    'Honey bees are dying in large numbers this winter. Beekeepers in Ohio lost half of their hives. Scientists say a mite called varroa spreads a virus that weakens the bees.',
  moments: [{ type: 'insight', text: 'Scientists say a mite called varroa spreads a virus that weakens the bees.', localTitle: 'A mite called varroa spreads a virus.' }],
};

/** A chapter where the small model fills the claim with something that has the grammar's shape but is no sentence. */
const COFFEE: ChapterBrief = {
  language: 'en',
  localTitle: 'Coffee Doctor Sleep',
  transcript: 'I drink three cups of coffee every morning. My doctor told me that coffee is fine for the heart. But too much coffee makes it hard to sleep at night.',
  moments: [{ type: 'quote', text: 'My doctor told me that coffee is fine for the heart.', localTitle: 'Coffee is fine for the heart.' }],
};

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
};

/**
 * A relay in front of the real server that answers like a server without JSON-schema output: a 400 naming
 * `response_format` for `json_schema`; other requests go through while `passes` lasts, then get a 503. Records the
 * format of every request.
 */
async function noSchemaRelay(target: string, passes: number) {
  const formats: string[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then(async (text) => {
      const format = (JSON.parse(text) as { response_format?: { type: string } }).response_format?.type ?? 'none';
      formats.push(format);
      const refuse = (status: number, message: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message } }));
      if (format === 'json_schema') return refuse(400, "response_format type 'json_schema' is not supported");
      if (passes-- <= 0) return refuse(503, 'busy');
      const answer = await fetch(`${target}${req.url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    formats,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('enrichment with a language model (a real chat server on loopback)', function () {
  this.timeout(180_000);
  const key = `sk-enrich-${randomBytes(12).toString('hex')}`;
  let server: Served;
  let outcomes: ChatOutcome[];
  let logged: string;

  /** A writer whose log lines (unredacted: the key must never reach the logger at all) and outcomes are kept. */
  const writer = (options: Partial<ChatWriterOptions> = {}) => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    return createChatWriter({ url: server.baseUrl, apiKey: key, log: pino({ level: 'debug' }, sink), onOutcome: (o) => outcomes.push(o), ...options });
  };

  before(async function () {
    // The test command provisions these (scripts/dev/test.ts); a suite run alone provisions them itself.
    const files =
      process.env.LLM_RUNTIME_DIR && process.env.LLM_MODEL_PATH
        ? { runtimeDir: process.env.LLM_RUNTIME_DIR, modelPath: process.env.LLM_MODEL_PATH }
        : await ensureLlm({ log: createLogger({ name: 'enrich-llm-test', level: 'warn', fd: 2 }) });
    server = await serveInChildProcess({ LLM_RUNTIME_DIR: files.runtimeDir, LLM_MODEL_PATH: files.modelPath }, { script: 'scripts/ops/llm-server.ts' });
  });

  after(async function () {
    await server?.stop();
  });

  beforeEach(function () {
    outcomes = [];
    logged = '';
  });

  afterEach(function () {
    expect(logged, 'a log line carries the API key').not.to.include(key);
  });

  it('uses a title and one claim per moment that pass the schema, and counts it ok', async function () {
    const writing = await writer().write(BEES);
    expect(outcomes).to.deep.equal(['ok']);
    expect(writing).not.to.equal(null);
    expect(writing!.title.length).to.be.within(3, TITLE_MAX_CHARS);
    expect(writing!.title).not.to.equal(BEES.localTitle);
    expect(writing!.claims).to.have.lengthOf(BEES.moments.length);
    expect(writing!.claims[0]).to.match(/^\p{Lu}.*[.!?]$/u);
  });

  it('refuses the answer of the model asked without a schema: null, counted malformed', async function () {
    expect(await writer({ responseFormat: 'none' }).write(BEES)).to.equal(null);
    expect(outcomes).to.deep.equal(['malformed']);
    expect(logged).to.include('"outcome":"malformed"');
  });

  it("refuses an answer of the grammar's shape whose claim is not a sentence: null, counted malformed", async function () {
    expect(await writer().write(COFFEE)).to.equal(null);
    expect(outcomes).to.deep.equal(['malformed']);
    expect(logged).to.include('is not a sentence');
  });

  it('asks a server that refuses a JSON schema for a JSON object instead, and keeps asking that way', async function () {
    const relay = await noSchemaRelay(server.baseUrl, 1);
    try {
      const w = writer({ url: relay.url });
      const first = await w.write(BEES);
      await w.write(BEES);
      expect(relay.formats).to.deep.equal(['json_schema', 'json_object', 'json_object']);
      // The real model's answer to a plain JSON request is used when it passes the checks, and refused when not.
      expect(outcomes).to.deep.equal([first === null ? 'malformed' : 'ok', 'error']);
    } finally {
      await relay.close();
    }
  });

  it('gives up on an answer slower than the timeout: null at the deadline, counted timeout', async function () {
    const started = Date.now();
    expect(await writer({ timeoutMs: 200 }).write(BEES)).to.equal(null);
    expect(Date.now() - started).to.be.below(5_000);
    expect(outcomes).to.deep.equal(['timeout']);
  });

  it('takes an error status or an unreachable service as null, counted error', async function () {
    expect(await writer({ url: `${server.baseUrl}/nowhere` }).write(BEES)).to.equal(null);
    expect(await writer({ url: 'http://127.0.0.1:9' }).write(BEES)).to.equal(null);
    expect(outcomes).to.deep.equal(['error', 'error']);
    expect(logged).to.include('HTTP 404');
  });

  it("throws the caller's own abort instead of counting it", async function () {
    const controller = new AbortController();
    const writing = writer().write(BEES, controller.signal);
    setTimeout(() => controller.abort(new Error('shutting down')), 100);
    let thrown: unknown;
    await writing.catch((error: unknown) => (thrown = error));
    expect((thrown as Error | undefined)?.message).to.equal('shutting down');
    expect(outcomes).to.deep.equal([]);
  });
});
