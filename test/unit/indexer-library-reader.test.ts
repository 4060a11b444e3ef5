import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { countEpisodes, formatIssue, readEpisodes, readLibraryMeta, readLines, type LibraryIssue } from '../../core/library/reader.js';
import { checkEpisode } from '../../core/library/checks.js';

const ep = (id: string, channelId = 'ch_a', extra: object = {}) => ({
  id,
  channelId,
  title: `Episode ${id}`,
  publishedAt: '2024-01-01T00:00:00Z',
  status: 'published',
  transcript: { formatVersion: 1, segments: [{ speakerLabel: null, startMs: 0, endMs: 1000, text: 'Hi.' }] },
  chapters: [],
  ...extra,
});

describe('library reader', function () {
  let dir: string;

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'indexer-reader-'));
    await mkdir(join(dir, 'episodes'));
    await writeFile(
      join(dir, 'users.json'),
      JSON.stringify([
        { id: 'u1', name: 'Owner', plan: 'paid' },
        { id: 'u2', name: 'Bad plan', plan: 7 },
      ]),
    );
    await writeFile(
      join(dir, 'channels.json'),
      JSON.stringify([
        { id: 'ch_a', slug: 'a', title: 'A', providerType: 'rss', ownerId: 'u1', memberIds: [] },
        { id: 'ch_b', slug: 'b', title: 'B', providerType: 'rss', ownerId: 'u_nobody', memberIds: [] },
        { id: 'ch_c', slug: 'Not A Slug', title: 'C', providerType: 'rss', ownerId: 'u1', memberIds: [] },
      ]),
    );
    await writeFile(join(dir, 'topics.json'), JSON.stringify([{ id: 'tp_1', name: 'Farming' }]));
    await writeFile(join(dir, 'collections.json'), JSON.stringify([{ id: 'cl_1', name: 'Best', channelId: 'ch_b' }]));
  });

  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('validates users, channels and facets and checks their cross-references', async function () {
    const meta = await readLibraryMeta(dir);
    expect(meta.users.map((u) => u.id)).to.deep.equal(['u1']);
    expect(meta.channels.map((c) => [c.id, c.memberIds])).to.deep.equal([['ch_a', ['u1']]]);
    expect(meta.facets).to.deep.equal([{ kind: 'topic', record: { id: 'tp_1', name: 'Farming' } }]);
    expect(meta.issues.map(formatIssue)).to.deep.equal([
      `${join(dir, 'users.json')}: item 1: /plan must be string (u2)`,
      `${join(dir, 'channels.json')}: item 2: /slug must match pattern "^[a-z0-9-]{1,63}$" (ch_c)`,
      `${join(dir, 'channels.json')}: unknown user u_nobody (ch_b)`,
      `${join(dir, 'collections.json')}: unknown channel ch_b (cl_1)`,
    ]);
  });

  it("skips a name that claims a channel the library does not hold: it would rename that channel's (decision 33)", async function () {
    await writeFile(
      join(dir, 'people.json'),
      JSON.stringify([
        { id: 'p_john-smith', name: 'John Smith', channelId: 'ch_a' },
        { id: 'p_jane', name: 'Jane', channelId: 'ch_elsewhere' },
      ]),
    );
    const meta = await readLibraryMeta(dir);
    expect(meta.facets.filter((f) => f.kind === 'person').map((f) => f.record.id)).to.deep.equal(['p_john-smith']);
    expect(meta.issues.map(formatIssue)).to.include(`${join(dir, 'people.json')}: unknown channel ch_elsewhere (p_jane)`);
  });

  it('reads .json, .json.gz, .jsonl and .jsonl.gz episodes, reporting each bad one with path and line', async function () {
    const e = join(dir, 'episodes');
    await writeFile(join(e, '1-good.json'), JSON.stringify(ep('ep_1')));
    await writeFile(join(e, '2-good.json.gz'), gzipSync(JSON.stringify(ep('ep_2'))));
    await writeFile(join(e, '3-broken.json'), '{"id": "ep_3", ');
    await writeFile(join(e, '4-many.jsonl'), [ep('ep_4'), ep('ep_5', 'ch_b'), ep('ep_1')].map((x) => JSON.stringify(x)).join('\n') + '\n\n');
    await writeFile(join(e, '5-many.jsonl.gz'), gzipSync([JSON.stringify(ep('ep_6')), '{not json', JSON.stringify(ep('ep_7', 'ch_a', { status: 'live' }))].join('\n')));
    await writeFile(join(e, 'notes.txt'), 'ignored');

    const issues: LibraryIssue[] = [];
    const read: string[] = [];
    for await (const entry of readEpisodes(dir, { channelIds: new Set(['ch_a']), onIssue: (i) => issues.push(i) })) {
      read.push(`${entry.record.id}@${entry.line ?? '-'}`);
    }
    expect(read).to.deep.equal(['ep_1@-', 'ep_2@-', 'ep_4@1', 'ep_6@1']);
    expect(issues.map((i) => [i.path.slice(e.length + 1), i.line, i.id, i.reason.replace(/:.*$/s, ':…')])).to.deep.equal([
      ['3-broken.json', undefined, undefined, 'invalid JSON:…'],
      ['4-many.jsonl', 2, 'ep_5', 'unknown channel ch_b'],
      ['4-many.jsonl', 3, 'ep_1', 'duplicate episode id'],
      ['5-many.jsonl.gz', 2, undefined, 'invalid JSON:…'],
      ['5-many.jsonl.gz', 3, 'ep_7', '/status must be equal to one of the allowed values:…'],
    ]);
    expect(await countEpisodes(dir)).to.equal(9);
  });

  it('reports a truncated gzip stream and keeps the records read before it', async function () {
    const whole = gzipSync([ep('ep_1'), ep('ep_2')].map((x) => JSON.stringify(x)).join('\n') + '\n' + randomBytes(100_000).toString('base64'));
    await writeFile(join(dir, 'episodes', 'cut.jsonl.gz'), whole.subarray(0, whole.length - 200));
    const issues: LibraryIssue[] = [];
    const ids: string[] = [];
    for await (const entry of readEpisodes(dir, { channelIds: new Set(['ch_a']), onIssue: (i) => issues.push(i) })) ids.push(entry.record.id);
    expect(ids).to.deep.equal(['ep_1', 'ep_2']);
    expect(issues).to.have.length(1);
    expect(issues[0]!.reason).to.match(/^cannot read further: /);
  });

  it('streams lines across chunk boundaries, with CRLF and without a final newline', async function () {
    const long = 'y'.repeat(200_000);
    await writeFile(join(dir, 'lines.txt.gz'), gzipSync(`a\r\n${long}\n\nlast`));
    const lines: string[] = [];
    for await (const line of readLines(join(dir, 'lines.txt.gz'))) lines.push(line);
    expect(lines).to.deep.equal(['a', long, '', 'last']);
  });
});

describe('checkEpisode', function () {
  it('accepts additional fields and nulls for optional ones', function () {
    expect(checkEpisode(ep('ep_1', 'ch_a', { extra: { x: 1 }, description: null, transcript: null, chapters: null })).ok).to.equal(true);
  });

  it('refuses times that run backwards, naming where', function () {
    const bad = ep('ep_1', 'ch_a', { transcript: { formatVersion: 1, segments: [{ startMs: 5, endMs: 1, text: 'x' }] } });
    expect(checkEpisode(bad)).to.deep.equal({ ok: false, reason: '/transcript/segments/0 endMs 1 is before startMs 5' });
  });

  it('refuses a transcript format other than version 1 and a word without times', function () {
    expect(checkEpisode(ep('e', 'c', { transcript: { formatVersion: 2, segments: [] } })).ok).to.equal(false);
    const noTime = { formatVersion: 1, segments: [{ startMs: 0, endMs: 1, text: 'x', words: [{ t: 'x', s: 0 }] }] };
    expect(checkEpisode(ep('e', 'c', { transcript: noTime }))).to.deep.equal({ ok: false, reason: "/transcript/segments/0/words/0 must have required property 'e'" });
  });
});
