// The upstream OpenID Connect settings: off unless the issuer is set; https (http on loopback only); a client id and one secret.
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../core/config/load.js';

const CLIENT = { CONSOLE_OIDC_CLIENT_ID: 'console', CONSOLE_OIDC_CLIENT_SECRET: 's3cret' };
const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('loaded');
};

describe('upstream provider configuration', function () {
  it('is off without an issuer, whatever else is set', function () {
    expect(loadConfig({}).upstream).to.equal(undefined);
    expect(loadConfig({ ...CLIENT, CONSOLE_OIDC_NAME: 'Authentik' }).upstream).to.equal(undefined);
  });

  it('keeps the issuer exactly as written (its trailing slash too) and names the button after its host by default', function () {
    const issuer = 'https://auth.example.com/application/o/console/';
    expect(loadConfig({ CONSOLE_OIDC_ISSUER: issuer, ...CLIENT }).upstream).to.deep.equal({
      issuer,
      clientId: 'console',
      clientSecret: { value: 's3cret' },
      name: 'auth.example.com',
    });
    const named = loadConfig({
      CONSOLE_OIDC_ISSUER: 'http://127.0.0.1:9000',
      CONSOLE_OIDC_CLIENT_ID: 'c',
      CONSOLE_OIDC_CLIENT_SECRET_FILE: '/run/secrets/oidc',
      CONSOLE_OIDC_NAME: 'Pocket ID',
    });
    expect(named.upstream).to.include({ name: 'Pocket ID', issuer: 'http://127.0.0.1:9000' });
    expect(named.upstream!.clientSecret).to.deep.equal({ file: '/run/secrets/oidc' });
  });

  it('refuses http off loopback, a query, a missing client id, and no secret or two', function () {
    expect(refusal({ CONSOLE_OIDC_ISSUER: 'http://auth.example.com', ...CLIENT })).to.equal(
      'CONSOLE_OIDC_ISSUER: expected an https URL (http only on loopback), got "http://auth.example.com"',
    );
    expect(refusal({ CONSOLE_OIDC_ISSUER: 'https://auth.example.com/?x=1', ...CLIENT })).to.match(/^CONSOLE_OIDC_ISSUER: an issuer has no query/);
    expect(refusal({ CONSOLE_OIDC_ISSUER: 'not a url', ...CLIENT })).to.match(/^CONSOLE_OIDC_ISSUER: expected an https URL/);
    expect(refusal({ CONSOLE_OIDC_ISSUER: 'https://auth.example.com', CONSOLE_OIDC_CLIENT_SECRET: 'x' })).to.equal(
      'CONSOLE_OIDC_CLIENT_ID: required when CONSOLE_OIDC_ISSUER is set',
    );
    expect(refusal({ CONSOLE_OIDC_ISSUER: 'https://auth.example.com', CONSOLE_OIDC_CLIENT_ID: 'c' })).to.match(/^CONSOLE_OIDC_CLIENT_SECRET: required/);
    expect(refusal({ CONSOLE_OIDC_ISSUER: 'https://auth.example.com', ...CLIENT, CONSOLE_OIDC_CLIENT_SECRET_FILE: '/f' })).to.match(/not both$/);
  });
});
