// Hostile text on /v1/entities (security review 2026-12-01 #1): an instance of our own with a short NER deadline, never the shared one.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createLogger } from '../../core/ground/logger.js';
import { createNerClient, NerError } from '../../pipeline/enrich/ner.js';
import { freePort, waitFor } from '../../scripts/lib/child.js';
import { PROJECT_ROOT } from '../../scripts/ops/provision/paths.js';
import { ensureVenv } from '../../scripts/ops/provision/transcriber.js';
import { ensureNerModel, ensureWhisperBase } from '../../scripts/ops/provision/transcriber-models.js';
import { venvPython } from '../../scripts/ops/provision/transcriber-paths.js';

const SERVER = path.join(PROJECT_ROOT, 'services', 'transcriber', 'server.py');
const NER_TIMEOUT_S = 5;
const NORMAL = { texts: ['Adam Smith met Russ Roberts in London.'], language: 'en' };

interface Timed {
  status: number;
  body: { entities?: { text: string; label: string }[][]; error?: { code: string; message: string } };
  ms: number;
}

describe('transcription service: hostile text on /v1/entities (an instance of its own)', function () {
  this.timeout(3 * 60_000);
  let child: ChildProcess;
  let url: string;

  const timed = async (route: string, body?: unknown): Promise<Timed> => {
    const started = Date.now();
    const res = await fetch(`${url}${route}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Timed['body'], ms: Date.now() - started };
  };
  const health = async () => (await timed('/health')).body as unknown as { ner_overrun: number; ner_starts: number; ner_active: number };

  /** Sends `hostile`, then health and a normal entities request while it is handled (once the model is busy with it, when `busy`). */
  const beside = async (hostile: unknown, { busy = false } = {}) => {
    const slow = timed('/v1/entities', hostile);
    if (busy) expect(await waitFor(async () => (await health()).ner_active === 1, 5_000), 'the model took the hostile request').to.equal(true);
    const [alive, normal] = await Promise.all([timed('/health'), timed('/v1/entities', NORMAL)]);
    return { hostile: await slow, alive, normal };
  };

  before(async function () {
    const log = createLogger({ name: 'ner-hostile', fd: 2, level: 'warn' });
    const python = existsSync(venvPython()) ? venvPython() : await ensureVenv({ env: process.env, log });
    const [model, ner] = [await ensureWhisperBase({ log }), await ensureNerModel({ log })];
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const args = ['-B', SERVER, '--port', String(port), '--model', model, '--name', 'base', '--ner-model', ner, '--ner-timeout', String(NER_TIMEOUT_S)];
    child = spawn(python, args, { env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    const up = await waitFor(async () => (await fetch(`${url}/health`).catch(() => undefined))?.ok === true, 120_000);
    if (!up) throw new Error(`the service did not answer /health: ${stderr}`);
    expect((await timed('/v1/entities', NORMAL)).status, 'the entity process starts').to.equal(200);
  });

  after(function () {
    child?.kill('SIGTERM');
  });

  for (const [name, run] of [
    ['40 KB of "', '"'],
    ["40 KB of a'a'a'…", "a'"],
  ] as const) {
    it(`answers ${name} (two texts of 20,000 characters) within 5 s, and health and a normal request within 1 s meanwhile`, async function () {
      const text = run.repeat(20_000 / run.length);
      const { hostile, alive, normal } = await beside({ texts: [text, `${text} Adam Smith spoke.`.slice(-20_000)], language: 'en' });
      expect(hostile.status).to.equal(200);
      expect(hostile.ms).to.be.below(5_000);
      expect(hostile.body.entities).to.have.length(2);
      expect(alive.status).to.equal(200);
      expect(alive.ms).to.be.below(1_000);
      expect(normal.status).to.equal(200);
      expect(normal.ms).to.be.below(1_000);
      expect(normal.body.entities![0]!.map((e) => e.text)).to.deep.equal(['Adam Smith', 'Russ Roberts', 'London']);
    });
  }

  it('refuses one text of 40 KB at once with 413 text_too_long naming it', async function () {
    const got = await timed('/v1/entities', { texts: ['short', '"'.repeat(40_000)], language: 'en' });
    expect(got.status).to.equal(413);
    expect(got.body.error!.code).to.equal('text_too_long');
    expect(got.body.error!.message).to.contain('texts[1]');
    expect(got.ms).to.be.below(1_000);
  });

  it('stops a request past its deadline with 504 entities_timeout, keeps /health answering, and serves the next request', async function () {
    // Linear but slow even cut (a spaCy token per character): about 30 s of the model, past the 5 s deadline.
    const slow = 'http://' + 'a/'.repeat(9_000);
    const before = await health();
    const { hostile, alive, normal } = await beside({ texts: Array.from({ length: 10 }, () => slow), language: 'en' }, { busy: true });
    expect(hostile.status).to.equal(504);
    expect(hostile.body.error!.code).to.equal('entities_timeout');
    expect(hostile.ms).to.be.within(NER_TIMEOUT_S * 1000, NER_TIMEOUT_S * 1000 + 2_000);
    expect(alive.status).to.equal(200);
    expect(alive.ms).to.be.below(1_000);
    // The normal request waited for the model: the deadline, then a fresh process's start.
    expect(normal.status).to.equal(200);
    expect(normal.body.entities![0]!.map((e) => e.text)).to.include('Adam Smith');
    const after = await health();
    expect(after.ner_overrun).to.equal(before.ner_overrun + 1);
    expect(after.ner_starts).to.equal(before.ner_starts + 1);
  });

  it('the NER client sends a text over the limit in pieces and gives offsets into the whole text', async function () {
    const text = `${'We talked about the weather for a while. '.repeat(1_200)}Then Adam Smith spoke.`;
    expect(text.length).to.be.above(45_000);
    const [list] = await createNerClient({ url })([text], { language: 'en' });
    const smith = list!.find((e) => e.text === 'Adam Smith');
    expect(smith, 'the name after 45,000 characters').to.not.equal(undefined);
    expect(text.slice(smith!.start, smith!.end)).to.equal('Adam Smith');
  });

  it('the NER client takes an overrun as a failed NER, not retried', async function () {
    const before = await health();
    const recognise = createNerClient({ url, retries: 3, minBackoffMs: 10, maxBatchChars: 200_000 });
    const error = await recognise(
      Array.from({ length: 10 }, () => 'http://' + 'a/'.repeat(9_000)),
      { language: 'en' },
    ).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(NerError);
    expect((error as NerError).code).to.equal('ner_overrun');
    expect((await health()).ner_overrun, 'sent once: an overrun is not retried').to.equal(before.ner_overrun + 1);
  });
});
