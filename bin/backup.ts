// `npm run backup [-- --list]`: snapshot every index of INDEX_PREFIX into BACKUP_REPOSITORY, or list the backups.
import { resolve } from 'node:path';
import { Command } from 'commander';
import { commandConfig, describeFailure } from './lib/reach.js';
import { createLogger } from '../core/ground/logger.js';
import { createOpenSearchClient } from '../core/store/opensearch.js';
import { BackupError, createBackup, ensureRepository, listBackups, type BackupInfo } from '../core/store/snapshots.js';
import { createProgress } from '../indexer/progress.js';
import { positive } from './lib/cli-args.js';

const config = commandConfig();
// Logs and progress go to stderr: stdout carries the result a script may read.
const log = createLogger({ name: 'backup', level: config.logLevel, fd: 2 });

const program = new Command()
  .name('backup')
  .description(
    'Snapshot every index behind the aliases of INDEX_PREFIX (catalog, transcripts, passages, API keys, webhooks, change feed …)\n' +
      'into the OpenSearch snapshot repository BACKUP_REPOSITORY (registered as a file-system repository at BACKUP_LOCATION under\n' +
      "the nodes' path.repo when missing), with a manifest naming the prefix, the embedder, the mapping versions and the library\n" +
      'folders. After a good snapshot, older ones of the prefix beyond BACKUP_KEEP are deleted. The library folders themselves\n' +
      'are not in it: they are the source of truth, kept by your file backups. Restore with `npm run restore`.',
  )
  .option('--list', 'list the backups of INDEX_PREFIX (name, date, indices, size, state) instead of making one')
  .option('--all', 'with --list: the backups of every prefix in the repository')
  .option('--keep <n>', 'good backups of the prefix kept (default BACKUP_KEEP)', positive)
  .option('--library <dir...>', 'library folders to name in the manifest, besides FOLLOW_LIBRARY_DIR')
  .showHelpAfterError()
  .parse();

const opts = program.opts<{ list?: boolean; all?: boolean; keep?: number; library?: string[] }>();

const human = (bytes: number | undefined): string => {
  if (bytes === undefined) return '-';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return `${n.toFixed(u === 0 ? 0 : 1)} ${units[u]}`;
};

/** One row per backup: name, date, indices, size, state (tab-separated, a header first). */
export function formatList(rows: readonly BackupInfo[]): string {
  const lines = [['name', 'date', 'indices', 'size', 'state', 'prefix'].join('\t')];
  for (const r of rows) lines.push([r.name, r.startedAt, String(r.indices.length), human(r.bytes), r.state, r.manifest?.prefix ?? '-'].join('\t'));
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 300_000 });
  const { repository, location } = config.backup;
  try {
    if (opts.list) {
      await ensureRepository(client, { repository, location });
      const rows = await listBackups(client, { repository, ...(opts.all ? {} : { prefix: config.indexPrefix }), sizes: true });
      process.stdout.write(formatList(rows));
      if (rows.length === 0) process.stderr.write(`no backups of ${opts.all ? 'any prefix' : `prefix "${config.indexPrefix}"`} in ${repository}\n`);
      return;
    }
    const progress = createProgress({ label: 'backup', unit: 'shards', log });
    try {
      const result = await createBackup(client, {
        repository,
        location,
        prefix: config.indexPrefix,
        keep: opts.keep ?? config.backup.keep,
        libraries: [resolve(config.pipeline.libraryDir), ...(opts.library ?? []).map((d) => resolve(d))],
        log,
        onProgress: (p) => progress.update(p.shardsDone, p.shardsTotal, { MB: Math.round(p.bytesDone / 1e6) }),
      });
      progress.stop();
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } finally {
      progress.stop();
    }
  } finally {
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    if (!(err instanceof BackupError)) log.error({ err }, 'backup failed');
    process.stderr.write(`backup: ${describeFailure(err, config)}\n`);
    process.exit(1);
  },
);
