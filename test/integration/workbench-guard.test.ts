// The workbench over real HTTP, as a rebound DNS name, another page or another local user would reach it: a foreign
// Host is refused (421), a write from another Origin is refused (403), an API call without the run's token is refused
// (401), each as JSON and before anything is read or written; the printed URL turns into the page's cookie.
import { request, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openLocalSearch, type LocalSearch } from '../../scripts/eval/harness.js';
import { createWorkbenchApp } from '../../scripts/eval/workbench/app.js';
import { WorkbenchFiles } from '../../scripts/eval/workbench/files.js';
import { TOKEN_HEADER, newWorkbenchToken, tokenCookieName } from '../../scripts/eval/workbench/guard.js';
import { deleteIndices } from '../../core/store/opensearch.js';
import { privatePrefix } from '../support/indexer-env.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: () => Record<string, unknown>;
}

/** One request with exactly these headers (Host included: fetch will not send a foreign one). */
function raw(port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        setHost: false,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const all = Buffer.concat(chunks);
          resolve({ status: res.statusCode!, headers: res.headers, body: all, json: () => JSON.parse(all.toString('utf8')) as Record<string, unknown> });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** `target` with every method call recorded in `calls` by name (the files the workbench reads and writes). */
function countingCalls<T extends object>(target: T, calls: string[]): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value: unknown = Reflect.get(obj, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return (value as (...a: unknown[]) => unknown).apply(obj, args);
      };
    },
  });
}

describe('workbench guard: DNS rebinding, other pages, other local users', function () {
  this.timeout(60_000);
  const prefix = privatePrefix('wbguard');
  const token = newWorkbenchToken();
  let local: LocalSearch;
  let server: Server;
  let port: number;
  let dir: string;
  let own: Record<string, string>;
  const config = { mode: 'keyword', settings: '' };
  /** Every call the app makes on its WorkbenchFiles (sets, snapshots, configs, judgments read or written), by method name. */
  const fileCalls: string[] = [];

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'cca-workbench-guard-'));
    local = await openLocalSearch({ prefix, withEmbedder: false, log: () => undefined });
    const files = countingCalls(new WorkbenchFiles(dir, new Map()), fileCalls);
    await files.init();
    server = createWorkbenchApp({ local, files, token }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as { port: number }).port;
    own = { host: `127.0.0.1:${port}` };
  });
  after(async function () {
    server?.close();
    if (local) {
      await deleteIndices(local.client, prefix);
      await local.close();
    }
    await rm(dir, { recursive: true, force: true });
  });

  const savedConfigs = async () => (await readdir(join(dir, 'configs')).catch(() => [] as string[])).sort();
  const refusal = (a: Answer) => ({ status: a.status, code: a.json().code });

  it('answers a rebound name 421 with a JSON sentence, on the page, the icon and every call, even with the token, and writes nothing', async function () {
    for (const host of ['attacker.example', '127.0.0.1.attacker.example', 'localhost.'].map((h) => `${h}:${port}`).concat(`127.0.0.1:${port + 1}`, '127.0.0.1')) {
      for (const [method, path] of [
        ['GET', '/'],
        ['GET', '/favicon.ico'],
        ['GET', '/api/state'],
        ['PUT', '/api/configs/rebound'],
      ] as const) {
        const answer = await raw(port, method, path, { host, [TOKEN_HEADER]: token, origin: `http://${host}` }, method === 'PUT' ? config : undefined);
        expect(refusal(answer), `${method} ${path} as ${host}`).to.deep.equal({ status: 421, code: 'wrong_host' });
        expect(String(answer.json().error)).to.match(/answers only to 127\.0\.0\.1, localhost or \[::1\]/);
      }
    }
    expect(await savedConfigs()).to.deep.equal([]);
  });

  it('answers 127.0.0.1, localhost and [::1] on its port', async function () {
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const answer = await raw(port, 'GET', '/api/state', { host: `${host}:${port}`, [TOKEN_HEADER]: token });
      expect(answer.status, host).to.equal(200);
      expect(answer.json()).to.have.property('prefix', prefix);
    }
  });

  it('refuses a write from another Origin 403, with the cookie and even the token header, and writes nothing', async function () {
    const cookie = `${tokenCookieName(port)}=${token}`;
    for (const origin of ['http://attacker.example', `http://attacker.example:${port}`, 'null', `https://127.0.0.1:${port}`, `http://127.0.0.1:${port + 1}`]) {
      for (const [method, path, body] of [
        ['PUT', '/api/configs/foreign', config],
        ['POST', '/api/compare', { query: { channel: 'c', query: 'q' }, a: config, b: config }],
        ['POST', '/api/experiments', { set: 's', config }],
      ] as const) {
        const answer = await raw(port, method, path, { ...own, origin, cookie, [TOKEN_HEADER]: token }, body);
        expect(refusal(answer), `${method} ${path} from ${origin}`).to.deep.equal({ status: 403, code: 'foreign_origin' });
      }
    }
    // No Origin: a script. With the cookie alone it is refused; with the token header it is let through.
    expect(refusal(await raw(port, 'PUT', '/api/configs/no-origin', { ...own, cookie }, config))).to.deep.equal({ status: 403, code: 'foreign_origin' });
    expect(await savedConfigs()).to.deep.equal([]);
    expect((await raw(port, 'PUT', '/api/configs/script', { ...own, [TOKEN_HEADER]: token }, config)).status).to.equal(200);
    expect(await savedConfigs()).to.deep.equal(['script.json']);
  });

  it('refuses every API call without the right token 401 (missing, wrong, another port’s cookie), and reads nothing', async function () {
    const callsBefore = fileCalls.length;
    const calls = [
      ['GET', '/api/state'],
      ['GET', '/api/sets/any'],
      ['GET', '/api/snapshots/any'],
      ['PUT', '/api/configs/untokened'],
      ['POST', '/api/judgments'],
    ] as const;
    for (const [method, path] of calls) {
      const origin = { origin: `http://127.0.0.1:${port}` };
      const body = method === 'GET' ? undefined : config;
      expect(refusal(await raw(port, method, path, { ...own, ...origin }, body)), `${method} ${path}`).to.deep.equal({ status: 401, code: 'no_token' });
      expect(refusal(await raw(port, method, path, { ...own, ...origin, [TOKEN_HEADER]: `${token}x` }, body))).to.deep.equal({ status: 401, code: 'wrong_token' });
      expect(refusal(await raw(port, method, path, { ...own, ...origin, cookie: `${tokenCookieName(port)}=${newWorkbenchToken()}` }, body))).to.deep.equal({
        status: 401,
        code: 'wrong_token',
      });
      expect(refusal(await raw(port, method, path, { ...own, ...origin, cookie: `${tokenCookieName(port + 1)}=${token}` }, body))).to.deep.equal({ status: 401, code: 'no_token' });
    }
    // Routing forgives case and a trailing slash; the token check does not.
    for (const path of ['/API/state', '/api/state/', '/Api/sets/any'])
      expect(refusal(await raw(port, 'GET', path, { ...own, cookie: 'nothing=1' })), path).to.deep.equal({ status: 401, code: 'no_token' });
    const wrongUrl = await raw(port, 'GET', `/?token=${newWorkbenchToken()}`, own);
    expect(refusal(wrongUrl), 'a printed URL with another token').to.deep.equal({ status: 401, code: 'wrong_token' });
    expect(wrongUrl.headers['set-cookie']).to.equal(undefined);
    expect(await savedConfigs()).to.deep.equal(['script.json']);
    expect(fileCalls.slice(callsBefore), 'calls on the workbench files while refusing').to.deep.equal([]);
    // The count sees reads: the same call with the token reads the sets.
    expect((await raw(port, 'GET', '/api/state', { ...own, [TOKEN_HEADER]: token })).status).to.equal(200);
    expect(fileCalls.slice(callsBefore)).to.not.deep.equal([]);
  });

  it('turns the printed URL into an HttpOnly, SameSite=Strict cookie and a redirect to /, and the page with it reads and writes', async function () {
    const opened = await raw(port, 'GET', `/?token=${token}`, own);
    expect(opened.status).to.equal(303);
    expect(opened.headers.location).to.equal('/');
    expect(opened.headers['set-cookie']).to.deep.equal([`${tokenCookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`]);
    const cookie = opened.headers['set-cookie']![0]!.split(';')[0]!;
    const page = await raw(port, 'GET', '/', { ...own, cookie });
    expect([page.status, page.headers['content-type']]).to.deep.equal([200, 'text/html; charset=utf-8']);
    expect((await raw(port, 'GET', '/api/state', { ...own, cookie })).status).to.equal(200);
    expect((await raw(port, 'PUT', '/api/configs/from-page', { ...own, cookie, origin: `http://127.0.0.1:${port}` }, config)).status).to.equal(200);
    expect(await savedConfigs()).to.deep.equal(['from-page.json', 'script.json']);
  });

  it('serves a real icon at /favicon.ico', async function () {
    const icon = await raw(port, 'GET', '/favicon.ico', own);
    expect([icon.status, icon.headers['content-type']]).to.deep.equal([200, 'image/x-icon']);
    expect([icon.body.readUInt16LE(0), icon.body.readUInt16LE(2), icon.body.readUInt16LE(4)], 'an .ico header with two images').to.deep.equal([0, 1, 2]);
  });
});
