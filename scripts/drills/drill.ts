// `npm run drill [scenario…]`: fault drills against the local stack (stops and restarts the services `npm run services -- up` started).
import { Command } from 'commander';
import { backupRestoreClusterDrill, backupRestoreDrill } from './backup-restore.js';
import { DEFAULT_PREFIX } from './local-api.js';
import { nodeLossDrill } from './node-loss.js';
import { openSearchRestartDrill } from './opensearch-restart.js';
import { SAMPLE_LIBRARY } from './ingest-run.js';
import { redisQueueDrill } from './redis-queue.js';
import { redisLossDrill } from './redis-loss.js';
import { redisRestartDrill } from './redis-restart.js';
import { scaleOutDrill } from './scale-out.js';
import type { DrillResult } from './request-loop.js';
import { workerKillDrill } from './worker-kill.js';
import { useProvisionedModel } from '../ops/provision/model.js';

/** API drills run over the loaded `prefix`; worker drills ingest `library` into throw-away prefixes. */
const SCENARIOS: Record<string, (o: { prefix: string; library: string }) => Promise<DrillResult>> = {
  redis: redisRestartDrill,
  opensearch: openSearchRestartDrill,
  'worker-kill': workerKillDrill,
  'redis-queue': redisQueueDrill,
  'redis-loss': redisLossDrill,
  'node-loss': nodeLossDrill,
  'scale-out': scaleOutDrill,
  backup: backupRestoreDrill,
  'backup-cluster': backupRestoreClusterDrill,
};
/**
 * Run when no scenario is named: the single-node drills. `node-loss` needs `npm run services -- up --nodes 3`;
 * `scale-out` kills nothing and runs on that cluster when it is up.
 */
const DEFAULT_SCENARIOS = ['redis', 'opensearch', 'worker-kill', 'redis-queue'];

const program = new Command()
  .name('drill')
  .description(
    `Fault drills, each bounded and printing pass/fail with figures: ${Object.keys(SCENARIOS).join(', ')} (default: ${DEFAULT_SCENARIOS.join(', ')}).\n` +
      'They STOP (or kill) and restart the local OpenSearch/Redis of `npm run services -- up`: never run them against a shared stack.\n' +
      'redis-loss deletes the data of a private Redis of its own between two runs of the worker (the services’ Redis is left alone).\n' +
      'node-loss kills and restarts nodes of the local cluster of `npm run services -- up --nodes 3` only.\n' +
      'backup (backup-cluster) deletes the data of a throw-away node (3-node cluster) of its own and restores it from a backup (the services are left alone).',
  )
  .option('--prefix <prefix>', 'index prefix holding a loaded library (API drills)', DEFAULT_PREFIX)
  .option('--library <dir>', 'library the worker drills ingest (embedded afresh each time)', SAMPLE_LIBRARY)
  .argument('[scenarios...]')
  .parse();
const { prefix, library } = program.opts<{ prefix: string; library: string }>();
const names = program.args.length ? program.args : DEFAULT_SCENARIOS;
for (const n of names) if (!SCENARIOS[n]) program.error(`unknown scenario "${n}" (known: ${Object.keys(SCENARIOS).join(', ')})`);

// The worker drills embed with the real model, local files only (as `npm test` does).
await useProvisionedModel('drill');

const results: DrillResult[] = [];
for (const name of names) {
  process.stderr.write(`drill: ${name}\n`);
  const result = await SCENARIOS[name]!({ prefix, library });
  results.push(result);
  process.stdout.write(`\n${result.ok ? 'PASS' : 'FAIL'} ${result.name}\n`);
  for (const c of result.checks) process.stdout.write(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}\n`);
  process.stdout.write(`  figures: ${JSON.stringify(result.figures)}\n`);
}
const ok = results.every((r) => r.ok);
process.stdout.write(`\ndrill: ${results.filter((r) => r.ok).length}/${results.length} passed\n`);
process.exit(ok ? 0 : 1);
