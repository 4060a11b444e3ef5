// Throughput that grows with machines (issue 42 item 4): two workers on one queue and two transcription services in
// TRANSCRIBE_URL share the episodes without doing one twice, and a service that is down is passed over while the other
// takes its pieces. The real queue, store and transcription service (behind two counting relays).
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { readEpisodeRecord } from '../../core/library/reader.js';
import type { PipelineWorkers } from '../../pipeline/follow/worker.js';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow, startSuiteWorkers, until, type FollowStore } from '../support/follow-env.js';
import { speak } from '../../scripts/lib/fakes/speech.js';
import { startTranscribeRelay, type TranscribeRelay } from '../support/transcribe-relay.js';
import { skipUnprovisioned } from '../support/skip.js';

const TRANSCRIBE_URL = process.env.TRANSCRIBE_URL;
const SLUG = 'shared-work';
const SPOKEN = [
  'The lighthouse keeper climbs ninety steps every evening.',
  'Our choir sings in the old church on Sundays.',
  'A good compass points north even in the fog.',
  'The baker sells rye bread until noon.',
  'Swallows return to the barn every April.',
  'The tram line ends at the university gates.',
  'Tea leaves unfold slowly in hot water.',
];

describe('transcription: two workers and two services share the episodes', function () {
  this.timeout(600_000);
  let store: FollowStore;
  let relays: TranscribeRelay[] = [];
  let feed: FeedServer;
  let audioDir: string;
  let env: Record<string, string>;
  const workers: PipelineWorkers[] = [];
  /** Completed processing jobs, by job id, from both workers. */
  const completed: string[] = [];

  before(async function () {
    if (!TRANSCRIBE_URL) skipUnprovisioned(this, 'TRANSCRIBE_URL is not set (the real transcriber: `npm run services -- up` prints it)');
    store = await openFollowStore('transcribe-services');
    relays = [await startTranscribeRelay(TRANSCRIBE_URL!), await startTranscribeRelay(TRANSCRIBE_URL!)];
    audioDir = await mkdtemp(join(tmpdir(), 'transcribe-services-audio-'));
    feed = await startFeedServer({ title: 'Shared Work' });
    for (const [i, sentence] of SPOKEN.entries()) {
      const file = join(audioDir, `item-${i}.mp3`);
      await speak([sentence], file);
      feed.setFile(`/audio/item-${i}.mp3`, await readFile(file), 'audio/mpeg');
    }
    env = { ...store.env, TRANSCRIBE_URL: relays.map((r) => r.url).join(','), ENRICH: 'off' };
    for (let w = 0; w < 2; w++) {
      const started = await startSuiteWorkers({ client: store.client, prefix: store.prefix, env, embeddings: store.embeddings, lockDurationMs: 5000, stalledIntervalMs: 2000 });
      started.process.on('completed', (job) => completed.push(job.id!));
      workers.push(started);
    }
  });

  after(async function () {
    for (const w of workers.splice(0)) await w.close();
    await feed?.close();
    for (const r of relays) await r.close();
    await store?.drop();
    if (audioDir) await rm(audioDir, { recursive: true, force: true });
  });

  const addItems = (from: number, to: number) => {
    for (let i = from; i < to; i++) feed.addItem({ guid: `item-${i}`, title: `Item ${i}`, pubDate: new Date(Date.UTC(2026, 10, 1 + i)), enclosure: `/audio/item-${i}.mp3` });
  };
  const published = async () => {
    const dir = join(store.libraryDir, SLUG);
    const ids = (await readdir(join(dir, 'episodes'))).filter((n) => n.endsWith('.json')).map((n) => n.replace(/\.json$/, ''));
    const records = await Promise.all(ids.map((id) => readEpisodeRecord(dir, id)));
    return records.filter((r) => r?.status === 'published').length;
  };

  it('transcribes each episode once, its pieces spread over both services and its jobs over both workers', async function () {
    addItems(0, 4);
    const followed = await runFollow([feed.feedUrl, '--channel', SLUG, '--owner', 'u_creator'], env);
    expect(followed.code, followed.stderr).to.equal(0);
    await until('four episodes published', async () => (await published()) === 4, { timeoutMs: 300_000 });
    const counts = relays.map((r) => r.count());
    expect(counts[0]! + counts[1]!, 'transcription requests: one per episode').to.equal(4);
    expect(Math.min(...counts), `requests per service ${counts.join(', ')}`).to.be.at.least(1);
    // A job completes just after its episode's published write.
    await until('four jobs completed', () => completed.length >= 4, { timeoutMs: 30_000 });
    expect(completed).to.have.length(4);
    expect(new Set(completed).size, 'jobs completed, each once').to.equal(4);
  });

  it('passes over a service that answers 503, the other taking its pieces: every episode published', async function () {
    relays.forEach((r) => r.reset());
    relays[1]!.refuse(true);
    addItems(4, 7);
    const polled = await runFollow(['--poll', SLUG], env);
    expect(polled.code, polled.stderr).to.equal(0);
    await until('seven episodes published', async () => (await published()) === 7, { timeoutMs: 300_000 });
    expect(relays[0]!.count(), 'requests to the service that answers').to.equal(3);
    // Each worker's pool tries the refusing service at most once before its cooldown (60 s) is over.
    expect(relays[1]!.count(), 'requests to the refusing service').to.be.at.most(2);
    await until('seven jobs completed', () => completed.length >= 7, { timeoutMs: 30_000 });
    expect(new Set(completed).size, 'jobs completed, each once').to.equal(7);
  });
});
