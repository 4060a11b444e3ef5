// The demo's SECRETS_KEY file: made once with mode 0600, reused, narrowed when others could read it, never overwritten.
import { mkdtemp, readFile, rm, stat, chmod, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../core/config/load.js';
import { demoSecretsKeyFile, ensureDemoSecretsKey } from '../../scripts/ops/demo-secrets.js';

describe("demo: the webhook secrets' key", function () {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(path.join(tmpdir(), 'demo-secrets-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('makes a 32-byte key once, readable by its owner only, and gives the same key to the next run', async function () {
    const made = await ensureDemoSecretsKey(dir);
    expect(made.made).to.equal(true);
    expect((await stat(made.file)).mode & 0o777).to.equal(0o600);
    expect(Buffer.from(made.key, 'base64')).to.have.length(32);
    expect(loadConfig({ SECRETS_KEY: made.key }).secrets.key).to.not.equal(undefined);
    const again = await ensureDemoSecretsKey(dir);
    expect(again).to.deep.equal({ ...made, made: false });
  });

  it('narrows a key file others can read to 0600, and refuses one that holds no key without overwriting it', async function () {
    const { file, key } = await ensureDemoSecretsKey(dir);
    await chmod(file, 0o644);
    expect((await ensureDemoSecretsKey(dir)).key).to.equal(key);
    expect((await stat(file)).mode & 0o777).to.equal(0o600);
    await writeFile(demoSecretsKeyFile(dir), 'not a key\n');
    let refused: unknown;
    await ensureDemoSecretsKey(dir).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(ConfigError);
    expect(await readFile(file, 'utf8')).to.equal('not a key\n');
  });
});
