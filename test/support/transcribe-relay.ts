// A relay in front of a transcription service for the resume, several-services and metrics suites: it counts the
// transcription requests (`/v1/audio/…`) it passes on, can hold every request past the n-th unanswered (a worker to be
// killed mid-episode stays where it is), and can answer 503 instead (a service that is down, or restarting for the next
// few requests). Other paths pass through uncounted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TranscribeRelay {
  url: string;
  /** Transcription requests received since the start (or the last `reset`), held and refused ones included. */
  count(): number;
  /** Transcription requests after the first `n` (from now on) are held unanswered; Infinity: none. */
  holdAfter(n: number): void;
  /** `true`: every transcription request is answered 503 (not passed on). */
  refuse(on: boolean): void;
  /** The next `n` transcription requests are answered 503 (not passed on), then they pass again. */
  refuseNext(n: number): void;
  /** Sets the count to 0. */
  reset(): void;
  close(): Promise<void>;
}

export async function startTranscribeRelay(target: string): Promise<TranscribeRelay> {
  let count = 0;
  let holdFrom = Number.POSITIVE_INFINITY;
  let refusing = false;
  let refuseLeft = 0;
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const transcription = req.url?.startsWith('/v1/audio/') ?? false;
    if (transcription) count++;
    const refused = transcription && (refusing || refuseLeft > 0);
    if (transcription && !refusing && refuseLeft > 0) refuseLeft--;
    if (refused || (transcription && count > holdFrom)) {
      req.resume(); // read the upload, then answer 503 or nothing at all
      if (refused) req.on('end', () => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"down for the test"}}'));
      return;
    }
    const upstream = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => count,
    holdAfter: (n) => void (holdFrom = count + n),
    refuse: (on) => void (refusing = on),
    refuseNext: (n) => void (refuseLeft = n),
    reset: () => void ((count = 0), (holdFrom = Number.POSITIVE_INFINITY)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
