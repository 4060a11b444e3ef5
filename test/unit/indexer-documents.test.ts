import { expect } from 'chai';
import { facetDocId } from '../../core/store/documents.js';
import { channelDocument, episodeDocuments, facetDocuments, sourceHash, textHash } from '../../indexer/documents.js';
import { jobIdOf } from '../../indexer/jobs.js';
import { checkEpisode, checkFacet, type EpisodeRecord } from '../../core/library/checks.js';

function record(overrides: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    id: 'ep_a',
    channelId: 'ch_a',
    title: 'Entry and exit in farming',
    publishedAt: '2023-12-31T23:30:00Z',
    status: 'published',
    topicIds: ['tp_farming'],
    transcript: {
      formatVersion: 1,
      segments: [
        {
          speakerLabel: 'Host',
          startMs: 0,
          endMs: 30_000,
          text: 'Welcome back.',
          words: [
            { t: 'Welcome', s: 0, e: 500 },
            { t: 'back.', s: 500, e: 900 },
          ],
        },
      ],
    },
    chapters: [{ title: 'Opening', startMs: 0, endMs: 30_000, moments: [{ type: 'qa', title: 'Who owns the land?', startMs: 1000, endMs: null }] }],
    ...overrides,
  };
}

const at = '2024-01-02T03:04:05.000Z';

describe('episodeDocuments', function () {
  it('derives the catalog row with defaults, the UTC year and the titles', function () {
    const { episode } = episodeDocuments(record(), { modelId: 'm', indexedAt: at });
    expect(episode).to.deep.equal({
      id: 'ep_a',
      channelId: 'ch_a',
      title: 'Entry and exit in farming',
      description: null,
      summary: null,
      link: null,
      thumbnail: null,
      mediaUrl: null,
      durationMs: null,
      publishedAt: '2023-12-31T23:30:00Z',
      year: 2023,
      viewCount: null,
      status: 'published',
      archived: false,
      error: null,
      topicIds: ['tp_farming'],
      personIds: [],
      entityIds: [],
      collectionIds: [],
      chapterTitles: ['Opening'],
      momentTitles: ['Who owns the land?'],
      hasTranscript: true,
      sourceHash: sourceHash(record()),
      indexedAt: at,
    });
  });

  it('stores the transcript exactly as read, with its whole speech and where it ends for the episode leg', function () {
    const r = record();
    expect(episodeDocuments(r, { modelId: 'm', indexedAt: at }).transcript).to.deep.equal({
      episodeId: 'ep_a',
      channelId: 'ch_a',
      status: 'published',
      archived: false,
      speech: 'Welcome back.',
      speechMs: 30_000,
      document: r.transcript,
    });
  });

  it('flags every document of an archived episode', function () {
    const docs = episodeDocuments(record({ status: 'archived' }), { modelId: 'm', indexedAt: at });
    expect(docs.episode.archived).to.equal(true);
    expect(docs.transcript!.archived).to.equal(true);
    expect(docs.chapters.archived).to.equal(true);
    expect(docs.passages.length).to.be.greaterThan(0);
    expect(docs.passages.every((p) => p.archived && p.status === 'archived')).to.equal(true);
  });

  it('gives no transcript document when there is none and drops a null moment end', function () {
    const docs = episodeDocuments(record({ transcript: null }), { modelId: 'm', indexedAt: at });
    expect(docs.transcript).to.equal(null);
    expect(docs.episode.hasTranscript).to.equal(false);
    expect(docs.chapters.chapters[0]!.moments[0]).to.deep.equal({ type: 'qa', title: 'Who owns the land?', startMs: 1000 });
    expect(docs.passages.map((p) => p.kind)).to.deep.equal(['chapter', 'moment']);
  });

  it('copies the episode fields onto each passage and hashes text with the model id', function () {
    const [p] = episodeDocuments(record(), { modelId: 'model-1', indexedAt: at }).passages;
    expect(p).to.include({
      episodeId: 'ep_a',
      channelId: 'ch_a',
      status: 'published',
      year: 2023,
      text: 'Welcome back.',
      speaker: 'Host',
      textHash: textHash('model-1', 'Welcome back.'),
    });
    expect(p!.topicIds).to.deep.equal(['tp_farming']);
    expect(textHash('model-2', 'Welcome back.')).to.not.equal(p!.textHash);
  });

  it("accepts generated on chapters and key moments and keeps it where true, and leaves the documents of a creator's chapters as they were (decision 27)", function () {
    const generated = record({
      chapters: [
        { title: 'Opening', startMs: 0, endMs: 30_000, generated: true, moments: [{ type: 'qa', title: 'Who owns the land?', startMs: 0, endMs: 30_000, generated: true }] },
      ],
    });
    expect(checkEpisode(generated).ok).to.equal(true);
    expect(episodeDocuments(generated, { modelId: 'm', indexedAt: at }).chapters.chapters).to.deep.equal(generated.chapters);
    const creators = record({
      chapters: [{ title: 'Opening', startMs: 0, endMs: 30_000, generated: false, moments: [{ type: 'qa', title: 'Who owns the land?', startMs: 1000, generated: false }] }],
    });
    expect(episodeDocuments(creators, { modelId: 'm', indexedAt: at }).chapters).to.deep.equal(episodeDocuments(record(), { modelId: 'm', indexedAt: at }).chapters);
    const refused = checkEpisode({ ...generated, chapters: [{ ...generated.chapters![0]!, generated: 'yes' }] });
    expect(refused.ok ? '' : refused.reason).to.match(/generated must be boolean/);
  });

  it('hashes the same record the same, and a changed record differently', function () {
    expect(sourceHash(record())).to.equal(sourceHash(JSON.parse(JSON.stringify(record()))));
    expect(sourceHash(record({ title: 'Other' }))).to.not.equal(sourceHash(record()));
  });
});

describe('channel and facet documents', function () {
  it('always lists the owner as a member and nulls a missing custom domain', function () {
    const doc = channelDocument({ id: 'ch', slug: 'ch', title: 'Ch', providerType: 'rss', ownerId: 'u1', memberIds: ['u2'] });
    expect(doc.memberIds).to.deep.equal(['u2', 'u1']);
    expect(doc.customDomain).to.equal(null);
  });

  it("stores a collection in its own channel only, and a library's other names in each of its channels (decision 33)", function () {
    expect(facetDocuments({ kind: 'collection', record: { id: 'cl', name: 'Best of', channelId: 'ch' } }, ['ch', 'ch2'])).to.deep.equal([
      { id: 'cl', kind: 'collection', name: 'Best of', channelId: 'ch' },
    ]);
    expect(facetDocuments({ kind: 'topic', record: { id: 'tp', name: 'Farming' } }, ['ch', 'ch2'])).to.deep.equal([
      { id: 'tp', kind: 'topic', name: 'Farming', channelId: 'ch' },
      { id: 'tp', kind: 'topic', name: 'Farming', channelId: 'ch2' },
    ]);
    expect(facetDocuments({ kind: 'topic', record: { id: 'tp', name: 'Farming', channelId: null } }, ['ch'])).to.deep.equal([
      { id: 'tp', kind: 'topic', name: 'Farming', channelId: 'ch' },
    ]);
  });

  it("keeps generated on a name enrichment found, and nothing on the creator's (decision 27)", function () {
    expect(checkFacet({ id: 'tp', name: 'Compost', generated: true }).ok).to.equal(true);
    expect(facetDocuments({ kind: 'topic', record: { id: 'tp', name: 'Compost', generated: true } }, ['ch'])).to.deep.equal([
      { id: 'tp', kind: 'topic', name: 'Compost', channelId: 'ch', generated: true },
    ]);
    expect(facetDocuments({ kind: 'person', record: { id: 'p', name: 'Ana', generated: false } }, ['ch'])).to.deep.equal([
      { id: 'p', kind: 'person', name: 'Ana', channelId: 'ch' },
    ]);
  });

  it('gives each channel and facet pair its own document id, whatever colons the channel id holds', function () {
    expect(facetDocId('ch_a', 'p_john-smith')).to.equal('ch_a:p_john-smith');
    expect(facetDocId('ch_b', 'p_john-smith')).to.not.equal(facetDocId('ch_a', 'p_john-smith'));
    expect(facetDocId('a:b', 'c')).to.not.equal(facetDocId('a', 'b:c'));
    expect(facetDocId('a%3Ab', 'c')).to.not.equal(facetDocId('a:b', 'c'));
  });
});

describe('jobIdOf', function () {
  it('is the same for the same content, changes with it, and has no colon (BullMQ refuses them)', function () {
    const a = jobIdOf({ kind: 'episode', record: record() });
    expect(a).to.equal(jobIdOf({ kind: 'episode', record: record(), source: { path: 'elsewhere.json' } }));
    expect(a).to.match(/^episode-ep_a-[0-9a-f]{16}$/);
    expect(jobIdOf({ kind: 'episode', record: record({ title: 'x' }) })).to.not.equal(a);
    expect(jobIdOf({ kind: 'sync', library: '/x', channelIds: ['ch:1'], keepIds: [] })).to.not.include(':');
  });
});
