// The in-process english analyzer against the engine's own (`_analyze`): the same terms at the same offsets on real transcripts, and texts it was not checked on left to the engine.
import { expect } from 'chai';
import { episodeDocuments } from '../../indexer/documents.js';
import { readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import { analyzable, englishTerms, englishTokens, matchTerms } from '../../core/search/english.js';
import type { Client } from '../../core/store/opensearch.js';
import { REPO_ROOT, SAMPLE_LIBRARY, testClient } from '../support/indexer-env.js';

/** Passage texts of a library, as the indexer derives them. */
async function passageTexts(dir: string): Promise<string[]> {
  const meta = await readLibraryMeta(dir);
  const texts: string[] = [];
  for await (const e of readEpisodes(dir, { channelIds: new Set(meta.channels.map((c) => c.id)), onIssue: () => undefined })) {
    for (const p of episodeDocuments(e.record, { modelId: 'x', indexedAt: '' }).passages) texts.push(p.text);
  }
  return texts;
}

/** Tokens the engine's `english` analyzer emits for `text`, as `term@start-end`. */
async function engineTokens(client: Client, text: string): Promise<string[]> {
  const res = await client.indices.analyze({ body: { analyzer: 'english', text } as never });
  return (res.body as { tokens: { token: string; start_offset: number; end_offset: number }[] }).tokens.map((t) => `${t.token}@${t.start_offset}-${t.end_offset}`);
}

const local = (text: string) => englishTokens(text)?.map((t) => `${t.term}@${t.start}-${t.end}`);

/** Latin text where tokenizer, possessive, stop list and Porter rules all show. */
const EDGE_CASES = [
  "Don't e-mail john@example.com at 3.5 or 1,000 U.S.A. it's Kirsty's ROI, the team's 'quoted' words; O'Neil's rock'n'roll.",
  'Generalization, generalizations, relational and conditional agreement: ponies, caresses, ties, skies, hoping, hopping.',
  'Naïve café résumé Zürich straße ŒUVRE façade — 12th, 2nd, B2B, A/B, x86_64, v2.19, foo_bar, 10:30, note:this, a.b.c',
  'The “quoted” ‘single’ words… and the dash – or — between, plus 50% and $3,000.50 and #tags and @names.',
];

/** Text the module was not checked on: each one is cut or cased differently by the engine's rules. */
const UNCHECKED = ['日本語のテキスト', 'emoji 😀 here', 'soft\u00ADhyphen', 'middle·dot', 'İstanbul', 'Ελληνικά', 'русский'];

describe('search: the english analyzer in process', function () {
  this.timeout(120_000);
  let client: Client;

  before(function () {
    client = testClient();
  });

  after(async function () {
    await client.close();
  });

  it('gives the engine’s terms and offsets on every passage of the sample library and the compact qmsum corpus', async function () {
    const texts = [...(await passageTexts(SAMPLE_LIBRARY)), ...(await passageTexts(`${REPO_ROOT}test/data/qmsum-cut`)), ...EDGE_CASES];
    expect(texts.length).to.be.greaterThan(500);
    let tokens = 0;
    for (const text of texts) {
      const mine = local(text);
      expect(mine, text.slice(0, 80)).to.not.equal(undefined);
      const engine = await engineTokens(client, text);
      expect(mine, text.slice(0, 80)).to.deep.equal(engine);
      tokens += engine.length;
    }
    expect(tokens).to.be.greaterThan(20_000);
  });

  it('leaves text outside the checked scripts to the engine', async function () {
    for (const text of UNCHECKED) {
      expect(analyzable(text), text).to.equal(false);
      expect(englishTokens(text), text).to.equal(undefined);
      expect(matchTerms(text, new Set(['x'])), text).to.equal(undefined);
    }
    // And the engine does cut the first one otherwise than Unicode word boundaries would: one token per ideograph.
    expect((await engineTokens(client, '日本語')).length).to.equal(3);
  });

  it('marks the words of a passage whose term is one of the query’s, as the highlighter does', function () {
    const terms = englishTerms('How do farmers keep their soils healthy?')!;
    expect([...terms]).to.deep.equal(['how', 'do', 'farmer', 'keep', 'soil', 'healthi']);
    // Porter: "soiling" is "soil", "farming" is "farm", not "farmer".
    const text = "The farmer's soil stays healthy; farming is not soiling.";
    const ranges = matchTerms(text, terms)!;
    expect(ranges.map((r) => text.slice(r.start, r.end))).to.deep.equal(["farmer's", 'soil', 'healthy', 'soiling']);
  });
});
