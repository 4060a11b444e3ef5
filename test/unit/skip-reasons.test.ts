// Nothing drops out of a run silently: a conditional skip names its reason in the closing summary, a missing data set
// fails under REQUIRE_DATASETS=1 (.ci/run), a missing service fails under npm test (REQUIRE_PROVISIONED=1). Each case
// runs the real mocha with the summary reporter on test/support/skip-fixture.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { x } from 'tinyexec';

const MOCHA = path.join('node_modules', 'mocha', 'bin', 'mocha.js');

async function runFixture(env: Record<string, string>): Promise<{ code: number | undefined; out: string }> {
  const base = { ...process.env, REQUIRE_DATASETS: '', REQUIRE_PROVISIONED: '', FIXTURE_SERVICE_URL: '' };
  const args = [MOCHA, '--reporter', 'test/support/summary-reporter.cjs', 'test/support/skip-fixture.ts'];
  const r = await x(process.execPath, args, { nodeOptions: { env: { ...base, ...env } }, throwOnError: false });
  return { code: r.exitCode, out: r.stdout + r.stderr };
}

describe('skip reasons', function () {
  this.timeout(60_000);
  let empty: string;

  before(async function () {
    empty = await mkdtemp(path.join(tmpdir(), 'cca-no-datasets-'));
  });

  after(async function () {
    await rm(empty, { recursive: true, force: true });
  });

  it('skips a suite without its data set and a test without its service, naming both reasons in the summary', async function () {
    const { code, out } = await runFixture({ DATASETS_DIR: empty });
    expect(code, out).to.equal(0);
    const summary = out.slice(out.indexOf('skipped, and why:'));
    expect(summary).to.include(`fixture needing qmsum: the qmsum data set is not in ${path.join(empty, 'qmsum')}`);
    expect(summary).to.include('fixture needing a service calls it: FIXTURE_SERVICE_URL is not set (npm test provisions it)');
    expect(summary).to.include('tests: 0 passed, 0 failed, 2 skipped');
  });

  it('fails the data set suite under REQUIRE_DATASETS=1 and the service test under REQUIRE_PROVISIONED=1', async function () {
    const { code, out } = await runFixture({ DATASETS_DIR: empty, REQUIRE_DATASETS: '1', REQUIRE_PROVISIONED: '1' });
    expect(code, out).to.equal(2);
    expect(out).to.include('REQUIRE_DATASETS=1 asks for every data set');
    expect(out).to.include('FIXTURE_SERVICE_URL is not set, yet npm test provisions it');
    expect(out).not.to.include('skipped, and why:');
  });
});
