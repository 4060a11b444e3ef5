// Citations that land: on real qmsum transcripts, a question about speech 40 s into a passage is cited where that speech begins.
import { expect } from 'chai';
import { runSearch } from '../../core/search/search.js';
import type { SearchParams } from '../../core/search/types.js';
import type { ChannelDoc, PassageDoc } from '../../core/store/documents.js';
import { skipWithoutDataset } from '../support/datasets.js';
import { QMSUM_LOAD_TIMEOUT_MS, openQmsumSearch, type QmsumSearch } from '../support/search-qmsum.js';

const params = (query: string, episodeIds: string[]): SearchParams => ({ query, fast: false, limit: 10, publishedOnly: false, episodeIds });

/** Words the english analyzer keeps and a question would use: long ones, lower-cased. */
const contentWords = (text: string) => [...new Set(text.toLowerCase().match(/[a-z]{6,}/g) ?? [])];

/** Sentence starts of a stored passage: `[offset, ms]` pairs. */
const marksOf = (p: PassageDoc) => Array.from({ length: p.marks.length / 2 }, (_, i) => [p.marks[2 * i]!, p.marks[2 * i + 1]!] as const);

describe('search: citations land where the answer begins (qmsum transcripts)', function () {
  this.timeout(120_000);
  let qm: QmsumSearch;
  let channel: ChannelDoc;
  /** Long passages with a sentence 40–50 s in whose words occur nowhere earlier in the passage. */
  let cases: Array<{ passage: PassageDoc; atMs: number; query: string }>;

  before(async function () {
    // Five long passages with a fresh-worded sentence 40-50 s in: the whole data set has them, the compact corpus not enough.
    skipWithoutDataset(this, 'qmsum');
    this.timeout(QMSUM_LOAD_TIMEOUT_MS);
    qm = await openQmsumSearch();
    channel = await qm.channel('product-meetings');
    const res = await qm.client.search({
      index: qm.aliases.passages,
      body: {
        size: 400,
        _source: { excludes: ['embedding'] },
        query: { bool: { filter: [{ term: { channelId: channel.id } }, { term: { kind: 'transcript' } }, { term: { archived: false } }] } },
        sort: [{ episodeId: 'asc' }, { startMs: 'asc' }],
      } as never,
    });
    const passages = res.body.hits.hits.map((h) => h._source as unknown as PassageDoc);
    cases = [];
    for (const p of passages) {
      if (p.endMs - p.startMs < 50_000) continue;
      const marks = marksOf(p);
      const i = marks.findIndex(([, ms]) => ms - p.startMs >= 40_000 && ms - p.startMs <= 50_000);
      if (i < 0) continue;
      const sentence = p.text.slice(marks[i]![0], marks[i + 1]?.[0] ?? p.text.length);
      const earlier = new Set(contentWords(p.text.slice(0, marks[i]![0])));
      const fresh = contentWords(sentence).filter((w) => !earlier.has(w));
      if (fresh.length < 3) continue;
      cases.push({ passage: p, atMs: marks[i]![1], query: `what was said about ${fresh.slice(0, 4).join(' ')}` });
      if (cases.length === 5) break;
    }
  });

  it('finds long passages with an answer 40 s in (the fixture has them)', function () {
    expect(cases.length).to.equal(5);
  });

  it('cites each such answer within 5 s of where it is said, not at the passage start', async function () {
    for (const { passage, atMs, query } of cases) {
      const { result } = await runSearch(qm.deps(), channel, params(query, [passage.episodeId]));
      const segment = result.episodes[0]?.segments.find((s) => s.segmentId === passage.id);
      expect(segment, `${query}: passage ${passage.id} cited`).to.not.equal(undefined);
      expect(segment!.startMs - passage.startMs, query).to.be.at.least(35_000);
      expect(Math.abs(segment!.startMs - atMs), query).to.be.at.most(5_000);
      expect(segment!.url).to.match(new RegExp(`\\?t=${segment!.startMs}$`));
      expect(passage.text.endsWith(segment!.text)).to.equal(true);
      expect(segment!.highlights!.length, query).to.be.greaterThan(0);
    }
  });
});
