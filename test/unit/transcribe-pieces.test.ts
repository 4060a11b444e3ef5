// The pieces kept beside an episode while it is transcribed: what a later run of the same audio finds, and that a
// piece of another run (another file, model, language or cut plan) is never taken for one of this run.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { withLibraryLock } from '../../core/library/writer.js';
import { listEpisodeFiles } from '../../core/library/reader.js';
import { openPieces, piecesDirOf, piecesKey } from '../../pipeline/transcribe/pieces.js';
import type { RawTranscript } from '../../pipeline/transcribe/types.js';

const plan = [
  { offsetSeconds: 0, seconds: 12.5 },
  { offsetSeconds: 12.5, seconds: 10 },
];
const answer = (text: string): RawTranscript => ({ language: 'en', duration: 2, segments: [{ start: 0, end: 2, text }], words: [{ word: text, start: 0, end: 2 }] });
const key = (over: Partial<Parameters<typeof piecesKey>[0]> = {}) => piecesKey({ audioSha256: 'a'.repeat(64), model: 'base', language: 'en', plan, ...over });

/** Another writer holding `channel`'s lock, resolved once it holds it; it lets go on `release`. */
async function heldByAnotherWriter(channel: string): Promise<{ release: () => void; other: Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const taken = new Promise<void>((resolve) => (holding = resolve));
  const other = withLibraryLock(channel, async () => {
    holding();
    await held;
  });
  await taken;
  return { release, other };
}

describe('transcription pieces kept beside the episode', function () {
  let dir: string;

  beforeEach(async function () {
    dir = join(await mkdtemp(join(tmpdir(), 'cca-pieces-')), 'ep_1.pieces');
  });

  afterEach(async function () {
    await rm(join(dir, '..'), { recursive: true, force: true });
  });

  it('lives beside the episode file under a name no library reader takes for an episode', async function () {
    const library = join(dir, '..', 'library');
    const episode = join(library, 'episodes', 'ep_1.json');
    expect(piecesDirOf(episode)).to.equal(join(library, 'episodes', 'ep_1.pieces'));
    const pieces = await openPieces(piecesDirOf(episode), { key: key(), count: 2 });
    await pieces.save(0, plan[0]!, answer('hello'));
    await writeFile(episode, '{}');
    expect(await listEpisodeFiles(library)).to.deep.equal([episode]);
  });

  it('finds the pieces a run saved when the same run opens them again', async function () {
    const first = await openPieces(dir, { key: key(), count: 2 });
    expect(first.done).to.deep.equal([undefined, undefined]);
    await first.save(0, plan[0]!, answer('hello'));
    const again = await openPieces(dir, { key: key(), count: 2 });
    expect(again.done[0]).to.deep.equal(answer('hello'));
    expect(again.done[1]).to.equal(undefined);
  });

  it('writes each piece under the lock it is given, so a piece never lands while another writer holds the folder', async function () {
    const channel = join(dir, '..', 'channel');
    const pieces = join(channel, 'episodes', 'ep_1.pieces');
    const lock = <T>(fn: () => Promise<T>) => withLibraryLock(channel, fn);
    const store = await openPieces(pieces, { key: key(), count: 2, lock });
    const { release, other } = await heldByAnotherWriter(channel);
    let saved = false;
    const saving = store.save(0, plan[0]!, answer('hello')).then(() => (saved = true));
    // The other writer holds the folder: the piece waits for it (the lock polls; give it several turns).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(saved).to.equal(false);
    expect(await readdir(pieces).catch(() => [])).to.deep.equal([]);
    release();
    await Promise.all([other, saving]);
    expect((await openPieces(pieces, { key: key(), count: 2, lock })).done[0]).to.deep.equal(answer('hello'));
  });

  it('reads the folder under the lock it is given, so a stale folder is not removed while another writer holds it', async function () {
    const channel = join(dir, '..', 'channel');
    const pieces = join(channel, 'episodes', 'ep_1.pieces');
    const lock = <T>(fn: () => Promise<T>) => withLibraryLock(channel, fn);
    await (await openPieces(pieces, { key: key({ model: 'other' }), count: 2, lock })).save(0, plan[0]!, answer('stale'));
    const { release, other } = await heldByAnotherWriter(channel);
    let opened = false;
    const opening = openPieces(pieces, { key: key(), count: 2, lock }).then((store) => ((opened = true), store));
    // While the other writer holds the folder, the stale piece it may be copying stays where it is.
    let stillThere = true;
    for (let turn = 0; turn < 30 && stillThere && !opened; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      stillThere = (await readdir(pieces).catch(() => [] as string[])).includes('piece-0000.json');
    }
    const beforeRelease = { opened, stillThere };
    release();
    const [, store] = await Promise.all([other, opening]);
    expect(beforeRelease).to.deep.equal({ opened: false, stillThere: true });
    expect(store.done).to.deep.equal([undefined, undefined]);
    expect(await readdir(pieces).catch(() => [])).to.deep.equal([]);
  });

  it('keys a run by the audio, the model, the language and every piece bound', function () {
    const base = key();
    expect(key({ audioSha256: 'b'.repeat(64) })).to.not.equal(base);
    expect(key({ model: 'whisper-1' })).to.not.equal(base);
    expect(key({ language: null })).to.not.equal(base);
    expect(key({ plan: [plan[0]!, { offsetSeconds: 12.5, seconds: 10.001 }] })).to.not.equal(base);
    expect(key()).to.equal(base);
  });

  it('drops the whole folder when it holds a piece of another run, or one it cannot read', async function () {
    const other = await openPieces(dir, { key: key({ model: 'other' }), count: 2 });
    await other.save(1, plan[1]!, answer('stale'));
    const mine = await openPieces(dir, { key: key(), count: 2 });
    expect(mine.done).to.deep.equal([undefined, undefined]);
    expect(await readdir(dir).catch(() => [])).to.deep.equal([]);
    await mine.save(0, plan[0]!, answer('fresh'));
    await writeFile(join(dir, 'piece-0001.json'), '{"half');
    expect((await openPieces(dir, { key: key(), count: 2 })).done).to.deep.equal([undefined, undefined]);
  });
});
