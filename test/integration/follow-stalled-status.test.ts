// Issue 42 item 5 (the catalog keeps `queued` honest) through a real worker process killed mid-episode, the real
// queue and store: once the dead worker's job is back in the queue the episode says `pending` (the API's `queued`),
// not `processing`, until a worker runs it again. Items carry their transcript files behind a gate that answers only
// as the test releases it, so nothing waits on the transcriber and no clock is in an assertion.
import { expect } from 'chai';
import { indexAliases } from '../../core/store/opensearch.js';
import { runScript, type Child } from '../../scripts/lib/child.js';
import type { PipelineWorkers } from '../../pipeline/follow/worker.js';
import { startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow, startSuiteWorkers, until, type FollowStore } from '../support/follow-env.js';
import { startReleaseGate, type Gate } from '../support/release-gate.js';

/** Transcript files (`/t/<name>.srt`) answered only once the test opens the gate. */
function startGate(): Promise<Gate> {
  return startReleaseGate(
    (url) => url.replace(/^\/t\//, '').replace(/\.srt$/, ''),
    (name, res) => {
      res.writeHead(200, { 'Content-Type': 'application/srt' });
      res.end(`1\n00:00:00,000 --> 00:00:02,000\nThis is episode ${name}.\n`);
    },
  );
}

describe('follow: the catalog status of an episode whose worker died', function () {
  this.timeout(300_000);
  let store: FollowStore;
  let env: Record<string, string>;
  let gate: Gate;
  let feed: FeedServer;
  let child: Child | undefined;
  let workers: PipelineWorkers | undefined;

  const statuses = async (): Promise<Map<string, string>> => {
    const index = indexAliases(store.prefix).episodes;
    await store.client.indices.refresh({ index });
    const res = await store.client.search({ index, body: { size: 10, query: { term: { channelId: 'ch_stalled-radio' } } } } as never);
    return new Map((res.body as { hits: { hits: { _source: { title: string; status: string } }[] } }).hits.hits.map((h) => [h._source.title, h._source.status]));
  };

  before(async function () {
    store = await openFollowStore('follow-stalled');
    gate = await startGate();
    env = { ...store.env, FOLLOW_RECENT_DAYS: '7', FOLLOW_RECENT_ITEMS: '0' };
    const recent = (hours: number) => new Date(Date.now() - hours * 3600_000);
    feed = await startFeedServer({
      title: 'Stalled Radio',
      items: [
        { guid: 'x', title: 'Episode x', pubDate: recent(1), transcript: { path: `${gate.url}/t/x.srt`, type: 'application/srt' } },
        { guid: 'y', title: 'Episode y', pubDate: recent(2), transcript: { path: `${gate.url}/t/y.srt`, type: 'application/srt' } },
      ],
    });
  });

  after(async function () {
    if (child?.alive()) child.process.kill('SIGKILL');
    await workers?.close();
    await feed?.close();
    await gate?.close();
    await store?.drop();
  });

  it('says pending while the dead worker’s job waits behind the episode another worker runs, and publishes both', async function () {
    const run = await runFollow([feed.feedUrl, '--channel', 'stalled-radio', '--owner', 'u_creator'], env);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/2 queued for transcription/);

    // A worker process takes the newest episode, then dies while its transcript file is being read.
    child = runScript('bin/worker.ts', ['--lock-duration', '3000', '--stalled-interval', '1000'], { ...process.env, ...env, TRANSCRIBE_CONCURRENCY: '1' });
    await until('the worker process asks for x', () => gate.arrivals.includes('x'), { timeoutMs: 180_000 });
    expect((await statuses()).get('Episode x')).to.equal('processing');
    // Another worker takes y (its only slot), so x, once back in the queue, waits.
    workers = await startSuiteWorkers({
      client: store.client,
      prefix: store.prefix,
      env,
      embeddings: store.embeddings,
      concurrency: 1,
      lockDurationMs: 3000,
      stalledIntervalMs: 1000,
    });
    await until('the second worker asks for y', () => gate.arrivals.includes('y'));
    child.process.kill('SIGKILL');
    await child.exited;

    await until('x shows pending again', async () => (await statuses()).get('Episode x') === 'pending', { timeoutMs: 60_000 });
    expect((await statuses()).get('Episode y'), 'the episode a worker runs').to.equal('processing');

    gate.open();
    await until('both published', async () => [...(await statuses()).values()].every((s) => s === 'published'));
    expect(
      gate.arrivals.filter((n) => n === 'x'),
      'x read again by the worker that took it over',
    ).to.have.length(2);
  });
});
