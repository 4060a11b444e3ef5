// Each stored document and its mapping agree field for field (design review 2026-12-01, finding 6): the documents the
// indexer builds from a record holding every field are checked against mappings/*.json, both ways, so a field added
// to one side only fails here instead of at the first write ("dynamic": "strict") or never (a mapped field no
// document fills).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ChannelRecord, EpisodeRecord, UserRecord } from '../../core/contract/library-format.js';
import { channelDocument, episodeDocuments, facetDocuments, userDocument } from '../../indexer/documents.js';
import { PROJECT_ROOT } from '../../scripts/ops/provision/paths.js';

/** The top-level properties of a mapping file. */
function mapped(name: string): string[] {
  const file = JSON.parse(readFileSync(join(PROJECT_ROOT, 'mappings', `${name}.json`), 'utf8')) as { mappings?: { properties: object }; properties?: object };
  return Object.keys((file.mappings ?? file).properties ?? {}).sort();
}

/** Every key any of `docs` holds. */
const keysOf = (...docs: object[]): string[] => [...new Set(docs.flatMap((d) => Object.keys(d)))].sort();

const user: UserRecord = { id: 'u_o', name: 'Owner', plan: 'paid' };
const channel: ChannelRecord = {
  id: 'ch_show',
  slug: 'show',
  title: 'Show',
  providerType: 'rss',
  ownerId: 'u_o',
  memberIds: ['u_o'],
  customDomain: 'show.example.org',
  language: 'en',
  description: 'About rivers',
  artwork: 'https://example.org/a.png',
  source: { kind: 'rss', id: 'guid' },
};
const words = (text: string, at: number) => text.split(' ').map((t, i) => ({ t, s: at + i * 300, e: at + i * 300 + 250 }));
const episode: EpisodeRecord = {
  id: 'ep_one',
  channelId: 'ch_show',
  title: 'One',
  description: 'The river',
  link: 'https://example.org/1',
  thumbnail: 'https://example.org/1.png',
  mediaUrl: 'https://example.org/1.mp3',
  durationMs: 120_000,
  publishedAt: '2026-01-02T03:04:05.000Z',
  viewCount: 7,
  status: 'published',
  summary: 'River talk',
  error: null,
  topicIds: ['t_rivers'],
  personIds: ['p_ana'],
  entityIds: ['e_acme'],
  collectionIds: ['cl_s1'],
  language: 'en',
  transcript: {
    formatVersion: 1,
    segments: [
      { speakerLabel: 'Ana', startMs: 0, endMs: 3000, text: 'The river rose again today.', words: words('The river rose again today.', 0) },
      { speakerLabel: 'Ben', startMs: 60_000, endMs: 63_000, text: 'The soil held the water.', words: words('The soil held the water.', 60_000) },
    ],
  },
  chapters: [
    { title: 'Rivers', startMs: 0, endMs: 60_000, generated: true, moments: [{ type: 'insight', title: 'The river rose again today.', startMs: 0, endMs: 3000, generated: true }] },
    { title: 'Soil', startMs: 60_000, endMs: 120_000, moments: [] },
  ],
};

describe('mappings and the documents stored under them', function () {
  it('users, channels and facets: every key a document holds is mapped, and every mapped field is filled', function () {
    expect(keysOf(userDocument(user))).to.deep.equal(mapped('users'));
    expect(keysOf(channelDocument(channel))).to.deep.equal(mapped('channels'));
    const facets = [
      ...facetDocuments({ kind: 'topic', record: { id: 't_rivers', name: 'Rivers', generated: true } }, ['ch_show']),
      ...facetDocuments({ kind: 'collection', record: { id: 'cl_s1', name: 'Season 1', channelId: 'ch_show' } }, ['ch_show']),
    ];
    expect(keysOf(...facets)).to.deep.equal(mapped('facets'));
  });

  it('episodes, transcripts, chapters and passages: the same, both ways', function () {
    const docs = episodeDocuments(episode, { modelId: 'm', indexedAt: '2026-12-02T00:00:00.000Z' });
    expect(keysOf(docs.episode)).to.deep.equal(mapped('episodes'));
    expect(keysOf(docs.transcript!)).to.deep.equal(mapped('transcripts'));
    expect(keysOf(docs.chapters)).to.deep.equal(mapped('chapters'));
    // A passage's vector is added when it is embedded, after it is built.
    const later = ['embedding'];
    expect(keysOf(...docs.passages)).to.deep.equal(mapped('passages').filter((k) => !later.includes(k)));
  });
});
