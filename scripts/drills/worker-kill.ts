// Drill: the worker SIGKILLed in the middle of an episode and started again: every episode ends up indexed exactly once.
import { fail, startIngestRun } from './ingest-run.js';
import { waitFor } from '../lib/child.js';
import { check, drillResult, sleep, type DrillResult } from './request-loop.js';

export async function workerKillDrill({ library }: { library?: string } = {}): Promise<DrillResult> {
  const run = await startIngestRun({ library, prefix: 'drill-kill-', queueName: 'drill-kill' });
  try {
    // Kill it just after it took a fresh episode, with at least two episodes done.
    const seen = new Set<string>();
    let victim: string | undefined;
    let doneBefore = 0;
    await waitFor(async () => {
      const { completed, active } = await run.episodeJobs();
      const fresh = active.find((id) => !seen.has(id));
      active.forEach((id) => seen.add(id));
      if (fresh && completed.length >= 2) [victim, doneBefore] = [fresh, completed.length];
      return victim !== undefined || !run.ingest.alive() || !run.workers[0]!.alive();
    }, 10 * 60_000);
    if (!victim) return fail(run, 'no episode was in progress after two completed (the ingest ended or stalled first)');
    const first = run.workers[0]!;
    first.process.kill('SIGKILL');
    await first.exited;
    const killedAt = Date.now();
    process.stderr.write(`drill worker-kill: killed the worker during ${victim} (${doneBefore} episodes done)\n`);
    const stateAfterKill = await run.queue.getJobState(victim);
    await sleep(1000);
    const second = run.startWorker();
    const restartedAt = Date.now();

    let recoveredMs: number | undefined;
    await waitFor(async () => {
      if ((await run.queue.getJobState(victim!)) !== 'completed') return !run.ingest.alive();
      recoveredMs = Date.now() - restartedAt;
      return true;
    }, 5 * 60_000);
    const { stored, seconds, checks: outcome } = await run.finish();
    const job = await run.queue.getJob(victim);
    second.process.kill('SIGTERM');
    const secondExit = await second.exited;

    const checks = [
      check('the killed job was left active under the dead worker’s lock', stateAfterKill === 'active', `state ${stateAfterKill}`),
      check('the restarted worker recovered it (stalled-job check) and completed it', recoveredMs !== undefined && (job?.stalledCounter ?? 0) >= 1,
        `${recoveredMs ?? '—'} ms after the restart, stalled ${job?.stalledCounter ?? '?'}×`),
      ...outcome,
      check('the second worker stops cleanly on SIGTERM', secondExit === 0, `exit ${secondExit}`),
    ]; // prettier-ignore
    return drillResult('worker-kill', checks, {
      episodes: run.records.length,
      passages: stored.passages,
      doneBeforeKill: doneBefore,
      deadSeconds: (restartedAt - killedAt) / 1000,
      recoveredMs,
      ingestSeconds: seconds,
    });
  } finally {
    await run.close();
  }
}
