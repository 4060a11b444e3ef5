// The demo's terminal lines made from pino's JSON, and the API log's tail it prints when the API ends by itself.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { apiLogTail, demoLogDir, terminalLine } from '../../scripts/ops/demo-logs.js';

describe('demo logs', function () {
  it('prints a warning or an error as one line with its name, level, message and reason', function () {
    expect(terminalLine('{"level":40,"name":"demo-pipeline","msg":"enrichment failed","err":{"message":"NER down"}}')).to.equal(
      'demo-pipeline: warning: enrichment failed (NER down)\n',
    );
    expect(terminalLine('{"level":50,"name":"demo","msg":"the API did not start"}\n')).to.equal('demo: error: the API did not start\n');
  });

  it('passes a line that is not JSON through as it is, ended once', function () {
    expect(terminalLine('Error: listen EADDRINUSE')).to.equal('Error: listen EADDRINUSE\n');
  });

  it('keeps its files under the cache unless DEMO_LOG_DIR says where', function () {
    expect(demoLogDir('/c', {})).to.equal(join('/c', 'demo', 'logs'));
    expect(demoLogDir('/c', { DEMO_LOG_DIR: '/elsewhere' })).to.equal('/elsewhere');
  });

  it("tails the API's log readably, and says nothing when there is none", async function () {
    const dir = await mkdtemp(join(tmpdir(), 'demo-logs-'));
    try {
      expect(apiLogTail(dir)).to.equal('');
      const lines = Array.from({ length: 12 }, (_, i) => JSON.stringify({ level: 30, name: 'api', msg: `line ${i}` }));
      await writeFile(join(dir, 'api.log'), [...lines, 'Error: listen EADDRINUSE'].join('\n') + '\n');
      const tail = apiLogTail(dir, 3).split('\n');
      expect(tail).to.deep.equal(['api: info: line 10', 'api: info: line 11', 'Error: listen EADDRINUSE', '']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
