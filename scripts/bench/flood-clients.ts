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

const result: FloodClientsResult = { ms: [], statuses: {}, codes: {}, degraded: 0 };
const until = Date.now() + job.seconds * 1000;
const client = async () => {
  while (Date.now() < until) {
    const t = performance.now();
    const res = await fetch(`${job.searchUrl}?query=${encodeURIComponent(nextQuery())}`, { headers: { 'x-api-key': job.key } });
    const body = (await res.json().catch(() => ({}))) as { degraded?: string; code?: string };
    result.ms.push(performance.now() - t);
    result.statuses[res.status] = (result.statuses[res.status] ?? 0) + 1;
    if (body.code) result.codes[body.code] = (result.codes[body.code] ?? 0) + 1;
    if (res.status === 200 && body.degraded) result.degraded++;
  }
};
await Promise.all(Array.from({ length: job.concurrency }, client));
process.send!(result, () => process.exit(0));
