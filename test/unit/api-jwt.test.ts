import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createTokenVerifier, type JwksOptions } from '../../src/auth/jwt.js';
import { loadConfig } from '../../core/config/load.js';
import { ApiError } from '../../src/errors.js';
import { TEST_AUDIENCE, TEST_ISSUER, createTokenKit, type TokenKit } from '../support/api-tokens.js';

/** A development secret of the minimum length (32 bytes). */
const DEV_SECRET = 'dev-secret-dev-secret-dev-secret';

/** Resolves once the clock reads past `ms` (epoch): a wait that only bounds from below. */
async function clockPast(ms: number): Promise<void> {
  while (Date.now() <= ms) await new Promise((resolve) => setTimeout(resolve, Math.max(1, ms - Date.now() + 1)));
}

async function outcome(p: Promise<{ userId: string }>): Promise<string> {
  try {
    return `ok:${(await p).userId}`;
  } catch (error) {
    return error instanceof ApiError ? error.code : `thrown:${String(error)}`;
  }
}

describe('OAuth access tokens: local JWT verification', function () {
  let kit: TokenKit;
  before(() => {
    kit = createTokenKit();
  });
  after(() => kit.cleanup());
  const verifier = (env: Record<string, string>) => createTokenVerifier(loadConfig(env));
  /** A verifier whose only keys are those of a JWKS URL, with the JWKS timings given. */
  const urlVerifier = (url: string, jwks: JwksOptions = {}) => createTokenVerifier(loadConfig({ ...kit.env, JWT_PUBLIC_KEY_FILE: '', JWT_JWKS: url }), { jwks });

  it('accepts an RS256 token from the PEM key and returns its subject', async function () {
    expect(await outcome(verifier(kit.env).verify(kit.sign({ sub: 'u_42' })))).to.equal('ok:u_42');
  });

  it('accepts ES256 and RS256 tokens from a JWKS file, choosing the key by kid', async function () {
    const v = verifier(kit.jwksEnv);
    expect(await outcome(v.verify(kit.sign({}, { key: 'ec' })))).to.equal('ok:u_member');
    expect(await outcome(v.verify(kit.sign({}, { key: 'rsa' })))).to.equal('ok:u_member');
  });

  it('verifies a token without kid only against a JWKS of one signing key: with several keys it is refused, whichever signed it', async function () {
    const noKid = kit.sign({}, { key: 'ec', header: { alg: 'ES256', kid: undefined } });
    expect(JSON.parse(Buffer.from(noKid.split('.')[0]!, 'base64url').toString())).to.not.have.property('kid');
    // The kit's JWKS holds the EC key and an RSA key.
    expect(await outcome(verifier(kit.jwksEnv).verify(noKid)), 'a JWKS of two keys').to.equal('invalid_token');
    const dir = mkdtempSync(join(tmpdir(), 'api-jwt-one-key-'));
    try {
      const all = JSON.parse(readFileSync(kit.jwksEnv.JWT_JWKS!, 'utf8')) as { keys: { kid: string }[] };
      const oneKey = join(dir, 'jwks.json');
      writeFileSync(oneKey, JSON.stringify({ keys: all.keys.filter((k) => k.kid === 'ec-1') }));
      expect(await outcome(verifier({ ...kit.jwksEnv, JWT_JWKS: oneKey }).verify(noKid)), 'a JWKS of the one key').to.equal('ok:u_member');
      // The one key must still be the signer's: another key alone is no match.
      writeFileSync(oneKey, JSON.stringify({ keys: all.keys.filter((k) => k.kid === 'rsa-1') }));
      expect(await outcome(verifier({ ...kit.jwksEnv, JWT_JWKS: oneKey }).verify(noKid)), 'a JWKS of another key').to.equal('invalid_token');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a wrong audience, a wrong issuer, an expired token, a token not yet valid, and a foreign signature', async function () {
    const v = verifier(kit.env);
    const now = Math.floor(Date.now() / 1000);
    expect(await outcome(v.verify(kit.sign({ aud: 'https://other.example' })))).to.equal('invalid_token');
    expect(await outcome(v.verify(kit.sign({ iss: 'https://evil.example' })))).to.equal('invalid_token');
    expect(await outcome(v.verify(kit.sign({ exp: now - 120 }, { expiresIn: undefined })))).to.equal('invalid_token');
    expect(await outcome(v.verify(kit.sign({ nbf: now + 600 })))).to.equal('invalid_token');
    expect(await outcome(v.verify(kit.sign({}, { key: 'other-rsa' })))).to.equal('invalid_token');
  });

  it('honours the clock skew on exp and nbf', async function () {
    const v = verifier({ ...kit.env, JWT_CLOCK_SKEW_SECONDS: '30' });
    const now = Math.floor(Date.now() / 1000);
    expect(await outcome(v.verify(kit.sign({ exp: now - 10 }, { expiresIn: undefined })))).to.equal('ok:u_member');
    expect(await outcome(v.verify(kit.sign({ nbf: now + 10 })))).to.equal('ok:u_member');
  });

  it('refuses alg none and HS256 signed with the RSA public key, even with a dev secret configured', async function () {
    for (const env of [kit.env, { ...kit.env, JWT_HS_SECRET: DEV_SECRET }]) {
      const v = verifier(env);
      expect(await outcome(v.verify(kit.unsigned()))).to.equal('invalid_token');
      expect(await outcome(v.verify(kit.hs256WithPublicKey()))).to.equal('invalid_token');
    }
  });

  it('accepts HS256 only with the configured development secret', async function () {
    expect(await outcome(verifier({ ...kit.env, JWT_HS_SECRET: DEV_SECRET }).verify(kit.hs256(DEV_SECRET)))).to.equal('ok:u_member');
    expect(await outcome(verifier(kit.env).verify(kit.hs256(DEV_SECRET)))).to.equal('invalid_token');
  });

  it('needs the creator:read scope, as a space-separated scope or an scp list', async function () {
    const v = verifier(kit.env);
    expect(await outcome(v.verify(kit.sign({ scope: 'profile creator:write' })))).to.equal('insufficient_scope');
    expect(await outcome(v.verify(kit.sign({ scope: undefined })))).to.equal('insufficient_scope');
    expect(await outcome(v.verify(kit.sign({ scope: 'openid creator:read' })))).to.equal('ok:u_member');
    expect(await outcome(v.verify(kit.sign({ scope: undefined, scp: ['creator:read'] })))).to.equal('ok:u_member');
  });

  it('tells, without a signature check, which tokens may verify: only well-formed JWTs with an accepted alg and typ, this issuer and audience, unexpired, and only with keys configured', function () {
    const v = verifier(kit.env);
    const shaped = (header: Record<string, unknown>, claims: Record<string, unknown> = {}) =>
      [header, { sub: 'u_1', iss: TEST_ISSUER, aud: TEST_AUDIENCE, exp: Math.floor(Date.now() / 1000) + 60, ...claims }]
        .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
        .join('.') + '.c2ln';
    expect(v.mayBeValid(kit.sign()), 'a real token').to.equal(true);
    expect(v.mayBeValid(shaped({ alg: 'RS256', typ: 'at+jwt' })), 'a forged signature is only found by verify').to.equal(true);
    expect(v.mayBeValid(shaped({ alg: 'ES256' }, { aud: ['https://x.example', TEST_AUDIENCE] })), 'an audience list naming this API').to.equal(true);
    for (const [what, token] of [
      ['garbage', 'x'],
      ['two parts', 'a.b'],
      ['parts that are not JSON', 'a.b.c'],
      ['a fourth part', `${kit.sign()}.x`],
      ['a signature that is not base64url', `${shaped({ alg: 'RS256' }).slice(0, -4)}+/==`],
      ['alg none', kit.unsigned()],
      ['HS256 without a development secret', kit.hs256(DEV_SECRET)],
      ['another typ', shaped({ alg: 'RS256', typ: 'logout+jwt' })],
      ['another issuer', shaped({ alg: 'RS256' }, { iss: 'https://evil.example' })],
      ['another audience', shaped({ alg: 'RS256' }, { aud: 'https://someone-else.example' })],
      ['expired', shaped({ alg: 'RS256' }, { exp: Math.floor(Date.now() / 1000) - 3600 })],
      ['no expiry', shaped({ alg: 'RS256' }, { exp: undefined })],
    ] as const) {
      expect(v.mayBeValid(token), what).to.equal(false);
    }
    expect(verifier({ ...kit.env, JWT_HS_SECRET: DEV_SECRET }).mayBeValid(kit.hs256(DEV_SECRET)), 'HS256 with the development secret').to.equal(true);
    expect(verifier({}).mayBeValid(kit.sign()), 'no verifier configured: no token can verify').to.equal(false);
  });

  it('refuses tokens without a subject or an expiry, and garbage', async function () {
    const v = verifier(kit.env);
    expect(await outcome(v.verify(kit.sign({ sub: undefined })))).to.equal('invalid_token');
    expect(await outcome(v.verify(kit.sign({}, { expiresIn: undefined })))).to.equal('invalid_token');
    expect(await outcome(v.verify('not-a-jwt'))).to.equal('invalid_token');
  });

  it('defaults the audience to the public base URL and refuses every token without an issuer', async function () {
    const withDefaultAudience = verifier({ JWT_ISSUER: TEST_ISSUER, JWT_PUBLIC_KEY_FILE: kit.env.JWT_PUBLIC_KEY_FILE!, PUBLIC_BASE_URL: TEST_AUDIENCE });
    expect(await outcome(withDefaultAudience.verify(kit.sign()))).to.equal('ok:u_member');
    const noIssuer = verifier({ JWT_PUBLIC_KEY_FILE: kit.env.JWT_PUBLIC_KEY_FILE!, JWT_AUDIENCE: TEST_AUDIENCE });
    expect(noIssuer.enabled).to.equal(false);
    expect(await outcome(noIssuer.verify(kit.sign()))).to.equal('invalid_token');
  });

  /** A JWKS server on a loopback port; `answer` decides each response, `fetches` counts them. */
  async function jwksServer(answer: (res: ServerResponse) => void) {
    const counter = { fetches: 0 };
    const server = createServer((_req, res) => {
      counter.fetches++;
      answer(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      counter,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  it('fetches a JWKS URL once and caches it; answers 503 jwks_unavailable while it cannot be fetched at all', async function () {
    const document = readFileSync(kit.jwksEnv.JWT_JWKS!, 'utf8');
    const jwks = await jwksServer((res) => res.writeHead(200, { 'content-type': 'application/json' }).end(document));
    try {
      const v = urlVerifier(jwks.url);
      expect(await outcome(v.verify(kit.sign({}, { key: 'ec' })))).to.equal('ok:u_member');
      expect(await outcome(v.verify(kit.sign({}, { key: 'rsa' })))).to.equal('ok:u_member');
      expect(jwks.counter.fetches).to.equal(1);
    } finally {
      await jwks.close();
    }
    const unreachable = urlVerifier(jwks.url);
    expect(await outcome(unreachable.verify(kit.sign({}, { key: 'ec' })))).to.equal('jwks_unavailable');
  });

  it('fetches the JWKS again for an unknown kid, but not within the refetch interval', async function () {
    const all = JSON.parse(readFileSync(kit.jwksEnv.JWT_JWKS!, 'utf8')) as { keys: { kid: string }[] };
    let keys = all.keys.filter((k) => k.kid === 'ec-1');
    const jwks = await jwksServer((res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys })));
    try {
      // Within the interval: a minute, which no pause of a busy machine crosses between two calls.
      const within = urlVerifier(jwks.url, { minRefetchMs: 60_000 });
      expect(await outcome(within.verify(kit.sign({}, { key: 'ec' })))).to.equal('ok:u_member');
      keys = all.keys; // the RSA key is rotated in
      expect(await outcome(within.verify(kit.sign({}, { key: 'rsa' })))).to.equal('invalid_token');
      expect(jwks.counter.fetches).to.equal(1);
      // Past the interval: 1 ms, passed once the clock has moved on (a lower bound: waiting longer changes nothing).
      keys = all.keys.filter((k) => k.kid === 'ec-1');
      const past = urlVerifier(jwks.url, { minRefetchMs: 1 });
      expect(await outcome(past.verify(kit.sign({}, { key: 'ec' })))).to.equal('ok:u_member');
      keys = all.keys;
      await clockPast(Date.now() + 2);
      expect(await outcome(past.verify(kit.sign({}, { key: 'rsa' })))).to.equal('ok:u_member');
      expect(jwks.counter.fetches).to.equal(3);
    } finally {
      await jwks.close();
    }
  });

  it('keeps verifying with the keys it has when a refetch of the JWKS fails', async function () {
    const document = readFileSync(kit.jwksEnv.JWT_JWKS!, 'utf8');
    let status = 200;
    const jwks = await jwksServer((res) => res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? document : '{}'));
    try {
      const v = urlVerifier(jwks.url, { cacheMs: 100, minRefetchMs: 100 });
      expect(await outcome(v.verify(kit.sign({}, { key: 'ec' })))).to.equal('ok:u_member');
      status = 503;
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await outcome(v.verify(kit.sign({}, { key: 'ec' })))).to.equal('ok:u_member');
      expect(jwks.counter.fetches).to.equal(2);
    } finally {
      await jwks.close();
    }
  });

  it('answers 503 jwks_unavailable once a JWKS fetch outlasts its timeout', async function () {
    const jwks = await jwksServer(() => undefined); // accepts, never answers
    try {
      const v = urlVerifier(jwks.url, { fetchTimeoutMs: 200 });
      const started = Date.now();
      expect(await outcome(v.verify(kit.sign({}, { key: 'ec' })))).to.equal('jwks_unavailable');
      // It waited for this timeout (200 ms), not for the 2 s default: a bound the claim is about, with 1.8 s of slack.
      expect(Date.now() - started).to.be.within(150, 2000);
    } finally {
      await jwks.close();
    }
  });

  it('remembers a failed JWKS fetch for the refetch interval instead of fetching again per token', async function () {
    const jwks = await jwksServer((res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{}'));
    try {
      const v = urlVerifier(jwks.url);
      for (let i = 0; i < 5; i++) expect(await outcome(v.verify(kit.sign({}, { key: 'ec' })))).to.equal('jwks_unavailable');
      expect(jwks.counter.fetches).to.equal(1);
    } finally {
      await jwks.close();
    }
  });

  it('bounds how long a stale JWKS key serves while every refetch fails: past JWT_JWKS_MAX_STALE_SECONDS tokens get 503 jwks_unavailable', async function () {
    const document = readFileSync(kit.jwksEnv.JWT_JWKS!, 'utf8');
    let status = 200;
    const jwks = await jwksServer((res) => res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? document : '{}'));
    try {
      // The bound (1.5 s) is far from the first stale check (at 150 ms): a pause of the machine between them does not cross it.
      // Every wait below is a lower bound, so waiting longer than asked changes nothing.
      const maxStaleMs = 1500;
      const v = urlVerifier(jwks.url, { cacheMs: 100, minRefetchMs: 50, maxStaleMs });
      const fetched = Date.now();
      expect(await outcome(v.verify(kit.sign({}, { key: 'ec' })))).to.equal('ok:u_member');
      status = 503;
      await clockPast(fetched + 150);
      expect(await outcome(v.verify(kit.sign({}, { key: 'ec' }))), 'stale, within the bound').to.equal('ok:u_member');
      await clockPast(fetched + 100 + maxStaleMs + 100);
      expect(await outcome(v.verify(kit.sign({}, { key: 'ec' }))), 'stale past the bound').to.equal('jwks_unavailable');
      status = 200;
      await clockPast(Date.now() + 60);
      expect(await outcome(v.verify(kit.sign({}, { key: 'ec' }))), 'the JWKS host is back').to.equal('ok:u_member');
    } finally {
      await jwks.close();
    }
  });

  it('takes a JWKS URL over https, or over http on loopback only; the bound on staleness defaults to an hour', function () {
    expect(() => loadConfig({ JWT_JWKS: 'http://auth.example.com/jwks.json' })).to.throw(/JWT_JWKS: expected an https URL \(http only on loopback\)/);
    expect(() => loadConfig({ JWT_JWKS: 'http://10.0.0.5/jwks.json' })).to.throw(/JWT_JWKS/);
    expect(() => createTokenVerifier({ ...loadConfig({}), jwt: { ...loadConfig({}).jwt, jwks: 'http://auth.example.com/jwks.json' } })).to.throw(/https/);
    for (const ok of ['https://auth.example.com/jwks.json', 'http://127.0.0.1:8081/jwks.json', 'http://localhost/jwks.json', 'http://[::1]:9/jwks.json', '/etc/keys/jwks.json']) {
      expect(loadConfig({ JWT_JWKS: ok }).jwt.jwks).to.equal(ok);
    }
    expect(loadConfig({}).jwt.jwksMaxStaleSeconds).to.equal(3600);
  });

  it('accepts a token whose typ is at+jwt (RFC 9068) or JWT, or that has none; refuses any other typ', async function () {
    const v = verifier(kit.env);
    for (const typ of ['at+jwt', 'application/at+jwt', 'AT+JWT', 'JWT']) {
      expect(await outcome(v.verify(kit.sign({}, { header: { alg: 'RS256', typ } }))), typ).to.equal('ok:u_member');
    }
    const untyped = kit.sign({}, { header: { alg: 'RS256', typ: undefined } });
    expect(JSON.parse(Buffer.from(untyped.split('.')[0]!, 'base64url').toString())).to.not.have.property('typ');
    expect(await outcome(v.verify(untyped)), 'no typ').to.equal('ok:u_member');
    for (const typ of ['logout+jwt', 'id_token+jwt', 'dpop+jwt', 'secevent+jwt']) {
      expect(await outcome(v.verify(kit.sign({}, { header: { alg: 'RS256', typ } }))), typ).to.equal('invalid_token');
    }
  });
});
