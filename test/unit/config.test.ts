import { expect } from 'chai';
import express from 'express';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', function () {
  it('gives documented defaults for an empty environment', function () {
    const config = loadConfig({});
    expect(config.port).to.equal(8080);
    expect(config.opensearchUrl).to.equal('http://127.0.0.1:9200');
    expect(config.redisUrl).to.equal('redis://127.0.0.1:6379');
    expect(config.modelId).to.equal('Xenova/bge-small-en-v1.5');
    expect(config.modelDir).to.equal(undefined);
    expect(config.rateLimit).to.deep.equal({ max: 600, windowSeconds: 60 });
    expect(config.search.rrfK).to.equal(60);
    expect(config.anonymousRead).to.equal('none');
    expect(config.trustProxy).to.equal(false);
  });

  it('returns a frozen object, nested parts included', function () {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).to.equal(true);
    expect(Object.isFrozen(config.rateLimit)).to.equal(true);
  });

  for (const [name, value, pattern] of [
    ['PORT', 'eighty', /PORT: expected an integer/],
    ['PORT', '70000', /PORT: expected 0\.\.65535/],
    ['OPENSEARCH_URL', 'not a url', /OPENSEARCH_URL: expected a URL/],
    ['REDIS_URL', 'http://localhost:6379', /REDIS_URL: expected a redis: or rediss: URL/],
    ['INDEX_PREFIX', 'Upper-', /INDEX_PREFIX: expected lowercase/],
    ['ANONYMOUS_READ', 'everything', /ANONYMOUS_READ: expected one of none, published/],
    ['RRF_K', '-1', /RRF_K: expected a number >= 1/],
    ['API_V1_DEPRECATED_AT', 'someday', /API_V1_DEPRECATED_AT: expected an ISO 8601 date/],
    ['TRUST_PROXY', 'true', /TRUST_PROXY: "true" trusts any X-Forwarded-For, which every client can forge/],
    ['TRUST_PROXY', '33', /TRUST_PROXY: expected a hop count 0\.\.32/],
    ['TRUST_PROXY', '1.5', /TRUST_PROXY: expected false, a hop count, or a comma-separated list .*; "1\.5" is none/],
    ['TRUST_PROXY', 'proxy.internal', /TRUST_PROXY: .*"proxy\.internal" is none/],
    ['TRUST_PROXY', '10.0.0.0/0', /TRUST_PROXY: .*"10\.0\.0\.0\/0" is none/],
    ['TRUST_PROXY', '10.0.0.0/33', /TRUST_PROXY: .*"10\.0\.0\.0\/33" is none/],
    ['TRUST_PROXY', 'loopback,', /TRUST_PROXY: .*"" is none/],
    ['JWT_HS_SECRET', 'dev-secret', /JWT_HS_SECRET: expected at least 32 bytes/],
    ['JWT_HS_SECRET', 'x'.repeat(31), /JWT_HS_SECRET: expected at least 32 bytes .* got 31/],
    ['EMBED_QUERY_WORKERS', '0', /EMBED_QUERY_WORKERS: expected 1\.\.64/],
    ['EMBED_QUERY_MAX_TOKENS', '600', /EMBED_QUERY_MAX_TOKENS: expected 8\.\.512/],
  ] as const) {
    it(`fails fast naming ${name} when it is "${value}"`, function () {
      expect(() => loadConfig({ [name]: value })).to.throw(ConfigError, pattern);
    });
  }

  for (const [value, expected] of [
    ['false', false],
    ['0', false],
    ['2', 2],
    ['loopback', ['loopback']],
    ['loopback, linklocal,uniquelocal', ['loopback', 'linklocal', 'uniquelocal']],
    ['10.0.0.0/8, 192.168.1.7, 2001:db8::/32, ::1', ['10.0.0.0/8', '192.168.1.7', '2001:db8::/32', '::1']],
  ] as const) {
    it(`reads TRUST_PROXY="${value}" as a value Express accepts for 'trust proxy'`, function () {
      const { trustProxy } = loadConfig({ TRUST_PROXY: value });
      expect(trustProxy).to.deep.equal(expected);
      expect(() => express().set('trust proxy', trustProxy)).not.to.throw();
    });
  }

  it('accepts a JWT_HS_SECRET of 32 bytes or more', function () {
    expect(loadConfig({ JWT_HS_SECRET: 'x'.repeat(32) }).jwt.hsSecret).to.equal('x'.repeat(32));
  });

  it('trims trailing slashes from URLs so paths can be appended', function () {
    expect(loadConfig({ OPENSEARCH_URL: 'http://127.0.0.1:9201/' }).opensearchUrl).to.equal('http://127.0.0.1:9201');
  });
});
