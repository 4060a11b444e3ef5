// The services command's Redis: a real PING to the test Redis, no answer from sockets that are no Redis, and a private
// server started by the provisioner that keeps its data across a restart and a crash (append-only file).
import fs from 'node:fs';
import net from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { loadConfig } from '../../core/config/load.js';
import { createLogger } from '../../core/ground/logger.js';
import { deleteRedisData, ensureRedis, pingRedis, redisDir, stopRedis } from '../../scripts/ops/provision/redis.js';

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

describe('the provisioned Redis keeps its data', function () {
  this.timeout(60_000);
  const log = createLogger({ name: 'test', level: 'warn', fd: 2 });
  // A private server beside the shared one: this suite stops, kills and empties it.
  const instance = `test-redis-aof-${process.pid}`;
  const env = { ...process.env, REDIS_PORT: '' };
  const withRedis = async <T>(fn: (redis: Redis) => Promise<T>): Promise<T> => {
    const { url } = await ensureRedis({ env, log, instance, preferredPort: 6390 });
    const redis = new Redis(url, { maxRetriesPerRequest: 1 });
    try {
      return await fn(redis);
    } finally {
      redis.disconnect();
    }
  };

  after(async function () {
    await stopRedis({ log, instance, crash: true });
    fs.rmSync(redisDir(instance), { recursive: true, force: true });
  });

  it('runs with an append-only file fsynced every second, no RDB snapshots and no eviction, its files in the run folder', async function () {
    const config = await withRedis(async (redis) => Object.fromEntries(
      (await Promise.all(['appendonly', 'appendfsync', 'save', 'maxmemory-policy', 'dir'].map((k) => redis.config('GET', k) as Promise<string[]>))).map(([k, v]) => [k, v]),
    )); // prettier-ignore
    expect(config).to.deep.equal({ appendonly: 'yes', appendfsync: 'everysec', save: '', 'maxmemory-policy': 'noeviction', dir: redisDir(instance) });
    expect(fs.readdirSync(redisDir(instance))).to.include('appendonlydir');
  });

  it('reads a key written before a restart through the provisioner (SIGTERM)', async function () {
    await withRedis((redis) => redis.set('aof:restart', 'kept'));
    const before = await stopRedis({ log, instance });
    expect(await pingRedis(before!.url, 300)).to.equal(undefined);
    expect(await withRedis((redis) => redis.get('aof:restart'))).to.equal('kept');
  });

  it('reads a key written more than a second before the server was killed outright (SIGKILL)', async function () {
    await withRedis((redis) => redis.rpush('aof:crash', 'a', 'b', 'c'));
    await new Promise((r) => setTimeout(r, 1500)); // past the fsync of `everysec`
    await stopRedis({ log, instance, crash: true });
    expect(await withRedis((redis) => redis.lrange('aof:crash', 0, -1))).to.deep.equal(['a', 'b', 'c']);
  });

  it('starts empty once its data is deleted, and refuses to delete the data of the running server or of `services up`', async function () {
    await withRedis((redis) => redis.set('aof:doomed', '1'));
    await deleteRedisData({ instance }).then(
      () => expect.fail('deleted the data of a running server'),
      (err: Error) => expect(err.message).to.match(/is running/),
    );
    await deleteRedisData({ instance: 'redis' }).then(
      () => expect.fail('deleted the data of the shared server'),
      (err: Error) => expect(err.message).to.match(/refusing/),
    );
    await stopRedis({ log, instance });
    await deleteRedisData({ instance });
    expect(await withRedis((redis) => redis.dbsize())).to.equal(0);
  });
});
