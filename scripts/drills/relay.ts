// bench:search's `relay` target: the least an API process can add to the engine. A bare
// node:http server (no Express, no auth, no parsing) that forwards the engine target's
// prebuilt `_msearch` to the node over a keep-alive agent and pipes the node's answer back unread.
import { readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { loadConfig } from '../../core/config/load.js';

// HOST and PORT as the API reads them (serveInChildProcess sets both); RELAY_* are this relay's own, set by bench:search.
const { host, port } = loadConfig(process.env);
const node = new URL(process.env.RELAY_MSEARCH_URL!);
const bodies = JSON.parse(readFileSync(process.env.RELAY_BODIES!, 'utf8')) as Record<string, string[]>;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  const [, mode, index] = (req.url ?? '').split('/');
  const list = bodies[mode ?? ''];
  const body = list?.[Number(index) % list.length];
  if (body === undefined) {
    res.writeHead(404).end();
    return;
  }
  const upstream = request(node, { method: 'POST', agent, headers: { 'content-type': 'application/x-ndjson', 'content-length': Buffer.byteLength(body) } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' });
    answer.pipe(res);
  });
  upstream.on('error', (error) => res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error.message })));
  upstream.end(body);
}).listen(port, host);
