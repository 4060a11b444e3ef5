// A loopback host that answers only as the test releases it: the order of its requests is the order of the work, so
// a suite can watch the work between two answers without a clock in any assertion.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Gate {
  url: string;
  /** The name of each request, in the order they arrived. */
  arrivals: string[];
  /** Answers the `n` next requests (held ones first). */
  release(n: number): void;
  /** Answers every request, held and to come. */
  open(): void;
  close(): Promise<void>;
}

/** A gate naming each request by `nameOf(url)` and answering it with `answer(name, res)` once released. */
export async function startReleaseGate(nameOf: (url: string) => string, answer: (name: string, res: http.ServerResponse) => void): Promise<Gate> {
  const arrivals: string[] = [];
  const held: (() => void)[] = [];
  let allowance = 0;
  const server = http.createServer((req, res) => {
    const name = nameOf(req.url ?? '/');
    arrivals.push(name);
    const respond = () => answer(name, res);
    if (allowance > 0) {
      allowance--;
      respond();
    } else held.push(respond);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const gate: Gate = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    release(n) {
      allowance += n;
      while (allowance > 0 && held.length > 0) {
        allowance--;
        held.shift()!();
      }
    },
    open: () => gate.release(Number.POSITIVE_INFINITY),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return gate;
}
