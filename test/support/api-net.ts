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
