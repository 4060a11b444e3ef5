// serializeByKey: the worker's guard that two versions of one episode never run side by side.
import { expect } from 'chai';
import { serializeByKey } from '../../indexer/serialize-by-key.js';

/** A task that logs its start and end and finishes when `release` is called. */
function gated(log: string[], name: string): { task: () => Promise<string>; release: () => void } {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return {
    task: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
      return name;
    },
    release: () => release(),
  };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('indexer: serializeByKey', function () {
  it('runs tasks of one key one after the other in the order handed in, and other keys beside them', async function () {
    const s = serializeByKey();
    const log: string[] = [];
    const [x1, x2, y1] = [gated(log, 'x1'), gated(log, 'x2'), gated(log, 'y1')];
    const results = [s.run('x', x1.task), s.run('x', x2.task), s.run('y', y1.task)];
    await settle();
    expect(log).to.deep.equal(['start x1', 'start y1']);
    x2.release(); // finishing early changes nothing: x2 has not started
    await settle();
    expect(log).to.deep.equal(['start x1', 'start y1']);
    x1.release();
    y1.release();
    expect(await Promise.all(results)).to.deep.equal(['x1', 'x2', 'y1']);
    expect(log.indexOf('start x2')).to.be.greaterThan(log.indexOf('end x1'));
    await settle();
    expect(s.pending(), 'keys left behind').to.equal(0);
  });

  it('starts the next task of a key when the one before failed, and hands the failure to its caller only', async function () {
    const s = serializeByKey();
    const failed = s.run('x', async () => {
      throw new Error('boom');
    });
    const next = s.run('x', async () => 'ran');
    expect(
      await failed.then(
        () => 'no',
        (err: Error) => err.message,
      ),
    ).to.equal('boom');
    expect(await next).to.equal('ran');
    await settle();
    expect(s.pending(), 'keys left behind').to.equal(0);
  });
});
