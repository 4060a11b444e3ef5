// Drill: a node of the local 3-node cluster SIGKILLed under a search loop and a worker ingest, then restarted;
// first a data node, then the elected cluster-manager. Answers stay 200 or 503 JSON with Retry-After for a
// bounded window, the cluster is green again after the restart, and the ingest stores every episode once.
import { loadConfig } from '../../core/config/load.js';
import { createLogger } from '../../core/ground/logger.js';
import { createIndexerEmbedder } from '../../core/embedding/indexer-embedder.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { createOpenSearchClient, deleteIndices, type Client } from '../../core/store/opensearch.js';
import { clusterStatus, clusterUrls, electedClusterManager, killNode, readClusterState, restartNodes, type ClusterState } from '../ops/provision/opensearch-cluster.js';
import { SAMPLE_LIBRARY, startIngestRun } from './ingest-run.js';
import { waitFor } from '../lib/child.js';
import { startLocalApi } from './local-api.js';
import { summary } from './redis-restart.js';
import { check, drillResult, requestLoop, sleep, type DrillResult, type Sample } from './request-loop.js';

const SEARCH_PREFIX = 'drill-nodes-';
const INGEST_PREFIX = 'drill-nodes-ingest-';
const PATHS = ['/api/v1/channels/long-field/search?query=how+do+farmers+keep+soil+healthy', '/api/v1/channels/long-field/episodes?limit=5'];
/** The longest run of 503s we accept while a node is lost (the client routes around it at once; the cluster takes a moment). */
const MAX_503_WINDOW_MS = 10_000;

type Check = DrillResult['checks'][number];

interface Health {
  status: string;
  nodes: number;
  unassigned: number;
}

/** `_cluster/health` from the first of `urls` that answers within a second. */
async function health(urls: readonly string[]): Promise<Health | undefined> {
  for (const url of urls) {
    try {
      const res = await fetch(`${url}/_cluster/health`, { signal: AbortSignal.timeout(1_000) });
      const body = (await res.json()) as { status: string; number_of_nodes: number; unassigned_shards: number };
      return { status: body.status, nodes: body.number_of_nodes, unassigned: body.unassigned_shards };
    } catch {
      // next node
    }
  }
  return undefined;
}

/** Milliseconds from `since` until `test` holds (polled every 100 ms), or undefined after `timeoutMs`. */
async function timeUntil(since: number, test: () => Promise<boolean>, timeoutMs: number): Promise<number | undefined> {
  return (await waitFor(test, timeoutMs)) ? Date.now() - since : undefined;
}

/** Shard copies of the indices under `prefix`: how many shards have a started replica, and primaries per node. */
async function shardLayout(client: Client, prefix: string): Promise<{ shards: number; replicated: number; primariesByNode: Record<string, number> }> {
  const res = await client.cat.shards({ index: `${prefix}*`, format: 'json', h: 'index,shard,prirep,state,node' } as never);
  const rows = res.body as unknown as { index: string; shard: string; prirep: string; state: string; node: string }[];
  const keys = new Set(rows.map((r) => `${r.index}/${r.shard}`));
  const replicated = new Set(rows.filter((r) => r.prirep === 'r' && r.state === 'STARTED').map((r) => `${r.index}/${r.shard}`));
  const primariesByNode: Record<string, number> = {};
  for (const r of rows) if (r.prirep === 'p') primariesByNode[r.node] = (primariesByNode[r.node] ?? 0) + 1;
  return { shards: keys.size, replicated: replicated.size, primariesByNode };
}

/** The 503s of the loss, as one window from the first to the last answer; undefined when there were none. */
function window503(samples: readonly Sample[]): number | undefined {
  const errors = samples.filter((s) => s.status === 503);
  if (errors.length === 0) return undefined;
  return Math.max(...errors.map((s) => s.at + s.ms)) - Math.min(...errors.map((s) => s.at));
}

interface Fault {
  label: string;
  /** Picks the node to kill: a data node that is not the cluster-manager, or the elected cluster-manager. */
  pick(state: ClusterState, manager: string, primaries: Record<string, number>): string;
}

const FAULTS: Fault[] = [
  {
    label: 'data node',
    // The node holding the most primaries of the ingest's indices: its writes have to fail over.
    pick: (state, manager, primaries) =>
      state.nodes
        .map((n) => n.name)
        .filter((n) => n !== manager)
        .sort((a, b) => (primaries[b] ?? 0) - (primaries[a] ?? 0))[0]!,
  },
  { label: 'elected cluster-manager', pick: (_state, manager) => manager },
];

/**
 * Needs the cluster of `npm run services -- up --nodes 3` in this checkout: it kills and restarts
 * only those nodes (never an OPENSEARCH_URL given from outside). Redis comes from REDIS_URL and is
 * left alone.
 */
export async function nodeLossDrill({ library = SAMPLE_LIBRARY, downSeconds = 15 }: { library?: string; downSeconds?: number } = {}): Promise<DrillResult> {
  const log = createLogger({ name: 'drill', level: 'warn', fd: 2 });
  const { state, nodes } = await clusterStatus();
  if (!state || nodes.length < 3 || nodes.some((n) => !n.running)) {
    return drillResult('node-loss', [check('a local cluster of 3 nodes runs', false, 'start one with `npm run services -- up --nodes 3`')], {});
  }
  const urls = state.nodes.map((n) => n.url);
  const env = { ...process.env, OPENSEARCH_URL: clusterUrls(state) }; // the API, the ingest and the worker all get every node
  const config = loadConfig(env);
  const admin = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 60_000 });
  const checks: Check[] = [];
  const figures: Record<string, unknown> = { nodes: nodes.length, layout: config.indexLayout };
  try {
    // A library to search while nodes go away.
    await deleteIndices(admin, SEARCH_PREFIX);
    const embedder = await createIndexerEmbedder(config, { log });
    await loadLibrary({ client: admin, embedder, prefix: SEARCH_PREFIX, dir: library, log, layout: config.indexLayout });
    await waitFor(async () => (await health(urls))?.status === 'green', 60_000);
    const layout = await shardLayout(admin, SEARCH_PREFIX);
    checks.push(check('every shard of the loaded indices has a started replica', layout.shards > 0 && layout.replicated === layout.shards,
      `${layout.replicated} of ${layout.shards} shards replicated; primaries by node ${JSON.stringify(layout.primariesByNode)}`)); // prettier-ignore

    const api = await startLocalApi({ prefix: SEARCH_PREFIX, env: { OPENSEARCH_URL: config.opensearchUrl, RATE_LIMIT_MAX: '10000000' }, keys: 1 });
    const headers = { 'x-api-key': api.keys[0]! };
    const loops = PATHS.map((p) => requestLoop(api.baseUrl, p, headers, 200));
    try {
      for (const fault of FAULTS) {
        const result = await loseOneNode(fault, { library, downSeconds, admin, urls, env, log, loops: loops.map((l) => l.samples) });
        checks.push(...result.checks.map((c) => ({ ...c, name: `${fault.label}: ${c.name}` })));
        figures[fault.label] = result.figures;
      }
    } finally {
      const samples = (await Promise.all(loops.map((l) => l.stop()))).flat();
      figures.requests = samples.length;
      figures.statuses = summary(samples);
      await api.close();
    }
    await deleteIndices(admin, SEARCH_PREFIX);
    return drillResult('node-loss', checks, figures);
  } finally {
    await admin.close();
  }
}

async function loseOneNode(
  fault: Fault,
  {
    library,
    downSeconds,
    admin,
    urls,
    env,
    log,
    loops,
  }: { library: string; downSeconds: number; admin: Client; urls: string[]; env: NodeJS.ProcessEnv; log: ReturnType<typeof createLogger>; loops: Sample[][] },
): Promise<{ checks: Check[]; figures: Record<string, unknown> }> {
  const run = await startIngestRun({ library, prefix: INGEST_PREFIX, queueName: 'drill-nodes', env });
  try {
    let doneBefore = 0;
    await waitFor(async () => {
      const { completed, active } = await run.episodeJobs();
      doneBefore = completed.length;
      return (completed.length >= 2 && active.length > 0) || !run.ingest.alive();
    }, 10 * 60_000);
    const state = readClusterState()!;
    const manager = (await electedClusterManager(urls)) ?? '';
    const victim = fault.pick(state, manager, (await shardLayout(admin, INGEST_PREFIX)).primariesByNode);
    const survivors = state.nodes.filter((n) => n.name !== victim).map((n) => n.url);
    const ingestRunning = run.ingest.alive();
    // For contrast: an API told of the victim alone can only answer 503 while it is gone.
    const lone = await startLocalApi({
      prefix: SEARCH_PREFIX,
      env: { OPENSEARCH_URL: state.nodes.find((n) => n.name === victim)!.url, RATE_LIMIT_MAX: '10000000' },
      keys: 1,
      embedder: false,
    });
    const loneLoop = requestLoop(lone.baseUrl, PATHS[1]!, { 'x-api-key': lone.keys[0]! }, 250);

    const killedAt = Date.now();
    killNode(state, victim);
    process.stderr.write(`drill node-loss: SIGKILLed ${victim} (${fault.label}; ${doneBefore} episodes ingested)\n`);
    const nodeLeftMs = await timeUntil(killedAt, async () => (await health(survivors))?.nodes === 2, 60_000);
    const primariesMs = await timeUntil(killedAt, async () => {
      const h = await health(survivors);
      return h?.nodes === 2 && (h.status === 'yellow' || h.status === 'green');
    }, 60_000); // prettier-ignore
    let newManager: string | undefined;
    const electedMs = await timeUntil(killedAt, async () => {
      newManager = await electedClusterManager(survivors);
      return newManager !== undefined && newManager !== victim;
    }, 60_000); // prettier-ignore
    await sleep(Math.max(0, killedAt + downSeconds * 1000 - Date.now()));

    const restartedAt = Date.now();
    await restartNodes(readClusterState()!, [victim], { env, log });
    process.stderr.write(`drill node-loss: restarted ${victim} after ${((restartedAt - killedAt) / 1000).toFixed(1)} s\n`);
    const greenMs = await timeUntil(restartedAt, async () => {
      const h = await health(urls);
      return h?.status === 'green' && h.nodes === 3;
    }, 300_000); // prettier-ignore
    const greenAt = Date.now();
    const loneSamples = (await loneLoop.stop()).filter((s) => s.at >= killedAt && s.at <= greenAt);
    await lone.close();
    process.stderr.write(`drill node-loss: green again ${greenMs === undefined ? 'never (5 min)' : `${(greenMs / 1000).toFixed(1)} s after the restart`}\n`);

    const { stored, seconds, checks: outcome } = await run.finish();
    const during = loops.flat().filter((s) => s.at >= killedAt && s.at <= greenAt);
    const bad = during.filter((s) => s.status !== 200 && !(s.status === 503 && s.json && /^\d+$/.test(s.retryAfter ?? '')));
    const hung = during.filter((s) => s.ms > 2500 || s.status === 0);
    const windowMs = window503(during);
    const loneBad = loneSamples.filter((s) => s.status !== 200 && !(s.status === 503 && s.json && /^\d+$/.test(s.retryAfter ?? '')));
    const checks = [
      check('the ingest was still running when the node died', ingestRunning, `${doneBefore} of ${run.records.length} episodes done`),
      check('the node left and every primary was (re)assigned', nodeLeftMs !== undefined && primariesMs !== undefined,
        `left after ${nodeLeftMs ?? '—'} ms, cluster yellow or better ${primariesMs ?? '—'} ms after the kill`),
      check('a cluster-manager other than the dead node was in office', electedMs !== undefined, `${newManager ?? 'none'} after ${electedMs ?? '—'} ms`),
      check('every answer during the loss was 200, or 503 JSON with Retry-After', during.length > 0 && bad.length === 0,
        `${during.length} requests: ${summary(during)}${bad.length ? `; ${bad.length} other` : ''}`),
      check(`503s confined to a window of at most ${MAX_503_WINDOW_MS / 1000} s`, (windowMs ?? 0) <= MAX_503_WINDOW_MS,
        windowMs === undefined ? 'no 503 at all' : `${during.filter((s) => s.status === 503).length} × 503 over ${windowMs} ms`),
      check('no request hung (> 2.5 s or no answer)', hung.length === 0, `${hung.length}; slowest ${Math.max(0, ...during.map((s) => s.ms))} ms`),
      check('an API given only the dead node’s URL answered 503 JSON with Retry-After instead (no other failure)',
        loneSamples.some((s) => s.status === 503) && loneBad.length === 0,
        `${loneSamples.length} requests: ${summary(loneSamples)}; 503s over ${window503(loneSamples) ?? 0} ms`),
      check('green again with 3 nodes after the restart', greenMs !== undefined, `${greenMs ?? '—'} ms after the restart`),
      ...outcome,
    ]; // prettier-ignore
    return {
      checks,
      figures: {
        victim,
        wasManager: victim === manager,
        nodeLeftMs,
        yellowMs: primariesMs,
        managerAfterKill: newManager,
        electedMs,
        downSeconds: (restartedAt - killedAt) / 1000,
        greenAfterRestartMs: greenMs,
        requests: during.length,
        statuses: summary(during),
        window503Ms: windowMs ?? 0,
        slowestMs: Math.max(0, ...during.map((s) => s.ms)),
        victimOnlyApi: { statuses: summary(loneSamples), window503Ms: window503(loneSamples) ?? 0 },
        episodes: run.records.length,
        passages: stored.passages,
        ingestSeconds: seconds,
      },
    };
  } finally {
    await run.close();
  }
}
