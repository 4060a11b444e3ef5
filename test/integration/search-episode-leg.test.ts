// The episode leg against the real engine: BM25 over each long episode's whole speech raises the meeting that is about
// the query over one that mentions it once in an equally matching passage; it never brings an episode the passage
// legs (and their filters) left out, and short episodes get no prior.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { runSearch, type SearchDeps } from '../../core/search/search.js';
import { EPISODE_LEG_MIN_MS } from '../../core/search/episode-leg.js';
import { evalSearch } from '../../scripts/eval/search.js';
import type { SearchParams } from '../../core/search/types.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { createOpenSearchClient, deleteIndices, type Client } from '../../core/store/opensearch.js';
import { channelDocument } from '../../indexer/documents.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { seedSearchStore } from '../support/search-store.js';

const CHANNEL: ChannelDoc = channelDocument({ id: 'ch_council', slug: 'council', title: 'Council', providerType: 'rss', ownerId: 'u_owner', memberIds: [] });

/** The passage both meetings hold word for word: as a passage, it matches the query equally in each. */
const SAME = 'The members agreed to fund the reading room renovation from the spring budget.';
const FILLER = [
  'The chair opened the item and thanked the clerk for the papers sent round last week.',
  'Questions came from the floor about parking near the station and the new bus stops.',
  'The treasurer read the monthly figures and nobody raised an objection to them.',
  'A resident spoke about the noise from the depot at night and the council took note.',
];

/** A meeting of `minutes` one-minute segments: SAME once near the middle, `topic` lines in the others it is about, filler elsewhere. */
function meeting(id: string, minutes: number, topic: readonly string[], topicId: string): EpisodeRecord {
  const segments = Array.from({ length: minutes }, (_, i) => {
    const text = i === Math.floor(minutes / 2) ? SAME : i % 3 === 1 && topic.length > 0 ? topic[i % topic.length]! : FILLER[i % FILLER.length]!;
    return { speakerLabel: i % 2 === 0 ? 'Chair' : 'Clerk', startMs: i * 60_000, endMs: i * 60_000 + 59_000, text };
  });
  return {
    id,
    channelId: CHANNEL.id,
    title: 'Council meeting',
    publishedAt: '2026-11-01T10:00:00Z',
    status: 'published',
    transcript: { formatVersion: 1, segments },
    topicIds: [topicId],
  };
}

const ABOUT = [
  'The renovation of the reading room is the one item today: shelves, lighting and the room itself.',
  'Builders quoted for the reading room floor, and the renovation would close it for a month.',
  'Readers asked that the reading room stay open in part while the renovation goes on.',
];
// Ids chosen so that, scored alike, the meeting mentioning the renovation once wins the tie-break (ids in order).
const LONG_MINUTES = Math.ceil(EPISODE_LEG_MIN_MS / 60_000) + 6;
const EPISODES = [
  meeting('ep_a_once', LONG_MINUTES, [], 'tp_once'),
  meeting('ep_b_about', LONG_MINUTES, ABOUT, 'tp_about'),
  // The same pair, too short for a prior.
  meeting('ep_c_short_once', 12, [], 'tp_short'),
  meeting('ep_d_short_about', 12, ABOUT, 'tp_short'),
];

const params = (query: string, extra: Partial<SearchParams> = {}): SearchParams => ({ query, fast: true, limit: 10, publishedOnly: false, ...extra });
/** Where the passage saying SAME ranks per episode: the order the episodes' best passages come in. */
const order = (episodes: readonly { episodeId: string }[], among: readonly string[]) => episodes.map((e) => e.episodeId).filter((id) => among.includes(id));

describe('the episode leg (BM25 over whole episodes)', function () {
  this.timeout(60_000);
  const config = loadConfig(process.env);
  const prefix = `test-search-episode-leg-${randomBytes(4).toString('hex')}-`;
  let client: Client;
  let deps: SearchDeps;

  before(async function () {
    client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
    const aliases = await seedSearchStore(client, prefix, CHANNEL, EPISODES);
    deps = { client, embedder: undefined, aliases, settings: { ...config.search, episodeWeight: 0.3 }, channelSites: config.channelSites };
  });

  after(async function () {
    if (client) {
      await deleteIndices(client, prefix);
      await client.close();
    }
  });

  it('ranks the long meeting about the query above one holding an equally matching passage once', async function () {
    const query = 'reading room renovation budget';
    const { result, trace } = await evalSearch(deps, CHANNEL, params(query));
    expect(trace.episodes.map((e) => e.episodeId)).to.include.members(['ep_a_once', 'ep_b_about']);
    expect(trace.episodes[0]!.episodeId).to.equal('ep_b_about');
    expect(order(result.episodes, ['ep_a_once', 'ep_b_about'])).to.deep.equal(['ep_b_about', 'ep_a_once']);
    // The same search through the API's function, and without the leg: the tie goes to the meeting's id.
    expect(order((await runSearch(deps, CHANNEL, params(query))).result.episodes, ['ep_a_once', 'ep_b_about'])).to.deep.equal(['ep_b_about', 'ep_a_once']);
    const off = await evalSearch(deps, CHANNEL, params(query), { episodeWeight: 0 });
    expect(off.trace.episodes).to.deep.equal([]);
    expect(order(off.result.episodes, ['ep_a_once', 'ep_b_about'])).to.deep.equal(['ep_a_once', 'ep_b_about']);
  });

  it('cites the passage that matched, not the episode: the prior moves episodes, never citations', async function () {
    const { result } = await evalSearch(deps, CHANNEL, params('reading room renovation budget'));
    const once = result.episodes.find((e) => e.episodeId === 'ep_a_once')!;
    expect(once.segments[0]!.text).to.equal(SAME);
    expect(once.matchedVia).to.deep.equal(['keyword']);
  });

  it('gives no prior to episodes shorter than EPISODE_LEG_MIN_MS', async function () {
    const { result, trace } = await evalSearch(deps, CHANNEL, params('reading room renovation budget'));
    expect(trace.episodes.map((e) => e.episodeId)).to.not.include.members(['ep_c_short_once']);
    expect(trace.episodes.map((e) => e.episodeId)).to.not.include('ep_d_short_about');
    // Their passages saying SAME tie, and the tie goes to the id, as with no leg at all.
    const short = result.episodes.filter((e) => e.episodeId.startsWith('ep_c') || e.episodeId.startsWith('ep_d'));
    const same = short.filter((e) => e.segments[0]!.text === SAME).map((e) => e.episodeId);
    expect(same[0]).to.equal('ep_c_short_once');
  });

  it('never brings an episode the passage legs filtered out', async function () {
    const { result, trace } = await evalSearch(deps, CHANNEL, params('reading room renovation budget', { topicIds: ['tp_once'] }));
    // The transcripts know no topics: the leg scores the other meeting too, and it is still not shown.
    expect(trace.episodes.map((e) => e.episodeId)).to.include('ep_b_about');
    expect(result.episodes.map((e) => e.episodeId)).to.deep.equal(['ep_a_once']);
  });
});
