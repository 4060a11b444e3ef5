// Drill: Redis's data deleted between two runs of the worker (a private Redis of the provisioner's, never the services'
// one): nothing transcribed twice, nothing forgotten, and the webhook deliveries Redis held delivered after all.
import { loadConfig } from '../../core/config/load.js';
import { runRedisLoss } from './redis-loss-run.js';
import { check, drillResult, type DrillResult } from './request-loop.js';

export async function redisLossDrill(): Promise<DrillResult> {
  const transcribeUrl = loadConfig(process.env).pipeline.transcribe.url;
  if (!transcribeUrl) {
    return drillResult('redis-loss', [check('a transcription service to publish with', false, 'TRANSCRIBE_URL is unset: `eval "$(npm run -s services -- up)"` sets it')], {});
  }
  const o = await runRedisLoss({ transcribeUrl, say: (line) => process.stderr.write(`drill redis-loss: ${line}\n`) });
  const waiting = o.episodes.length - o.transcriptionsBefore;
  const published = o.episodes.filter((e) => e.status === 'published').length;
  const twice = o.episodes.filter((e) => e.audioDownloads > 1).map((e) => e.title);
  const missing = o.changes.filter((id) => !o.delivered.has(id));
  const duplicates = [...o.delivered.values()].filter((n) => n > 1).length;
  const rewound = o.webhookRecovery?.changes;
  const checks = [
    check('Redis held the waiting jobs, then nothing', o.jobsBeforeLoss === waiting && o.keysAfterLoss === 0, `${o.jobsBeforeLoss} processing jobs before the loss, ${o.keysAfterLoss} keys after`),
    check('nothing forgotten: every episode published', published === o.episodes.length, `${published} of ${o.episodes.length} published`),
    check('nothing transcribed twice', twice.length === 0 && o.transcriptions === o.episodes.length,
      `${o.transcriptions} transcription requests for ${o.episodes.length} episodes (${o.transcriptionsBefore} before the loss); audio fetched twice: ${twice.join(', ') || 'none'}`),
    check('the worker logged its rebuild', o.followRecovery?.requeued === waiting,
      `requeued ${String(o.followRecovery?.requeued)}, unfinished ${String(o.followRecovery?.unfinished)}, jobs in Redis ${String(o.followRecovery?.jobsInRedis)}`),
    check('webhooks: every change delivered, those Redis lost included', missing.length === 0 && o.failedBeforeLoss.every((id) => o.delivered.has(id)),
      `${o.changes.length - missing.length} of ${o.changes.length} delivered; ${o.failedBeforeLoss.length} were waiting in Redis; cursor moved back ${String(rewound)} changes`),
    check('both workers stopped cleanly', o.workerExits.every((c) => c === 0), `exits ${o.workerExits.join(', ')}`),
  ]; // prettier-ignore
  return drillResult('redis-loss', checks, {
    episodes: o.episodes.length,
    publishedBeforeLoss: o.transcriptionsBefore,
    waitingAtLoss: waiting,
    transcriptions: o.transcriptions,
    redisDownSeconds: Number(o.outageSeconds.toFixed(1)),
    allPublishedAfterRestartMs: o.publishedAfterMs,
    webhookChanges: o.changes.length,
    redeliveredFromCheckpoint: rewound,
    deliveredTwice: duplicates,
    allDeliveredAfterRestartMs: o.deliveredAfterMs,
  });
}
