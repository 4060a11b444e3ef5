// `npm run restore [-- <snapshot>] [--as <prefix>] [--swap | --force] [--foreign <deployment>]`: bring a backup of `npm run backup` back.
import { Command, InvalidArgumentError } from 'commander';
import { commandConfig, describeFailure } from './lib/reach.js';
import { configuredSignature } from '../core/embedding/configured.js';
import { createLogger } from '../core/ground/logger.js';
import { createOpenSearchClient } from '../core/store/opensearch.js';
import { BackupError } from '../core/store/snapshots.js';
import { currentMappingVersions, restoreBackup } from '../core/store/snapshot-restore.js';
import { createProgress } from '../indexer/progress.js';
import { escapedJson, restoreReport } from './lib/restore-report.js';

const config = commandConfig();
const log = createLogger({ name: 'restore', level: config.logLevel, fd: 2 });

const program = new Command()
  .name('restore')
  .description(
    'Restore a backup of `npm run backup` from BACKUP_REPOSITORY: the newest good one of INDEX_PREFIX, or the one named.\n' +
      'Its indices come back under new names and the aliases of the prefix are pointed at them in one call. Refused when the\n' +
      'snapshot was built by another embedder or another mapping version than this release and configuration (the sentence\n' +
      'says what to do), when the prefix has live indices unless --swap or --force, and when another deployment made it unless\n' +
      '--foreign names that deployment. Key revocations and endpoint removals made since the backup (the ledger) are applied\n' +
      'again before the restored indices serve. Episodes added to the library folders since the backup: `npm run ingest --\n' +
      '<folder>` afterwards (unchanged episodes are skipped).',
  )
  .argument('[snapshot]', 'snapshot name (`npm run backup -- --list`); default the newest good backup of INDEX_PREFIX')
  .option('--as <prefix>', 'restore into this prefix instead of the snapshot’s own (beside the live one, to inspect it or swap later)', indexPrefix)
  .option('--swap', 'the prefix has live indices: restore beside them, swap the aliases in one call, then delete the old ones')
  .option('--force', 'the prefix has live indices: delete them first, then restore (for a disk too small for both)')
  .option('--foreign <deployment>', 'restore a snapshot of another deployment: its id as the refusal shows it (`unknown` for one made before deployment ids)')
  .showHelpAfterError()
  .parse();

const opts = program.opts<{ as?: string; swap?: boolean; force?: boolean; foreign?: string }>();

function indexPrefix(value: string): string {
  if (!/^[a-z0-9][a-z0-9_.-]*$/.test(value)) throw new InvalidArgumentError('expected lowercase letters, digits, "-", "_" or "." (as INDEX_PREFIX)');
  return value;
}

async function main(): Promise<void> {
  if (opts.as !== undefined && !/^[a-z0-9][a-z0-9_.-]*$/.test(opts.as))
    throw new BackupError('live_indices', `--as "${opts.as}": expected lowercase letters, digits, "-", "_" or "."`);
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 300_000 });
  const progress = createProgress({ label: 'restore', unit: 'shards', log });
  try {
    const result = await restoreBackup(client, {
      repository: config.backup.repository,
      location: config.backup.location,
      snapshot: program.args[0],
      from: config.indexPrefix,
      as: opts.as,
      swap: opts.swap ?? false,
      force: opts.force ?? false,
      foreign: opts.foreign,
      expected: { embedder: configuredSignature(config), mappings: await currentMappingVersions() },
      log,
      onProgress: (p) => progress.update(p.shardsDone, p.shardsTotal, { MB: Math.round(p.bytesDone / 1e6) }),
    });
    progress.stop();
    process.stdout.write(`${escapedJson(result)}\n`);
    process.stderr.write(`${restoreReport(result).join('\n')}\n`);
  } finally {
    progress.stop();
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    if (!(err instanceof BackupError)) log.error({ err }, 'restore failed');
    process.stderr.write(`restore: ${describeFailure(err, config)}\n`);
    process.exit(1);
  },
);
