// Every command line names the service it could not reach, where, and the command that starts it: never a bare
// `fetch failed` or `connect ECONNREFUSED`. Each service is pointed at a loopback port nothing listens on.
import { expect } from 'chai';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEntry, type EntryRun } from '../support/run-entry.js';
import { SAMPLE_LIBRARY } from '../support/indexer-env.js';

/** A loopback port that was free a moment ago, and that nothing listens on now. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

type Case = [name: string, entry: string, args: string[]];
const STORE_CASES: Case[] = [
  ['ingest', 'bin/ingest.ts', ['LIBRARY', '--direct']],
  ['reindex', 'bin/reindex.ts', []],
  ['follow', 'bin/follow.ts', ['--poll', 'nobody']],
  ['keys', 'bin/keys.ts', ['--wait', '1', 'list', '--user', 'u_nobody']],
  ['webhooks', 'bin/webhooks.ts', ['--wait', '1', 'list']],
  ['backup', 'bin/backup.ts', []],
  ['restore', 'bin/restore.ts', []],
];
const REDIS_CASES: Case[] = [
  ['ingest', 'bin/ingest.ts', ['LIBRARY']],
  ['follow', 'bin/follow.ts', ['--list']],
  ['follow', 'bin/follow.ts', ['--poll', 'nobody']],
];

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const sentence = (what: string, url: string, variable: string) =>
  new RegExp(`could not reach ${escaped(what)} at ${escaped(url)} \\(connection refused\\): start it with \`npm run services -- up\`, or set ${variable} to where it runs`);

describe('command lines with a service down', function () {
  this.timeout(120_000);
  let port: number;
  let library: string;
  before(async function () {
    port = await deadPort();
    library = await mkdtemp(join(tmpdir(), 'cca-unreachable-'));
    await cp(SAMPLE_LIBRARY, library, { recursive: true });
    for (const [name, entry, args] of STORE_CASES) start(`opensearch ${name}`, entry, args, { OPENSEARCH_URL: `http://127.0.0.1:${port}` });
    for (const [name, entry, args] of REDIS_CASES) start(`redis ${name} ${args.join(' ')}`, entry, args, { REDIS_URL: `redis://127.0.0.1:${port}` });
    start('ner down', 'bin/enrich.ts', ['LIBRARY'], { TRANSCRIBE_URL: `http://127.0.0.1:${port}` });
    start('ner none', 'bin/enrich.ts', ['LIBRARY', '--dry-run'], { TRANSCRIBE_URL: '', NER_URL: '' });
  });
  after(async function () {
    await rm(library, { recursive: true, force: true });
  });

  /**
   * Every run starts in `before`, all at once (each spends its seconds starting tsx and waiting on a refused port);
   * each test then awaits its own. Keyed by `name args`.
   */
  const runs = new Map<string, Promise<EntryRun>>();
  const start = (key: string, entry: string, args: string[], env: Record<string, string>) =>
    runs.set(
      key,
      runEntry(
        entry,
        args.map((a) => (a === 'LIBRARY' ? library : a)),
        { LOG_LEVEL: 'silent', ...env },
      ),
    );

  /** The run's last stderr line, having checked it failed without a bare network error. */
  async function lastLine(key: string): Promise<string> {
    const run = await runs.get(key)!;
    expect(run.code, run.stderr).to.equal(1);
    const line = run.stderr.trim().split('\n').at(-1)!;
    expect(line).not.to.match(/fetch failed|^\w+: connect E[A-Z]+/);
    return line;
  }

  describe('OpenSearch', function () {
    for (const [name] of STORE_CASES) {
      it(`${name} names OpenSearch, its URL and the command that starts it`, async function () {
        const line = await lastLine(`opensearch ${name}`);
        expect(line).to.match(new RegExp(`^${name}: `));
        expect(line).to.match(sentence('OpenSearch', `http://127.0.0.1:${port}`, 'OPENSEARCH_URL'));
      });
    }
  });

  describe('Redis', function () {
    for (const [name, , args] of REDIS_CASES) {
      // The queue's own connection retries for ever; the ping before it gives up within 5 s.
      it(`${name} ${args.join(' ').replace('LIBRARY', '<dir>')} names Redis instead of waiting on it`, async function () {
        const line = await lastLine(`redis ${name} ${args.join(' ')}`);
        expect(line).to.match(sentence('Redis', `redis://127.0.0.1:${port}`, 'REDIS_URL'));
      });
    }
  });

  describe('the transcription service', function () {
    it('enrich names the NER service it would send the episodes to, before any work', async function () {
      const line = await lastLine('ner down');
      expect(line).to.match(sentence('the NER service', `http://127.0.0.1:${port}`, 'NER_URL'));
    });

    it('enrich says in one line that people and entities need a NER service when none is configured', async function () {
      const run = await runs.get('ner none')!;
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.include(
        'enrich: no NER service (NER_URL unset, no local transcription service): people come from named speaker labels only, and no entities are generated; `npm run services -- up` starts the local one',
      );
    });
  });
});
