// The `/metrics` listener: a plain HTTP server of its own, on its own (loopback by default) port, never the API's.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.js';

export interface MetricsListener {
  server: Server;
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` from `registry` on `host:port` (0: any free port). A port that
 * cannot be bound is logged as an error and resolves undefined: the API or the worker
 * keeps running without its metrics rather than not at all.
 */
export function startMetricsListener({ registry, host, port, log }: { registry: Registry; host: string; port: number; log: Logger }): Promise<MetricsListener | undefined> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'Only GET /metrics is served here.', code: 'route_not_found' }));
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => {
        log.error({ err }, 'metrics collection failed');
        res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'Metrics collection failed.', code: 'internal_error' }));
      },
    );
  });
  return new Promise((resolve) => {
    server.once('error', (err) => {
      log.error({ err, host, port }, 'metrics listener could not start; running without /metrics');
      resolve(undefined);
    });
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      const url = `http://${shown}:${address.port}/metrics`;
      log.info({ url }, 'metrics listening');
      server.unref();
      resolve({
        server,
        url,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
