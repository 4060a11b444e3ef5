// The library folder's room (core/library/): the follow state checked on read and before it is written, the fields
// the importer and the follower write declared in the schema, single records checked both ways, and no other code
// of the pipeline, the importer or the indexer reading or writing library files by hand.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { ARCHIVED_BY, EPISODE_LIMITS, type EpisodeRecord } from '../../core/contract/library-format.js';
import { checkChannel, checkEpisode } from '../../core/library/checks.js';
import { FollowStateError, listStates, readState, writeState, type FollowState } from '../../core/library/follow-state.js';
import { episodePath, LIBRARY_FILES } from '../../core/library/layout.js';
import { readEpisodeRecord } from '../../core/library/reader.js';
import { RecordRefusedError, writeEpisodeRecord } from '../../core/library/writer.js';
import { newState } from '../../pipeline/follow/commands.js';
import { PROJECT_ROOT } from '../../scripts/ops/provision/paths.js';

/** A followed source with one item, as a first follow writes it and a poll fills it. */
const state = (slug: string): FollowState => ({
  ...newState(slug, 'feed', `https://example.org/${slug}.xml`, 'u_owner', false, new Date('2026-12-01T00:00:00.000Z')),
  itemsSeen: 1,
  items: { ep_one: { key: 'guid-1', enclosureUrl: 'https://example.org/1.mp3', transcripts: [], chaptersUrl: null, notes: null, digest: 'd1' } },
});

const episode = (over: Partial<EpisodeRecord> = {}): EpisodeRecord => ({
  id: 'ep_one',
  channelId: 'ch_show',
  title: 'One',
  publishedAt: '2026-01-02T03:04:05.000Z',
  status: 'published',
  transcript: { formatVersion: 1, segments: [{ speakerLabel: null, startMs: 0, endMs: 1000, text: 'hello there' }] },
  chapters: [],
  ...over,
});

describe('library room: the follow state is a schema checked on read', function () {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'cca-room-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads back what it wrote, and refuses a follow.json that fails the schema with a sentence naming the file and the field', async function () {
    await writeState(dir, state('good'));
    expect(await readState(dir, 'good')).to.deep.equal(state('good'));
    const broken = { ...state('bad'), items: { ep_one: { ...state('bad').items.ep_one!, digest: 42 } } };
    await mkdir(join(dir, 'bad'));
    await writeFile(join(dir, 'bad', LIBRARY_FILES.follow), JSON.stringify(broken));
    const err = await readState(dir, 'bad').catch((e: unknown) => e);
    expect(err).to.be.instanceOf(FollowStateError);
    expect((err as Error).message)
      .to.contain(join(dir, 'bad', 'follow.json'))
      .and.contain('/items/ep_one/digest');
  });

  it('refuses a follow.json that is no JSON, naming the file', async function () {
    await mkdir(join(dir, 'torn'));
    await writeFile(join(dir, 'torn', LIBRARY_FILES.follow), '{"version": 1, "slug": "to');
    const err = await readState(dir, 'torn').catch((e: unknown) => e);
    expect(err).to.be.instanceOf(FollowStateError);
    expect((err as Error).message)
      .to.contain(join(dir, 'torn', 'follow.json'))
      .and.match(/invalid JSON/);
  });

  it('lists the sound states, reports each broken one and leaves it out; a state the schema refuses is never written', async function () {
    await writeState(dir, state('alpha'));
    await writeState(dir, state('gamma'));
    await mkdir(join(dir, 'beta'));
    await writeFile(join(dir, 'beta', LIBRARY_FILES.follow), JSON.stringify({ ...state('beta'), kind: 'ftp' }));
    const broken: string[] = [];
    const listed = await listStates(dir, { onBroken: (e) => broken.push(e.message) });
    expect(listed.map((s) => s.slug)).to.deep.equal(['alpha', 'gamma']);
    expect(broken).to.have.length(1);
    expect(broken[0]).to.contain('beta').and.contain('/kind');

    const before = await readFile(join(dir, 'alpha', LIBRARY_FILES.follow), 'utf8');
    const err = await writeState(dir, { ...state('alpha'), itemsSeen: -1 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(FollowStateError);
    expect(await readFile(join(dir, 'alpha', LIBRARY_FILES.follow), 'utf8')).to.equal(before);
  });
});

describe('library room: the fields the importer and the follower write are declared', function () {
  it('accepts archivedBy with the two values that write it, and refuses any other', function () {
    for (const by of Object.values(ARCHIVED_BY)) expect(checkEpisode(episode({ status: 'archived', archivedBy: by })).ok, by).to.equal(true);
    expect(checkEpisode(episode({ status: 'archived', archivedBy: null })).ok).to.equal(true);
    const refused = checkEpisode({ ...episode({ status: 'archived' }), archivedBy: 'someone' });
    expect(refused.ok).to.equal(false);
    expect(!refused.ok && refused.reason).to.match(/^\/archivedBy /);
  });

  it("declares the channel's description, artwork and source: a wrong type is refused with its pointer", function () {
    const channel = { id: 'ch_show', slug: 'show', title: 'Show', providerType: 'rss', ownerId: 'u_o', memberIds: ['u_o'] };
    expect(checkChannel({ ...channel, description: 'About gardens', artwork: 'https://example.org/a.png', source: { kind: 'rss', id: 'g' } }).ok).to.equal(true);
    for (const [field, value] of [
      ['description', 7],
      ['artwork', ['x']],
      ['source', { kind: 'ftp', id: 'g' }],
    ] as const) {
      const checked = checkChannel({ ...channel, [field]: value });
      expect(checked.ok, field).to.equal(false);
      expect(!checked.ok && checked.reason, field).to.match(new RegExp(`^/${field}`));
    }
  });
});

describe('library room: one episode read and written through the checks', function () {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'cca-room-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('refuses to write a record over a cap (RecordRefusedError, nothing written), and refuses to read one, naming the file', async function () {
    const long = 'a'.repeat(EPISODE_LIMITS.segmentChars + 1);
    const over = episode({ transcript: { formatVersion: 1, segments: [{ speakerLabel: null, startMs: 0, endMs: 1000, text: long }] } });
    const err = await writeEpisodeRecord(dir, over).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RecordRefusedError);
    expect((err as Error).message).to.match(/ep_one: \/transcript\/segments\/0 has 30,001 characters/);
    expect(await readdir(dir)).to.deep.equal([]);

    await writeEpisodeRecord(dir, episode());
    expect(await readEpisodeRecord(dir, 'ep_one')).to.deep.equal(episode());
    await writeFile(episodePath(dir, 'ep_one'), JSON.stringify(over));
    const read = await readEpisodeRecord(dir, 'ep_one').catch((e: unknown) => e);
    expect((read as Error).message)
      .to.contain(episodePath(dir, 'ep_one'))
      .and.contain('30,001 characters');
    expect(await readEpisodeRecord(dir, 'ep_none')).to.equal(undefined);
  });
});

describe('library room: nothing else reads or writes library files', function () {
  /** Every .ts file under `folder`. */
  async function sources(folder: string): Promise<string[]> {
    const entries = await readdir(join(PROJECT_ROOT, folder), { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => relative(PROJECT_ROOT, join(e.parentPath, e.name)));
  }
  // What may read a file by hand there, and why: the audio a transcription uploads is no library file.
  const ALLOWED = new Map([['pipeline/transcribe/request.ts', /readFile\(file\)/]]);
  const BY_HAND = [
    /\b(readFile|writeFile|appendFile|createWriteStream)\s*\(/,
    /from 'proper-lockfile'/,
    /'(users|channels|topics|people|entities|collections|follow|channel-stats)\.json'/,
    /join\([^)]*'episodes'/,
  ];

  it('pipeline/, importer/ and indexer/ hold no file read or write, lock, or library file name of their own', async function () {
    const found: string[] = [];
    for (const folder of ['pipeline', 'importer', 'indexer']) {
      for (const file of await sources(folder)) {
        const text = await readFile(join(PROJECT_ROOT, file), 'utf8');
        text.split('\n').forEach((line, i) => {
          if (line.trimStart().startsWith('//') || line.trimStart().startsWith('*')) return;
          for (const pattern of BY_HAND) if (pattern.test(line) && !ALLOWED.get(file)?.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    expect(found, found.join('\n')).to.deep.equal([]);
  });
});
