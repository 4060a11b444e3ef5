// The worker's Prometheus metrics: jobs completed, failed and retried, job duration, passages embedded, queue depth.
import type { Job, Queue, Worker } from 'bullmq';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds; an unchanged episode is skipped in tens of ms, a long one embeds for minutes on CPU. */
const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Queue states reported by `cca_worker_queue_jobs{state}`. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const;

/** What the ingest worker reports as its progress: passages embedded so far in this attempt. */
interface EmbedProgress {
  embedded?: unknown;
}

/**
 * Creates the worker's registry and listens to `worker`'s events; `queue` (the same
 * queue, for its counts) is read at scrape time. Job kinds (`episode`, `meta`, `sync`)
 * are the job names. A failed attempt that BullMQ will run again counts as `retried`;
 * one that ends the job (attempts spent, or an unrecoverable error) as `failed`.
 */
export function createWorkerMetrics({ worker, queue }: { worker: Worker; queue: Pick<Queue, 'getJobCounts'> }): { registry: Registry } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['kind'] as const;
  const completed = new Counter({ name: 'cca_worker_jobs_completed_total', help: 'Jobs completed, by kind.', labelNames, registers: [registry] });
  const failed = new Counter({
    name: 'cca_worker_jobs_failed_total',
    help: 'Jobs failed for good (no attempt left, or unrecoverable), by kind.',
    labelNames,
    registers: [registry],
  });
  const retried = new Counter({ name: 'cca_worker_jobs_retried_total', help: 'Failed attempts that BullMQ will run again, by kind.', labelNames, registers: [registry] });
  const stalled = new Counter({ name: 'cca_worker_jobs_stalled_total', help: 'Jobs whose worker died (lock expired), put back to run again.', registers: [registry] });
  const duration = new Histogram({
    name: 'cca_worker_job_duration_seconds',
    help: 'Duration of one job attempt, by kind and outcome (completed, retried, failed).',
    labelNames: ['kind', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [registry],
  });
  const embedded = new Counter({
    name: 'cca_worker_passages_embedded_total',
    help: 'Passages embedded by the model (re-used vectors not counted); rate() gives passages per second.',
    registers: [registry],
  });
  new Gauge({
    name: 'cca_worker_queue_jobs',
    help: 'Jobs in the ingest queue by state, read from BullMQ at scrape time.',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const counts = await queue.getJobCounts(...QUEUE_STATES);
      for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
    },
  });

  // Per attempt: a retried job reports its progress from zero again.
  const attempt = (job: Job) => `${job.id}#${job.attemptsStarted}`;
  const started = new Map<string, number>();
  const embeddedSoFar = new Map<string, number>();
  const finish = (job: Job, outcome: 'completed' | 'retried' | 'failed') => {
    const key = attempt(job);
    const t = started.get(key);
    started.delete(key);
    // Progress is reported without waiting, so its event may come after this one: forget the count later.
    setTimeout(() => embeddedSoFar.delete(key), 60_000).unref();
    if (t !== undefined) duration.observe({ kind: job.name, outcome }, (performance.now() - t) / 1000);
  };
  worker.on('active', (job) => {
    started.set(attempt(job), performance.now());
  });
  worker.on('progress', (job, progress) => {
    const total = Number((progress as EmbedProgress | undefined)?.embedded);
    if (!Number.isFinite(total)) return;
    const key = attempt(job);
    const before = embeddedSoFar.get(key) ?? 0;
    if (total > before) embedded.inc(total - before);
    embeddedSoFar.set(key, Math.max(before, total));
  });
  worker.on('completed', (job) => {
    completed.inc({ kind: job.name });
    finish(job, 'completed');
  });
  worker.on('failed', (job) => {
    if (!job) return;
    // BullMQ sets finishedOn only when the failure ends the job.
    const final = job.finishedOn !== undefined && job.finishedOn !== null;
    (final ? failed : retried).inc({ kind: job.name });
    finish(job, final ? 'failed' : 'retried');
  });
  worker.on('stalled', () => stalled.inc());
  return { registry };
}
