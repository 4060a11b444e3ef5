// The pipeline's Prometheus metrics, in the worker's registry: jobs by kind and outcome, polls by outcome, audio and
// transcription seconds, and the time from an item's discovery to searchable, read from the BullMQ workers' events;
// the backlog (audio seconds and episodes waiting per class, the oldest new episode's wait) read at scrape time.
import type { Job, Queue, Worker } from 'bullmq';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { CHAT_OUTCOMES, type ChatOutcome } from '../enrich/llm.js';
import type { PollReport } from '../follow/poll.js';
import type { ProcessResult } from '../follow/process.js';
import type { PollJob, ProcessJob } from '../follow/queues.js';
import { factsReader, readProgress, type Progress } from '../follow/progress.js';
import type { RecentRule, WorkClass } from '../follow/work-order.js';

/** The poll outcomes counted: a poll before its time (`skipped`) or of a stopped source did nothing and is not counted. */
export const POLL_OUTCOMES = ['200', '304', 'unchanged', 'error'] as const;

/** Outcomes of enrichment before publishing. */
export const ENRICH_OUTCOMES = ['enriched', 'complete', 'refused', 'failed'] as const;

/**
 * Seconds from discovery to searchable: a short episode on an idle worker is a few seconds, an hour of audio
 * transcribed on 2 cores is about a quarter of an hour, a queue behind a backlog or retries is hours.
 */
export const FRESHNESS_BUCKETS = [2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14_400, 43_200];

export interface PipelineMetricsOptions {
  registry: Registry;
  poll: Pick<Worker<PollJob, PollReport>, 'on'>;
  process: Pick<Worker<ProcessJob, ProcessResult>, 'on'>;
  /** Where the backlog gauges read the waiting work (unset: no backlog gauges). */
  backlog?: BacklogSource | undefined;
  /** The clock, for tests. */
  now?: () => number;
}

/** The followed sources' folder, the processing queue and the work order's rule: what the backlog is read from. */
export interface BacklogSource {
  libraryDir: string;
  queue: Pick<Queue<ProcessJob>, 'getJobs'>;
  rule: RecentRule;
  /** A reading younger than this is reused by the next scrape: one reading per interval whatever scrapes. Default 15 s. */
  minIntervalMs?: number;
  /** Episode files a reading reads for lengths not known yet, at most (the rest estimated until a later reading). Default 2,000. */
  maxReads?: number;
  /** How long a scrape waits for a new reading before it takes the last one (the new one finishes for the next scrape). Default 5 s. */
  waitMs?: number;
}

/**
 * The backlog as the gauges read it: every followed source's follow.json and the queue's unfinished jobs (bounded by
 * FOLLOW_MAX_QUEUED_PER_CHANNEL per channel), and at most `maxReads` episode files for lengths not read before (cached
 * per source version). At most one reading at a time and one per `minIntervalMs`; once there is a reading, a scrape
 * waits at most `waitMs` for the next one and otherwise gets the last (a scrape waits on no more than the first reading).
 */
export function backlogReader(
  { libraryDir, queue, rule, minIntervalMs = 15_000, maxReads = 2000, waitMs = 5000 }: BacklogSource,
  now: () => number = () => Date.now(),
): () => Promise<Progress> {
  const facts = factsReader(libraryDir);
  let last: { at: number; progress: Progress } | undefined;
  let reading: Promise<Progress> | undefined;
  const readNow = (): Promise<Progress> =>
    (reading ??= readProgress({ libraryDir, queue, rule, details: false, facts, maxReads, now: now() })
      .then((progress) => {
        last = { at: now(), progress };
        return progress;
      })
      .finally(() => (reading = undefined)));
  return async () => {
    if (!last) return readNow();
    if (now() - last.at < minIntervalMs) return last.progress;
    const previous = last.progress;
    let timer: NodeJS.Timeout | undefined;
    const patience = new Promise<Progress>((resolve) => (timer = setTimeout(() => resolve(previous), waitMs)));
    try {
      // A reading that fails (Redis away) keeps the last values rather than failing the scrape.
      return await Promise.race([readNow().catch(() => previous), patience]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Seconds since the oldest queued `new` episode was queued at `now` (0 when none waits). */
export function oldestNewWaitSeconds(progress: Pick<Progress, 'totals'>, now: number): number {
  const at = progress.totals.new.oldestQueuedAt;
  return at ? Math.max(0, (now - Date.parse(at)) / 1000) : 0;
}

/** A failed attempt ends the job when BullMQ set `finishedOn` (attempts spent, or an unrecoverable error); else it runs again. */
const isFinal = (job: Job): boolean => job.finishedOn !== undefined && job.finishedOn !== null;

/**
 * Registers the pipeline's series in `registry` and counts from the poll and processing workers' events:
 * - `cca_pipeline_jobs_total{kind=poll|process, outcome=completed|failed|retried}`;
 * - `cca_pipeline_polls_total{outcome=200|304|unchanged|error}` (a poll that ran; its errors are recorded, not thrown);
 * - `cca_pipeline_audio_seconds_total` and `cca_pipeline_transcription_seconds_total` (episodes transcribed from
 *   audio; their ratio is the wall seconds one audio second costs);
 * - `cca_pipeline_episodes_published_total{transcript=feed|audio}`;
 * - `cca_pipeline_discovery_to_searchable_seconds`: from the poll that enqueued the episode's processing job (its
 *   discovery as `pending`, or a new version of its audio or transcript) to its `published` write, retries included;
 * - `cca_pipeline_enrichments_total{outcome=enriched|complete|refused|failed}` and
 *   `cca_pipeline_enrichment_seconds_total`: enrichment before publishing (`failed`: published bare);
 * - with `backlog`, gauges read at scrape time (see {@link backlogReader}): `cca_pipeline_backlog_audio_seconds{class}`
 *   and `cca_pipeline_backlog_episodes{class}` (class `new` or `backfill`), `cca_pipeline_oldest_new_waiting_seconds`
 *   and `cca_pipeline_processing_episodes`.
 */
export function registerPipelineMetrics({ registry, poll, process, backlog, now = () => Date.now() }: PipelineMetricsOptions): void {
  const registers = [registry];
  const jobs = new Counter({
    name: 'cca_pipeline_jobs_total',
    help: 'Pipeline jobs by kind (poll, process) and outcome (completed; failed: no attempt left or unrecoverable; retried: BullMQ runs it again).',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });
  const polls = new Counter({
    name: 'cca_pipeline_polls_total',
    help: 'Polls of followed sources by outcome: 200 (read and applied), 304, unchanged (a 200 with the same body), error.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const audio = new Counter({ name: 'cca_pipeline_audio_seconds_total', help: 'Seconds of audio transcribed.', registers });
  const transcription = new Counter({
    name: 'cca_pipeline_transcription_seconds_total',
    help: 'Wall seconds spent transcribing (probe, upload, transcription, cleaning); divided by audio seconds: the cost of one audio second.',
    registers,
  });
  const published = new Counter({
    name: 'cca_pipeline_episodes_published_total',
    help: "Episodes published by the pipeline, by where the transcript came from: the feed's own file or the audio transcribed.",
    labelNames: ['transcript'] as const,
    registers,
  });
  const freshness = new Histogram({
    name: 'cca_pipeline_discovery_to_searchable_seconds',
    help: 'Seconds from the poll that found an episode (pending) to its publication (searchable), retries included.',
    buckets: FRESHNESS_BUCKETS,
    registers,
  });
  const enrichments = new Counter({
    name: 'cca_pipeline_enrichments_total',
    help: 'Enrichment of episodes before publishing, by outcome: enriched, complete (nothing lacked), refused (no speech), failed (published without generated chapters).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const enrichSeconds = new Counter({ name: 'cca_pipeline_enrichment_seconds_total', help: 'Wall seconds spent enriching episodes before publishing.', registers });
  // Every label set shows from the first scrape (at 0), so rate() and alerts see a series before its first event.
  for (const kind of ['poll', 'process']) for (const outcome of ['completed', 'failed', 'retried']) jobs.inc({ kind, outcome }, 0);
  for (const outcome of POLL_OUTCOMES) polls.inc({ outcome }, 0);
  for (const transcript of ['feed', 'audio']) published.inc({ transcript }, 0);
  for (const outcome of ENRICH_OUTCOMES) enrichments.inc({ outcome }, 0);
  if (backlog) registerBacklogGauges(registry, backlogReader(backlog, now), now);

  const failed = (kind: 'poll' | 'process') => (job: Job | undefined) => {
    if (job) jobs.inc({ kind, outcome: isFinal(job) ? 'failed' : 'retried' });
  };
  poll.on('completed', (_job, report) => {
    jobs.inc({ kind: 'poll', outcome: 'completed' });
    if ((POLL_OUTCOMES as readonly string[]).includes(report.outcome)) polls.inc({ outcome: report.outcome });
  });
  poll.on('failed', failed('poll'));
  process.on('completed', (job, result) => {
    jobs.inc({ kind: 'process', outcome: 'completed' });
    if (result.outcome !== 'published') return;
    published.inc({ transcript: result.transcriptFrom ?? 'feed' });
    if (result.audioSeconds !== undefined) audio.inc(result.audioSeconds);
    if (result.transcribeSeconds !== undefined) transcription.inc(result.transcribeSeconds);
    if (result.enrichment) enrichments.inc({ outcome: result.enrichment });
    if (result.enrichSeconds !== undefined) enrichSeconds.inc(result.enrichSeconds);
    freshness.observe(Math.max(0, ((job.finishedOn ?? now()) - job.timestamp) / 1000));
  });
  process.on('failed', failed('process'));
}

const CLASSES: readonly WorkClass[] = ['new', 'backfill'];

/** The backlog gauges, each collected from one reading of `read` per scrape. */
function registerBacklogGauges(registry: Registry, read: () => Promise<Progress>, now: () => number): void {
  const registers = [registry];
  new Gauge({
    name: 'cca_pipeline_backlog_audio_seconds',
    help: 'Seconds of audio waiting to be transcribed (episodes with audio and no transcript file in the feed; unknown lengths estimated by the median), by class: new (recent) or backfill.',
    labelNames: ['class'] as const,
    registers,
    async collect() {
      const p = await read();
      for (const cls of CLASSES) this.set({ class: cls }, p.totals[cls].audioSeconds);
    },
  });
  new Gauge({
    name: 'cca_pipeline_backlog_episodes',
    help: 'Episodes waiting to be processed (queued, or left for a later poll by the per-channel cap), by class: new (recent) or backfill.',
    labelNames: ['class'] as const,
    registers,
    async collect() {
      const p = await read();
      for (const cls of CLASSES) this.set({ class: cls }, p.totals[cls].episodes);
    },
  });
  new Gauge({
    name: 'cca_pipeline_oldest_new_waiting_seconds',
    help: 'Seconds the oldest waiting new (recent) episode has been queued; 0 when none waits.',
    registers,
    async collect() {
      this.set(oldestNewWaitSeconds(await read(), now()));
    },
  });
  new Gauge({
    name: 'cca_pipeline_processing_episodes',
    help: 'Episodes whose processing job is running.',
    registers,
    async collect() {
      this.set((await read()).sources.reduce((n, s) => n + s.processing.length, 0));
    },
  });
}

/**
 * Registers `cca_pipeline_enrich_llm_chapters_total{outcome=ok|malformed|unsafe|timeout|error}` in `registry` (once per
 * registry) and returns the `onOutcome` to give `createChatWriter`: how each chapter's request to the language model
 * ended; every outcome but `ok` kept the local method's title and claims.
 */
export function registerChatWriterMetrics(registry: Registry): (outcome: ChatOutcome) => void {
  const chapters = new Counter({
    name: 'cca_pipeline_enrich_llm_chapters_total',
    help: "Chapters sent to the language model (ENRICH_URL) by outcome: ok (its title and claims used); malformed, unsafe (a link, contact, time or title off the transcript), timeout, error (the local method's kept).",
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of CHAT_OUTCOMES) chapters.inc({ outcome }, 0);
  return (outcome) => chapters.inc({ outcome });
}
