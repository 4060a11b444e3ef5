// A light, steady request loop against the API that records every answer (status, time, headers) for the drills to judge.
import { request } from 'node:http';

export interface Sample {
  at: number;
  ms: number;
  status: number;
  json: boolean;
  retryAfter: string | undefined;
  rateLimit: string | undefined;
}

/** One GET with a hard client-side cap, so a hung request shows as status 0 with its time, never blocks the drill. */
export function probe(baseUrl: string, path: string, headers: Record<string, string>, capMs = 10_000): Promise<Sample> {
  const at = Date.now();
  return new Promise((resolve) => {
    const url = new URL(path, baseUrl);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({
          at,
          ms: Date.now() - at,
          status: res.statusCode ?? 0,
          json: String(res.headers['content-type']).startsWith('application/json'),
          retryAfter: res.headers['retry-after'] as string | undefined,
          rateLimit: res.headers.ratelimit as string | undefined,
        }),
      );
    });
    req.setTimeout(capMs, () => req.destroy(new Error('client cap')));
    req.on('error', () => resolve({ at, ms: Date.now() - at, status: 0, json: false, retryAfter: undefined, rateLimit: undefined }));
    req.end();
  });
}

/** Fires a probe every `everyMs` (not waiting for the previous one) until `stop()`; returns every sample. */
export function requestLoop(baseUrl: string, path: string, headers: Record<string, string>, everyMs = 200) {
  const samples: Sample[] = [];
  const inflight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const p = probe(baseUrl, path, headers).then((s) => void samples.push(s));
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  }, everyMs);
  return {
    samples,
    async stop(): Promise<Sample[]> {
      clearInterval(timer);
      await Promise.all(inflight);
      return samples.sort((a, b) => a.at - b.at);
    },
  };
}

export interface DrillResult {
  name: string;
  ok: boolean;
  checks: { name: string; ok: boolean; detail: string }[];
  figures: Record<string, unknown>;
}

export const check = (name: string, ok: boolean, detail: string) => ({ name, ok, detail });

/** A drill passes when every check does. */
export const drillResult = (name: string, checks: DrillResult['checks'], figures: DrillResult['figures']): DrillResult => ({
  name,
  ok: checks.every((c) => c.ok),
  checks,
  figures,
});
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
