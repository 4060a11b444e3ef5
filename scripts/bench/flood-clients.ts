// bench:flood's searching clients, in a process of their own so that their work never delays the probes' timing. They never pause, not even on Retry-After: a flood, not a polite integration.
import { setPriority } from 'node:os';
import type { FloodClientsJob, FloodClientsResult } from './flood.js';

// In production the clients are elsewhere: here they take the CPU last, so that they load the API without starving it.
setPriority(10);

const job = JSON.parse(process.env.FLOOD_CLIENTS_JOB ?? '{}') as FloodClientsJob;

let n = 0;
/** A distinct query: a counter, then random words up to `queryChars` characters. */
const nextQuery = () => {
  const parts = [`flood${n++}`];
  while (parts.join(' ').length < job.queryChars) parts.push(job.words[Math.floor(Math.random() * job.words.length)]!);
  return parts.join(' ').slice(0, job.queryChars).trim();
};

/** One search: a keyed REST GET, or an anonymous MCP `tools/call` (its refusals are tool errors inside a 200). */
async function search(query: string): Promise<{ status: number; code?: string; degraded?: boolean }> {
  if (!job.mcp) {
    const res = await fetch(`${job.searchUrl}?query=${encodeURIComponent(query)}`, { headers: { 'x-api-key': job.key } });
    const body = (await res.json().catch(() => ({}))) as { degraded?: string; code?: string };
    return { status: res.status, ...(body.code ? { code: body.code } : {}), degraded: Boolean(body.degraded) };
  }
  const res = await fetch(job.searchUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'search', arguments: { query } } }),
  });
  const body = (await res.json().catch(() => ({}))) as { result?: { isError?: boolean; content?: { text?: string }[]; structuredContent?: { degraded?: string } } };
  const refused = body.result?.isError ? (body.result.content?.[0]?.text ?? 'tool error').split(/[.:;(]/)[0]!.trim() : undefined;
  return { status: res.status, ...(refused ? { code: refused } : {}), degraded: Boolean(body.result?.structuredContent?.degraded) };
}

const result: FloodClientsResult = { ms: [], statuses: {}, codes: {}, degraded: 0 };
const until = Date.now() + job.seconds * 1000;
const client = async () => {
  while (Date.now() < until) {
    const t = performance.now();
    const answer = await search(nextQuery());
    result.ms.push(performance.now() - t);
    result.statuses[answer.status] = (result.statuses[answer.status] ?? 0) + 1;
    if (answer.code) result.codes[answer.code] = (result.codes[answer.code] ?? 0) + 1;
    if (answer.status === 200 && answer.degraded) result.degraded++;
  }
};
await Promise.all(Array.from({ length: job.concurrency }, client));
process.send!(result, () => process.exit(0));
