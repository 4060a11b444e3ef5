import { expect } from 'chai';
import { API_KEY_PREFIX, checksum, generateApiKey, hashApiKey, isWellFormedApiKey, looksLikeApiKey } from '../../src/auth/api-keys.js';

describe('api keys: format and checksum', function () {
  it('makes keys of svc_ + 32 base62 characters + a 6-character checksum', function () {
    const key = generateApiKey();
    expect(key).to.match(/^svc_[0-9A-Za-z]{38}$/);
    expect(key.slice(-6)).to.equal(checksum(key.slice(4, 36)));
    expect(isWellFormedApiKey(key)).to.equal(true);
  });

  it('never makes the same key twice in a thousand', function () {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).to.equal(1000);
  });

  it('rejects a key with any single character changed, by checksum alone', function () {
    const key = generateApiKey();
    for (let i = API_KEY_PREFIX.length; i < key.length; i++) {
      const swapped = key[i] === 'a' ? 'b' : 'a';
      expect(isWellFormedApiKey(key.slice(0, i) + swapped + key.slice(i + 1)), `position ${i}`).to.equal(false);
    }
  });

  it('rejects wrong prefixes, lengths and characters', function () {
    const key = generateApiKey();
    for (const bad of [key.slice(1), `${key}x`, key.slice(0, -1), key.replace('svc_', 'svc-'), `${key.slice(0, 10)}!${key.slice(11)}`, '', 'svc_']) {
      expect(isWellFormedApiKey(bad), bad).to.equal(false);
    }
  });

  it('treats any value with the brand prefix as meant to be a key', function () {
    expect(looksLikeApiKey('svc_whatever')).to.equal(true);
    expect(looksLikeApiKey('eyJhbGciOi')).to.equal(false);
  });

  it('stores a sha256 hex digest, never the key', function () {
    const key = generateApiKey();
    const hash = hashApiKey(key);
    expect(hash).to.match(/^[0-9a-f]{64}$/);
    expect(hash).not.to.include(key.slice(4, 20));
  });
});
