// Security review 2026-11-27, items 2 and 3, on the audio side (ffmpeg and ffprobe only, no service): a downloaded
// file is read only with an accepted container demuxer and only from itself, its length is what decoding it gives,
// never what its header claims, and what is uploaded is always a piece we encoded, no larger than the upload limit.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { x } from 'tinyexec';
import { checkPieceSize, prepareAudio, probeAudio } from '../../pipeline/transcribe/audio.js';
import { describeTranscribeError, TranscribeError } from '../../pipeline/transcribe/transcribe.js';
import { hlsPlaylist, spoofedMp3 } from '../support/hostile-audio.js';
import { speak } from '../../scripts/lib/fakes/speech.js';

describe('transcription audio: what ffmpeg may read and how much', function () {
  this.timeout(120_000);
  let dir: string;
  let work: string;

  beforeEach(async function () {
    dir = await mkdtemp(path.join(tmpdir(), 'cca-audio-bounds-'));
    work = await mkdtemp(path.join(tmpdir(), 'cca-audio-bounds-work-'));
  });

  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });

  it('measures the length by decoding: an MP3 whose header claims 1 s and holds 60 s is too long for a 20 s cap', async function () {
    const file = await spoofedMp3(dir, { claims: 1, holds: 60 });
    // The container's claim, as ffprobe reads it: what the old check trusted.
    expect((await probeAudio(file)).claimedSeconds).to.be.below(2);
    const err = await prepareAudio(file, { maxSeconds: 20, maxUploadBytes: 24 * 1024 ** 2, workDir: work }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TranscribeError).with.property('code', 'too_long');
    // Under a cap it fits, it is measured at its real length, and the one piece holds all of it.
    const { seconds, pieces } = await prepareAudio(file, { maxSeconds: 100, maxUploadBytes: 24 * 1024 ** 2, workDir: work });
    expect(seconds).to.be.closeTo(61, 0.5);
    expect(pieces).to.have.length(1);
    expect((await stat(pieces[0]!.path)).size, '32 kbps of 61 s').to.be.closeTo(61 * 4000, 4000);
  });

  it('refuses an HLS playlist naming a local audio file as bad_audio, saying the same whether the path exists or not', async function () {
    const secret = path.join(dir, 'secret.mp3');
    await speak(['The secret password is swordfish.'], secret);
    const download = path.join(work, 'audio');
    const refusal = async (target: string) => {
      await writeFile(download, hlsPlaylist(target));
      const err = await prepareAudio(download, { maxSeconds: 600, maxUploadBytes: 24 * 1024 ** 2, workDir: work }).catch((e: unknown) => e);
      expect(err, target).to.be.instanceOf(TranscribeError).with.property('code', 'bad_audio');
      return err as TranscribeError;
    };
    const existing = await refusal(secret);
    const missing = await refusal(path.join(dir, 'no-such-file.mp3'));
    expect(describeTranscribeError(existing)).to.equal('the audio could not be read (it is not a supported audio file, or it is damaged)');
    expect(describeTranscribeError(missing)).to.equal(describeTranscribeError(existing));
    expect(missing.message, 'even the log line is the same').to.equal(existing.message);
  });

  it('never hands back the downloaded bytes: a small WAV becomes one 16 kHz mono MP3 piece of its length', async function () {
    const file = path.join(dir, 'speech.wav');
    await speak(['A short line to transcribe.'], file);
    const { seconds, pieces } = await prepareAudio(file, { maxSeconds: 600, maxUploadBytes: 24 * 1024 ** 2, workDir: work });
    expect(pieces).to.have.length(1);
    expect(pieces[0]!.path).to.not.equal(file);
    const probed = await x('ffprobe', ['-v', 'error', '-show_entries', 'format=format_name:stream=sample_rate,channels', '-of', 'json', pieces[0]!.path]);
    const info = JSON.parse(probed.stdout) as { format: { format_name: string }; streams: { sample_rate: string; channels: number }[] };
    expect(info.format.format_name).to.equal('mp3');
    expect(info.streams[0]).to.include({ sample_rate: '16000', channels: 1 });
    expect(pieces[0]!.seconds).to.equal(seconds);
  });

  it('cuts long audio into pieces each within the upload limit, and refuses a piece over it (piece_too_large)', async function () {
    const file = await spoofedMp3(dir, { claims: 1, holds: 40 });
    const maxUploadBytes = 45_000;
    const { pieces } = await prepareAudio(file, { maxSeconds: 600, maxUploadBytes, workDir: work });
    expect(pieces.length).to.be.at.least(4);
    for (const p of pieces) {
      expect((await stat(p.path)).size, p.path).to.be.at.most(maxUploadBytes);
      await checkPieceSize(p, maxUploadBytes);
    }
    const big = path.join(work, 'big.mp3');
    await writeFile(big, Buffer.alloc(maxUploadBytes + 1));
    const err = await checkPieceSize({ path: big }, maxUploadBytes).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TranscribeError).with.property('code', 'piece_too_large');
  });

  it('kills a run past its deadline (audio_timeout): a FIFO nobody writes to holds ffprobe until then', async function () {
    const fifo = path.join(dir, 'audio');
    await x('mkfifo', [fifo], { throwOnError: true });
    const started = Date.now();
    const err = await probeAudio(fifo, { timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TranscribeError).with.property('code', 'audio_timeout');
    expect(Date.now() - started).to.be.below(10_000);
  });
});
