// `npm run oauth-keys -- rotate`: the signing keys file made and rotated from the command line, and an unusable file stopping the API's start.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { readSigningKeys } from '../../src/oauth/signing-keys.js';
import { startApi } from '../support/api-harness.js';
import { REPO_ROOT } from '../support/indexer-env.js';

const run = promisify(execFile);
const oauthKeys = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'bin/oauth-keys.ts', ...args], { cwd: REPO_ROOT });

describe('the oauth-keys command', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'oauth-keys-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the file, rotates a new key in first, and drops the old ones on --drop-old', async function () {
    const file = join(dir, 'keys.json');
    const created = await oauthKeys('rotate', file);
    const [first] = readSigningKeys(file).jwks.keys;
    expect(created.stdout).to.equal(`created ${file}: ${first!.kid} signs\n`);
    await oauthKeys('rotate', file, '--rsa');
    const rotated = await oauthKeys('rotate', file);
    const kids = readSigningKeys(file).jwks.keys.map((k) => `${k.kid}:${k.alg}`);
    expect(kids).to.have.length(3);
    expect(kids[1]).to.match(/:RS256$/);
    expect(rotated.stdout).to.match(/^rotated .*: \S+ signs; still verifying: \S+, \S+\n$/);
    const dropped = await oauthKeys('rotate', file, '--drop-old');
    expect(dropped.stdout).to.include('dropped:');
    expect(readSigningKeys(file).jwks.keys).to.have.length(2);
  });

  it('refuses a file it cannot use with one sentence and exit status 1, and leaves it as it was', async function () {
    const file = join(dir, 'public.json');
    const text = JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA', kid: 'k1' }] });
    writeFileSync(file, text);
    const failure = await oauthKeys('rotate', file).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).to.equal(1);
    expect(failure?.stderr).to.match(/^oauth-keys: .*public\.json key 1 \(kid k1\): a public key/);
    expect(readFileSync(file, 'utf8')).to.equal(text);
  });

  it('stops the API from starting when OAUTH_SIGNING_KEYS_FILE cannot be used, naming the file', async function () {
    const file = join(dir, 'missing.json');
    const error = await startApi({ env: { OAUTH_SIGNING_KEYS_FILE: file } }).then(
      async (api) => {
        await api.close();
        return undefined;
      },
      (e: Error) => e,
    );
    expect(error?.message).to.include(file).and.include('cannot be read');
  });
});
