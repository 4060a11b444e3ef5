// The shared qmsum fixtures (real model): exact counts from the files, and a second load that changes nothing;
// over the compact corpus on every clone, and over the whole data set where it is present.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { indexAliases, type Client } from '../../core/store/opensearch.js';
import { buildPassages } from '../../core/passages/passages.js';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { countDocs, countingEmbedder } from '../support/indexer-env.js';
import { skipWithoutDataset } from '../support/datasets.js';
import { CORPUS_DIR, ensureCorpusLoaded, ensureQmsumLoaded, QMSUM_DIR, QMSUM_LOAD_TIMEOUT_MS, type QmsumFixture } from '../support/qmsum-fixture.js';

interface Expected {
  episodes: number;
  archived: number;
  withTranscript: number;
  chapters: number;
  moments: number;
  transcriptPassages: number;
  chapterPassages: number;
  perEpisode: Map<string, number>;
  facets: number;
}

/** What the files imply, computed with the same pure passage function the indexer uses. */
async function expectedFromFiles(dir: string): Promise<Expected> {
  const meta = await readLibraryMeta(dir);
  const e: Expected = {
    episodes: 0,
    archived: 0,
    withTranscript: 0,
    chapters: 0,
    moments: 0,
    transcriptPassages: 0,
    chapterPassages: 0,
    perEpisode: new Map(),
    // One document per channel a name belongs to (decision 33): its own, else each of the library's.
    facets: meta.facets.reduce((n, f) => n + (f.record.channelId != null ? 1 : meta.channels.length), 0),
  };
  for await (const { record } of readEpisodes(dir, {
    channelIds: new Set(meta.channels.map((c) => c.id)),
    onIssue: (i) => {
      throw new Error(i.reason);
    },
  })) {
    const passages = buildPassages(record);
    e.episodes++;
    if (record.status === 'archived') e.archived++;
    if (record.transcript) e.withTranscript++;
    e.chapters += record.chapters?.length ?? 0;
    e.moments += (record.chapters ?? []).reduce((n, c) => n + c.moments.length, 0);
    e.transcriptPassages += passages.filter((p) => p.kind === 'transcript').length;
    e.chapterPassages += passages.filter((p) => p.kind === 'chapter').length;
    e.perEpisode.set(record.id, passages.length);
  }
  return e;
}

for (const { title, dir, load, dataset, readme } of [
  { title: 'the qmsum corpus', dir: CORPUS_DIR, load: ensureCorpusLoaded, dataset: false, readme: { path: join(CORPUS_DIR, 'README.md'), episodes: 12, chapters: 50 } },
  { title: 'the qmsum library', dir: QMSUM_DIR, load: ensureQmsumLoaded, dataset: true, readme: { path: join(QMSUM_DIR, '..', 'README.md'), episodes: 235, chapters: 1031 } },
] as { title: string; dir: string; load: () => Promise<QmsumFixture>; dataset: boolean; readme: { path: string; episodes: number; chapters: number } }[]) {
  describe(`indexer: ${title} (real model)`, function () {
    this.timeout(10 * 60_000);
    let client: Client;
    let prefix: string;
    let expected: Expected;

    before(async function () {
      if (dataset) skipWithoutDataset(this, 'qmsum');
      this.timeout(QMSUM_LOAD_TIMEOUT_MS);
      ({ client, prefix } = await load());
      expected = await expectedFromFiles(dir);
    });

    it(`matches its README: ${readme.episodes} episodes and ${readme.chapters.toLocaleString('en-US')} chapters`, async function () {
      const text = await readFile(readme.path, 'utf8');
      expect(text).to.match(new RegExp(`\\| episodes \\| ${readme.episodes} \\|`));
      expect(text).to.match(new RegExp(`\\| chapters \\| ${readme.chapters.toLocaleString('en-US')} \\|`));
      expect(expected.episodes).to.equal(readme.episodes);
      expect(expected.chapters).to.equal(readme.chapters);
    });

    it('holds exactly the episodes, chapters and passages the files imply', async function () {
      expect(await countDocs(client, prefix, 'episodes')).to.equal(expected.episodes);
      expect(await countDocs(client, prefix, 'episodes', { term: { archived: true } })).to.equal(expected.archived);
      expect(await countDocs(client, prefix, 'transcripts')).to.equal(expected.withTranscript);
      expect(await countDocs(client, prefix, 'chapters')).to.equal(expected.episodes);
      expect(await countDocs(client, prefix, 'passages', { term: { kind: 'transcript' } })).to.equal(expected.transcriptPassages);
      expect(await countDocs(client, prefix, 'passages', { term: { kind: 'chapter' } })).to.equal(expected.chapterPassages);
      expect(expected.chapterPassages).to.equal(readme.chapters);
      expect(await countDocs(client, prefix, 'passages', { term: { kind: 'moment' } })).to.equal(expected.moments);
      expect(await countDocs(client, prefix, 'users')).to.equal(6);
      expect(await countDocs(client, prefix, 'channels')).to.equal(4);
      expect(await countDocs(client, prefix, 'facets')).to.equal(expected.facets);

      const agg = await client.search({
        index: indexAliases(prefix).passages,
        body: { size: 0, aggs: { per: { terms: { field: 'episodeId', size: 1000 } } } },
      } as never);
      const buckets = (agg.body.aggregations!.per as { buckets: { key: string; doc_count: number }[] }).buckets;
      expect(new Map(buckets.map((b) => [b.key, b.doc_count]))).to.deep.equal(expected.perEpisode);
    });

    it('changes nothing and embeds nothing when loaded a second time', async function () {
      const modelId = loadConfig(process.env).modelId;
      const refusing = countingEmbedder({
        modelId,
        dimension: 384,
        embedPassages: () => Promise.reject(new Error('an unchanged library must not be embedded again')),
      });
      const counts = async () => Promise.all((['episodes', 'passages', 'transcripts', 'chapters', 'facets'] as const).map((n) => countDocs(client, prefix, n)));
      const before = await counts();
      const summary = await loadLibrary({ client, embedder: refusing, prefix, dir });
      expect(summary.ok).to.equal(true);
      expect(summary.episodes).to.deep.equal({ read: readme.episodes, indexed: 0, unchanged: readme.episodes, failed: 0, removed: 0 });
      expect(refusing.calls).to.equal(0);
      expect(await counts()).to.deep.equal(before);
    });
  });
}
