// TCP stand-ins for tests: listeners that hang or refuse, and a relay to a real service that can be cut and restored.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ApiMetrics } from '../../src/metrics/api-metrics.js';
import { until as waitUntil } from './until.js';

/** A TCP listener on a loopback port (a free one by default), handing each connection to `onConnection`. */
export async function listener(onConnection: (socket: Socket) => void, port = 0): Promise<{ port: number; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server, sockets };
}

/**
 * A plain TCP relay to a real service (OpenSearch, Redis) that can be cut and restored:
 * stopping it is, for the API, the service going away (refused connections, dropped
 * sockets); only the API under test sees it, so other suites keep their service.
 */
export async function relay(target: URL) {
  let current: Awaited<ReturnType<typeof listener>> | undefined;
  let port = 0;
  const start = async () => {
    const pipe = (socket: Socket) => {
      const upstream = connect(Number(target.port), target.hostname);
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
    };
    current = await listener(pipe, port);
    port = current.port; // the same port again after a stop: the API keeps its configured URL
  };
  const stop = async () => {
    if (!current) return;
    for (const s of current.sockets) s.destroy();
    await new Promise<void>((resolve) => current!.server.close(() => resolve()));
    current = undefined;
  };
  await start();
  return { url: () => `http://127.0.0.1:${port}`, start, stop };
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const l = await listener(() => undefined);
  await new Promise<void>((resolve) => l.server.close(() => resolve()));
  return l.port;
}

/**
 * A TCP relay to a real service (OpenSearch, Redis) that sees the requests going through: counts those whose
 * first chunk matches `count`, holds back those matching `delay` for `delayMs`, and those matching
 * `hold` until `release()` (chunks of a connection keep their order). `hold` may be a function of the chunk,
 * so a test can start holding once its set-up requests went through. `held` is how many are held back
 * right now, so a test can wait for a request to be in the store's hands instead of sleeping; `abandoned`
 * counts held-back requests whose sender closed the connection before they were passed on: the service
 * never saw them.
 */
export async function inspectingRelay(
  target: URL,
  { count, delay, delayMs = 0, hold }: { count?: RegExp; delay?: RegExp; delayMs?: number; hold?: RegExp | ((chunk: string) => boolean) },
) {
  const holds = typeof hold === 'function' ? hold : (text: string) => hold?.test(text) ?? false;
  let counted = 0;
  let abandoned = 0;
  let heldNow = 0;
  let released = false;
  let release!: () => void;
  const releasedPromise = new Promise<void>((resolve) => (release = resolve));
  const l = await listener((socket) => {
    const upstream = connect(Number(target.port), target.hostname);
    let chain = Promise.resolve();
    let held = 0;
    socket.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (count?.test(text)) counted++;
      const wait = delay?.test(text) ? delayMs : 0;
      const gated = !released && holds(text);
      const holding = wait > 0 || gated;
      if (holding) {
        held++;
        heldNow++;
      }
      chain = chain
        .then(() => (wait ? new Promise((r) => setTimeout(r, wait)) : undefined))
        .then(() => (gated ? releasedPromise : undefined))
        .then(() => {
          if (holding) {
            held--;
            heldNow--;
          }
          if (!upstream.destroyed) upstream.write(chunk);
        });
    });
    upstream.pipe(socket);
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => {
      if (held > 0) abandoned++;
      upstream.destroy();
    });
  });
  return {
    url: `http://127.0.0.1:${l.port}`,
    get counted() {
      return counted;
    },
    get abandoned() {
      return abandoned;
    },
    /** Requests held back right now (by `delay` or `hold`). */
    get held() {
      return heldNow;
    },
    /** Lets every request held by `hold` through, and holds none from now on. */
    release() {
      released = true;
      release();
    },
    async close() {
      released = true;
      release();
      for (const s of l.sockets) s.destroy();
      await new Promise<void>((resolve) => l.server.close(() => resolve()));
    },
  };
}

/** test/support/until.ts's wait, condition first, checking every 5 ms for up to 20 s: a test waits on an event (a request held, a gate count). */
export const until = (condition: () => boolean | Promise<boolean>, what: string, { timeoutMs = 20_000, everyMs = 5 } = {}): Promise<void> =>
  waitUntil(what, condition, { timeoutMs, everyMs });

/** Writes `request` on a raw socket and collects everything the server sends until it closes. */
export function rawExchange(port: number, request: string, { timeoutMs = 5000 } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; got ${JSON.stringify(received.slice(0, 200))}`));
    });
    socket.write(request);
  });
}

/** Promises with a count of those settled: a test waits for answers to arrive instead of sleeping. */
export function settling<T>(promises: Promise<T>[]): { all: Promise<T[]>; readonly settled: number } {
  let settled = 0;
  for (const p of promises)
    p.then(
      () => settled++,
      () => settled++,
    );
  return {
    all: Promise.all(promises),
    get settled() {
      return settled;
    },
  };
}

/** The search gate's counts as `/metrics` reports them (`cca_search_admission`, both shares): running and waiting searches. */
export async function admissionCounts(metrics: ApiMetrics): Promise<{ running: number; waiting: number }> {
  const { values } = await metrics.registry.getSingleMetric('cca_search_admission')!.get();
  const of = (state: string) => Number(values.find((v) => v.labels.state === state)?.value ?? 0);
  return { running: of('running'), waiting: of('waiting') };
}
