// TCP stand-ins for tests: listeners that hang or refuse, and a relay to a real service that can be cut and restored.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

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
 * A TCP relay to a real service (OpenSearch) that sees the HTTP requests going through: counts those whose
 * first chunk matches `count`, and holds back those matching `delay` for `delayMs`
 * (chunks of a connection keep their order). `abandoned` counts held-back requests whose
 * sender closed the connection before they were passed on: the service never saw them.
 */
export async function inspectingRelay(target: URL, { count, delay, delayMs = 0 }: { count?: RegExp; delay?: RegExp; delayMs?: number }) {
  let counted = 0;
  let abandoned = 0;
  const l = await listener((socket) => {
    const upstream = connect(Number(target.port), target.hostname);
    let chain = Promise.resolve();
    let held = 0;
    socket.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (count?.test(text)) counted++;
      const wait = delay?.test(text) ? delayMs : 0;
      if (wait) held++;
      chain = chain
        .then(() => (wait ? new Promise((r) => setTimeout(r, wait)) : undefined))
        .then(() => {
          if (wait) held--;
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
    async close() {
      for (const s of l.sockets) s.destroy();
      await new Promise<void>((resolve) => l.server.close(() => resolve()));
    },
  };
}
