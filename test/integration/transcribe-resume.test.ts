// Long audio resumes (issue 42 item 3): a worker killed part way through an episode of several pieces leaves the pieces
// it finished beside the episode, and the next worker sends the service only the rest; the transcript is the one an
// uninterrupted run makes. Through the real worker (a child process, SIGKILLed), queue, store and transcription service.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { decodeChecked, planPieces } from '../../pipeline/transcribe/audio.js';
import { piecesDirOf } from '../../pipeline/transcribe/pieces.js';
import { transcribeFile, transcriptRecord } from '../../pipeline/transcribe/transcribe.js';
import { episodePath } from '../../core/library/layout.js';
import { readEpisodeRecord } from '../../core/library/reader.js';
import { loadConfig } from '../../core/config/load.js';
import { runScript, type Child } from '../../scripts/lib/child.js';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow, until, type FollowStore } from '../support/follow-env.js';
import { speak } from '../../scripts/lib/fakes/speech.js';
import { startTranscribeRelay, type TranscribeRelay } from '../support/transcribe-relay.js';
import { skipUnprovisioned } from '../support/skip.js';

const TRANSCRIBE_URL = process.env.TRANSCRIBE_URL;
const SLUG = 'long-talks';
/** The smallest upload limit: pieces of at most 14 s, so a minute of speech is several pieces. */
const MAX_UPLOAD_BYTES = 64 * 1024;
const SENTENCES = [
  'Welcome to a long talk about rivers and the towns built beside them.',
  'The first bridges were made of rope and wooden planks.',
  'Later the engineers poured stone piers into the riverbed.',
  'A mill needs a steady current to turn its wheel all year.',
  'In spring the snow melts and the water rises quickly.',
  'Farmers moved their animals to higher fields before the flood.',
  'The ferry carried carts across before the iron bridge was opened.',
  'Fish ladders help salmon climb past the weirs each autumn.',
  'Barges brought coal downstream and grain back up again.',
  'Today the old towpath is a quiet trail for walkers and cyclists.',
  'Volunteers test the water every month for nitrates and bacteria.',
  'That is all for this long talk about rivers, thank you for listening.',
];

describe('transcription: a long episode resumes where its worker was killed', function () {
  this.timeout(600_000);
  let store: FollowStore;
  let relay: TranscribeRelay;
  let feed: FeedServer;
  let audioDir: string;
  let audio: string;
  let env: Record<string, string>;
  const workers: Child[] = [];

  const startWorker = (): Child => {
    const w = runScript('bin/worker.ts', ['--lock-duration', '3000', '--stalled-interval', '1000', '--no-webhooks'], { ...process.env, ...env });
    workers.push(w);
    return w;
  };

  before(async function () {
    if (!TRANSCRIBE_URL) skipUnprovisioned(this, 'TRANSCRIBE_URL is not set (the real transcriber: `npm run services -- up` prints it)');
    store = await openFollowStore('transcribe-resume');
    relay = await startTranscribeRelay(TRANSCRIBE_URL!);
    audioDir = await mkdtemp(join(tmpdir(), 'transcribe-resume-audio-'));
    audio = join(audioDir, 'long.mp3');
    await speak(SENTENCES, audio, { gapMs: 900 });
    feed = await startFeedServer({ title: 'Long Talks' });
    feed.setFile('/audio/long.mp3', await readFile(audio), 'audio/mpeg');
    feed.addItem({ guid: 'rivers', title: 'Rivers', pubDate: new Date(Date.UTC(2026, 10, 20)), enclosure: '/audio/long.mp3' });
    env = { ...store.env, TRANSCRIBE_URL: relay.url, TRANSCRIBE_MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES), ENRICH: 'off' };
  });

  after(async function () {
    for (const w of workers.splice(0)) if (w.alive()) w.process.kill('SIGKILL');
    await feed?.close();
    await relay?.close();
    await store?.drop();
    if (audioDir) await rm(audioDir, { recursive: true, force: true });
  });

  it('sends only the pieces not transcribed before the kill, and publishes the transcript of an uninterrupted run', async function () {
    const work = await mkdtemp(join(tmpdir(), 'transcribe-resume-plan-'));
    const total = await decodeChecked(audio, { workDir: work })
      .then((decoded) => planPieces(decoded, MAX_UPLOAD_BYTES).length)
      .finally(() => rm(work, { recursive: true, force: true }));
    expect(total, 'the episode is cut into several pieces').to.be.at.least(4);
    const done = total - 2; // killed while the piece after these is at the service

    const followed = await runFollow([feed.feedUrl, '--channel', SLUG, '--owner', 'u_creator'], env);
    expect(followed.code, followed.stderr).to.equal(0);
    const dir = join(store.libraryDir, SLUG);
    const [file] = await readdir(join(dir, 'episodes'));
    const episodeId = file!.replace(/\.json$/, '');
    const piecesDir = piecesDirOf(episodePath(dir, episodeId));

    relay.holdAfter(done);
    const first = startWorker();
    await until('the worker to send the piece after the ones it finished', () => relay.count() === done + 1 || !first.alive(), { timeoutMs: 300_000 });
    expect(first.alive(), first.stderr()).to.equal(true);
    const kept = (await readdir(piecesDir)).filter((n) => n.endsWith('.json'));
    expect(kept, 'the finished pieces are kept beside the episode').to.have.length(done);
    first.process.kill('SIGKILL');
    await first.exited;

    relay.reset();
    startWorker();
    await until('the episode to be published', async () => (await readEpisodeRecord(dir, episodeId))?.status === 'published', { timeoutMs: 300_000 });
    expect(relay.count(), 'transcription requests after the restart').to.equal(total - done);
    // Removed right after the published write.
    const gone = () =>
      readdir(piecesDir).then(
        () => false,
        (err: NodeJS.ErrnoException) => err.code === 'ENOENT',
      );
    await until('the pieces folder to be removed once the transcript is written', gone, { timeoutMs: 30_000 });

    const cfg = loadConfig({ ...process.env, ...env });
    const whole = await transcribeFile(audio, {
      url: TRANSCRIBE_URL!,
      model: cfg.pipeline.transcribe.model,
      language: 'en',
      maxUploadBytes: MAX_UPLOAD_BYTES,
      timeoutMs: cfg.pipeline.transcribe.timeoutMs,
    });
    const published = await readEpisodeRecord(dir, episodeId);
    expect(published?.transcript).to.deep.equal(transcriptRecord(whole));
  });

  it('never reuses pieces of other audio or another model: each is sent again', async function () {
    const piecesDir = join(audioDir, 'direct.pieces');
    const cfg = loadConfig({ ...process.env, ...env });
    const run = (file: string, model = cfg.pipeline.transcribe.model) =>
      transcribeFile(file, { url: relay.url, model, language: 'en', maxUploadBytes: MAX_UPLOAD_BYTES, timeoutMs: cfg.pipeline.transcribe.timeoutMs, piecesDir });
    const short = join(audioDir, 'short.mp3');
    await speak(SENTENCES.slice(0, 4), short, { gapMs: 900 });
    relay.reset();
    const once = await run(short);
    const sent = relay.count();
    expect(sent).to.equal(once.pieces).and.be.at.least(2);
    expect((await run(short)).piecesReused, 'the same audio and model').to.equal(sent);
    expect(relay.count()).to.equal(sent);
    expect((await run(short, 'whisper-other')).piecesReused, 'another model').to.equal(0);
    expect(relay.count()).to.equal(2 * sent);
    const changed = join(audioDir, 'changed.mp3');
    await speak(SENTENCES.slice(4, 8), changed, { gapMs: 900 });
    const other = await run(changed, 'whisper-other');
    expect(other.piecesReused, 'other audio, the same model').to.equal(0);
    expect(relay.count()).to.equal(2 * sent + other.pieces!);
  });
});
