// Generated chapter titles in search: they raise the speech inside their chapter through `generatedContext`, never find
// a passage alone, never become a passage of their own, and the citation stays on the speech that matched.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import type { SearchDeps } from '../../core/search/search.js';
import { evalSearch } from '../../scripts/eval/search.js';
import type { LegHit, SearchParams } from '../../core/search/types.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { createOpenSearchClient, deleteIndices, type Client } from '../../core/store/opensearch.js';
import { channelDocument } from '../../indexer/documents.js';
import type { ChapterRecord, EpisodeRecord } from '../../core/library/checks.js';
import { seedSearchStore } from '../support/search-store.js';

const CHANNEL: ChannelDoc = channelDocument({ id: 'ch_council', slug: 'council', title: 'Council', providerType: 'rss', ownerId: 'u_owner', memberIds: [] });

const SAME = 'The council will review the hours next month after the survey.';

/** A council meeting in two parts that both say SAME; only the generated chapter titles tell the parts apart. */
const segments = [
  [0, 'Good morning everyone and welcome to this meeting of the council and its guests from the town.'],
  [25_000, 'We start with the reading room renovation and the funding the members agreed in the spring.'],
  [
    50_000,
    `${SAME} Members asked for evenings and weekends to be looked at with the staff, the volunteers and the students who use the reading room most, and for a report before the summer.`,
  ],
  [80_000, 'The reading room needs new shelves and better lighting for the many visitors it has now.'],
  [120_000, 'Now to the buses: the routes through the town centre and the new stops near the station.'],
  [145_000, `${SAME}`],
  [170_000, 'Drivers asked for longer breaks between the evening routes and for a second depot.'],
  [200_000, 'The bus company will publish the new timetable in the spring for everyone to read.'],
  // Generated chapters lend their titles only to talks of 20 minutes or more (GENERATED_CONTEXT_MIN_MS).
  [1_230_000, 'Any other business? None. The meeting is closed.'],
].map(([startMs, text], i, all) => ({
  speakerLabel: i % 2 === 0 ? 'Chair' : 'Clerk',
  startMs: startMs as number,
  endMs: ((all[i + 1]?.[0] as number | undefined) ?? 1_260_000) - 1_000,
  text: text as string,
}));

const chapter = (title: string, startMs: number, endMs: number): ChapterRecord => ({ title, startMs, endMs, moments: [], generated: true });
const MEETING: EpisodeRecord = {
  id: 'ep_council',
  channelId: CHANNEL.id,
  title: 'Council meeting',
  publishedAt: '2026-11-01T10:00:00Z',
  status: 'published',
  transcript: { formatVersion: 1, segments },
  chapters: [chapter('Library opening hours', 0, 120_000), chapter('Bus routes and timetable', 120_000, 1_260_000)],
};
const CHAPTER_STARTS = MEETING.chapters!.map((c) => c.startMs);

const params = (query: string): SearchParams => ({ query, fast: true, limit: 10, publishedOnly: false });
/** The keyword leg's passage hits of a search trace. */
const keywordHits = (legs: readonly { name: string; hits: LegHit[] }[]) =>
  legs.find((l) => l.name === 'keyword')!.hits.filter((h): h is Extract<LegHit, { type: 'passage' }> => h.type === 'passage');

describe('generated chapter titles in search (generatedContext)', function () {
  this.timeout(60_000);
  const config = loadConfig(process.env);
  const prefix = `test-search-gencontext-${randomBytes(4).toString('hex')}-`;
  let client: Client;
  let deps: SearchDeps;

  before(async function () {
    client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
    const aliases = await seedSearchStore(client, prefix, CHANNEL, [MEETING]);
    deps = { client, embedder: undefined, aliases, settings: config.search, channelSites: config.channelSites };
  });

  after(async function () {
    if (client) {
      await deleteIndices(client, prefix);
      await client.close();
    }
  });

  it('finds nothing by words that only a generated title holds', async function () {
    const { result, trace } = await evalSearch(deps, CHANNEL, params('library opening'));
    expect(trace.legs.find((l) => l.name === 'keyword')!.hits).to.deep.equal([]);
    expect(result.episodes).to.deep.equal([]);
  });

  it('ranks the speech inside the chapter whose generated title also matches first, and cites that speech, not the chapter start', async function () {
    const { result, trace } = await evalSearch(deps, CHANNEL, params('library opening hours'));
    const hits = keywordHits(trace.legs);
    // Both parts say SAME; every hit is speech (no title passage exists), and the library part's comes first.
    expect(hits.length).to.be.greaterThanOrEqual(2);
    expect(hits.every((h) => h.kind === 'transcript')).to.equal(true);
    expect(hits[0]!.startMs).to.be.lessThan(120_000);
    const top = result.episodes[0]!.segments[0]!;
    expect(top.text).to.match(/^The council will review the hours/);
    expect(top.startMs).to.equal(50_000);
    expect(CHAPTER_STARTS).to.not.include(top.startMs);

    // Without the field the two parts' passages are ranked on their words alone: the shorter bus passage wins.
    const plain = await evalSearch(deps, CHANNEL, params('library opening hours'), { keyword: { passageBoostFields: [] } });
    expect(keywordHits(plain.trace.legs)[0]!.startMs).to.be.greaterThanOrEqual(120_000);
  });
});
