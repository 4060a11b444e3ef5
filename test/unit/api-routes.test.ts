import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Type } from '@sinclair/typebox';
import { createAjv } from '../../src/http/validate-params.js';
import { everyOperationOnce, route, routeHandler, type Route } from '../../src/http/route.js';
import { requestId } from '../../src/http/request-id.js';
import { renderErrors } from '../../src/http/errors.js';
import { createLogger } from '../../core/ground/logger.js';
import { GetHealth, OPERATIONS, SearchChannel, defineOperation, expressPath } from '../../src/openapi/operations.js';
import { ChannelPath } from '../../src/openapi/parameters.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { SCHEMAS } from '../../src/openapi/schemas.js';
import { loadConfig } from '../../core/config/load.js';

/** Serves the given routes as the app does (its route step and error renderer, no credential); answers the base URL and a closer. */
async function serve(routes: Route[]): Promise<{ base: string; close: () => Promise<void> }> {
  const log = createLogger({ level: 'silent' });
  const app = express();
  app.use(requestId({ log }));
  const ajv = createAjv();
  for (const r of routes) app.get(expressPath(r.operation.path), routeHandler(r, ajv));
  app.use(renderErrors({ publicBaseUrl: 'http://localhost', log }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('routes: each operation typed by its schemas, validated and registered once', function () {
  let seen: unknown[] = [];
  let server: Awaited<ReturnType<typeof serve>>;

  before(async function () {
    server = await serve([
      route(SearchChannel, ({ params, query }) => {
        seen.push({ params, query });
        return { query: query.query ?? '', episodes: [] };
      }),
      route(GetHealth, ({ params, query }) => {
        seen.push({ params, query });
        return { status: 'ok' };
      }),
    ]);
  });
  after(() => server.close());
  beforeEach(() => {
    seen = [];
  });

  it('hands the handler its path parameter and its query converted, defaults filled in, unknown parameters left out, and sends its answer', async function () {
    const res = await fetch(`${server.base}/api/v1/channels/my-show/search?query=tides&fast=1&topicIds=t1,t2&other=x`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ query: 'tides', episodes: [] });
    expect(seen).to.deep.equal([{ params: { slug: 'my-show' }, query: { query: 'tides', fast: true, limit: 10, topicIds: 't1,t2' } }]);
  });

  it('answers a malformed query parameter with a 400 naming it, before the handler runs', async function () {
    for (const [query, parameter] of [
      ['limit=0', 'limit'],
      ['limit=012', 'limit'],
      ['fast=yes', 'fast'],
      ['topicIds=a,,b', 'topicIds'],
      ['limit=5&limit=6', 'limit'],
    ] as const) {
      const res = await fetch(`${server.base}/api/v1/channels/my-show/search?${query}`);
      expect(res.status, query).to.equal(400);
      const body = (await res.json()) as { code: string; parameter: string; requestId: string };
      expect(body, query).to.include({ code: 'invalid_parameter', parameter });
      expect(body.requestId).to.equal(res.headers.get('x-request-id'));
    }
    expect(seen, 'handler calls').to.deep.equal([]);
  });

  it('gives an operation without parameters empty ones, whatever the query string holds', async function () {
    const res = await fetch(`${server.base}/healthz?limit=0&x=1`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ status: 'ok' });
    expect(seen).to.deep.equal([{ params: {}, query: {} }]);
  });

  it('registers every operation of the table exactly once, in its order, and refuses a table left incomplete or doubled', function () {
    const routes = OPERATIONS.map((op) => route(op, () => ({}) as never)).reverse();
    expect(everyOperationOnce(routes).map((r) => r.operation)).to.deep.equal([...OPERATIONS]);
    expect(() => everyOperationOnce(routes.slice(1))).to.throw(/has 0 routes/);
    expect(() => everyOperationOnce([...routes, routes[0]!])).to.throw(/has 2 routes/);
    const stray = defineOperation({ ...GetHealth, operationId: 'getStray', path: '/stray' });
    expect(() => everyOperationOnce([...routes, route(stray, () => ({ status: 'ok' }))])).to.throw(/not in the table: getStray/);
  });

  it('refuses an operation whose path names other parameters than it declares', function () {
    const base = { ...SearchChannel, operationId: 'broken' };
    expect(() => defineOperation({ ...base, path: '/api/v1/channels/{channel}/search', params: ChannelPath })).to.throw(/path names \{channel\}, the params declare slug/);
    expect(() => defineOperation({ ...base, path: '/api/v1/channels/search', params: ChannelPath })).to.throw(/declare slug/);
    expect(() => defineOperation({ ...base, params: undefined })).to.throw(/declare none/);
  });

  it("documents each operation's success body as its response schema: the component it is, or an array of one", function () {
    const doc = buildOpenApiDocument(loadConfig({})) as unknown as {
      paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
    };
    const component = (ref: unknown) => SCHEMAS[String((ref as { $ref: string }).$ref).replace('#/components/schemas/', '')];
    for (const op of OPERATIONS) {
      const documented = doc.paths[op.path]!.get.responses['200']!.content['application/json']!.schema as { $ref?: string; type?: string; items?: unknown };
      if (op.response.type === 'array') {
        expect(documented.type, op.operationId).to.equal('array');
        expect(component(documented.items), op.operationId).to.equal(op.response.items);
      } else {
        expect(component(documented), op.operationId).to.equal(op.response);
      }
    }
    const unnamed = defineOperation({ ...GetHealth, response: Type.Object({ status: Type.String() }) });
    expect(() => buildOpenApiDocument(loadConfig({}), [unnamed])).to.throw(/no component of the document/);
  });
});
