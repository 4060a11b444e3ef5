// What one client can hold of the transcription service (review 2026-11-27 #9): an instance of our own with small limits, never the shared one.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { createLogger } from '../../core/ground/logger.js';
import { transcribeFile, TranscribeError } from '../../pipeline/transcribe/transcribe.js';
import { freePort, waitFor } from '../../scripts/lib/child.js';
import { PROJECT_ROOT } from '../../scripts/ops/provision/paths.js';
import { ensureSpeechSamples, SPEECH_SAMPLES } from '../../scripts/ops/provision/speech-samples.js';
import { ensureVenv } from '../../scripts/ops/provision/transcriber.js';
import { ensureWhisperBase } from '../../scripts/ops/provision/transcriber-models.js';
import { venvPython } from '../../scripts/ops/provision/transcriber-paths.js';

const SERVER = path.join(PROJECT_ROOT, 'services', 'transcriber', 'server.py');
const API_KEY = 'limits-test-key';
const MAX_BYTES = 40 * 1024 ** 2;
const REQUEST_TIMEOUT_S = 3;

/** The resident memory of a process, bytes. */
function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/** Sends a POST's headers only (the body announced by `length` never comes) and resolves with the answer. */
function announce(url: string, length: number, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL('/v1/audio/transcriptions', url),
      { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(length), ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.flushHeaders();
  });
}

describe('transcription service limits (an instance of its own)', function () {
  this.timeout(5 * 60_000);
  let child: ChildProcess;
  let url: string;
  let clip: string;
  const counts = async () => (await (await fetch(`${url}/health`)).json()) as { transcribed: number; cut: number };

  before(async function () {
    const log = createLogger({ name: 'limits', fd: 2, level: 'warn' });
    // The venv the shared service runs from, as it is: never rebuilt under it here.
    const python = existsSync(venvPython()) ? venvPython() : await ensureVenv({ env: process.env, log });
    const model = await ensureWhisperBase({ log });
    clip = path.join(await ensureSpeechSamples({ log }), `${SPEECH_SAMPLES.clips[1]}.wav`);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const args = ['-B', SERVER, '--port', String(port), '--model', model, '--name', 'base'];
    args.push('--request-timeout', String(REQUEST_TIMEOUT_S), '--max-uploads', '2');
    // The upload limit from the environment, as compose gives it (the provisioner passes --max-bytes instead).
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', TRANSCRIBE_API_KEY: API_KEY, TRANSCRIBE_MAX_UPLOAD_BYTES: String(MAX_BYTES) };
    child = spawn(python, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    const up = await waitFor(async () => (await fetch(`${url}/health`).catch(() => undefined))?.ok === true, 120_000);
    if (!up) throw new Error(`the service did not answer /health: ${stderr}`);
  });

  after(function () {
    child?.kill('SIGTERM');
  });

  it('streams a 32 MB upload to disk: the service grows by far less than the upload while it arrives', async function () {
    const before = rssBytes(child.pid!);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(child.pid!))), 20);
    const form = new FormData();
    form.append('model', 'base');
    form.append('response_format', 'srt'); // refused only once the body is read: the upload is parsed, nothing decoded
    form.append('file', new Blob([new Uint8Array(32 * 1024 ** 2)]), 'big.wav');
    const res = await fetch(`${url}/v1/audio/transcriptions`, { method: 'POST', body: form, headers: { authorization: `Bearer ${API_KEY}` } });
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes(child.pid!));
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).to.equal('response_format');
    // Parsed whole in memory (as before) the body cost about 9 times its size; streamed, a few chunks.
    expect(peak - before, `grew ${Math.round((peak - before) / 1024 ** 2)} MB`).to.be.below(8 * 1024 ** 2);
  });

  it('cuts off a client trickling its upload after the request timeout, while another upload is transcribed', async function () {
    const before = await counts();
    const started = Date.now();
    const trickler = net.connect(Number(new URL(url).port), '127.0.0.1');
    const closed = new Promise<number>((resolve) => trickler.on('close', () => resolve(Date.now() - started)));
    trickler.on('error', () => undefined);
    trickler.write(
      `POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${API_KEY}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n--b\r\n`,
    );
    const drip = setInterval(() => trickler.writable && trickler.write('x'), 200); // never idle long enough for a read timeout
    try {
      const served = await transcribeFile(clip, { url, model: 'base', apiKey: API_KEY, maxUploadBytes: MAX_BYTES, timeoutMs: 4 * 60_000 });
      expect(served.segments.map((s) => s.text).join(' ')).to.match(/ill.disposed young man/i);
      const cutAfterMs = await closed;
      expect(cutAfterMs).to.be.within(REQUEST_TIMEOUT_S * 1000 - 100, REQUEST_TIMEOUT_S * 1000 + 3000);
    } finally {
      clearInterval(drip);
      trickler.destroy();
    }
    const after = await counts();
    expect(after.cut).to.equal(before.cut + 1);
    expect(after.transcribed).to.equal(before.transcribed + 1);
  });

  it('refuses an upload announced larger than its limit (TRANSCRIBE_MAX_UPLOAD_BYTES) with 413 before reading its body', async function () {
    const { status, body } = await announce(url, MAX_BYTES + 1024 ** 2, { authorization: `Bearer ${API_KEY}` });
    expect(status).to.equal(413);
    expect((JSON.parse(body) as { error: { code: string } }).error.code).to.equal('file_too_large');
  });

  it('refuses a transcription without the shared bearer key (401) and keeps /health open', async function () {
    const { status, body } = await announce(url, 1000);
    expect(status).to.equal(401);
    expect((JSON.parse(body) as { error: { code: string } }).error.code).to.equal('invalid_api_key');
    const err = await transcribeFile(clip, { url, model: 'base', apiKey: 'a wrong key', maxUploadBytes: MAX_BYTES, timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TranscribeError).with.property('status', 401);
    expect((await fetch(`${url}/health`)).status).to.equal(200);
  });
});

describe('compose files: the transcriber on a network of its own', function () {
  for (const file of ['docker-compose.yml', 'docker-compose.cluster.yml']) {
    it(`${file}: shares the transcriber's networks with the workers only, and that network has no route out`, function () {
      const compose = parse(readFileSync(path.join(PROJECT_ROOT, file), 'utf8'), { merge: true }) as {
        services: Record<string, { build?: unknown; command?: string[]; networks?: string[] }>;
        networks?: Record<string, { internal?: boolean } | null>;
      };
      const transcriber = compose.services.transcriber!;
      expect(transcriber.networks, 'the transcriber is on named networks, not the default one').to.be.an('array').that.does.not.include('default');
      for (const network of transcriber.networks!) {
        expect(compose.networks?.[network]?.internal, `${network} is internal`).to.equal(true);
        const others = Object.entries(compose.services).filter(([name, s]) => name !== 'transcriber' && (s.networks ?? ['default']).includes(network));
        expect(others.length).to.be.greaterThan(0);
        for (const [name, service] of others) expect(service.command, `${name} shares ${network}`).to.include('dist/bin/worker.js');
      }
      for (const [name, service] of Object.entries(compose.services).filter(([, s]) => s.command?.includes('dist/bin/worker.js')))
        expect(service.networks, `${name} reaches the transcriber and the stores`).to.include.members(['default', ...transcriber.networks!]);
    });
  }
});
