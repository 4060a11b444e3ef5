// The worker's scheduled backups: one BullMQ Job Scheduler (BACKUP_EVERY) whose jobs run `npm run backup`'s createBackup,
// one at a time whichever worker takes them; its outcomes feed the backup metrics (metrics.ts).
import { resolve } from 'node:path';
import { Queue, Worker, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../../core/config/load.js';
import type { Logger } from '../../core/ground/logger.js';
import type { Client } from '../../core/store/opensearch.js';
import { createBackup, type BackupResult } from '../../core/store/snapshots.js';

/** The queue of a prefix's backups: beside its other queues, never shared by two deployments. */
export const backupQueueName = (indexPrefix: string): string => `${indexPrefix}backup`;
export const BACKUP_SCHEDULER_ID = 'backup';

/** A failed backup is not retried: the next scheduled one is the retry, and the failure shows in the metrics. */
const BACKUP_JOB_OPTIONS: JobsOptions = { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } };

export interface BackupSchedule {
  worker: Worker<Record<string, never>, BackupResult>;
  close(): Promise<void>;
}

/**
 * Starts the scheduled backups of `config.indexPrefix` when `BACKUP_EVERY` is set; when it is not, removes a scheduler
 * an earlier run left (so turning it off stops it) and returns undefined.
 */
export async function startBackupSchedule({
  connection,
  client,
  config,
  log,
}: {
  connection: Redis;
  client: Client;
  config: Pick<Config, 'indexPrefix' | 'backup' | 'pipeline'>;
  log?: Logger | undefined;
}): Promise<BackupSchedule | undefined> {
  const name = backupQueueName(config.indexPrefix);
  const queue = new Queue(name, { connection, defaultJobOptions: BACKUP_JOB_OPTIONS });
  const { every, repository, location, keep } = config.backup;
  if (!every) {
    await queue.removeJobScheduler(BACKUP_SCHEDULER_ID);
    await queue.close();
    return undefined;
  }
  const worker = new Worker<Record<string, never>, BackupResult>(
    name,
    () => createBackup(client, { repository, location, keep, prefix: config.indexPrefix, libraries: [resolve(config.pipeline.libraryDir)], log }),
    { connection, concurrency: 1, lockDuration: 120_000 },
  );
  worker.on('failed', (job, err) => log?.error({ jobId: job?.id, err: err.message }, 'scheduled backup failed'));
  worker.on('error', (err) => log?.error({ err: err.message }, 'backup worker error'));
  await queue.upsertJobScheduler(BACKUP_SCHEDULER_ID, every, { name: 'backup', data: {}, opts: BACKUP_JOB_OPTIONS });
  log?.info({ queue: name, repository, keep, ...every }, 'scheduled backups started');
  return {
    worker,
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
