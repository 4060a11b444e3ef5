// Operations: the metrics listeners and backups.
import { custom, integer, optionalInteger, text } from '../values.js';
import { type Schema } from '../tree.js';
import { readBackupEvery } from '../readers.js';

export const OPERATIONS = {
  /** Prometheus `/metrics` listeners, off the public API port; the API and the worker each have their own. */
  metrics: {
    host: text('METRICS_HOST', '127.0.0.1', 'interface of the `/metrics` listeners'),
    apiPort: optionalInteger('METRICS_PORT', 0, 65535, "port of the API's `/metrics` listener", 'unset (none)'),
    workerPort: optionalInteger('WORKER_METRICS_PORT', 0, 65535, "port of the worker's `/metrics` listener (`npm run worker -- --metrics-port` overrides it)", 'unset (none)'),
  },

  /** Snapshots of every index of `INDEX_PREFIX` (`npm run backup`, `npm run restore`, the worker's schedule). */
  backup: {
    repository: text(
      'BACKUP_REPOSITORY',
      'cca-backups',
      'OpenSearch snapshot repository the backups go to (registered as `fs` at `BACKUP_LOCATION` when missing; an S3 one is registered by the operator)',
    ),
    location: text('BACKUP_LOCATION', 'cca-backups', "folder of a file-system repository, relative to the nodes' `path.repo` (or absolute inside it)", { accepts: 'folder path' }),
    keep: integer('BACKUP_KEEP', 7, 1, 1000, 'good backups of the prefix kept; older ones are deleted after each good one'),
    every: custom(
      'BACKUP_EVERY',
      { shown: 'unset (no scheduled backup)', accepts: 'an interval (`30m`, `6h`, `1d`) or a cron pattern (`0 3 * * *`)' },
      "the worker's backup schedule (a BullMQ Job Scheduler); unset: backups only by `npm run backup`",
      readBackupEvery,
    ),
  },
} satisfies Schema;
