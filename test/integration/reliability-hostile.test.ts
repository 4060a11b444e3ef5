// Hostile input and information leaks: every answer is a documented JSON 4xx (never a 5xx or HTML), non-members learn nothing, keys never reach a log.
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { checksum } from '../../src/auth/api-keys.js';
import type { Embedder } from '../../core/embedding/embedder.js';
import type { ApiResponse } from '../support/api-harness.js';
import { rawRequest } from '../support/api-harness.js';
import { closedPort } from '../support/api-net.js';
import { QMSUM_LOAD_TIMEOUT_MS, ensureCorpusLoaded } from '../support/qmsum-fixture.js';
import { startReliabilityApi, type ReliabilityApi } from '../support/reliability-api.js';

const CHANNEL = 'research-meetings';
const EPISODE = 'ep_bdb001'; // in research-meetings, published
const enc = encodeURIComponent;

/** The JSON error shape, whatever the status. */
function expectJsonError(res: ApiResponse, statuses: number[], label = ''): void {
  expect(statuses, `${label} status ${res.status}: ${res.text.slice(0, 200)}`).to.include(res.status);
  expect(String(res.headers['content-type']), label).to.match(/^application\/json/);
  expect(res.body, label).to.include.keys('error', 'code', 'requestId');
}

describe('reliability: hostile input and security', function () {
  this.timeout(120_000);
  let api: ReliabilityApi;
  let prefix: string;
  let embedder: Embedder;
  let key: string;
  let outsiderKey: string;

  before(async function () {
    this.timeout(QMSUM_LOAD_TIMEOUT_MS);
    ({ prefix, embedder } = await ensureCorpusLoaded());
    api = await startReliabilityApi({ prefix, embedder });
    key = await api.addKey('u_member');
    outsiderKey = await api.addKey('u_outsider');
  });

  after(async function () {
    await api?.close();
  });

  const get = (path: string, headers: Record<string, string> = { 'x-api-key': key }) => api.request(path, { headers });

  describe('huge and unicode-heavy queries', function () {
    it('answers a 100 KB query with a JSON 431 (over the URL limit) and a 10 KB one with 400, never a 5xx', async function () {
      const huge = await get(`/api/v1/channels/${CHANNEL}/search?query=${'a'.repeat(100_000)}`);
      expectJsonError(huge, [431], '100 KB');
      expect(huge.body.code).to.equal('request_too_large');
      const big = await get(`/api/v1/channels/${CHANNEL}/search?query=${'budget '.repeat(1500)}`.replace(/ /g, '+'));
      expectJsonError(big, [400], '10 KB');
      expect(big.body.parameter).to.equal('query');
    });

    it('answers emoji, RTL, combining marks and control characters with 200 or a JSON 400', async function () {
      const queries = [
        '🎙️🔥 budget 👩🏽‍💻🏳️‍🌈',
        'ميزانية المشروع עברית',
        'Z̷̢̛a̸̡͝l̶̨̛g̴̢̕o̵̧͠ t̸̢͝e̴̡̕x̸̨͠t̶̢̛',
        'null\u0000byte',
        '\u0001\u0002\u001b[31mred\u007f',
        '\ufeff\u200b\u200e\u202e reversed',
        '\ud83d', // lone surrogate: encodeURIComponent refuses it, so sent raw-escaped below
        '%00%ff%fe',
        '"}]}\\u0000{"match_all":{}}',
        '*:* OR 1=1 --',
      ];
      for (const query of queries) {
        const encoded = query === '\ud83d' ? '%ED%A0%BD' : enc(query);
        for (const fast of ['true', 'false']) {
          const res = await get(`/api/v1/channels/${CHANNEL}/search?fast=${fast}&query=${encoded}`);
          expect([200, 400], `${JSON.stringify(query)} → ${res.status} ${res.text.slice(0, 200)}`).to.include(res.status);
          if (res.status === 400) expectJsonError(res, [400], query);
        }
      }
    });
  });

  describe('traversal and injection-looking ids', function () {
    const ids = ['..%2F..%2Fetc%2Fpasswd', '..', '%2e%2e', '*', enc('" OR 1=1'), enc('{"match_all":{}}'), enc("ep_bdb001' OR '1'='1"), '%00', enc('ep_*'), enc('_all')];
    for (const resource of ['transcript', 'chapters', 'related']) {
      it(`answers ${resource} of such ids with a JSON 404 or 400`, async function () {
        for (const id of ids) {
          const res = await get(`/api/v1/episodes/${id}/${resource}`);
          expectJsonError(res, [400, 404], id);
        }
      });
    }

    it('answers such slugs with a JSON 404 or 400, and the path traversal never leaves the API', async function () {
      for (const slug of ['..%2F..%2Fetc%2Fpasswd', '*', enc('" OR 1=1'), enc('{"match_all":{}}'), enc('research-*')]) {
        expectJsonError(await get(`/api/v1/channels/${slug}/episodes`), [400, 404], slug);
        expectJsonError(await get(`/api/v1/channels/${slug}/search?query=budget`), [400, 404], slug);
      }
      expectJsonError(await get('/api/v1/episodes/../../../etc/passwd'), [404], 'raw ../');
    });

    it('treats injection-looking filter values as plain ids (200, no match), and ones with spaces as malformed (400)', async function () {
      const res = await get(`/api/v1/channels/${CHANNEL}/episodes?episodeIds=${enc('*')},${enc('{"match_all":{}}')}&topicIds=${enc('"OR"1=1')}`);
      expect(res.status).to.equal(200);
      expect(res.body.episodes).to.deep.equal([]);
      const spaced = await get(`/api/v1/channels/${CHANNEL}/episodes?topicIds=${enc('" OR 1=1')}`);
      expectJsonError(spaced, [400]);
      expect(spaced.body.parameter).to.equal('topicIds');
    });
  });

  describe('oversize requests', function () {
    it('answers a 64 KB header with a JSON 431, not an HTML page or a bare status line', async function () {
      const res = await get(`/api/v1/channels/${CHANNEL}/episodes`, { 'x-api-key': key, 'x-padding': 'x'.repeat(64 * 1024) });
      expectJsonError(res, [431]);
      expect(res.headers['x-request-id']).to.be.a('string');
    });

    it('answers a 10,000-id episodeIds list with a JSON 431 and a 1,000-id list with a 400 naming the parameter', async function () {
      const ids = (n: number) => Array.from({ length: n }, (_, i) => `ep_${i}`).join(',');
      expectJsonError(await get(`/api/v1/channels/${CHANNEL}/episodes?episodeIds=${ids(10_000)}`), [431], '10,000 ids');
      const thousand = await get(`/api/v1/channels/${CHANNEL}/search?query=budget&episodeIds=${ids(1_000)}`);
      expectJsonError(thousand, [400], '1,000 ids');
      expect(thousand.body.parameter).to.equal('episodeIds');
    });
  });

  describe('forged cursors', function () {
    let cursor: string;
    before(async function () {
      const page = await get(`/api/v1/channels/${CHANNEL}/episodes?limit=2`);
      cursor = page.body.nextCursor;
      expect(cursor).to.be.a('string');
    });

    it('refuses random base64url with 400 invalid_cursor', async function () {
      for (const forged of ['AAAA', Buffer.from('{"v":1,"k":[1,"x"],"d":"nope"}').toString('base64url'), 'eyJ2IjoxfQ', 'x'.repeat(2000)]) {
        const res = await get(`/api/v1/channels/${CHANNEL}/episodes?cursor=${forged}`);
        expectJsonError(res, [400], forged.slice(0, 20));
        expect(res.body.code).to.equal('invalid_cursor');
      }
    });

    it('refuses a cursor made for another channel, sort or filter', async function () {
      for (const path of ['/api/v1/channels/product-meetings/episodes', `/api/v1/channels/${CHANNEL}/episodes?sort=oldest`, `/api/v1/channels/${CHANNEL}/episodes?year=2020`]) {
        const res = await get(`${path}${path.includes('?') ? '&' : '?'}cursor=${cursor}`);
        expectJsonError(res, [400], path);
        expect(res.body.code).to.equal('invalid_cursor');
      }
    });
  });

  describe('keys', function () {
    it('refuses a key with the right prefix and shape but a bad checksum with 401', async function () {
      const body = key.slice(4, 36);
      const wrong = checksum(body) === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA';
      for (const forged of [`svc_${body}${wrong}`, `svc_${'A'.repeat(32)}${'A'.repeat(6)}`, 'svc_', `svc_${body}`]) {
        for (const headers of [{ 'x-api-key': forged }, { authorization: `Bearer ${forged}` }] as Record<string, string>[]) {
          const res = await get(`/api/v1/channels`, headers);
          expectJsonError(res, [401], forged);
          expect(res.body.code).to.equal('invalid_api_key');
        }
      }
    });
  });

  describe('a non-member learns nothing about another channel', function () {
    const IGNORED = new Set(['x-request-id', 'date', 'ratelimit', 'ratelimit-policy', 'content-length', 'connection', 'keep-alive']);
    const shape = (res: ApiResponse) => ({
      status: res.status,
      body: { ...res.body, requestId: undefined },
      headers: Object.fromEntries(Object.entries(res.headers).filter(([k]) => !IGNORED.has(k))),
    });
    const pairs: [string, string, string][] = [
      ['channel episodes', `/api/v1/channels/${CHANNEL}/episodes`, '/api/v1/channels/no-such-channel-x/episodes'],
      ['channel search', `/api/v1/channels/${CHANNEL}/search?query=budget`, '/api/v1/channels/no-such-channel-x/search?query=budget'],
      ['transcript', `/api/v1/episodes/${EPISODE}/transcript`, '/api/v1/episodes/ep_no_such_x/transcript'],
      ['chapters', `/api/v1/episodes/${EPISODE}/chapters`, '/api/v1/episodes/ep_no_such_x/chapters'],
      ['related', `/api/v1/episodes/${EPISODE}/related`, '/api/v1/episodes/ep_no_such_x/related'],
    ];

    for (const [label, existing, unknown] of pairs) {
      it(`gets the same status, body and headers for an existing and an unknown ${label}`, async function () {
        const outsider = { 'x-api-key': outsiderKey };
        const a = await get(existing, outsider);
        const b = await get(unknown, outsider);
        expect(a.status).to.equal(404);
        expect(shape(a)).to.deep.equal(shape(b));
        expect(a.text.length - String(a.body.requestId).length).to.equal(b.text.length - String(b.body.requestId).length);
      });
    }
  });

  describe('headers', function () {
    it('puts Cache-Control: private, no-store on every response, errors and refusals included', async function () {
      const paths = [
        '/healthz',
        '/readyz',
        '/api/v1/openapi.json',
        '/.well-known/oauth-protected-resource',
        '/api/v1/channels',
        `/api/v1/channels/${CHANNEL}/episodes`,
        `/api/v1/channels/${CHANNEL}/search?query=budget&fast=true`,
        `/api/v1/episodes/${EPISODE}/transcript`,
        `/api/v1/episodes/${EPISODE}/chapters`,
        `/api/v1/episodes/${EPISODE}/related`,
        '/api/v1/no-such-route',
        `/api/v1/channels/${CHANNEL}/episodes?limit=0`,
        `/api/v1/channels/${CHANNEL}/episodes?q=${'x'.repeat(20_000)}`,
      ];
      for (const path of paths) await get(path); // request() asserts the header
      await api.request('/api/v1/channels', { headers: {} }); // 401
      await api.request('/api/v1/channels', { method: 'POST', headers: { 'x-api-key': key } }); // 405
      const raw = await rawRequest(api.baseUrl, '/api/v1/channels', { headers: { 'x-api-key': key, 'x-big': 'y'.repeat(70_000) } });
      expect(raw.headers['cache-control']).to.equal('private, no-store');
    });
  });
});

describe('reliability: keys never reach the log', function () {
  this.timeout(120_000);
  let prefix: string;
  before(async function () {
    this.timeout(QMSUM_LOAD_TIMEOUT_MS);
    ({ prefix } = await ensureCorpusLoaded());
  });

  it('logs no key, valid, revoked-looking or malformed, at trace level, from the real server process', async function () {
    // The production entry point, its own logger, every line it writes: stdout and stderr.
    const api = await startReliabilityApi({ prefix }); // only to create keys in the store
    const key = await api.addKey('u_member');
    const forged = `svc_${key.slice(4, 36)}ZZZZZZ`;
    const port = await closedPort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', INDEX_PREFIX: prefix, LOG_LEVEL: 'trace', MODEL_DIR: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c));
    child.stderr.on('data', (c: Buffer) => (output += c));
    try {
      const base = `http://127.0.0.1:${port}`;
      for (let i = 0; ; i++) {
        const ok = await rawRequest(base, '/healthz').then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) break;
        if (i > 150) throw new Error(`server did not start:\n${output.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      for (const credential of [key, forged]) {
        await rawRequest(base, `/api/v1/channels/${CHANNEL}/episodes`, { headers: { 'x-api-key': credential } });
        await rawRequest(base, `/api/v1/channels/${CHANNEL}/search?query=budget&fast=true`, { headers: { authorization: `Bearer ${credential}` } });
        await rawRequest(base, '/api/v1/channels', { headers: { 'x-api-key': credential, authorization: `Bearer ${credential}` } });
        await rawRequest(base, '/api/v1/no-such-route', { headers: { 'x-api-key': credential } });
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(output.split('\n').filter(Boolean).length, 'the server logged its requests').to.be.greaterThan(8);
      for (const secret of [key, forged, key.slice(4, 36)]) expect(output.includes(secret), `log contains ${secret.slice(0, 8)}…`).to.equal(false);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await api.close();
    }
  });
});
