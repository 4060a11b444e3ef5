// The token verifier with this service's own issuer: local keys by kid (no fetch), the audience of each call site, the grant checked, `mayBeValid` agreeing.
import { createPrivateKey } from 'node:crypto';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { loadConfig } from '../../core/config/load.js';
import { ApiError } from '../../src/errors.js';
import { createTokenVerifier, type LocalIssuer } from '../../src/auth/jwt.js';
import { newSigningKey, parseSigningKeys, type PrivateJwk } from '../../src/oauth/signing-keys.js';

const BASE = 'https://api.example.test';
const MCP = `${BASE}/mcp`;

async function outcome(p: Promise<{ userId: string; grantId?: string }>): Promise<string> {
  try {
    const { userId, grantId } = await p;
    return `ok:${userId}:${grantId ?? '-'}`;
  } catch (error) {
    return error instanceof ApiError ? error.code : `thrown:${String(error)}`;
  }
}

describe('OAuth access tokens of the built-in authorization server', function () {
  const current = newSigningKey('ES256');
  const previous = newSigningKey('RS256');
  const stranger = newSigningKey('ES256');
  const keys = parseSigningKeys({ keys: [current, previous] }, 'test keys');
  const active = new Set(['g_live']);
  const grantReads: string[] = [];
  const local: LocalIssuer = {
    issuer: BASE,
    keys,
    grantActive: async (grantId) => {
      grantReads.push(grantId);
      return active.has(grantId);
    },
  };
  const verifier = createTokenVerifier(loadConfig({ PUBLIC_BASE_URL: BASE }), { local });

  const sign = (claims: Record<string, unknown> = {}, key: PrivateJwk = current, header: Record<string, unknown> = {}) =>
    jwt.sign({ iss: BASE, aud: BASE, sub: 'u_member', scope: 'creator:read', grant_id: 'g_live', ...claims }, createPrivateKey({ key: key, format: 'jwk' }), {
      algorithm: key.alg,
      expiresIn: 600,
      header: { alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header },
    });

  it('accepts a token of either key (the signing one and the one kept for verification), with its grant', async function () {
    expect(await outcome(verifier.verify(sign()))).to.equal('ok:u_member:g_live');
    expect(await outcome(verifier.verify(sign({}, previous)))).to.equal('ok:u_member:g_live');
  });

  it('takes the audience per call site: REST only BASE, the creator tool server only BASE/mcp', async function () {
    expect(await outcome(verifier.verify(sign({ aud: MCP })))).to.equal('invalid_token');
    expect(await outcome(verifier.verify(sign({ aud: MCP }), { audience: MCP }))).to.equal('ok:u_member:g_live');
    expect(await outcome(verifier.verify(sign(), { audience: MCP }))).to.equal('invalid_token');
    expect(verifier.mayBeValid(sign({ aud: MCP }))).to.equal(false);
    expect(verifier.mayBeValid(sign({ aud: MCP }), { audience: MCP })).to.equal(true);
    expect(verifier.mayBeValid(sign())).to.equal(true);
  });

  it('refuses a token of a revoked grant, or without one, after one grant read', async function () {
    grantReads.length = 0;
    expect(await outcome(verifier.verify(sign({ grant_id: 'g_revoked' })))).to.equal('invalid_token');
    expect(grantReads).to.deep.equal(['g_revoked']);
    expect(await outcome(verifier.verify(sign({ grant_id: undefined })))).to.equal('invalid_token');
  });

  it('refuses a key it does not hold, a kid naming another algorithm, and a foreign issuer', async function () {
    expect(await outcome(verifier.verify(sign({}, stranger)))).to.equal('invalid_token');
    expect(verifier.mayBeValid(sign({}, stranger))).to.equal(false);
    expect(await outcome(verifier.verify(sign({}, stranger, { kid: current.kid })))).to.equal('invalid_token');
    expect(await outcome(verifier.verify(sign({ iss: 'https://elsewhere.example' })))).to.equal('invalid_token');
    expect(verifier.mayBeValid(sign({ iss: 'https://elsewhere.example' }))).to.equal(false);
  });

  it('answers a valid token without creator:read with insufficient_scope', async function () {
    expect(await outcome(verifier.verify(sign({ scope: 'openid' })))).to.equal('insufficient_scope');
  });

  it('answers 503 store_unavailable when the grant cannot be read', async function () {
    const down = createTokenVerifier(loadConfig({ PUBLIC_BASE_URL: BASE }), {
      local: {
        ...local,
        grantActive: async () => {
          throw new Error('redis down');
        },
      },
    });
    expect(await outcome(down.verify(sign()))).to.equal('store_unavailable');
  });
});
