// A poll never brings back an episode archived by hand (a takedown), neither from a feed nor from a yt-dlp folder;
// one the follower archived because its item left the source comes back with it (security review 2026-11-27, item 12).
import { expect } from 'chai';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { archivedByFollower, decideItem } from '../../pipeline/follow/changes.js';
import { sourceDigest } from '../../pipeline/follow/feed-source.js';
import type { ItemSource } from '../../core/library/follow-state.js';

const item = (over: Partial<EpisodeRecord> = {}, enclosure = 'https://cdn.example/1.mp3'): { record: EpisodeRecord; source: ItemSource } => ({
  record: { id: 'ep_1', channelId: 'ch_s', title: 'One', publishedAt: '2026-01-05T10:00:00.000Z', status: 'pending', transcript: null, chapters: [], ...over },
  source: { key: 'g', enclosureUrl: enclosure, transcripts: [], chaptersUrl: null, notes: null, digest: sourceDigest(enclosure, [], null) },
});
const transcript = { formatVersion: 1 as const, segments: [{ startMs: 0, endMs: 1000, text: 'hi', speakerLabel: null }] };

describe('follow: episodes archived by hand', function () {
  const handArchived: EpisodeRecord = { ...item().record, status: 'archived', transcript };

  it('leaves an episode archived by hand alone when its feed item is unchanged, retitled or has new audio', function () {
    const seen = item().source;
    expect(decideItem(handArchived, seen, item())).to.equal('unchanged');
    expect(decideItem(handArchived, seen, item({ title: 'One, retitled' }))).to.equal('unchanged');
    expect(decideItem(handArchived, seen, item({}, 'https://cdn.example/1-remastered.mp3'))).to.equal('unchanged');
    expect(decideItem({ ...handArchived, transcript: null }, seen, item())).to.equal('unchanged');
  });

  it('leaves an episode archived by hand alone when a yt-dlp folder still holds the video, published', function () {
    const video = item({ status: 'published', transcript });
    expect(decideItem(handArchived, video.source, video, { final: true })).to.equal('unchanged');
  });

  it('brings back an episode the follower archived, once its item is in the feed again', function () {
    const archived = archivedByFollower({ ...item().record, status: 'published' as const, transcript });
    expect(archived.status).to.equal('archived');
    expect(decideItem(archived, item().source, item())).to.equal('update');
    expect(decideItem({ ...archived, transcript: null }, item().source, item())).to.equal('reprocess');
  });
});
