// TRANSCRIBE_URL and EMBEDDINGS_URL refuse credentials in the URL, as ENRICH_URL does: every log line naming the
// service would print them (security review 2026-11-27, item 16).
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { ConfigError } from '../../core/config/values.js';

describe('config: remote service URLs', function () {
  for (const [variable, extra] of [
    ['TRANSCRIBE_URL', {}],
    ['EMBEDDINGS_URL', { EMBEDDER: 'openai', EMBEDDINGS_MODEL: 'm' }],
  ] as const) {
    it(`refuses ${variable} carrying a user and password, without printing them`, function () {
      let thrown: unknown;
      try {
        loadConfig({ ...extra, [variable]: 'https://user:sk-SECRET123@service.example.com' });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(ConfigError);
      expect((thrown as ConfigError).variable).to.equal(variable);
      expect((thrown as Error).message)
        .to.contain('carries credentials')
        .and.not.contain('sk-SECRET123');
    });

    it(`refuses ${variable} carrying a key in its query`, function () {
      expect(() => loadConfig({ ...extra, [variable]: 'https://service.example.com/?api_key=sk-1' })).to.throw(ConfigError, variable);
    });
  }

  it('takes both without credentials, with or without a trailing slash, and leaves them unset when empty', function () {
    const config = loadConfig({ TRANSCRIBE_URL: 'http://127.0.0.1:8910/', EMBEDDER: 'openai', EMBEDDINGS_URL: 'https://embed.example.com/v1', EMBEDDINGS_MODEL: 'm' });
    expect(config.pipeline.transcribe.url).to.equal('http://127.0.0.1:8910');
    expect(config.embedding.remote.url).to.equal('https://embed.example.com/v1');
    expect(loadConfig({ TRANSCRIBE_URL: '' }).pipeline.transcribe.url).to.equal(undefined);
  });
});
