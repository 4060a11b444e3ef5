// Every shell block of README.md and docs/operations.md, run in order in a fresh clone with the services up and nothing
// exported, as a newcomer would copy them; a block that cannot run there says why in the markdown itself.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../core/ground/logger.js';
import { servicesUp } from '../../scripts/ops/provision/services.js';
import { commandBlocks, strayMarks, type CommandBlock } from '../support/command-blocks.js';
import { deleteIndices } from '../../core/store/opensearch.js';
import { REPO_ROOT, testClient } from '../support/indexer-env.js';

const DOCS = ['README.md', 'docs/operations.md'];
/** What a shell a newcomer opens carries: no service URL, no model folder, no setting of this project. */
const KEPT = ['PATH', 'HOME', 'USER', 'LANG', 'TERM', 'SHELL', 'TMPDIR', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR'];
/** The longest one block may take: `enrich` loads the model once per command (about 13 s each on a busy 2-core machine). */
const BLOCK_TIMEOUT_MS = 240_000;

const blocks: CommandBlock[] = DOCS.flatMap((doc) => commandBlocks(join(REPO_ROOT, doc), doc));

function runBlock(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), BLOCK_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('the documented commands, for a newcomer', function () {
  it('mark every block they cannot run with a reason, right before its fence', function () {
    const unexplained = blocks.filter((b) => b.notRun !== undefined && b.notRun.split(/\s+/).filter(Boolean).length < 3).map((b) => b.where);
    expect(unexplained, 'a `<!-- not run: … -->` mark without a reason').to.deep.equal([]);
    expect(
      DOCS.flatMap((doc) => strayMarks(join(REPO_ROOT, doc), doc)),
      'marks not right before a shell fence',
    ).to.deep.equal([]);
    expect(blocks.filter((b) => b.notRun === undefined).length, 'blocks run').to.be.greaterThan(2);
  });

  describe('run in a fresh clone, in order', function () {
    this.timeout(BLOCK_TIMEOUT_MS + 60_000);
    let clone: string;
    let env: NodeJS.ProcessEnv;
    // Indices of their own, so the clone's ingest and keys never touch the shared node's `cca-` demo; the one variable set.
    const prefix = `docs-${randomBytes(4).toString('hex')}-`;

    before(async function () {
      this.timeout(600_000);
      // The services as `npm run services -- up` leaves them, recorded under .cache/run: all the clone has to find them.
      await servicesUp({ log: createLogger({ name: 'docs-commands', level: 'warn', fd: 2 }), transcriber: true });
      clone = await mkdtemp(join(tmpdir(), 'cca-clone-'));
      const cloned = await runBlock(`git clone -q "${REPO_ROOT}" "${clone}"`, tmpdir(), process.env);
      expect(cloned.code, cloned.output).to.equal(0);
      // What `npm ci` and the first run would have put there.
      await symlink(await realpath(join(REPO_ROOT, 'node_modules')), join(clone, 'node_modules'));
      await symlink(await realpath(join(REPO_ROOT, '.cache')), join(clone, '.cache'));
      env = { ...Object.fromEntries(KEPT.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]])), INDEX_PREFIX: prefix };
    });

    after(async function () {
      this.timeout(60_000);
      const client = testClient();
      try {
        await deleteIndices(client, prefix);
      } finally {
        await client.close();
      }
      if (clone) await rm(clone, { recursive: true, force: true });
    });

    for (const block of blocks.filter((b) => b.notRun === undefined)) {
      it(`${block.where} runs and names what it could not reach`, async function () {
        const { code, output } = await runBlock(block.script, clone, env);
        expect(output, `${block.where} printed a bare "fetch failed"`).not.to.match(/: fetch failed\s*$/m);
        expect(code, `${block.where} exited ${code}:\n${output.slice(-3000)}`).to.equal(0);
      });
    }
  });
});
