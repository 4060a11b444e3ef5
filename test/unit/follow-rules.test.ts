// The follower's pure rules: item identity, change detection, backoff and Retry-After arithmetic.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { importFeed } from '../../importer/feed.js';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { decideItem, mergeRecord } from '../../pipeline/follow/changes.js';
import { feedSnapshot, sourceDigest } from '../../pipeline/follow/feed-source.js';
import { episodeIdOf, itemKey } from '../../importer/item-identity.js';
import { conditionalHeaders } from '../../pipeline/follow/poll.js';
import { backoffSeconds, nextPollAt, parseMaxAge } from '../../pipeline/follow/schedule.js';
import type { ItemSource } from '../../core/library/follow-state.js';

const FEED = (items: string) => `<?xml version="1.0"?>
<rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Show</title><link>https://show.example/</link><language>de</language>
${items}
</channel></rss>`;
const item = (guid: string | null, enclosure: string, extra = '') =>
  `<item><title>T ${guid}</title>${guid ? `<guid>${guid}</guid>` : ''}<pubDate>Mon, 05 Jan 2026 10:00:00 GMT</pubDate><enclosure url="${enclosure}" type="audio/mpeg" length="0"/>${extra}</item>`;

describe('follow: item identity', function () {
  it('keys an item by its guid, else its enclosure URL without its rotating parameters, else its link', function () {
    expect(itemKey({ guid: ' g-1 ', enclosureUrl: 'https://a/x.mp3?t=1', link: 'https://a/p' })).to.equal('g-1');
    expect(itemKey({ enclosureUrl: 'https://a/x.mp3?updated=2#f', link: 'https://a/p' })).to.equal('https://a/x.mp3');
    expect(itemKey({ link: 'https://a/p' })).to.equal('https://a/p');
    expect(itemKey({ guid: '  ' })).to.equal(undefined);
  });

  it('gives the episode id the importer gives the same item', async function () {
    const xml = FEED(item('abc', 'https://cdn.example/1.mp3'));
    const snap = feedSnapshot(xml, { slug: 'show', feedUrl: 'https://show.example/feed' });
    const dir = await mkdtemp(join(tmpdir(), 'follow-unit-'));
    try {
      await writeFile(join(dir, 'feed.xml'), xml);
      const imported = await importFeed(join(dir, 'feed.xml'), { slug: 'show', fetch: false });
      expect(snap.items.map((i) => i.record.id)).to.deep.equal(imported.episodes.map((e) => e.id));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(snap.items[0]!.record.id).to.equal(episodeIdOf('show', 'https://show.example/', 'abc'));
    expect(snap.items[0]!.record.status).to.equal('pending');
    expect(snap.channel.language).to.equal('de');
  });

  it('keeps one episode when a guid-less item rotates the query of its enclosure', function () {
    const a = feedSnapshot(FEED(item(null, 'https://cdn.example/1.mp3?token=a')), { slug: 'show', feedUrl: 'https://show.example/feed' });
    const b = feedSnapshot(FEED(item(null, 'https://cdn.example/1.mp3?token=b')), { slug: 'show', feedUrl: 'https://show.example/feed' });
    expect(a.items[0]!.record.id).to.equal(b.items[0]!.record.id);
    expect(a.items[0]!.source.digest).to.equal(b.items[0]!.source.digest);
    expect(a.items[0]!.source.enclosureUrl).to.equal('https://cdn.example/1.mp3?token=a');
  });

  it('resolves a relative transcript link against the feed URL', function () {
    const snap = feedSnapshot(FEED(item('g', 'https://cdn.example/1.mp3', '<podcast:transcript url="t/1.srt" type="application/srt"/>')), {
      slug: 'show',
      feedUrl: 'https://show.example/feeds/main.xml',
    });
    expect(snap.items[0]!.source.transcripts.map((t) => t.url)).to.deep.equal(['https://show.example/feeds/t/1.srt']);
  });
});

describe('follow: change detection', function () {
  const fresh = (over: Partial<EpisodeRecord> = {}, enclosure = 'https://cdn.example/1.mp3'): { record: EpisodeRecord; source: ItemSource } => ({
    record: { id: 'ep_1', channelId: 'ch_s', title: 'One', publishedAt: '2026-01-05T10:00:00.000Z', status: 'pending', transcript: null, chapters: [], ...over },
    source: { key: 'g', enclosureUrl: enclosure, transcripts: [], chaptersUrl: null, notes: null, digest: sourceDigest(enclosure, [], null) },
  });
  const transcript = { formatVersion: 1 as const, segments: [{ startMs: 0, endMs: 1000, text: 'hi', speakerLabel: null }] };
  const stored: EpisodeRecord = { ...fresh().record, status: 'published', transcript };

  it('calls an unknown item new', function () {
    expect(decideItem(undefined, undefined, fresh())).to.equal('new');
  });

  it('changes nothing for the same item, keeping what processing made', function () {
    expect(decideItem(stored, fresh().source, fresh())).to.equal('unchanged');
  });

  it('updates the catalog fields of a retitled item without touching its transcript or status', function () {
    const next = fresh({ title: 'One (remastered)' });
    expect(decideItem(stored, fresh().source, next)).to.equal('update');
    expect(mergeRecord(stored, next.record)).to.include({ title: 'One (remastered)', status: 'published' });
    expect(mergeRecord(stored, next.record).transcript).to.deep.equal(transcript);
  });

  it('processes again an item whose enclosure moved under the same guid (not a new episode)', function () {
    expect(decideItem(stored, fresh().source, fresh({}, 'https://other.example/1.mp3'))).to.equal('reprocess');
    expect(decideItem({ ...stored, status: 'failed', transcript: null }, fresh().source, fresh({}, 'https://other.example/1.mp3'))).to.equal('reprocess');
  });

  it('keeps the duration measured at transcription when the feed gives none, so the item stays unchanged', function () {
    const measured: EpisodeRecord = { ...stored, durationMs: 7400 };
    expect(decideItem(measured, fresh().source, fresh({ durationMs: null }))).to.equal('unchanged');
    expect(mergeRecord(measured, fresh({ durationMs: null }).record).durationMs).to.equal(7400);
    expect(mergeRecord(measured, fresh({ durationMs: 9000 }).record).durationMs).to.equal(9000);
  });

  it('does not process again for a rotated query string alone', function () {
    expect(decideItem(stored, fresh().source, fresh({}, 'https://cdn.example/1.mp3?updated=99'))).to.equal('unchanged');
  });

  it('takes a yt-dlp record as final', function () {
    expect(decideItem(stored, undefined, { ...fresh(), record: stored }, { final: true })).to.equal('unchanged');
    expect(decideItem(stored, undefined, { ...fresh(), record: { ...stored, title: 'x' } }, { final: true })).to.equal('update');
  });
});

describe('follow: poll timing', function () {
  const base = { now: 1_000_000, intervalSeconds: 900, maxBackoffSeconds: 86_400, consecutiveFailures: 0 };

  it('polls again after the interval when all is well', function () {
    expect(nextPollAt(base)).to.equal(1_000_000 + 900_000);
  });

  it('doubles the wait per failure in a row, up to the ceiling', function () {
    expect([1, 2, 3].map((n) => backoffSeconds(900, n, 86_400))).to.deep.equal([1800, 3600, 7200]);
    expect(backoffSeconds(900, 40, 86_400)).to.equal(86_400);
    expect(backoffSeconds(900, 3, 60)).to.equal(900);
  });

  it('honours Retry-After and max-age when they ask for longer, but not past the ceiling', function () {
    expect(nextPollAt({ ...base, consecutiveFailures: 1, retryAfterMs: 7_200_000 })).to.equal(1_000_000 + 7_200_000);
    expect(nextPollAt({ ...base, consecutiveFailures: 1, retryAfterMs: 60_000 })).to.equal(1_000_000 + 1_800_000);
    expect(nextPollAt({ ...base, maxAgeSeconds: 3600 })).to.equal(1_000_000 + 3_600_000);
    expect(nextPollAt({ ...base, retryAfterMs: 365 * 86_400_000 })).to.equal(1_000_000 + 86_400_000);
  });

  it('reads max-age from Cache-Control', function () {
    expect(parseMaxAge('public, max-age=600')).to.equal(600);
    expect(parseMaxAge('no-cache')).to.equal(undefined);
    expect(parseMaxAge(null)).to.equal(undefined);
  });

  it('asks conditionally with the validators of the last 200', function () {
    expect(conditionalHeaders({ etag: '"abc"', lastModified: 'Mon, 05 Jan 2026 10:00:00 GMT' })).to.deep.equal({
      'If-None-Match': '"abc"',
      'If-Modified-Since': 'Mon, 05 Jan 2026 10:00:00 GMT',
    });
    expect(conditionalHeaders({ etag: null, lastModified: null })).to.deep.equal({});
  });
});
