// The MCP SDK's own client against a running API, optionally sending a channel's Host header.
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * `fetch` over node:http with `Host` set: the fetch of Node drops a Host header, so a
 * channel host (`<slug>.<base domain>`, a custom domain) is reached on loopback this way.
 */
export function fetchWithHost(host: string): FetchLike {
  return (url, init = {}) => {
    const u = new URL(url);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    headers.host = host;
    return new Promise<Response>((resolve, reject) => {
      const req = httpRequest({ hostname: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, method: init.method ?? 'GET', headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          const status = res.statusCode ?? 0;
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status, headers: responseHeaders }));
        });
      });
      req.on('error', reject);
      // The SDK passes one signal for the whole session: listen per request, and stop listening when it ends.
      const abort = () => req.destroy(new Error('aborted'));
      init.signal?.addEventListener('abort', abort, { once: true });
      req.on('close', () => init.signal?.removeEventListener('abort', abort));
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
  };
}

/** A connected SDK client for `url` (`…/mcp` or `…/channels/<slug>/mcp`); `host` overrides the Host header. */
export async function connectMcp(url: string, { host }: { host?: string } = {}): Promise<Client> {
  const client = new Client({ name: 'cca-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), host ? { fetch: fetchWithHost(host) } : {});
  await client.connect(transport);
  return client;
}
