// The services the project provisions listen on loopback only: nothing unauthenticated is reachable from the network.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { skipBecause, skipUnprovisioned } from '../support/skip.js';

interface Listening {
  address: string;
  port: number;
  inode: string;
}

/** `/proc/net/tcp` holds IPv4 addresses as little-endian hex words; `tcp6` as four of them. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g)!.map((w) => w.match(/../g)!.reverse().join(''));
  if (words.length === 1)
    return words[0]!
      .match(/../g)!
      .map((b) => parseInt(b, 16))
      .join('.');
  const v6 = words.join('').toLowerCase();
  if (v6.startsWith('00000000000000000000ffff'))
    return `::ffff:${v6
      .slice(24)
      .match(/../g)!
      .map((b) => parseInt(b, 16))
      .join('.')}`;
  return v6
    .match(/.{4}/g)!
    .join(':')
    .replace(/(^|:)0{1,3}/g, '$1');
}

/** Every listening TCP socket of this machine (state 0A). */
function listeningSockets(): Listening[] {
  const sockets: Listening[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').trim().split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] !== '0A') continue;
      const [addr, port] = f[1]!.split(':') as [string, string];
      sockets.push({ address: decodeAddress(addr), port: parseInt(port, 16), inode: f[9]! });
    }
  }
  return sockets;
}

/** Socket inodes of every process, by pid. */
function socketInodesByPid(): Map<number, Set<string>> {
  const byPid = new Map<number, Set<string>>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const inodes = new Set<string>();
    try {
      for (const fd of readdirSync(`/proc/${entry}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      }
    } catch {
      continue; // gone, or not ours to read
    }
    byPid.set(Number(entry), inodes);
  }
  return byPid;
}

const isLoopback = (address: string) => /^127\./.test(address) || address === '0:0:0:0:0:0:0:1' || address === '::1' || /^::ffff:127\./.test(address);

describe('provisioned services listen on loopback only', function () {
  const config = loadConfig(process.env);
  const services = [
    { name: 'OpenSearch', url: new URL(config.opensearchNodes[0]!), defaultPort: 9200 },
    { name: 'Redis', url: new URL(config.redisUrl), defaultPort: 6379 },
    // The transcription service answers anyone who reaches it (no authentication): loopback only, like the others.
    { name: 'The transcription service', url: config.pipeline.transcribe.url ? new URL(config.pipeline.transcribe.url) : undefined, defaultPort: 80 },
  ];

  for (const { name, url, defaultPort } of services) {
    it(`${name}: every port its process listens on is bound to a loopback address`, function () {
      if (process.platform !== 'linux') skipBecause(this, 'not Linux: the listening sockets are read from /proc');
      if (!url) skipUnprovisioned(this, 'TRANSCRIBE_URL is not set (the real transcriber: `npm run services -- up` prints it)');
      if (!isLoopback(url.hostname) && url.hostname !== 'localhost') skipBecause(this, 'an external service: not ours to check');
      const port = Number(url.port || defaultPort);
      const sockets = listeningSockets();
      const served = sockets.filter((s) => s.port === port);
      expect(served.length, `something listens on ${port}`).to.be.greaterThan(0);
      const inodes = socketInodesByPid();
      const pid = [...inodes].find(([, set]) => served.some((s) => set.has(s.inode)))?.[0];
      expect(pid, `the process listening on ${port}`).to.be.a('number');
      const own = sockets.filter((s) => inodes.get(pid!)!.has(s.inode));
      // OpenSearch listens twice (HTTP and transport); each must be loopback.
      for (const s of own) expect(isLoopback(s.address), `${name} listens on ${s.address}:${s.port}`).to.equal(true);
      expect(own.map((s) => s.port)).to.include(port);
    });
  }
});
