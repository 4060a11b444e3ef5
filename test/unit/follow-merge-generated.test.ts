// A poll applies the feed's catalog fields to a stored episode and keeps what the pipeline made: the generated
// topics, people and entities enrichment wrote where the feed gives none survive the next poll, and the creator's
// own, when the feed brings some, replace them.
import { expect } from 'chai';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { decideItem, mergeRecord } from '../../pipeline/follow/changes.js';
import { sourceDigest } from '../../pipeline/follow/feed-source.js';

const enclosure = 'https://cdn.example/1.mp3';
const fromFeed = (over: Partial<EpisodeRecord> = {}): EpisodeRecord => ({
  id: 'ep_1',
  channelId: 'ch_s',
  title: 'One',
  publishedAt: '2026-01-05T10:00:00.000Z',
  status: 'pending',
  transcript: null,
  chapters: [],
  topicIds: [],
  personIds: [],
  entityIds: [],
  ...over,
});
const source = { key: 'g', enclosureUrl: enclosure, transcripts: [], chaptersUrl: null, notes: null, digest: sourceDigest(enclosure, [], null) };
const transcript = { formatVersion: 1 as const, segments: [{ startMs: 0, endMs: 1000, text: 'soil and rain', speakerLabel: null }] };
const enriched: EpisodeRecord = fromFeed({
  status: 'published',
  transcript,
  topicIds: ['tp_g-soil-health', 'tp_g-rainfall'],
  personIds: ['pe_g-ada-lovelace'],
  entityIds: ['en_g-acme'],
});

describe('follow: a poll keeps what enrichment generated', function () {
  it('counts an unchanged feed item of an enriched episode as unchanged, not as an update', function () {
    expect(decideItem(enriched, source, { record: fromFeed(), source })).to.equal('unchanged');
  });

  it('keeps the generated facet lists when the feed retitles the episode and gives no facets', function () {
    const merged = mergeRecord(enriched, fromFeed({ title: 'One, retitled' }));
    expect(merged.title).to.equal('One, retitled');
    expect(merged.topicIds).to.deep.equal(enriched.topicIds);
    expect(merged.personIds).to.deep.equal(enriched.personIds);
    expect(merged.entityIds).to.deep.equal(enriched.entityIds);
  });

  it("replaces generated ids with the creator's own when the feed brings some", function () {
    const merged = mergeRecord(enriched, fromFeed({ topicIds: ['tp_farming'], personIds: ['pe_host'] }));
    expect(merged.topicIds).to.deep.equal(['tp_farming']);
    expect(merged.personIds).to.deep.equal(['pe_host']);
    expect(merged.entityIds, 'a list the feed leaves empty keeps its generated ids').to.deep.equal(['en_g-acme']);
  });

  it("drops a creator's id the feed no longer gives: only generated ids outlive the feed", function () {
    const merged = mergeRecord({ ...enriched, topicIds: ['tp_farming', 'tp_g-rainfall'] }, fromFeed());
    expect(merged.topicIds).to.deep.equal(['tp_g-rainfall']);
  });
});
