// The real entry point as a process: it listens, logs requests without credentials, and on SIGTERM finishes in-flight requests before exiting.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { generateApiKey } from '../../src/auth/api-keys.js';
import { rawRequest, type ApiResponse } from '../support/api-harness.js';
import { closedPort, listener } from '../support/api-net.js';

describe('API server process: request log and graceful shutdown', function () {
  this.timeout(60_000);

  it('finishes the request in flight on SIGTERM, refuses new ones, exits 0, and never logs the key', async function () {
    // OpenSearch that accepts but never answers: a data request stays in flight for the whole store budget (1.5 s).
    const hung = await listener(() => undefined);
    const port = await closedPort();
    const emptyModelDir = mkdtempSync(join(tmpdir(), 'api-no-model-'));
    let server: ChildProcess | undefined;
    try {
      server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          OPENSEARCH_URL: `http://127.0.0.1:${hung.port}`,
          INDEX_PREFIX: 'test-api-server-',
          LOG_LEVEL: 'info',
          MODEL_DIR: emptyModelDir, // no model: search would run keyword-only; start-up stays quick
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      server.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      server.stderr!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => server!.on('exit', (code) => resolve(code)));
      for (let i = 0; i < 200 && !stdout.includes('API listening'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(stdout, 'server started').to.include('API listening');

      const base = `http://127.0.0.1:${port}`;
      const key = generateApiKey();
      const inFlight: Promise<ApiResponse> = rawRequest(base, '/api/v1/channels', { headers: { 'x-api-key': key } });
      await new Promise((r) => setTimeout(r, 300));
      server.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 200));
      const refused = await rawRequest(base, '/healthz').then(
        () => false,
        () => true,
      );
      const res = await inFlight;
      expect(res.status, 'the in-flight request got its full answer').to.equal(503);
      expect(res.body.code).to.equal('store_unavailable');
      expect(refused, 'no new connections once stopping').to.equal(true);
      expect(await exited).to.equal(0);
      expect(stdout).to.include('shutting down');
      expect(stdout).to.include('"path":"/api/v1/channels"');
      expect(stdout).not.to.include(key);
    } finally {
      if (server && server.exitCode === null) server.kill('SIGKILL');
      for (const s of hung.sockets) s.destroy();
      await new Promise<void>((resolve) => hung.server.close(() => resolve()));
      rmSync(emptyModelDir, { recursive: true, force: true });
    }
  });
});
