// The workbench gives the numbers `npm run eval` gives: the same set and configuration, the CLI's table against the
// workbench's experiment, every measure to the CLI's four decimals. And its calls refuse bad input with JSON errors.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { x } from 'tinyexec';
import { openLocalSearch, type LocalSearch } from '../../scripts/eval/harness.js';
import { createWorkbenchApp } from '../../scripts/eval/workbench/app.js';
import { WorkbenchFiles } from '../../scripts/eval/workbench/files.js';
import { TOKEN_HEADER, newWorkbenchToken } from '../../scripts/eval/workbench/guard.js';
import { deleteIndices, indexAliases } from '../../core/store/opensearch.js';
import { privatePrefix } from '../support/indexer-env.js';
import { CORPUS_DIR, CORPUS_PREFIX, QMSUM_LOAD_TIMEOUT_MS, ensureCorpusLoaded } from '../support/qmsum-fixture.js';

const SET = join(CORPUS_DIR, 'queries-dev.jsonl');
const SETTINGS = 'fusion=rrf k=30 candidates=50';

/** The measures of the CLI's table row, as printed. */
function cliRow(stdout: string): Record<string, string> {
  const lines = stdout.split('\n').filter((l) => l.startsWith('|'));
  const cells = (l: string) =>
    l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const head = cells(lines[0]!);
  const row = cells(lines[2]!);
  return Object.fromEntries(head.map((h, i) => [h, row[i]!]));
}

describe('workbench: the same numbers as npm run eval', function () {
  this.timeout(QMSUM_LOAD_TIMEOUT_MS);
  let local: LocalSearch;
  let server: Server;
  let base: string;
  let dir: string;
  const token = newWorkbenchToken();

  before(async function () {
    await ensureCorpusLoaded();
    dir = await mkdtemp(join(tmpdir(), 'cca-workbench-'));
    local = await openLocalSearch({ prefix: CORPUS_PREFIX, log: () => undefined });
    const files = new WorkbenchFiles(dir, new Map([['corpus-dev', SET]]));
    await files.init();
    server = createWorkbenchApp({ local, files, token }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(async function () {
    server?.close();
    await local?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { [TOKEN_HEADER]: token, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('gives, for the dev set of the corpus under one configuration, every measure the CLI prints, to its four decimals', async function () {
    const cli = await x(process.execPath, ['--import', 'tsx', 'scripts/eval/eval.ts', '--queries', SET, '--prefix', CORPUS_PREFIX, '--mode', 'hybrid', '--set', SETTINGS], {
      nodeOptions: { env: process.env },
    });
    expect(cli.exitCode, cli.stderr).to.equal(0);
    const printed = cliRow(cli.stdout);
    expect(await call('PUT', '/api/configs/rrf30', { mode: 'hybrid', settings: SETTINGS })).to.have.property('status', 200);
    const run = await call('POST', '/api/experiments', { set: 'corpus-dev', config: 'rrf30' });
    expect(run.status, JSON.stringify(run.body)).to.equal(200);
    const s = run.body.summary as Record<string, number>;
    const mine = {
      queries: String(s.queries),
      'nDCG@10': s.ndcg!.toFixed(4),
      'Recall@10': s.recall!.toFixed(4),
      MRR: s.rr!.toFixed(4),
      'P@10': s.precision!.toFixed(4),
      'episode MRR': s.episodeRr!.toFixed(4),
      'overlap@1': s.overlap1!.toFixed(4),
      'landing@1': s.landing1!.toFixed(4),
    };
    for (const [measure, value] of Object.entries(mine)) expect(value, measure).to.equal(printed[measure]);
    expect(Number(printed.queries)).to.be.above(40);
  });

  it('refuses bad names, unknown settings and missing fields with a JSON error, and keeps a dev set read-only (judgments go to a copy)', async function () {
    expect(await call('PUT', '/api/configs/..%2Fescape', { mode: 'hybrid', settings: '' })).to.deep.include({ status: 400 });
    const unknown = await call('PUT', '/api/configs/x', { mode: 'hybrid', settings: 'nope=1' });
    expect(unknown.status).to.equal(400);
    expect(String(unknown.body.error)).to.match(/unknown setting "nope"/);
    expect((await call('POST', '/api/experiments', { config: 'x' })).body).to.deep.equal({ error: 'missing "set"' });
    expect((await call('GET', '/api/sets/no-such-set')).status).to.equal(404);
    const judged = await call('POST', '/api/judgments', {
      set: 'corpus-dev',
      query: { channel: 'product-meetings', query: 'a query typed in the workbench' },
      segment: { episodeId: 'ep_x', startMs: 1000, endMs: 5000 },
      relevant: true,
    });
    expect(judged.status).to.equal(200);
    expect(judged.body.relevant).to.deep.equal([{ episodeId: 'ep_x', startMs: 1000, endMs: 5000 }]);
    const state = await call('GET', '/api/state');
    const sets = state.body.sets as { name: string; source: string; missingChannels: string[] }[];
    expect(sets.find((s) => s.name === 'corpus-dev')).to.deep.include({ source: 'workbench', missingChannels: [] });
    // A set of another library: offered, and said not to be in this one.
    expect((await call('PUT', '/api/sets/elsewhere', { lines: 'any question', channel: 'no-such-channel' })).status).to.equal(200);
    expect(((await call('GET', '/api/state')).body.sets as typeof sets).find((s) => s.name === 'elsewhere')!.missingChannels).to.deep.equal(['no-such-channel']);
  });

  it('searches a channel loaded after it started: a failed channel read is not kept', async function () {
    const prefix = privatePrefix('wb');
    const fresh = await openLocalSearch({ prefix, withEmbedder: false, log: () => undefined });
    try {
      let missing: unknown;
      await fresh.channel('late').catch((err: unknown) => (missing = err));
      expect(missing, 'no channel yet').to.be.instanceOf(Error);
      const doc = { id: 'ch_late', slug: 'late', title: 'Late', providerType: 'rss', ownerId: 'u', memberIds: [] };
      await fresh.client.index({ index: indexAliases(prefix).channels, id: doc.id, body: doc, refresh: true });
      expect((await fresh.channel('late')).id).to.equal('ch_late');
    } finally {
      await deleteIndices(fresh.client, prefix);
      await fresh.close();
    }
  });
});
