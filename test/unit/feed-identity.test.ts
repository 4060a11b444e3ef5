// One identity for a feed item, in the importer and the follower alike: items without a guid, enclosure URLs with and
// without a query (a rotating one, one that names the file), items with only a link.
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { createLogger } from '../../core/ground/logger.js';
import { importFeed } from '../../importer/feed.js';
import { runImport } from '../../importer/import.js';
import { enclosureKey, episodeIdOf, itemKey } from '../../importer/item-identity.js';
import { feedSnapshot } from '../../pipeline/follow/feed-source.js';

const FEED = (items: string) => `<?xml version="1.0"?>
<rss version="2.0"><channel><title>Show</title><link>https://show.example/</link>
${items}
</channel></rss>`;
const item = ({ title, guid, enclosure, link }: { title: string; guid?: string; enclosure?: string; link?: string }) =>
  `<item><title>${title}</title>${guid ? `<guid>${guid}</guid>` : ''}${link ? `<link>${link}</link>` : ''}<pubDate>Mon, 05 Jan 2026 10:00:00 GMT</pubDate>${
    enclosure ? `<enclosure url="${enclosure.replace(/&/g, '&amp;')}" type="audio/mpeg" length="0"/>` : ''
  }</item>`;

const followed = (xml: string) => feedSnapshot(xml, { slug: 'show', feedUrl: 'https://show.example/feed.xml' });

/** The feed imported from a file, as `npm run import` reads it. */
async function imported(xml: string) {
  const dir = await mkdtemp(join(tmpdir(), 'feed-identity-'));
  try {
    await writeFile(join(dir, 'feed.xml'), xml);
    return await importFeed(join(dir, 'feed.xml'), { slug: 'show', fetch: false });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('feed items: one identity for the importer and the follower', function () {
  const mixed = FEED(
    [
      item({ title: 'Guid', guid: 'g-1', enclosure: 'https://cdn.example/g1.mp3?updated=1' }),
      item({ title: 'Plain file', enclosure: 'https://cdn.example/plain.mp3' }),
      item({ title: 'Tracked file', enclosure: 'https://cdn.example/tracked.mp3?utm_source=rss&updated=1700000000' }),
      item({ title: 'Named in query one', enclosure: 'https://host.example/download.php?id=1' }),
      item({ title: 'Named in query two', enclosure: 'https://host.example/download.php?id=2&ts=99' }),
      item({ title: 'Only a link', link: 'https://show.example/episodes/7' }),
    ].join('\n'),
  );

  it('gives every item the same episode id in both, guid-less items with and without a query and link-only ones included', async function () {
    const snap = followed(mixed);
    const lib = await imported(mixed);
    expect(snap.skipped, JSON.stringify(snap.skipped)).to.deep.equal([]);
    expect(lib.items.filter((i) => i.outcome === 'skipped')).to.deep.equal([]);
    expect(snap.items.map((i) => [i.record.title, i.record.id])).to.deep.equal(lib.episodes.map((e) => [e.title, e.id]));
    expect(new Set(snap.items.map((i) => i.record.id)).size).to.equal(6);
    expect(snap.items.map((i) => i.source.key)).to.deep.equal([
      'g-1',
      'https://cdn.example/plain.mp3',
      'https://cdn.example/tracked.mp3',
      'https://host.example/download.php?id=1',
      'https://host.example/download.php?id=2',
      'https://show.example/episodes/7',
    ]);
  });

  it('keeps a guid-less episode once when its tracking parameters change between fetches, in the importer too', async function () {
    const at = (n: number) => FEED(item({ title: 'Tracked', enclosure: `https://cdn.example/tracked.mp3?utm_campaign=c${n}&updated=${n}&X-Amz-Expires=${n}` }));
    const [a, b] = [await imported(at(1)), await imported(at(2))];
    expect(a.episodes.map((e) => e.id)).to.deep.equal(b.episodes.map((e) => e.id));
    expect(followed(at(1)).items[0]!.record.id).to.equal(a.episodes[0]!.id);
    // The record keeps the URL as the feed gave it: only the identity leaves the parameters out.
    expect(b.episodes[0]!.mediaUrl).to.equal('https://cdn.example/tracked.mp3?utm_campaign=c2&updated=2&X-Amz-Expires=2');
  });

  it('follows guid-less items whose file is named in the query as episodes of their own', function () {
    const snap = followed(
      FEED(
        [
          item({ title: 'One', enclosure: 'https://host.example/download.php?id=1' }),
          item({ title: 'Two', enclosure: 'https://host.example/download.php?id=2' }),
          item({ title: 'Three', enclosure: 'https://host.example/download.php?id=3' }),
        ].join('\n'),
      ),
    );
    expect(snap.skipped).to.deep.equal([]);
    expect(snap.items.map((i) => i.record.title)).to.deep.equal(['One', 'Two', 'Three']);
    expect(new Set(snap.items.map((i) => i.record.id)).size).to.equal(3);
  });

  it('skips, in the importer as in the follower, an item with the identity of an earlier one, saying why', async function () {
    const xml = FEED([item({ title: 'First', guid: 'same' }), item({ title: 'Second', guid: 'same' })].join('\n'));
    const lib = await imported(xml);
    expect(lib.episodes.map((e) => e.title)).to.deep.equal(['First']);
    expect(lib.items[1]).to.deep.equal({ item: 'Second', outcome: 'skipped', notes: ['the same identity (guid, enclosure or link) as an earlier item'] });
    expect(followed(xml).skipped).to.deep.equal([{ item: 'Second', reason: 'the same identity (guid, enclosure or link) as an earlier item' }]);
  });

  it('leaves out of an enclosure key only the fragment and the parameters that rotate, keeping the rest in order', function () {
    expect(enclosureKey('https://a.example/x.mp3?updated=2#t=10')).to.equal('https://a.example/x.mp3');
    expect(enclosureKey('https://a.example/get?file=ep%201.mp3&utm_medium=rss&dest-id=9')).to.equal('https://a.example/get?file=ep%201.mp3&dest-id=9');
    expect(enclosureKey('https://a.example/x.mp3?Expires=1&Signature=abc&Key-Pair-Id=K')).to.equal('https://a.example/x.mp3');
    expect(enclosureKey('/relative/x.mp3?id=4')).to.equal('/relative/x.mp3?id=4');
    expect(itemKey({ enclosureUrl: '  https://a.example/x.mp3?_=123  ', link: 'https://a.example/p' })).to.equal('https://a.example/x.mp3');
  });

  it('re-imports a library the old importer wrote keeping its guid-less episode once, under its old id, after its tracking parameter changed', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'feed-identity-lib-'));
    const log = createLogger({ level: 'silent' });
    const at = (n: number) => item({ title: 'Tracked', enclosure: `https://cdn.example/tracked.mp3?updated=${n}` });
    const episodes = join(dir, 'library', 'episodes');
    try {
      await writeFile(join(dir, 'feed.xml'), FEED([item({ title: 'Guid', guid: 'g-1' }), at(1)].join('\n')));
      await runImport({ source: join(dir, 'feed.xml'), out: join(dir, 'library'), slug: 'show', owner: 'u_me', log });
      // What the importer before one identity wrote: the item under the id of its whole enclosure URL.
      const oldId = episodeIdOf('show', 'https://show.example/', 'https://cdn.example/tracked.mp3?updated=1');
      for (const name of await readdir(episodes)) {
        const record = JSON.parse(await readFile(join(episodes, name), 'utf8')) as EpisodeRecord;
        if (record.title !== 'Tracked') continue;
        await rename(join(episodes, name), join(episodes, `${oldId}.json`));
        await writeFile(join(episodes, `${oldId}.json`), JSON.stringify({ ...record, id: oldId }));
      }
      await writeFile(join(dir, 'feed.xml'), FEED([item({ title: 'Guid', guid: 'g-1' }), at(2)].join('\n')));
      const again = await runImport({ source: join(dir, 'feed.xml'), out: join(dir, 'library'), slug: 'show', owner: 'u_me', log });
      expect(again.created).to.equal(0);
      const names = await readdir(episodes);
      expect(names).to.have.length(2).and.include(`${oldId}.json`);
      const kept = JSON.parse(await readFile(join(episodes, `${oldId}.json`), 'utf8')) as EpisodeRecord;
      expect(kept).to.include({ id: oldId, mediaUrl: 'https://cdn.example/tracked.mp3?updated=2' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
