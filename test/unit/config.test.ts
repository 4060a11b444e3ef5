import { expect } from 'chai';
import { join } from 'node:path';
import express from 'express';
import { packageRoot } from '../../core/ground/package-root.js';
import { ConfigError, DEFAULT_INDEX_LAYOUT, deprecatedNamesIn, loadConfig } from '../../core/config/load.js';

describe('loadConfig', function () {
  it('gives documented defaults for an empty environment', function () {
    const config = loadConfig({});
    expect(config.port).to.equal(8080);
    expect(config.opensearchUrl).to.equal('http://127.0.0.1:9200');
    expect(config.redisUrl).to.equal('redis://127.0.0.1:6379');
    expect(config.modelId).to.equal('Xenova/bge-small-en-v1.5');
    expect(config.modelDir).to.equal(join(packageRoot(), '.cache', 'models'));
    expect(config.modelProvision).to.equal('bge-small-en-v1.5');
    expect(config.rateLimit).to.deep.equal({ max: 600, windowSeconds: 60 });
    expect(config.search.rrfK).to.equal(60);
    expect(config.anonymousRead).to.equal('none');
    expect(config.trustProxy).to.equal(false);
    expect(config.mcp).to.deep.equal({ enabled: true, rateLimitMax: 120, allowedOrigins: [] });
    expect(config.http).to.deep.equal({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    expect(config.pages).to.deep.equal({ rateLimitMax: 300, rateLimitWindowSeconds: 60 });
    expect(config.metrics).to.deep.equal({ host: '127.0.0.1', apiPort: undefined, workerPort: undefined });
    expect(config.queryEmbedding).to.deep.equal({ workers: 1, maxQueue: 8, maxTokens: 128, timeoutMs: 500, nice: 10 });
    expect(config.searchAdmission).to.deep.equal({ concurrency: 4, queue: 32, maxWaitMs: 1000, anonymousConcurrency: 2, anonymousQueue: 8 });
  });

  it('reads the MCP switch and the metrics ports', function () {
    const config = loadConfig({ MCP_SERVER: 'off', METRICS_PORT: '9464', WORKER_METRICS_PORT: '9465', METRICS_HOST: '0.0.0.0' });
    expect(config.mcp.enabled).to.equal(false);
    expect(config.metrics).to.deep.equal({ host: '0.0.0.0', apiPort: 9464, workerPort: 9465 });
  });

  it('returns a frozen object, nested parts included', function () {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).to.equal(true);
    expect(Object.isFrozen(config.rateLimit)).to.equal(true);
  });

  for (const [name, value, pattern] of [
    ['PORT', 'eighty', /PORT: expected an integer/],
    ['MCP_ALLOWED_ORIGINS', 'https://app.example.com/path', /MCP_ALLOWED_ORIGINS: expected an origin/],
    ['MCP_ALLOWED_ORIGINS', 'app.example.com', /MCP_ALLOWED_ORIGINS: expected origins like/],
    ['HTTP_HEADERS_TIMEOUT_MS', '10', /HTTP_HEADERS_TIMEOUT_MS: expected 100\.\./],
    ['SEARCH_ANONYMOUS_CONCURRENCY', '0', /SEARCH_ANONYMOUS_CONCURRENCY: expected 1\.\./],
    ['PORT', '70000', /PORT: expected 0\.\.65535/],
    ['OPENSEARCH_URL', 'not a url', /OPENSEARCH_URL: expected a URL/],
    ['REDIS_URL', 'http://localhost:6379', /REDIS_URL: expected a redis: or rediss: URL/],
    ['INDEX_PREFIX', 'Upper-', /INDEX_PREFIX: expected lowercase/],
    ['ANONYMOUS_READ', 'everything', /ANONYMOUS_READ: expected one of none, published/],
    ['RRF_K', '-1', /RRF_K: expected a number >= 1/],
    ['SEARCH_FUSION', 'zscore', /SEARCH_FUSION: expected one of rrf, minmax, got "zscore"/],
    ['SEARCH_KEYWORD_WEIGHT', '-1', /SEARCH_KEYWORD_WEIGHT: expected a number >= 0/],
    ['RRF_SEMANTIC_WEIGHT', 'heavy', /RRF_SEMANTIC_WEIGHT: expected a number >= 0, got "heavy"/],
    ['API_V1_DEPRECATED_AT', 'someday', /API_V1_DEPRECATED_AT: expected an ISO 8601 date/],
    ['TRUST_PROXY', 'true', /TRUST_PROXY: "true" trusts any X-Forwarded-For, which every client can forge/],
    ['TRUST_PROXY', '33', /TRUST_PROXY: expected a hop count 0\.\.32/],
    ['TRUST_PROXY', '1.5', /TRUST_PROXY: expected false, a hop count, or a comma-separated list .*; "1\.5" is none/],
    ['TRUST_PROXY', 'proxy.internal', /TRUST_PROXY: .*"proxy\.internal" is none/],
    ['TRUST_PROXY', '10.0.0.0/0', /TRUST_PROXY: .*"10\.0\.0\.0\/0" is none/],
    ['TRUST_PROXY', '10.0.0.0/33', /TRUST_PROXY: .*"10\.0\.0\.0\/33" is none/],
    ['TRUST_PROXY', 'loopback,', /TRUST_PROXY: .*"" is none/],
    ['OPENSEARCH_URL', 'http://127.0.0.1:9201,,http://127.0.0.1:9202', /OPENSEARCH_URL: expected comma-separated URLs without empty entries/],
    [
      'OPENSEARCH_URL',
      'http://127.0.0.1:9201,127.0.0.1:9202',
      /OPENSEARCH_URL: expected a URL, got "127\.0\.0\.1:9202"|OPENSEARCH_URL: expected a http: or https: URL, got "127\.0\.0\.1:9202"/,
    ],
    ['OPENSEARCH_URL', 'http://127.0.0.1:9201,http://127.0.0.1:9201/', /OPENSEARCH_URL: lists http:\/\/127\.0\.0\.1:9201 twice/],
    ['INDEX_SHARDS', '0', /INDEX_SHARDS: expected 1\.\.1024/],
    ['INDEX_REPLICAS', '-1', /INDEX_REPLICAS: expected a replica count 0\.\.32 or an auto-expand range/],
    ['INDEX_REPLICAS', '2-1', /INDEX_REPLICAS: expected a replica count .*got "2-1"/],
    ['INDEX_REPLICAS', 'one', /INDEX_REPLICAS: expected a replica count .*got "one"/],
    ['JWT_HS_SECRET', 'dev-secret', /JWT_HS_SECRET: expected at least 32 bytes/],
    ['JWT_HS_SECRET', 'x'.repeat(31), /JWT_HS_SECRET: expected at least 32 bytes .* got 31/],
    ['EMBED_QUERY_WORKERS', '0', /EMBED_QUERY_WORKERS: expected 1\.\.64/],
    ['EMBED_QUERY_MAX_TOKENS', '600', /EMBED_QUERY_MAX_TOKENS: expected 8\.\.512/],
    ['EMBED_QUERY_NICE', '-5', /EMBED_QUERY_NICE: expected 0\.\.19/],
    ['EMBED_QUERY_TIMEOUT_MS', '0', /EMBED_QUERY_TIMEOUT_MS: expected 10\.\.60000/],
    ['SEARCH_CONCURRENCY', '0', /SEARCH_CONCURRENCY: expected 1\.\.10000/],
    ['SEARCH_QUEUE_WAIT_MS', '0', /SEARCH_QUEUE_WAIT_MS: expected 1\.\.60000/],
    ['MCP_SERVER', 'maybe', /MCP_SERVER: expected one of on, off/],
    ['METRICS_PORT', 'ninety', /METRICS_PORT: expected an integer/],
    ['WORKER_METRICS_PORT', '70000', /WORKER_METRICS_PORT: expected 0\.\.65535/],
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

  it('reads a comma-separated OPENSEARCH_URL as one node per entry, keeping the joined form for child processes', function () {
    const config = loadConfig({ OPENSEARCH_URL: ' http://127.0.0.1:9201/, http://127.0.0.1:9202 ,https://search.internal:9200' });
    expect(config.opensearchNodes).to.deep.equal(['http://127.0.0.1:9201', 'http://127.0.0.1:9202', 'https://search.internal:9200']);
    expect(config.opensearchUrl).to.equal('http://127.0.0.1:9201,http://127.0.0.1:9202,https://search.internal:9200');
    expect(loadConfig({ OPENSEARCH_URL: config.opensearchUrl }).opensearchNodes).to.deep.equal(config.opensearchNodes);
  });

  it('lays indices out as one shard with replicas that follow the node count (0-1) unless INDEX_SHARDS / INDEX_REPLICAS say otherwise', function () {
    expect(loadConfig({}).indexLayout).to.deep.equal({ shards: 1, replicas: '0-1', vectorSource: 'derived' });
    expect(loadConfig({ INDEX_SHARDS: '3', INDEX_REPLICAS: '1' }).indexLayout).to.deep.equal({ shards: 3, replicas: 1, vectorSource: 'derived' });
    expect(loadConfig({ INDEX_REPLICAS: '0' }).indexLayout.replicas).to.equal(0);
    expect(loadConfig({ INDEX_REPLICAS: '1-all' }).indexLayout.replicas).to.equal('1-all');
    expect(loadConfig({ INDEX_REPLICAS: '0-2' }).indexLayout.replicas).to.equal('0-2');
  });

  it('accepts a JWT_HS_SECRET of 32 bytes or more', function () {
    expect(loadConfig({ JWT_HS_SECRET: 'x'.repeat(32) }).jwt.hsSecret).to.equal('x'.repeat(32));
  });

  it('trims trailing slashes from URLs so paths can be appended', function () {
    expect(loadConfig({ OPENSEARCH_URL: 'http://127.0.0.1:9201/' }).opensearchUrl).to.equal('http://127.0.0.1:9201');
  });

  it('derives the fields other variables default: base URL and user agent from PORT, queue from INDEX_PREFIX, embeddings model from MODEL_ID', function () {
    const config = loadConfig({ PORT: '9090', INDEX_PREFIX: 'drill-', MODEL_ID: 'Xenova/all-MiniLM-L6-v2' });
    expect(config.publicBaseUrl).to.equal('http://localhost:9090');
    expect(config.queueName).to.equal('drill-ingest');
    expect(config.embedding.remote.model).to.equal('Xenova/all-MiniLM-L6-v2');
    expect(config.pipeline.userAgent).to.match(/^CreatorContentAPI\/\S+ \(\+http:\/\/localhost:9090\)$/);
    const given = loadConfig({ PORT: '9090', PUBLIC_BASE_URL: 'https://api.example.com/', QUEUE_NAME: 'jobs', EMBEDDINGS_MODEL: 'text-embedding-3-small' });
    expect([given.publicBaseUrl, given.queueName, given.embedding.remote.model]).to.deep.equal(['https://api.example.com', 'jobs', 'text-embedding-3-small']);
    expect(given.pipeline.userAgent).to.match(/\(\+https:\/\/api\.example\.com\)$/);
  });

  it('reads the on/off and true/false switches as booleans and lower-cases the channel base domain', function () {
    const config = loadConfig({ CHANNEL_CUSTOM_DOMAINS: 'off', OUTBOUND_ALLOW_PRIVATE: 'true', CHANNEL_BASE_DOMAIN: 'Creators.Example.ORG' });
    expect(config.channelSites).to.deep.equal({ baseDomain: 'creators.example.org', scheme: 'https', customDomains: false, port: undefined });
    expect(config.pipeline.allowPrivate).to.equal(true);
    expect(loadConfig({}).pipeline.allowPrivate).to.equal(false);
    expect(() => loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'yes' })).to.throw(ConfigError, /OUTBOUND_ALLOW_PRIVATE: expected one of true, false/);
  });

  it('sets the deprecation of /api/v1 only when API_V1_DEPRECATED_AT is set', function () {
    expect(loadConfig({ API_V1_SUNSET_AT: '2027-01-01', API_V1_SUCCESSOR: 'https://api.example.com/v2' }).deprecation).to.equal(undefined);
    expect(loadConfig({ API_V1_DEPRECATED_AT: '2026-06-01', API_V1_SUCCESSOR: 'https://api.example.com/v2' }).deprecation).to.deep.equal({
      deprecatedAt: new Date('2026-06-01'),
      sunsetAt: undefined,
      successor: 'https://api.example.com/v2',
    });
  });

  it('reads the fusion weights from SEARCH_*_WEIGHT, else from their deprecated RRF_*_WEIGHT names', function () {
    expect(loadConfig({}).search).to.include({ keywordWeight: 1, semanticWeight: 1 });
    expect(loadConfig({ SEARCH_KEYWORD_WEIGHT: '0.5', SEARCH_SEMANTIC_WEIGHT: '2' }).search).to.include({ keywordWeight: 0.5, semanticWeight: 2 });
    expect(loadConfig({ RRF_KEYWORD_WEIGHT: '0.5', RRF_SEMANTIC_WEIGHT: '2' }).search).to.include({ keywordWeight: 0.5, semanticWeight: 2 });
    expect(loadConfig({ SEARCH_KEYWORD_WEIGHT: '3', RRF_KEYWORD_WEIGHT: '0.5', SEARCH_SEMANTIC_WEIGHT: ' ', RRF_SEMANTIC_WEIGHT: '2' }).search).to.include({
      keywordWeight: 3,
      semanticWeight: 2,
    });
  });

  it('names the deprecated variables an environment still sets, with their replacements, for the warning at start', function () {
    expect(deprecatedNamesIn({ SEARCH_KEYWORD_WEIGHT: '1' })).to.deep.equal([]);
    expect(deprecatedNamesIn({ RRF_KEYWORD_WEIGHT: '0.5', RRF_SEMANTIC_WEIGHT: ' ' })).to.deep.equal([{ name: 'RRF_KEYWORD_WEIGHT', use: 'SEARCH_KEYWORD_WEIGHT' }]);
  });

  it('always sets the cache sizes, to the documented defaults when unset', function () {
    expect(loadConfig({}).search).to.include({ queryCacheSize: 256, queryCacheChannels: 64, hydrationCacheMb: 64 });
  });

  it('takes the default index layout from the schema, as an empty environment reads it', function () {
    expect(DEFAULT_INDEX_LAYOUT).to.deep.equal(loadConfig({}).indexLayout);
    expect(Object.isFrozen(DEFAULT_INDEX_LAYOUT)).to.equal(true);
  });
});
