// The worker's scheduled backups on the real engine and Redis: the Job Scheduler makes good backups and the metrics show
// their age; a backup that cannot be made counts as a failure.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { loadConfig } from '../../core/config/load.js';
import { deleteIndices, type Client } from '../../core/store/opensearch.js';
import { listBackups } from '../../core/store/snapshots.js';
import { createRedisConnection } from '../../indexer/queue.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { registerBackupMetrics } from '../../pipeline/metrics/backup.js';
import { backupQueueName, startBackupSchedule, type BackupSchedule } from '../../pipeline/backup/schedule.js';
import { dropRepository } from '../support/backup-repository.js';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { privatePrefix, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';
import { sample } from '../support/prometheus.js';
import { holdsWithin } from '../support/until.js';

const until = (test: () => Promise<boolean>, timeoutMs: number): Promise<boolean> => holdsWithin(test, timeoutMs, 250);

describe('scheduled backups in the worker', function () {
  this.timeout(120_000);
  const prefix = privatePrefix('bak-sched');
  const repository = `test-backup-sched-${randomBytes(4).toString('hex')}`;
  const config = loadConfig(process.env);
  const connection = createRedisConnection(config.redisUrl);
  let client: Client;
  let schedule: BackupSchedule | undefined;

  const scheduleOf = (backup: Partial<(typeof config)['backup']>) => ({
    ...config,
    indexPrefix: prefix,
    backup: { ...config.backup, repository, location: repository, keep: 2, ...backup },
  });

  before(async function () {
    client = testClient();
    await loadLibrary({ client, embedder: createHashEmbedder(), prefix, dir: SAMPLE_LIBRARY });
  });

  afterEach(async function () {
    await schedule?.close();
    schedule = undefined;
  });

  after(async function () {
    const queue = new Queue(backupQueueName(prefix), { connection });
    await queue.obliterate({ force: true });
    await queue.close();
    await dropRepository(client, { repository, location: repository });
    await client.snapshot.deleteRepository({ repository: `${repository}-bad` }, { ignore: [404] });
    await deleteIndices(client, prefix);
    await client.close();
    connection.disconnect();
  });

  it('makes backups on its schedule, keeps BACKUP_KEEP of them, and shows the age of the last good one', async function () {
    schedule = await startBackupSchedule({ connection, client, config: scheduleOf({ every: { every: 1000 } }) });
    const registry = new Registry();
    registerBackupMetrics({ registry, worker: schedule!.worker, client, repository, prefix });
    // No good backup yet: infinitely old, so an alert on the age fires before the first one.
    expect(await registry.metrics()).to.match(/^cca_backup_age_seconds \+Inf$/m);
    let completed = 0;
    schedule!.worker.on('completed', () => completed++);
    expect(await until(async () => completed >= 3, 60_000), 'three scheduled backups').to.equal(true);
    const text = await registry.metrics();
    expect(sample(text, 'cca_backup_age_seconds')).to.be.within(0, 10);
    expect(sample(text, 'cca_backup_failures_total')).to.equal(0);
    expect((await listBackups(client, { repository, prefix })).filter((b) => b.state === 'SUCCESS')).to.have.length.within(2, 3);
  });

  it('counts a scheduled backup that cannot be made as a failure', async function () {
    // A location outside the node's path.repo: the repository cannot be registered, so the backup fails.
    schedule = await startBackupSchedule({
      connection,
      client,
      config: {
        ...scheduleOf({ every: { every: 1000 } }),
        backup: { ...scheduleOf({}).backup, repository: `${repository}-bad`, location: '/nonexistent-outside-path-repo', every: { every: 1000 } },
      },
    });
    const registry = new Registry();
    registerBackupMetrics({ registry, worker: schedule!.worker, client, repository: `${repository}-bad`, prefix });
    expect(await until(async () => sample(await registry.metrics(), 'cca_backup_failures_total') >= 1, 30_000), 'a failure counted').to.equal(true);
  });

  it('removes the scheduler when BACKUP_EVERY is unset', async function () {
    const queue = new Queue(backupQueueName(prefix), { connection });
    try {
      expect(await startBackupSchedule({ connection, client, config: scheduleOf({ every: undefined }) })).to.equal(undefined);
      expect(await queue.getJobSchedulers()).to.deep.equal([]);
    } finally {
      await queue.close();
    }
  });
});
