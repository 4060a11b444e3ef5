// Direct-mode loading against the real OpenSearch, with the test hash embedder (fast, deterministic).
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ApiResponse } from '@opensearch-project/opensearch';
import { createHashEmbedder } from '../../scripts/lib/fakes/hash-embedder.js';
import { startHashEmbeddingsServer } from '../../scripts/lib/fakes/hash-embeddings-server.js';
import { deleteIndices, indexAliases, type Client } from '../../core/store/opensearch.js';
import type { EpisodeDoc, PassageDoc } from '../../core/store/documents.js';
import { episodeDocuments } from '../../indexer/documents.js';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import { loadLibrary } from '../../indexer/load-library.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { copyLibrary, countDocs, countingEmbedder, privatePrefix, REPO_ROOT, removeDir, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';

/** Every episode of a library folder, as the reader returns it. */
async function records(dir: string): Promise<EpisodeRecord[]> {
  const meta = await readLibraryMeta(dir);
  const out: EpisodeRecord[] = [];
  for await (const e of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) out.push(e.record);
  return out;
}

function expectedPassages(recs: EpisodeRecord[]): number {
  return recs.reduce((n, r) => n + episodeDocuments(r, { modelId: 'x', indexedAt: '' }).passages.length, 0);
}

describe('indexer: loading a library directly', function () {
  this.timeout(120_000);
  let client: Client;
  let prefix: string;
  let lib: string | undefined;

  beforeEach(function () {
    client = testClient();
    prefix = privatePrefix();
  });

  afterEach(async function () {
    await deleteIndices(client, prefix);
    await client.close();
    await removeDir(lib);
    lib = undefined;
  });

  it('loads the sample library with the counts its files imply, archived episodes flagged', async function () {
    const recs = await records(SAMPLE_LIBRARY);
    const summary = await loadLibrary({ client, embedder: createHashEmbedder(), prefix, dir: SAMPLE_LIBRARY });
    expect(summary.ok, JSON.stringify(summary.skipped)).to.equal(true);
    expect(summary.episodes).to.deep.include({ read: 11, indexed: 11, failed: 0 });
    expect(summary).to.include({ users: 4, channels: 2, facets: 24 });
    expect(await countDocs(client, prefix, 'episodes')).to.equal(11);
    expect(await countDocs(client, prefix, 'transcripts')).to.equal(recs.filter((r) => r.transcript).length);
    expect(await countDocs(client, prefix, 'chapters')).to.equal(11);
    expect(await countDocs(client, prefix, 'passages')).to.equal(expectedPassages(recs));
    expect(await countDocs(client, prefix, 'passages', { term: { kind: 'moment' } })).to.equal(
      recs.reduce((n, r) => n + (r.chapters ?? []).reduce((m, c) => m + c.moments.length, 0), 0),
    );
    const archived = recs.filter((r) => r.status === 'archived').map((r) => r.id);
    expect(archived).to.deep.equal(['ep_lf_005']);
    expect(await countDocs(client, prefix, 'passages', { term: { archived: true } })).to.equal(await countDocs(client, prefix, 'passages', { term: { episodeId: 'ep_lf_005' } }));
    const a = indexAliases(prefix);
    const ep = (await client.get({ index: a.episodes, id: 'ep_lf_005' })).body._source as EpisodeDoc;
    expect(ep).to.include({ archived: true, status: 'archived', year: 2022 });
    const free = (await client.get({ index: a.users, id: 'u_theo' })).body._source as { plan: string };
    expect(free.plan).to.equal('free');
  });

  it('stores the transcript exactly as it is in the file', async function () {
    await loadLibrary({ client, embedder: createHashEmbedder(), prefix, dir: SAMPLE_LIBRARY });
    const file = JSON.parse(await readFile(join(SAMPLE_LIBRARY, 'episodes', 'lf-003-soil.json'), 'utf8')) as EpisodeRecord;
    const stored = (await client.get({ index: indexAliases(prefix).transcripts, id: 'ep_lf_003' })).body._source as { document: unknown };
    expect(stored.document).to.deep.equal(file.transcript);
  });

  it('changes nothing and embeds nothing when the same library is loaded again', async function () {
    const first = countingEmbedder(createHashEmbedder());
    await loadLibrary({ client, embedder: first, prefix, dir: SAMPLE_LIBRARY });
    const before = await countDocs(client, prefix, 'passages');
    const again = countingEmbedder(createHashEmbedder());
    const summary = await loadLibrary({ client, embedder: again, prefix, dir: SAMPLE_LIBRARY });
    expect(first.texts).to.equal(before);
    expect(again.texts).to.equal(0);
    expect(summary.episodes).to.deep.include({ indexed: 0, unchanged: 11, removed: 0 });
    expect(await countDocs(client, prefix, 'passages')).to.equal(before);
    expect(await countDocs(client, prefix, 'episodes')).to.equal(11);
  });

  it('embeds the next episode while the one before waits for its _bulk, and only one episode embeds at a time', async function () {
    /**
     * Loads the sample library with `episodesInFlight`; counts embedding calls during which a `_bulk` was in flight
     * (at any moment of the call, not only at its start), and the most calls running at once. Each call lasts until
     * a `_bulk` is sent or 200 ms pass, so an overlap the loader allows always shows, however fast the store answers.
     */
    const load = async (episodesInFlight: number, into: string) => {
      let bulksInFlight = 0;
      let bulksSent = 0;
      let embedsDuringBulk = 0;
      let embedding = 0;
      let mostAtOnce = 0;
      const bulkSent = new EventEmitter();
      const hash = createHashEmbedder();
      const embedder = {
        modelId: hash.modelId,
        dimension: hash.dimension,
        async embedPassages(texts: string[]) {
          const sentBefore = bulksSent;
          const inFlightAtStart = bulksInFlight > 0;
          mostAtOnce = Math.max(mostAtOnce, ++embedding);
          // The model takes time: let the event loop run, as a real embedding call does.
          await new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              bulkSent.off('sent', done);
              resolve();
            };
            const timer = setTimeout(done, 200);
            bulkSent.on('sent', done);
          });
          if (inFlightAtStart || bulksInFlight > 0 || bulksSent > sentBefore) embedsDuringBulk++;
          embedding--;
          return hash.embedPassages(texts);
        },
      };
      const isBulk = (res: ApiResponse | null) => String(res?.meta?.request?.params?.path).endsWith('/_bulk');
      const sent = (_err: unknown, res: ApiResponse) => {
        if (!isBulk(res)) return;
        bulksInFlight++;
        bulksSent++;
        bulkSent.emit('sent');
      };
      const answered = (_err: unknown, res: ApiResponse) => {
        if (isBulk(res)) bulksInFlight--;
      };
      client.on('request', sent);
      client.on('response', answered);
      try {
        const summary = await loadLibrary({ client, embedder, prefix: into, dir: SAMPLE_LIBRARY, episodesInFlight });
        expect(summary.episodes).to.deep.include({ indexed: 11, failed: 0 });
      } finally {
        client.off('request', sent);
        client.off('response', answered);
      }
      return { embedsDuringBulk, mostAtOnce };
    };
    const overlapped = await load(2, prefix);
    const second = `${prefix}serial-`;
    try {
      const serial = await load(1, second);
      expect(serial.embedsDuringBulk).to.equal(0);
      expect(overlapped.embedsDuringBulk).to.be.greaterThan(0);
      expect(overlapped.mostAtOnce).to.equal(1);
      expect(await countDocs(client, prefix, 'passages')).to.equal(await countDocs(client, second, 'passages'));
    } finally {
      await deleteIndices(client, second);
    }
  });

  it('re-embeds only changed passages, drops stale ones, and removes an episode gone from the library', async function () {
    lib = await copyLibrary(SAMPLE_LIBRARY);
    await loadLibrary({ client, embedder: createHashEmbedder(), prefix, dir: lib });

    // Change the last turn of one episode and delete another episode's file.
    const path = join(lib, 'episodes', 'lf-003-soil.json');
    const rec = JSON.parse(await readFile(path, 'utf8')) as EpisodeRecord;
    const last = rec.transcript!.segments.at(-1)!;
    last.text = 'Tom Whitaker, thank you, and good luck with the planting.';
    delete last.words;
    await writeFile(path, JSON.stringify(rec));
    await rm(join(lib, 'episodes', 'lf-004-food-prices.json'));

    const embedder = countingEmbedder(createHashEmbedder());
    const summary = await loadLibrary({ client, embedder, prefix, dir: lib });
    const changed = episodeDocuments(rec, { modelId: embedder.modelId, indexedAt: '' }).passages;
    expect(summary.episodes).to.deep.include({ indexed: 1, unchanged: 9, removed: 1 });
    expect(embedder.texts).to.equal(1); // only the last transcript passage changed
    expect(summary.passages.reused).to.equal(changed.length - 1);
    const a = indexAliases(prefix);
    for (const index of [a.episodes, a.transcripts, a.chapters]) {
      expect((await client.get({ index, id: 'ep_lf_004' }, { ignore: [404] })).body.found, index).to.equal(false);
    }
    expect(await countDocs(client, prefix, 'passages', { term: { episodeId: 'ep_lf_004' } })).to.equal(0);
    const stored = await client.search({ index: a.passages, body: { query: { term: { episodeId: 'ep_lf_003' } }, size: 100 } });
    const texts = (stored.body.hits.hits as { _source: PassageDoc }[]).map((h) => h._source.text);
    expect(texts.length).to.equal(changed.length);
    expect(texts.some((t) => t.endsWith('good luck with the planting.'))).to.equal(true);
  });

  it('reports a corrupt file and a bad line with path and line, skips them, loads the rest and keeps what it cannot see', async function () {
    lib = await copyLibrary(SAMPLE_LIBRARY);
    await loadLibrary({ client, embedder: createHashEmbedder(), prefix, dir: lib });
    const broken = join(lib, 'episodes', 'lf-002-groundwater.json');
    await writeFile(broken, (await readFile(broken, 'utf8')).slice(0, 500));
    const jsonl = join(lib, 'episodes', 'bn-more.jsonl');
    const lines = (await readFile(jsonl, 'utf8')).trimEnd().split('\n');
    const bad = JSON.parse(lines[1]!) as EpisodeRecord;
    (bad as { status: string }).status = 'live';
    lines[1] = JSON.stringify(bad);
    await writeFile(jsonl, `${lines.join('\n')}\n`);

    const summary = await loadLibrary({ client, embedder: createHashEmbedder(), prefix, dir: lib });
    expect(summary.ok).to.equal(false);
    // Files are read in name order: bn-more.jsonl, then lf-002-groundwater.json.
    expect(summary.skipped.map((i) => [i.path, i.line, i.id])).to.deep.equal([
      [jsonl, 2, 'ep_bn_004'],
      [broken, undefined, undefined],
    ]);
    expect(summary.skipped[0]!.reason).to.match(/status must be equal to one of the allowed values/);
    expect(summary.skipped[1]!.reason).to.match(/^invalid JSON/);
    expect(summary.episodes).to.deep.include({ read: 9, unchanged: 9, removed: 0 });
    // An unreadable file could be any episode: nothing is removed, the stored versions stay.
    expect(summary.syncWithheld).to.match(/could not be identified/);
    expect(await countDocs(client, prefix, 'episodes')).to.equal(11);
  });

  it('exits non-zero from `npm run ingest -- --direct` when something was skipped, naming path and line', async function () {
    lib = await copyLibrary(SAMPLE_LIBRARY, (f) => f.startsWith('bn-'));
    await writeFile(join(lib, 'episodes', 'bn-more.jsonl'), `${(await readFile(join(lib, 'episodes', 'bn-more.jsonl'), 'utf8')).trimEnd()}\n{"id": "ep_broken"\n`);
    const embeddings = await startHashEmbeddingsServer();
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'bin/ingest.ts', lib!, '--direct'], {
        cwd: REPO_ROOT,
        env: { ...process.env, INDEX_PREFIX: prefix, LOG_LEVEL: 'warn', ...embeddings.env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', reject);
      child.on('exit', (c) => resolve({ code: c, stderr: err }));
    }).finally(() => embeddings.close());
    expect(code, stderr).to.equal(1);
    expect(stderr).to.include(`${join(lib, 'episodes', 'bn-more.jsonl')}:4: invalid JSON`);
    expect(stderr).to.match(/indexed 5, unchanged 0, failed 0/);
    expect(await countDocs(client, prefix, 'episodes')).to.equal(5);
  });
});
