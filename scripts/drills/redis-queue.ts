// Drill: Redis killed outright in the middle of an ingest and started again: the same worker resumes the
// queue (append-only file) and every episode ends up indexed exactly once.
import { loadConfig } from '../../core/config/load.js';
import { createLogger } from '../../core/ground/logger.js';
import { ensureRedis, stopRedis } from '../ops/provision/redis.js';
import { fail, startIngestRun } from './ingest-run.js';
import { waitFor } from '../lib/child.js';
import { check, drillResult, sleep, type DrillResult } from './request-loop.js';

export async function redisQueueDrill({ library, downSeconds = 8 }: { library?: string; downSeconds?: number } = {}): Promise<DrillResult> {
  const log = createLogger({ name: 'drill', level: 'warn', fd: 2 });
  const redisPort = new URL(loadConfig(process.env).redisUrl).port || '6379';
  const run = await startIngestRun({ library, prefix: 'drill-queue-', queueName: 'drill-queue' });
  try {
    let doneBefore = 0;
    await waitFor(async () => {
      const { completed, active } = await run.episodeJobs();
      doneBefore = completed.length;
      return (completed.length >= 2 && active.length > 0) || !run.ingest.alive() || !run.workers[0]!.alive();
    }, 10 * 60_000);
    if (!run.ingest.alive() || !run.workers[0]!.alive()) return fail(run, 'the ingest or the worker ended before the fault');
    const crashedAt = Date.now();
    await stopRedis({ log, crash: true });
    process.stderr.write(`drill redis-queue: killed Redis (SIGKILL) with ${doneBefore} episodes done; down for ${downSeconds} s\n`);
    await sleep(downSeconds * 1000);
    await ensureRedis({ env: { ...process.env, REDIS_PORT: redisPort }, log });
    const restartedAt = Date.now();
    process.stderr.write(`drill redis-queue: Redis restarted after ${((restartedAt - crashedAt) / 1000).toFixed(1)} s\n`);

    const { stored, seconds, checks: outcome } = await run.finish();
    const jobs = await run.queue.getJobs(['completed'], 0, -1);
    const finishedAfter = jobs.filter((j) => (j.finishedOn ?? 0) > restartedAt).length;
    const firstAfterMs = Math.min(...jobs.map((j) => j.finishedOn ?? 0).filter((t) => t > restartedAt)) - restartedAt;
    const worker = run.workers[0]!;
    const survived = run.workers.length === 1 && worker.alive();
    worker.process.kill('SIGTERM');
    const workerExit = await worker.exited;

    const checks = [
      check('the same worker process rode out the outage', survived, survived ? 'never exited' : 'it exited'),
      check('it resumed the queue after the restart', finishedAfter > 0, `${finishedAfter} jobs finished after, the first ${Number.isFinite(firstAfterMs) ? firstAfterMs : '—'} ms after the restart`),
      ...outcome,
      check('the worker stops cleanly on SIGTERM afterwards', workerExit === 0, `exit ${workerExit}`),
    ]; // prettier-ignore
    return drillResult('redis-queue', checks, {
      episodes: run.records.length,
      passages: stored.passages,
      doneBeforeCrash: doneBefore,
      outageSeconds: (restartedAt - crashedAt) / 1000,
      firstJobAfterRestartMs: Number.isFinite(firstAfterMs) ? firstAfterMs : undefined,
      ingestSeconds: seconds,
    });
  } finally {
    await run.close();
  }
}
