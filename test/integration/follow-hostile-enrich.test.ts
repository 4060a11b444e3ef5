// A hostile transcript through the real `follow` and `worker` on loopback (issue 47, item 4; security review
// 2026-12-01, finding 1): channel A's feed carries cues of `a'a'a'…a.` just under the per-segment cap
// (EPISODE_LIMITS.segmentChars; the review's 40 KB cues are refused by it), which cost seconds of synchronous CPU each
// in the text steps before they were made linear. Enrichment runs in its own thread with a deadline, so while A is processed the worker's
// metrics endpoint keeps answering within a second and channel B's new episode is published within one episode's
// processing; A is published with its whole transcript.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { EPISODE_LIMITS } from '../../core/contract/library-format.js';
import { freePort, runScript, type Child } from '../../scripts/lib/child.js';
import { feedXml, startFeedServer, type FeedServer } from '../../scripts/lib/fakes/feed-server.js';
import { openFollowStore, runFollow, until, type FollowStore } from '../support/follow-env.js';

const OWNER = 'u_hostile_owner';
/** The worker's enrichment deadline here: well above an ordinary short episode's enrichment, far below the hostile one's. */
const DEADLINE_MS = 4000;
const CUES = 8;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const clock = (s: number) => `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)},000`;
const srt = (texts: readonly string[]) => texts.map((t, i) => `${i + 1}\n${clock(i * 10)} --> ${clock(i * 10 + 10)}\n${t}\n`).join('\n');

interface EpisodeFile {
  id: string;
  status: string;
  chapters: unknown[];
  transcript: { segments: { text: string }[] } | null;
}

describe('follow: a hostile transcript leaves the worker answering and other channels publishing', function () {
  this.timeout(300_000);
  let store: FollowStore;
  const feeds: FeedServer[] = [];
  let worker: Child | undefined;

  after(async function () {
    if (worker?.alive()) worker.process.kill('SIGKILL');
    await worker?.exited;
    for (const f of feeds) await f.close();
    await store?.drop();
  });

  /** A loopback feed of one item whose transcript file is `cues`. */
  async function feedOf(slug: string, guid: string, cues: readonly string[]): Promise<FeedServer> {
    const feed = await startFeedServer({ title: slug });
    feeds.push(feed);
    feed.setFile(`/srt/${guid}.srt`, srt(cues), 'application/srt');
    const items = [{ guid, title: `${slug} ${guid}`, pubDate: new Date(Date.UTC(2026, 5, 1)), transcript: { path: `/srt/${guid}.srt`, type: 'application/srt' } }];
    feed.setFeedAnswer({ status: 200, headers: { 'Content-Type': 'application/rss+xml' }, body: feedXml({ title: slug, language: 'en', base: feed.url, items }) });
    return feed;
  }

  /** The one episode of the channel `slug`, as its file says. */
  const episodeOf = async (slug: string): Promise<EpisodeFile | undefined> => {
    const dir = join(store.libraryDir, slug, 'episodes');
    const name = (await readdir(dir).catch(() => [] as string[])).find((n) => n.endsWith('.json'));
    return name ? (JSON.parse(await readFile(join(dir, name), 'utf8')) as EpisodeFile) : undefined;
  };

  it("answers /metrics within a second and publishes B's new episode while A's hostile transcript is enriched", async function () {
    store = await openFollowStore('follow-hostile', { owners: [OWNER] });
    const hostile = Array.from({ length: CUES }, () => `${"a'".repeat(Math.floor(EPISODE_LIMITS.segmentChars / 2) - 2)}a.`);
    const a = await feedOf('hostile-radio', 'h1', hostile);
    const b = await feedOf('quiet-radio', 'q1', [
      'Cover crops keep the soil covered through the winter.',
      'Soil organic matter builds slowly when farmers stop tilling.',
      'A soil test tells you how much nitrogen the soil still holds.',
    ]);
    const env = {
      ...store.env,
      ENRICH_DEADLINE_MS: String(DEADLINE_MS),
      // A service without /v1/entities: no names, at once (the review's NER case is the transcription service's own).
      NER_URL: a.url,
      QUEUE_NAME: `${store.prefix}ingest`,
      LOG_LEVEL: 'info',
    };
    const followedA = await runFollow([a.feedUrl, '--channel', 'hostile-radio', '--owner', OWNER], env);
    expect(followedA.code, followedA.stderr).to.equal(0);

    const port = await freePort();
    worker = runScript('bin/worker.ts', ['--metrics-port', String(port), '--no-webhooks'], { ...process.env, ...env });
    const metricsUrl = `http://127.0.0.1:${port}/metrics`;
    await until('the worker serves /metrics', async () => (await fetch(metricsUrl).catch(() => undefined))?.ok === true, { timeoutMs: 120_000 });

    // /metrics probed one request after another from here to the end, each answer timed.
    const latencies: number[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const t0 = performance.now();
        const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(60_000) }).catch(() => undefined);
        await res?.text();
        // A probe refused or timed out counts as never answered.
        latencies.push(res?.ok ? performance.now() - t0 : Infinity);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    try {
      await until('A is being processed', async () => (await episodeOf('hostile-radio'))?.status === 'processing', { everyMs: 100 });
      const followedB = await runFollow([b.feedUrl, '--channel', 'quiet-radio', '--owner', OWNER], env);
      expect(followedB.code, followedB.stderr).to.equal(0);
      const bQueuedAt = performance.now();
      // One episode's processing: A's, its enrichment cut at the deadline, then B's own.
      const withinMs = DEADLINE_MS + 30_000;
      await until("B's new episode published", async () => (await episodeOf('quiet-radio'))?.status === 'published', { timeoutMs: withinMs, everyMs: 100 });
      const bTookMs = performance.now() - bQueuedAt;
      await until('A published', async () => (await episodeOf('hostile-radio'))?.status === 'published', { timeoutMs: 60_000, everyMs: 100 });
      probing = false;
      await probe;

      const worst = Math.max(...latencies);
      expect(latencies.length, 'probes answered').to.be.greaterThan(10);
      expect(worst, `worst /metrics latency of ${latencies.length} probes; B published ${Math.round(bTookMs)} ms after its follow`).to.be.below(1000);
      // A keeps every cue of its transcript; an enrichment cut at the deadline publishes it bare, logged and counted.
      const episodeA = (await episodeOf('hostile-radio'))!;
      expect(episodeA.transcript?.segments).to.have.length(CUES);
      const processed = worker
        .stderr()
        .split('\n')
        .filter((l) => l.includes('"episode processed"'));
      const resultA = processed.map((l) => JSON.parse(l) as { episodeId: string; enrichment?: string; enrichSeconds?: number }).find((r) => r.episodeId === episodeA.id);
      expect(resultA?.enrichSeconds, worker.stderr().slice(-2000)).to.be.at.most(DEADLINE_MS / 1000 + 2);
      // Counted from the job's completion, which reaches the worker's events just after the episode's file.
      let metrics = '';
      await until('both publications counted', async () =>
        /cca_pipeline_episodes_published_total\{transcript="feed"\} 2\b/.test((metrics = await (await fetch(metricsUrl)).text())),
      );
      if (resultA?.enrichment === 'failed') {
        expect(episodeA.chapters).to.deep.equal([]);
        expect(worker.stderr()).to.match(new RegExp(`"episodeId":"${episodeA.id}","deadlineMs":${DEADLINE_MS}.*past its deadline`));
        expect(metrics).to.match(/cca_pipeline_enrichments_total\{outcome="failed"\} 1\b/);
      }
    } finally {
      probing = false;
      await probe;
    }
  });
});
