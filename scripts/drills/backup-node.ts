// A throw-away single OpenSearch node of the drill's own (its folder, its ports, path.repo set), so the backup drill can
// delete a data directory for real without touching the node of `npm run services -- up`.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../src/ground/logger.js';
import { serviceAccount } from '../ops/provision/opensearch-account.js';
import { singleNodeSettings, snapshotRoot, writeNodeConfig, type NodeSpec } from '../ops/provision/opensearch-config.js';
import { ensureInstall, findJava } from '../ops/provision/opensearch-install.js';
import { prepareFolder, spawnNode, verifyPlugins, waitForHealth } from '../ops/provision/opensearch-node.js';
import { RUN_DIR } from '../ops/provision/paths.js';
import { choosePort } from '../ops/provision/ports.js';
import { stopProcess } from '../ops/provision/processes.js';

export interface DrillNode {
  url: string;
  /** Where its data lives: what the drill deletes. */
  dataDir: string;
  /** Where its snapshots live (path.repo): what survives. */
  snapshotDir: string;
  /** Starts the node (again) on the same ports and folders; resolves once it is healthy. */
  start(): Promise<void>;
  /** SIGKILLs the node: the crash, not a shutdown. */
  kill(): Promise<void>;
  /** Stops the node and removes its whole folder, snapshots included. */
  remove(): Promise<void>;
}

/** A node in `<run>/<name>` (a fresh folder) on free ports near 9250; not started yet. */
export async function drillNode({ name = 'drill-backup', log, heap = '768m' }: { name?: string; log: Logger; heap?: string }): Promise<DrillNode> {
  const env = process.env;
  const port = await choosePort({ env, preferred: 9250, what: 'drill OpenSearch HTTP' });
  const transportPort = await choosePort({ env, preferred: 9350, avoid: [port], what: 'drill OpenSearch transport' });
  const node: NodeSpec = { name: 'local-1', port, transportPort, dir: path.join(RUN_DIR, name) };
  fs.rmSync(node.dir, { recursive: true, force: true });
  const java = await findJava(env, log);
  await ensureInstall(java, log);
  const account = await serviceAccount(log);
  const url = `http://127.0.0.1:${port}`;
  let pid: number | undefined;

  const stop = async (signal: 'kill' | 'term') => {
    if (pid === undefined) return;
    if (signal === 'kill') {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await stopProcess(pid, { group: true, timeoutMs: 10_000, name: 'drill OpenSearch', log });
    } else await stopProcess(pid, { group: true, timeoutMs: 30_000, name: 'drill OpenSearch', log });
    pid = undefined;
  };

  return {
    url,
    dataDir: path.join(node.dir, 'data'),
    snapshotDir: snapshotRoot([node]),
    async start() {
      const conf = writeNodeConfig(node, singleNodeSettings(node), { heap });
      await prepareFolder(node, account);
      const child = spawnNode(node, conf, { env, java, account });
      pid = child.pid;
      await waitForHealth([{ node, pid: child.pid, url, exited: child.exited }], { status: 'yellow', nodes: 1, timeoutMs: 180_000, log });
      await verifyPlugins(url);
    },
    kill: () => stop('kill'),
    async remove() {
      await stop('term');
      fs.rmSync(node.dir, { recursive: true, force: true });
    },
  };
}
