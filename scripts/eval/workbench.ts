// `npm run workbench -- [--port 8090] [--prefix <index prefix>] [--dir workbench]`: the relevance workbench, a local web page
// over the store the API uses (same INDEX_PREFIX), built on the eval harness and the search pipeline. Loopback only,
// and only for whoever has the URL it prints (a per-run token).
import { existsSync, readdirSync } from 'node:fs';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { PROJECT_ROOT } from '../ops/provision/paths.js';
import { openLocalSearch } from './harness.js';
import { createWorkbenchApp } from './workbench/app.js';
import { WorkbenchFiles } from './workbench/files.js';
import { newWorkbenchToken } from './workbench/guard.js';

const opts = new Command()
  .name('workbench')
  .description('Query sets, configurations side by side, experiments with plots, judgments and snapshots, in a local web page.')
  .option(
    '--port <n>',
    'port on 127.0.0.1 (0: any free one)',
    (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--port ${v}: 0-65535`);
      return n;
    },
    8090,
  )
  .option('--prefix <prefix>', 'index prefix of the library to tune (default: INDEX_PREFIX)')
  .option('--dir <dir>', 'where sets, configurations and snapshots are saved', 'workbench')
  .option('--datasets <dir>', 'data sets whose queries-dev.jsonl are offered read-only', join(PROJECT_ROOT, '..', 'shared', 'data'))
  .parse()
  .opts<{ port: number; prefix?: string; dir: string; datasets: string }>();

/** The dev sets offered read-only: each data set's queries-dev.jsonl, and the compact corpus the tests load. */
function devSets(datasets: string): Map<string, string> {
  const sets = new Map<string, string>([['corpus-dev', join(PROJECT_ROOT, 'test', 'data', 'qmsum-cut', 'queries-dev.jsonl')]]);
  if (existsSync(datasets)) {
    for (const name of readdirSync(datasets).sort()) {
      const file = join(datasets, name, 'queries-dev.jsonl');
      if (existsSync(file)) sets.set(`${name}-dev`, file);
    }
  }
  return sets;
}

const local = await openLocalSearch({ ...(opts.prefix ? { prefix: opts.prefix } : {}), log: (m) => process.stderr.write(`workbench: ${m}\n`) });
const files = new WorkbenchFiles(resolve(opts.dir), devSets(opts.datasets));
await files.init();
// A new token each run, printed only here: the URL is the key (the page keeps it in a cookie, scripts send it as a header).
const token = newWorkbenchToken();
const server = createWorkbenchApp({ local, files, token }).listen(opts.port, '127.0.0.1');
await once(server, 'listening');
const address = server.address() as { port: number };
process.stdout.write(`workbench: http://127.0.0.1:${address.port}/?token=${token} (index prefix ${local.config.indexPrefix}, files in ${files.dir})\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    server.close();
    void local.close().finally(() => process.exit(0));
  });
