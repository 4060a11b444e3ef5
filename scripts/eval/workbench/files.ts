// The workbench's files: query sets (the eval's JSON lines), configurations and experiment snapshots, under one folder
// (`--dir`, default `workbench/`), beside the dev sets it finds read-only. Names are plain file names, nothing more.
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseQueries, type JudgedQuery } from '../relevance.js';
import { checkConfig, type Experiment, type WorkbenchConfig } from './runs.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$/;

/** A name a client may give a set, a configuration or a snapshot: refused unless it is a plain file name. */
export function checkName(name: string): string {
  if (!NAME.test(name) || name.includes('..')) throw new Error(`"${name}" is not a name: letters, digits, _ . - (up to 80)`);
  return name;
}

export interface SetInfo {
  name: string;
  /** `workbench` (saved here, editable) or the file a read-only dev set comes from. */
  source: string;
  queries: number;
  /** The channel slugs its queries search. */
  channels: string[];
}

async function names(dir: string, ext: string): Promise<string[]> {
  const files = await readdir(dir).catch(() => [] as string[]);
  return files
    .filter((f) => f.endsWith(ext))
    .map((f) => f.slice(0, -ext.length))
    .sort();
}

/** Written whole or not at all: a temporary file renamed over the old one. */
async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

export class WorkbenchFiles {
  /** `sources`: read-only sets by name (the dev sets), each a queries file. */
  constructor(
    readonly dir: string,
    private readonly sources: ReadonlyMap<string, string>,
  ) {}

  private path(kind: 'sets' | 'configs' | 'snapshots', name: string, ext: string): string {
    return join(this.dir, kind, `${checkName(name)}${ext}`);
  }

  async init(): Promise<void> {
    for (const kind of ['sets', 'configs', 'snapshots']) await mkdir(join(this.dir, kind), { recursive: true });
  }

  async listSets(): Promise<SetInfo[]> {
    const own = await names(join(this.dir, 'sets'), '.jsonl');
    const info = (name: string, source: string, queries: JudgedQuery[]): SetInfo => ({
      name,
      source,
      queries: queries.length,
      channels: [...new Set(queries.map((q) => q.channel))].sort(),
    });
    const out: SetInfo[] = [];
    for (const name of own) out.push(info(name, 'workbench', await this.readSet(name)));
    for (const [name, file] of this.sources) if (!own.includes(name)) out.push(info(name, file, parseQueries(await readFile(file, 'utf8'))));
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** A set by name: the workbench's own copy first (judgments go there), else the dev set. */
  async readSet(name: string): Promise<JudgedQuery[]> {
    const own = this.path('sets', name, '.jsonl');
    const text = await readFile(own, 'utf8').catch(async () => {
      const source = this.sources.get(name);
      if (!source) throw Object.assign(new Error(`no query set "${name}"`), { status: 404 });
      return readFile(source, 'utf8');
    });
    return parseQueries(text);
  }

  /** Saves a set in the eval's format (one JSON object a line); a dev set saved under its own name is shadowed, not changed. */
  async saveSet(name: string, queries: readonly JudgedQuery[]): Promise<void> {
    await writeAtomic(
      this.path('sets', name, '.jsonl'),
      queries.map((q) => JSON.stringify({ id: q.id, channel: q.channel, query: q.query, relevant: q.relevant })).join('\n') + '\n',
    );
  }

  async listConfigs(): Promise<{ name: string; config: WorkbenchConfig }[]> {
    const out = [];
    for (const name of await names(join(this.dir, 'configs'), '.json')) out.push({ name, config: await this.readConfig(name) });
    return out;
  }

  async readConfig(name: string): Promise<WorkbenchConfig> {
    const text = await readFile(this.path('configs', name, '.json'), 'utf8').catch(() => {
      throw Object.assign(new Error(`no configuration "${name}"`), { status: 404 });
    });
    return checkConfig(JSON.parse(text));
  }

  async saveConfig(name: string, config: WorkbenchConfig): Promise<void> {
    await writeAtomic(this.path('configs', name, '.json'), `${JSON.stringify(checkConfig(config), null, 2)}\n`);
  }

  async listSnapshots(): Promise<{ id: string; set: string; configName: string; createdAt: string; summary: Experiment['summary'] }[]> {
    const out = [];
    for (const id of (await names(join(this.dir, 'snapshots'), '.json')).reverse()) {
      const s = await this.readSnapshot(id);
      out.push({ id, set: s.set, configName: s.configName, createdAt: s.createdAt, summary: s.summary });
    }
    return out;
  }

  async readSnapshot(id: string): Promise<Experiment & { id: string; createdAt: string }> {
    const text = await readFile(this.path('snapshots', id, '.json'), 'utf8').catch(() => {
      throw Object.assign(new Error(`no snapshot "${id}"`), { status: 404 });
    });
    return JSON.parse(text) as Experiment & { id: string; createdAt: string };
  }

  /** Saves an experiment with its configuration and the library's version; its id sorts by time. */
  async saveSnapshot(experiment: Experiment): Promise<{ id: string; createdAt: string }> {
    const createdAt = new Date().toISOString();
    const id = `${createdAt.replace(/[:.]/g, '-')}-${checkName(experiment.set)}-${checkName(experiment.configName)}`.slice(0, 80);
    await writeAtomic(this.path('snapshots', id, '.json'), `${JSON.stringify({ id, createdAt, ...experiment }, null, 2)}\n`);
    return { id, createdAt };
  }
}
