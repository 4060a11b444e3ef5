import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { createTokenVerifier } from '../../src/auth/jwt.js';
import { loadConfig } from '../../src/config.js';
import { ApiError } from '../../src/errors.js';
import { TEST_AUDIENCE, TEST_ISSUER, createTokenKit, type TokenKit } from '../support/api-tokens.js';

/** A development secret of the minimum length (32 bytes). */
const DEV_SECRET = 'dev-secret-dev-secret-dev-secret';

async function outcome(p: Promise<string>): Promise<string> {
  try {
    return `ok:${await p}`;
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

  it('accepts an RS256 token from the PEM key and returns its subject', async function () {
    expect(await outcome(verifier(kit.env).verify(kit.sign({ sub: 'u_42' })))).to.equal('ok:u_42');
  });

  it('accepts ES256 and RS256 tokens from a JWKS file, choosing the key by kid', async function () {
    const v = verifier(kit.jwksEnv);
    expect(await outcome(v.verify(kit.sign({}, { key: 'ec' })))).to.equal('ok:u_member');
    expect(await outcome(v.verify(kit.sign({}, { key: 'rsa' })))).to.equal('ok:u_member');
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

  it('fetches a JWKS URL once and caches it; answers 503 jwks_unavailable while it cannot be fetched at all', async function () {
    const jwks = readFileSync(kit.jwksEnv.JWT_JWKS!, 'utf8');
    let fetches = 0;
    const server = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    try {
      const v = verifier({ ...kit.env, JWT_PUBLIC_KEY_FILE: '', JWT_JWKS: url });
      expect(await outcome(v.verify(kit.sign({}, { key: 'ec' })))).to.equal('ok:u_member');
      expect(await outcome(v.verify(kit.sign({}, { key: 'rsa' })))).to.equal('ok:u_member');
      expect(fetches).to.equal(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const unreachable = verifier({ ...kit.env, JWT_PUBLIC_KEY_FILE: '', JWT_JWKS: url });
    expect(await outcome(unreachable.verify(kit.sign({}, { key: 'ec' })))).to.equal('jwks_unavailable');
  });

  it('remembers a failed JWKS fetch for the refetch interval instead of fetching again per token', async function () {
    let fetches = 0;
    const server = createServer((_req, res) => {
      fetches++;
      res.writeHead(500, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    try {
      const v = verifier({ ...kit.env, JWT_PUBLIC_KEY_FILE: '', JWT_JWKS: url });
      for (let i = 0; i < 5; i++) expect(await outcome(v.verify(kit.sign({}, { key: 'ec' })))).to.equal('jwks_unavailable');
      expect(fetches).to.equal(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
