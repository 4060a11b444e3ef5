// The entry point's HTTP wiring, through the process itself: its header and request timeouts and JSON client errors are createApiServer's.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { closedPort, rawExchange } from '../support/api-net.js';

const bodyCode = (response: string) => (JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { code?: string }).code;

describe('API server process: the HTTP wiring of src/server.ts', function () {
  this.timeout(60_000);
  let server: ChildProcess | undefined;
  let port: number;
  let emptyModelDir: string;

  before(async function () {
    port = await closedPort();
    emptyModelDir = mkdtempSync(join(tmpdir(), 'api-no-model-'));
    server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        // No store is needed: Node answers these before the app reads anything.
        OPENSEARCH_URL: `http://127.0.0.1:${await closedPort()}`,
        INDEX_PREFIX: 'test-api-wiring-',
        LOG_LEVEL: 'info',
        MODEL_DIR: emptyModelDir, // no model: start-up stays quick
        // Headers allowed a minute, the whole request 300 ms: a 408 within seconds can only come from the request timeout as wired.
        HTTP_HEADERS_TIMEOUT_MS: '60000',
        HTTP_REQUEST_TIMEOUT_MS: '300',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const listening = new Promise<void>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('API listening')) resolve();
      };
      server!.stdout!.on('data', read);
      server!.stderr!.on('data', read);
      server!.on('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${output.slice(-500)}`)));
    });
    await listening;
  });

  after(async function () {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(emptyModelDir, { recursive: true, force: true });
  });

  it('answers headers that never finish with a JSON 408 request_timeout, within HTTP_REQUEST_TIMEOUT_MS rather than the minute of headers', async function () {
    const response = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', { timeoutMs: 10_000 });
    expect(response).to.match(/^HTTP\/1\.1 408 /);
    expect(response).to.match(/\r\nContent-Type: application\/json/);
    expect(response).to.match(/\r\nX-Content-Type-Options: nosniff\r\n/);
    expect(bodyCode(response)).to.equal('request_timeout');
  });

  it('answers a URL over the parser limit with a JSON 431, and CONNECT with a JSON 405', async function () {
    const long = await rawExchange(port, `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(long).to.match(/^HTTP\/1\.1 431 /);
    expect(bodyCode(long)).to.equal('request_too_large');
    const tunnel = await rawExchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(tunnel).to.match(/^HTTP\/1\.1 405 /);
    expect(bodyCode(tunnel)).to.equal('method_not_allowed');
  });
});
