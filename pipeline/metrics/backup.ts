// The backups' Prometheus series in the worker's registry: how old the last good backup is, and failures.
import type { Worker } from 'bullmq';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Client } from '../../core/store/opensearch.js';
import { listBackups } from '../../core/store/snapshots.js';

export interface BackupMetricsOptions {
  registry: Registry;
  /** The scheduled backups' worker; undefined: only the age is shown (backups made by `npm run backup`). */
  worker?: Pick<Worker, 'on'> | undefined;
  client: Client;
  repository: string;
  prefix: string;
  now?: () => number;
}

/**
 * Registers
 * - `cca_backup_last_success_timestamp_seconds` and `cca_backup_age_seconds`: the newest good backup of the prefix in
 *   the repository, whoever made it (read from the repository at start and on each scrape at most once a minute;
 *   `+Inf` when there is none), so an alert on the age catches a schedule that stopped as well as one that fails;
 * - `cca_backup_failures_total`: scheduled backups that failed.
 */
export function registerBackupMetrics({ registry, worker, client, repository, prefix, now = () => Date.now() }: BackupMetricsOptions): void {
  const registers = [registry];
  let lastGood: number | undefined;
  let readAt = 0;
  const refresh = async (): Promise<void> => {
    if (now() - readAt < 60_000) return;
    readAt = now();
    try {
      const good = (await listBackups(client, { repository, prefix })).filter((b) => b.state === 'SUCCESS');
      const newest = good.at(-1);
      if (newest) lastGood = Math.max(lastGood ?? 0, Date.parse(newest.startedAt) + newest.durationMs);
    } catch {
      // The repository cannot be read now: the last answer stands.
    }
  };
  new Gauge({
    name: 'cca_backup_last_success_timestamp_seconds',
    help: 'Unix time the newest good backup of the prefix finished (0: none).',
    registers,
    async collect() {
      await refresh();
      this.set(lastGood === undefined ? 0 : lastGood / 1000);
    },
  });
  new Gauge({
    name: 'cca_backup_age_seconds',
    help: 'Seconds since the newest good backup of the prefix finished (+Inf: none); alert when it exceeds twice BACKUP_EVERY.',
    registers,
    async collect() {
      await refresh();
      this.set(lastGood === undefined ? Infinity : Math.max(0, (now() - lastGood) / 1000));
    },
  });
  const failures = new Counter({ name: 'cca_backup_failures_total', help: 'Scheduled backups that failed (the next scheduled one retries).', registers });
  failures.inc(0);
  worker?.on('completed', () => {
    lastGood = now();
  });
  worker?.on('failed', () => failures.inc());
}
