// Speaker names in the keyword leg: an index made before `mainSpeakers` existed gains the field, and a name finds that speaker's passage.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import type { SearchDeps } from '../../core/search/search.js';
import { evalSearch } from '../../scripts/eval/search.js';
import type { SearchParams } from '../../core/search/types.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import {
  INDEX_NAMES,
  addMissingFields,
  createOpenSearchClient,
  createVersionedIndices,
  deleteIndices,
  ensureIndices,
  indexAliases,
  readIndexDefinition,
  resolveAliases,
  swapAliases,
  type Client,
} from '../../core/store/opensearch.js';
import { channelDocument, episodeDocuments } from '../../indexer/documents.js';
import type { EpisodeRecord } from '../../core/library/checks.js';

const CHANNEL: ChannelDoc = channelDocument({ id: 'ch_hearings', slug: 'hearings', title: 'Hearings', providerType: 'rss', ownerId: 'u_owner', memberIds: [] });

/** Two members saying much the same about school meals; only the speaker labels tell who said what. */
const HEARING: EpisodeRecord = {
  id: 'ep_meals',
  channelId: CHANNEL.id,
  title: 'Children and young people committee',
  publishedAt: '2020-02-01T10:00:00Z',
  status: 'published',
  transcript: {
    formatVersion: 1,
    segments: [
      { speakerLabel: 'Lynne Neagle AM', startMs: 0, endMs: 5_000, text: 'Thank you. Next question.' },
      { speakerLabel: 'Kirsty Williams AM', startMs: 5_000, endMs: 40_000, text: 'The school meals budget has to rise next year, because costs keep going up.' },
      { speakerLabel: 'Suzy Davies AM', startMs: 40_000, endMs: 80_000, text: 'I think the school meals budget is already high enough for next year.' },
    ],
  },
  chapters: [],
};

const params = (query: string): SearchParams => ({ query, fast: true, limit: 10, publishedOnly: false });

describe('speaker names in the keyword leg', function () {
  this.timeout(60_000);
  const config = loadConfig(process.env);
  const prefix = `test-search-speakers-${randomBytes(4).toString('hex')}-`;
  const aliases = indexAliases(prefix);
  let client: Client;
  let deps: SearchDeps;

  before(async function () {
    client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 30_000 });
    // A store made before the field existed: the passages index lacks `mainSpeakers`.
    const created = await createVersionedIndices(client, { prefix, modelId: 'test-model', names: INDEX_NAMES.filter((n) => n !== 'passages') });
    const def = await readIndexDefinition('passages');
    delete def.mappings.properties.mainSpeakers;
    const old = `${prefix}passages-v1-0`;
    await client.indices.create({ index: old, body: { settings: def.settings, mappings: { ...def.mappings, _meta: { ...def.mappings._meta, model: 'test-model' } } } as never });
    await swapAliases(client, prefix, { ...created, passages: old });
    deps = { client, embedder: undefined, aliases, settings: config.search, channelSites: config.channelSites };
  });

  after(async function () {
    if (client) {
      await deleteIndices(client, prefix);
      await client.close();
    }
  });

  it('adds to an existing index the fields its mapping file gained, so passages with them are accepted', async function () {
    const docs = episodeDocuments(HEARING, { modelId: 'test-model', indexedAt: new Date().toISOString() });
    const write = () =>
      client.bulk({
        body: [
          { index: { _index: aliases.channels, _id: CHANNEL.id } },
          CHANNEL,
          { index: { _index: aliases.episodes, _id: HEARING.id } },
          docs.episode,
          ...docs.passages.flatMap((p) => [{ index: { _index: aliases.passages, _id: p.id } }, p]),
        ] as never,
        refresh: 'true',
      });
    const before = await write();
    expect(JSON.stringify(before.body.items)).to.contain('strict_dynamic_mapping_exception');

    await ensureIndices(client, { prefix, modelId: 'test-model' });
    const mapping = await client.indices.getMapping({ index: aliases.passages });
    const properties = Object.values(mapping.body as Record<string, { mappings: { properties: Record<string, unknown> } }>)[0]!.mappings.properties;
    expect(properties.mainSpeakers).to.deep.equal({ type: 'text', analyzer: 'english' });
    expect(await addMissingFields(client, await resolveAliases(client, prefix))).to.deep.equal({});

    const after = await write();
    expect(after.body.errors, JSON.stringify(after.body.items)).to.equal(false);
  });

  it('finds the passage of the speaker a query names, by the keyword leg alone', async function () {
    // Kirsty Williams speaks 35 of the first passage's 40 s; Suzy Davies all of the second.
    const kirsty = params('What did Kirsty Williams say about the school meals budget?');
    for (const [query, startMs] of [
      [kirsty, 0],
      [params('What did Suzy Davies say about the school meals budget?'), 40_000],
    ] as const) {
      const { result, trace } = await evalSearch(deps, CHANNEL, query);
      expect(trace.embedded).to.equal(false);
      expect(trace.legs.find((l) => l.name === 'keyword')!.hits[0]?.id, query.query).to.equal(`ep_meals:t:${startMs}`);
      expect(result.episodes[0]?.segments[0], query.query).to.include({ segmentId: `ep_meals:t:${startMs}` });
    }
    // Without the speakers the shorter passage, Suzy Davies's, wins on the words alone.
    const { trace } = await evalSearch(deps, CHANNEL, kirsty, { keyword: { passageFields: ['text', 'chapterTitle'] } });
    expect(trace.legs.find((l) => l.name === 'keyword')!.hits[0]?.id).to.equal('ep_meals:t:40000');
  });
});
