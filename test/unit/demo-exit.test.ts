import { expect } from 'chai';
import { planDemoExit } from '../../scripts/ops/demo-exit.js';
import type { ServiceStatus, ServicesStatus } from '../../scripts/ops/provision/services.js';

const local = (running: boolean): ServiceStatus => ({ running, source: 'local', url: undefined, pid: undefined, detail: '' });
const external = (): ServiceStatus => ({ running: true, source: 'external', url: 'http://127.0.0.1:9', pid: undefined, detail: '' });
const status = (opensearch: ServiceStatus, redis: ServiceStatus): ServicesStatus => ({ opensearch, redis });

describe('what the demo does with the services when it ends', function () {
  it('stops OpenSearch and Redis when the demo started both', function () {
    const plan = planDemoExit(status(local(false), local(false)));
    expect(plan.stop).to.equal(true);
    expect(plan.lines).to.deep.equal(['OpenSearch was started by the demo: stopping it.', 'Redis was started by the demo: stopping it.']);
  });

  it('leaves them running with --keep, and says how to stop them', function () {
    const plan = planDemoExit(status(local(false), local(false)), { keep: true });
    expect(plan.stop).to.equal(false);
    for (const line of plan.lines) expect(line).to.match(/keeps running \(--keep\); `npm run services -- down` stops it\.$/);
  });

  it('stops nothing that was running before the demo, and says so', function () {
    const plan = planDemoExit(status(local(true), local(true)));
    expect(plan.stop).to.equal(false);
    expect(plan.lines[0]).to.equal('OpenSearch was running before the demo and keeps running; `npm run services -- down` stops it.');
  });

  it('stops nothing when only one of the two was started by the demo (down would stop both)', function () {
    const plan = planDemoExit(status(local(true), local(false)));
    expect(plan.stop).to.equal(false);
    expect(plan.lines[1]).to.match(/^Redis was started by the demo and keeps running/);
  });

  it('never touches a service given by URL, and stops the local one it started', function () {
    const plan = planDemoExit(status(external(), local(false)));
    expect(plan.stop).to.equal(true);
    expect(plan.lines).to.deep.equal(["OpenSearch comes from OPENSEARCH_URL: not the demo's to stop.", 'Redis was started by the demo: stopping it.']);
    const both = planDemoExit(status(external(), external()));
    expect(both.stop).to.equal(false);
  });
});
