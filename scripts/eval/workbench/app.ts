// The workbench's HTTP side: the page and its JSON calls, over one LocalSearch (the store the API uses, same prefix).
// Loopback only, behind the guard (Host, Origin, the per-run token); every error is JSON with a sentence.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import express, { type ErrorRequestHandler, type Request } from 'express';
import { packageFile } from '../../../core/ground/package-root.js';
import type { LocalSearch } from '../harness.js';
import { parseQueries, type JudgedQuery } from '../relevance.js';
import { iconFile } from './favicon.js';
import { checkName, type WorkbenchFiles } from './files.js';
import { workbenchGuard } from './guard.js';
import { applyJudgment } from './judgments.js';
import { checkConfig, compareRankings, rankQuery, runExperiment, type WorkbenchConfig } from './runs.js';

const require = createRequire(import.meta.url);

/** A file of an installed package, found from its entry point (the packages do not export their dist/ files). */
function packageDistFile(pkg: string, file: string): string {
  let dir = dirname(require.resolve(pkg));
  while (!existsSync(join(dir, 'package.json')) || (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== pkg) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the folder of ${pkg}`);
    dir = up;
  }
  return join(dir, file);
}

/** The page's files, and the charting library (Observable Plot over d3) it draws its SVG plots with. */
const ASSETS: Record<string, { type: string; path: string }> = {
  '/': { type: 'text/html; charset=utf-8', path: packageFile('scripts', 'eval', 'workbench', 'public', 'index.html') },
  '/assets/workbench.js': { type: 'text/javascript; charset=utf-8', path: packageFile('scripts', 'eval', 'workbench', 'public', 'workbench.js') },
  '/assets/workbench.css': { type: 'text/css; charset=utf-8', path: packageFile('scripts', 'eval', 'workbench', 'public', 'workbench.css') },
  '/vendor/d3.js': { type: 'text/javascript; charset=utf-8', path: packageDistFile('d3', 'dist/d3.min.js') },
  '/vendor/plot.js': { type: 'text/javascript; charset=utf-8', path: packageDistFile('@observablehq/plot', 'dist/plot.umd.min.js') },
};

class BadRequest extends Error {
  readonly status = 400;
}

const body = <T>(req: Request, field: string): T => {
  const value = (req.body as Record<string, unknown> | undefined)?.[field];
  if (value === undefined) throw new BadRequest(`missing "${field}"`);
  return value as T;
};

/** A configuration given by name (saved) or inline ({mode, settings}). */
async function configOf(files: WorkbenchFiles, value: unknown): Promise<{ name: string; config: WorkbenchConfig }> {
  if (typeof value === 'string') return { name: value, config: await files.readConfig(value) };
  try {
    return { name: 'unsaved', config: checkConfig(value) };
  } catch (err) {
    throw new BadRequest((err as Error).message);
  }
}

/**
 * The workbench's app over one library. `token` is the run's secret (see `newWorkbenchToken`): the page gets it from
 * the printed URL, scripts send it in the `x-workbench-token` header; without it every /api call is refused.
 */
export function createWorkbenchApp({ local, files, token }: { local: LocalSearch; files: WorkbenchFiles; token: string }) {
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  // First, before any body is parsed: a refused request costs nothing. Only the page's files are served without the token.
  app.use(workbenchGuard({ token, publicPaths: new Set([...Object.keys(ASSETS), '/favicon.ico']) }));
  app.use(express.json({ limit: '5mb' }));
  for (const [path, asset] of Object.entries(ASSETS)) {
    const content = readFileSync(asset.path);
    app.get(path, (_req, res) => void res.type(asset.type).setHeader('Cache-Control', 'no-store').send(content));
  }
  const icon = iconFile();
  app.get('/favicon.ico', (_req, res) => void res.type('image/x-icon').setHeader('Cache-Control', 'max-age=86400').send(icon));

  app.get('/api/state', async (_req, res) => {
    const [sets, configs, snapshots] = await Promise.all([files.listSets(), files.listConfigs(), files.listSnapshots()]);
    // A set whose channels are not in this library (another data set's dev queries) is offered, but says so.
    const loaded = async (slug: string) =>
      local.channel(slug).then(
        () => true,
        () => false,
      );
    const withStatus = await Promise.all(
      sets.map(async (s) => ({ ...s, missingChannels: (await Promise.all(s.channels.map(async (c) => ((await loaded(c)) ? null : c)))).filter((c) => c !== null) })),
    );
    res.json({ prefix: local.config.indexPrefix, sets: withStatus, configs, snapshots });
  });

  app.get('/api/sets/:name', async (req, res) => {
    res.json({ name: req.params.name, queries: await files.readSet(checkName(req.params.name)) });
  });

  /** A set from the eval's JSON lines, or from typed queries (one a line) for a channel. */
  app.put('/api/sets/:name', async (req, res) => {
    const name = checkName(req.params.name);
    let queries: JudgedQuery[];
    const { jsonl, lines, channel } = req.body as { jsonl?: string; lines?: string; channel?: string };
    try {
      if (typeof jsonl === 'string') queries = parseQueries(jsonl);
      else if (typeof lines === 'string' && typeof channel === 'string' && channel)
        queries = lines
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
          .map((query, i) => ({ id: `q${i + 1}`, channel, query, relevant: [] }));
      else throw new Error('send {jsonl} (the eval format) or {lines, channel} (one query a line)');
    } catch (err) {
      throw new BadRequest((err as Error).message);
    }
    await files.saveSet(name, queries);
    res.json({ name, queries: queries.length });
  });

  app.put('/api/configs/:name', async (req, res) => {
    const name = checkName(req.params.name);
    const { config } = await configOf(files, req.body);
    await files.saveConfig(name, config);
    res.json({ name, config });
  });

  /** One query, two configurations side by side. */
  app.post('/api/compare', async (req, res) => {
    const query = body<{ id?: string; channel: string; query: string }>(req, 'query');
    if (!query.channel || !query.query) throw new BadRequest('query: {channel, query}');
    let relevant = undefined as JudgedQuery['relevant'] | undefined;
    const setName = (req.body as { set?: string }).set;
    if (setName) {
      const set = await files.readSet(checkName(setName));
      relevant = (query.id ? set.find((q) => q.id === query.id) : set.find((q) => q.channel === query.channel && q.query === query.query))?.relevant;
    }
    const [a, b] = await Promise.all([configOf(files, body(req, 'a')), configOf(files, body(req, 'b'))]);
    const q = { channel: query.channel, query: query.query, ...(relevant ? { relevant } : {}) };
    const [ra, rb] = [await rankQuery(local, a.config, q), await rankQuery(local, b.config, q)];
    res.json({ a: { name: a.name, ...ra }, b: { name: b.name, ...rb }, diff: compareRankings(ra, rb), judged: relevant !== undefined });
  });

  /** A whole set under a configuration; saved as a snapshot with its configuration and the library's version. */
  app.post('/api/experiments', async (req, res) => {
    const setName = checkName(body<string>(req, 'set'));
    const { name, config } = await configOf(files, body(req, 'config'));
    const experiment = await runExperiment(local, { name: setName, queries: await files.readSet(setName) }, name, config);
    const saved = await files.saveSnapshot(experiment);
    res.json({ ...saved, ...experiment });
  });

  app.get('/api/snapshots/:id', async (req, res) => {
    res.json(await files.readSnapshot(checkName(req.params.id)));
  });

  /** An old snapshot against a rerun of its set and configuration on today's library (the page compares them per query, on the measure it shows). */
  app.post('/api/snapshots/:id/rerun', async (req, res) => {
    const old = await files.readSnapshot(checkName(req.params.id));
    const now = await runExperiment(local, { name: old.set, queries: await files.readSet(old.set) }, old.configName, old.config);
    res.json({ snapshot: old, rerun: now });
  });

  /** A cited segment marked relevant or not for a query of a set; saved in the set (a dev set gets a workbench copy). */
  app.post('/api/judgments', async (req, res) => {
    const setName = checkName(body<string>(req, 'set'));
    const judgment = {
      query: body<{ id?: string; channel: string; query: string }>(req, 'query'),
      segment: body<{ episodeId: string; startMs: number; endMs: number }>(req, 'segment'),
      relevant: body<boolean>(req, 'relevant'),
    };
    if (
      typeof judgment.relevant !== 'boolean' ||
      typeof judgment.segment.episodeId !== 'string' ||
      !Number.isFinite(judgment.segment.startMs) ||
      !Number.isFinite(judgment.segment.endMs)
    )
      throw new BadRequest('{set, query, segment: {episodeId, startMs, endMs}, relevant: true|false}');
    const set = await files.readSet(setName).catch((err: { status?: number }) => {
      if (err.status === 404) return [] as JudgedQuery[];
      throw err;
    });
    const { queries, id } = applyJudgment(set, judgment);
    await files.saveSet(setName, queries);
    res.json({ set: setName, id, relevant: queries.find((q) => q.id === id)!.relevant });
  });

  const errors: ErrorRequestHandler = (err: Error & { status?: number; type?: string }, _req, res, _next) => {
    const status = err.status ?? (err.type === 'entity.parse.failed' ? 400 : /not a name|unknown setting|expected|mode:|settings:/.test(err.message) ? 400 : 500);
    res.status(status).json({ error: err.message });
  };
  app.use((_req, res) => void res.status(404).json({ error: 'no such page or call' }));
  app.use(errors);
  return app;
}
