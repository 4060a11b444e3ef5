// Redis's data deleted between two runs of the real worker (a private Redis started by the provisioner, the real
// transcription service behind a counting relay, OpenSearch): nothing transcribed twice, nothing forgotten, and the
// webhook deliveries Redis held are delivered from the endpoint's checkpoint.
import { expect } from 'chai';
import { runRedisLoss, type RedisLossOutcome } from '../../scripts/drills/redis-loss-run.js';
import { skipUnprovisioned } from '../support/skip.js';

describe('redis loss: the worker rebuilds what Redis held', function () {
  this.timeout(900_000);
  let outcome: RedisLossOutcome;

  before(async function () {
    const transcribeUrl = process.env.TRANSCRIBE_URL;
    if (!transcribeUrl) skipUnprovisioned(this, 'TRANSCRIBE_URL is not set (the real transcriber: `npm run services -- up` prints it)');
    outcome = await runRedisLoss({ transcribeUrl: transcribeUrl!, before: 2 });
  });

  it('starts the second worker on a Redis holding nothing, after the first left waiting jobs in it', function () {
    expect(outcome.jobsBeforeLoss).to.equal(3);
    expect(outcome.keysAfterLoss).to.equal(0);
    expect(outcome.workerExits).to.deep.equal([0, 0]);
  });

  it('publishes every waiting episode, each transcribed once, and transcribes none of the published ones again', function () {
    expect(outcome.episodes.map((e) => e.status)).to.deep.equal(['published', 'published', 'published', 'published', 'published']);
    expect(outcome.episodes.map((e) => e.audioDownloads)).to.deep.equal([1, 1, 1, 1, 1]);
    expect(outcome.transcriptionsBefore).to.equal(2);
    expect(outcome.transcriptions).to.equal(5);
  });

  it('logs the rebuild with its counts: no job left in Redis, the three unfinished episodes enqueued again', function () {
    expect(outcome.followRecovery).to.include({ sources: 1, schedulers: 1, jobsInRedis: 0, unfinished: 3, requeued: 3, deferred: 0, exhausted: 0 });
  });

  it('delivers every change of the channel, those refused before the loss included, moving the cursor back to the checkpoint', function () {
    expect(outcome.failedBeforeLoss).to.have.length.above(0);
    const missing = outcome.changes.filter((id) => !outcome.delivered.has(id));
    expect(missing, 'changes never delivered').to.deep.equal([]);
    expect(outcome.failedBeforeLoss.every((id) => outcome.delivered.has(id))).to.equal(true);
    const { cursorSeq, deliveredSeq } = outcome.endpointAtStop;
    expect(deliveredSeq, 'the checkpoint stayed before the undelivered changes').to.be.a('number').below(cursorSeq);
    expect(outcome.webhookRecovery).to.include({ endpoints: 1, rewound: 1, changes: cursorSeq - deliveredSeq! });
  });
});
