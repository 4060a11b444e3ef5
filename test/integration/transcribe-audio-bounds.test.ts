// Security review 2026-11-27, items 2 and 3, through the transcription client and the real local service behind a
// counting relay: an HLS playlist naming a local file, and an MP3 whose header lies about its length, are refused
// before anything is sent. The first as the review found it: padded past the upload limit, so the old client
// transcoded the local file and uploaded its speech.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { describeTranscribeError, TranscribeError, transcribeFile, type TranscribeOptions } from '../../pipeline/transcribe/transcribe.js';
import { startCountingRelay } from '../../scripts/lib/fakes/feed-server.js';
import { hlsPlaylist, spoofedMp3 } from '../support/hostile-audio.js';
import { speak } from '../../scripts/lib/fakes/speech.js';

describe('transcription: audio that misleads ffmpeg never reaches the service', function () {
  this.timeout(180_000);
  let dir: string;
  let relay: Awaited<ReturnType<typeof startCountingRelay>>;
  const opts = (o: Partial<TranscribeOptions> = {}): TranscribeOptions => ({ url: relay.url, model: 'base', maxUploadBytes: 45_000, timeoutMs: 60_000, maxSeconds: 600, ...o });

  before(async function () {
    const given = process.env.TRANSCRIBE_URL;
    if (!given) throw new Error('TRANSCRIBE_URL is not set: run `npm run services -- up` (or npm test, which provisions it)');
    relay = await startCountingRelay(given);
    dir = await mkdtemp(path.join(tmpdir(), 'cca-audio-bounds-it-'));
  });

  after(async function () {
    await relay?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses an HLS playlist naming a local spoken file as bad_audio and sends nothing', async function () {
    const secret = path.join(dir, 'secret.mp3');
    await speak(['The secret password is swordfish.', 'Nobody outside may hear it.'], secret);
    const download = path.join(dir, 'audio');
    // Padded past the upload limit: the old client then transcoded "the audio", i.e. the local file, and sent it.
    await writeFile(download, hlsPlaylist(secret) + '#\n'.repeat(30_000));
    const err = await transcribeFile(download, opts()).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TranscribeError).with.property('code', 'bad_audio');
    expect(describeTranscribeError(err as TranscribeError)).to.equal('the audio could not be read (it is not a supported audio file, or it is damaged)');
    expect(relay.count(), 'requests to the transcription service').to.equal(0);
  });

  it('refuses an MP3 that claims 1 s and holds 60 s as too long for a 20 s cap, and sends nothing', async function () {
    const file = await spoofedMp3(dir, { claims: 1, holds: 60 });
    const err = await transcribeFile(file, opts({ maxSeconds: 20, maxUploadBytes: 24 * 1024 ** 2 })).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TranscribeError).with.property('code', 'too_long');
    expect(relay.count(), 'requests to the transcription service').to.equal(0);
  });
});
