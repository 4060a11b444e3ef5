// The authorization server's pure parts: which redirect sets make a native client, and what a signing keys file must hold and how it rotates.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { isNativeRedirectSet, redirectHost, redirectKind } from '../../src/oauth/native-clients.js';
import { newSigningKey, parseSigningKeys, readSigningKeys, SigningKeysError } from '../../src/oauth/signing-keys.js';
import { rotateKeysFile } from '../../src/oauth/rotate-keys.js';

describe('native clients (RFC 8252)', function () {
  it('treats loopback and private-scheme redirect sets as native, with claimed https URIs beside them', function () {
    expect(isNativeRedirectSet(['http://127.0.0.1:33418/'])).to.equal(true);
    expect(isNativeRedirectSet(['http://localhost/cb', 'http://[::1]:8080/cb'])).to.equal(true);
    expect(isNativeRedirectSet(['com.example.app:/oauth'])).to.equal(true);
    expect(isNativeRedirectSet(['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'])).to.equal(true);
  });

  it('keeps web redirect sets web: https only, a non-loopback http host, or a scheme that is no private-use one', function () {
    expect(isNativeRedirectSet(['https://app.example/cb'])).to.equal(false);
    expect(isNativeRedirectSet(['http://127.0.0.1/cb', 'http://app.example/cb'])).to.equal(false);
    expect(isNativeRedirectSet(['javascript:alert(1)'])).to.equal(false);
    expect(isNativeRedirectSet([])).to.equal(false);
    expect(redirectKind('https://localhost/cb')).to.equal('other');
  });

  it('names the host a consent page shows', function () {
    expect(redirectHost('http://127.0.0.1:33418/')).to.equal('127.0.0.1:33418');
    expect(redirectHost('com.example.app:/oauth')).to.equal('com.example.app');
  });
});

describe('signing keys file', function () {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'oauth-keys-unit-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses public keys, keys without kid, repeated kids, other curves and small RSA keys, naming the file', function () {
    const key = newSigningKey();
    const { d: _d, ...publicOnly } = key;
    const cases: [unknown, RegExp][] = [
      [{ keys: [] }, /at least one key/],
      [{ keys: [publicOnly] }, /public key/],
      [{ keys: [{ ...key, kid: undefined }] }, /no "kid"/],
      [{ keys: [key, key] }, /appears twice/],
      [{ keys: [{ ...key, crv: 'P-384' }] }, /only EC P-256/],
      [{ keys: [{ ...key, alg: 'RS256' }] }, /does not fit/],
      [{ keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'jwk' }), kid: 'small' }] }, /at least 2048 bits/],
    ];
    for (const [doc, message] of cases) expect(() => parseSigningKeys(doc, 'keys.json')).to.throw(SigningKeysError, message);
    expect(() => readSigningKeys(join(dir, 'missing.json'))).to.throw(SigningKeysError, /cannot be read/);
  });

  it('rotates: a new key first, the old ones kept for verification, --drop-old keeps only the one replaced; the file is private', function () {
    const file = join(dir, 'keys.json');
    const a = rotateKeysFile(file);
    expect(a.created).to.equal(true);
    const b = rotateKeysFile(file, { alg: 'RS256' });
    const c = rotateKeysFile(file);
    expect(readSigningKeys(file).jwks.keys.map((k) => k.kid)).to.deep.equal([c.kid, b.kid, a.kid]);
    expect(readSigningKeys(file).signing).to.deep.equal({ kid: c.kid, alg: 'ES256' });
    const d = rotateKeysFile(file, { dropOld: true });
    expect(d.dropped).to.deep.equal([b.kid, a.kid]);
    expect(readSigningKeys(file).jwks.keys.map((k) => k.kid)).to.deep.equal([d.kid, c.kid]);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).keys[0].d, 'private keys').to.be.a('string');
  });

  it('derives the same cookie keys from the same file (every process) and new ones after a rotation', function () {
    const file = join(dir, 'keys.json');
    rotateKeysFile(file);
    const first = readSigningKeys(file).cookieKeys;
    expect(readSigningKeys(file).cookieKeys).to.deep.equal(first);
    rotateKeysFile(file);
    const after = readSigningKeys(file).cookieKeys;
    expect(after[1]).to.equal(first[0]);
    expect(after[0]).not.to.equal(first[0]);
  });
});
