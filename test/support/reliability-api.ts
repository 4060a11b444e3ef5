// The API as `npm run fuzz`/`bench:load` start it (parser errors as JSON included), with every response checked against the served document.
import type { Embedder } from '../../core/embedding/embedder.js';
import { startLocalApi, type LocalApi } from '../../scripts/drills/local-api.js';
import { rawRequest, type ApiResponse, type RequestOptions } from './api-harness.js';
import { createOpenApiValidator } from './openapi-validator.js';

export interface ReliabilityApi extends LocalApi {
  /** One request, checked against the document (unless `unchecked`); also asserts `Cache-Control: private, no-store`. */
  request(path: string, options?: RequestOptions): Promise<ApiResponse>;
}

export async function startReliabilityApi({
  prefix,
  embedder,
  env = {},
}: {
  prefix: string;
  /** An embedder to share, `true` for the model in worker threads (as in production), or none (keyword-only). */
  embedder?: Embedder | boolean;
  env?: Record<string, string>;
}): Promise<ReliabilityApi> {
  const api = await startLocalApi({ prefix, embedder: embedder ?? false, env: { RATE_LIMIT_MAX: '10000000', ...env } });
  const doc = await rawRequest(api.baseUrl, '/api/v1/openapi.json');
  const validator = createOpenApiValidator(doc.body);
  return {
    ...api,
    async request(path, options = {}) {
      const res = await rawRequest(api.baseUrl, path, options);
      if (res.headers['cache-control'] !== 'private, no-store') {
        throw new Error(`${options.method ?? 'GET'} ${path.slice(0, 120)} → ${res.status} without Cache-Control: private, no-store`);
      }
      if (!options.unchecked) {
        validator.check({ method: options.method ?? 'GET', path, status: res.status, headers: res.headers, text: res.text });
      }
      return res;
    },
  };
}

/** Median of a list of numbers. */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
