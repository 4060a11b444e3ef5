// The services command's Redis check: a real PING to the test Redis, and no answer from sockets that are no Redis.
import net from 'node:net';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { pingRedis } from '../../scripts/ops/provision/redis.js';

describe('pingRedis', function () {
  it('answers PONG from the test Redis, through ioredis and the configured URL', async function () {
    expect(await pingRedis(loadConfig(process.env).redisUrl)).to.equal('PONG');
  });

  it('answers undefined, within its timeout, from a port nobody listens on and from a socket that never replies', async function () {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    try {
      const started = Date.now();
      expect(await pingRedis(`redis://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, 300)).to.equal(undefined);
      expect(Date.now() - started).to.be.within(250, 1500);
      expect(await pingRedis(`redis://127.0.0.1:${closedPort}`, 300)).to.equal(undefined);
    } finally {
      silent.close();
    }
  });
});
