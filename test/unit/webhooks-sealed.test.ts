// Webhook secrets sealed at rest: AES-256-GCM under SECRETS_KEY, the key id beside the ciphertext, the endpoint bound in.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../core/config/load.js';
import { WebhookError } from '../../pipeline/webhooks/errors.js';
import { isSealed, keyringOf, openSecret, sealSecret, sealedKeyId, type Keyring } from '../../pipeline/webhooks/sealed.js';
import { newSecret } from '../../pipeline/webhooks/signing.js';

const keyring = (key: string, previous?: string): Keyring => keyringOf(loadConfig({ SECRETS_KEY: key, ...(previous ? { SECRETS_KEY_PREVIOUS: previous } : {}) }).secrets)!;
const randomKey = () => randomBytes(32).toString('base64');

/** The WebhookError `fn` throws (fails the test when it throws nothing or something else). */
function refusal(fn: () => unknown): WebhookError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(WebhookError);
    return err as WebhookError;
  }
  throw new Error('expected a refusal');
}

describe('webhooks: secrets sealed at rest', function () {
  const secret = newSecret();

  it('seals a secret into a value holding neither the secret nor its bytes, naming the key, and opens it again', function () {
    const ring = keyring(randomKey());
    const sealed = sealSecret(ring, secret, 'wh_0123456789abcdef');
    expect(isSealed(sealed)).to.equal(true);
    expect(sealed).to.not.contain(secret);
    expect(sealed).to.not.contain(secret.slice('whsec_'.length, 20));
    expect(sealedKeyId(sealed)).to.equal(ring.current.id);
    expect(openSecret(ring, sealed, 'wh_0123456789abcdef')).to.equal(secret);
  });

  it('uses a fresh IV each time: the same secret sealed twice gives two values that both open', function () {
    const ring = keyring(randomKey());
    const [a, b] = [sealSecret(ring, secret, 'wh_a'), sealSecret(ring, secret, 'wh_a')];
    expect(a).to.not.equal(b);
    expect(a.split(':')[3]).to.not.equal(b.split(':')[3]);
    expect([openSecret(ring, a, 'wh_a'), openSecret(ring, b, 'wh_a')]).to.deep.equal([secret, secret]);
  });

  it('opens a secret sealed under SECRETS_KEY_PREVIOUS during a rotation', function () {
    const old = randomKey();
    const sealed = sealSecret(keyring(old), secret, 'wh_a');
    expect(openSecret(keyring(randomKey(), old), sealed, 'wh_a')).to.equal(secret);
  });

  it('refuses a value sealed under a key it does not hold, naming the key expected and the keys held', function () {
    const sealedUnder = keyring(randomKey());
    const held = keyring(randomKey());
    const err = refusal(() => openSecret(held, sealSecret(sealedUnder, secret, 'wh_a'), 'wh_a'));
    expect(err.code).to.equal('secrets_key_unknown');
    expect(err.message).to.contain(`sealed under key ${sealedUnder.current.id}`);
    expect(err.message).to.contain(`SECRETS_KEY is key ${held.current.id}`);
    expect(err.message).to.contain('SECRETS_KEY_PREVIOUS is unset');
    expect(refusal(() => openSecret(undefined, sealSecret(sealedUnder, secret, 'wh_a'), 'wh_a')).message).to.contain('SECRETS_KEY is unset');
  });

  it('refuses an altered value, and one copied from another endpoint, though the key is right', function () {
    const ring = keyring(randomKey());
    const sealed = sealSecret(ring, secret, 'wh_a');
    const parts = sealed.split(':');
    const data = Buffer.from(parts[4]!, 'base64url');
    data[0]! ^= 1;
    const altered = [...parts.slice(0, 4), data.toString('base64url')].join(':');
    const truncated = [...parts.slice(0, 4), Buffer.from(parts[4]!, 'base64url').subarray(0, 20).toString('base64url')].join(':');
    for (const [value, endpointId] of [
      [altered, 'wh_a'],
      [truncated, 'wh_a'],
      [sealed, 'wh_b'],
    ] as const) {
      const err = refusal(() => openSecret(ring, value, endpointId));
      expect(err.code, `${value} for ${endpointId}`).to.equal('secret_unreadable');
      expect(err.message).to.contain(`names key ${ring.current.id}`);
    }
  });

  it('returns a secret stored in clear before sealing as it is, so deliveries go on until it is sealed', function () {
    expect(isSealed(secret)).to.equal(false);
    expect(sealedKeyId(secret)).to.equal(undefined);
    expect(openSecret(undefined, secret, 'wh_a')).to.equal(secret);
  });

  it('reads SECRETS_KEY as hex or base64 (the same key, the same id: the first 8 hex digits of its SHA-256)', function () {
    const bytes = randomBytes(32);
    const fromHex = loadConfig({ SECRETS_KEY: bytes.toString('hex') }).secrets.key!;
    const fromBase64 = loadConfig({ SECRETS_KEY: bytes.toString('base64') }).secrets.key!;
    const fromBase64Url = loadConfig({ SECRETS_KEY: bytes.toString('base64url') }).secrets.key!;
    expect(fromHex).to.deep.equal(fromBase64);
    expect(fromBase64Url).to.deep.equal(fromBase64);
    expect(fromHex.id).to.equal(createHash('sha256').update(bytes).digest('hex').slice(0, 8));
    expect(loadConfig({}).secrets.key).to.equal(undefined);
  });

  it('refuses a SECRETS_KEY that is not 32 bytes, without printing it', function () {
    for (const value of [randomBytes(31).toString('base64'), randomBytes(33).toString('hex'), 'correct horse battery staple']) {
      expect(() => loadConfig({ SECRETS_KEY: value }), value).to.throw(ConfigError, /SECRETS_KEY: expected 32 random bytes/);
      expect(() => loadConfig({ SECRETS_KEY_PREVIOUS: value }), value)
        .to.throw(ConfigError, /SECRETS_KEY_PREVIOUS: expected 32 random bytes/)
        .with.property('message')
        .that.does.not.contain(value);
    }
  });
});
