// What the pipeline has to do and how long it will take: per followed source, the episodes waiting (queued, or left
// for a later poll by the per-channel cap) by class, their audio, what is being processed and what failed with its
// sentence; and the transcription rate measured on the last episodes transcribed. Read from follow.json, the
// episodes' files and the processing queue; `npm run follow -- --list` prints it and the worker's /metrics exports
// its totals.
import type { Job, Queue } from 'bullmq';
import { readEpisodeRecord } from '../../core/library/reader.js';
import { MAX_PROCESS_STARTS, processJobId, type ProcessJob } from './queues.js';
import type { ProcessResult } from './process.js';
import { channelDir } from '../../core/library/layout.js';
import { listStates, startsOf, type FollowState, type ItemSource } from '../../core/library/follow-state.js';
import { newItems, turnOfPriority, type RecentRule, type WorkClass } from './work-order.js';

/** What waits in one class (`new` or `backfill`) of one source, or of all. */
export interface ClassBacklog {
  /** Episodes waiting: queued, or not yet queued (past FOLLOW_MAX_QUEUED_PER_CHANNEL). */
  episodes: number;
  /** Of which in the processing queue (waiting, prioritized, or delayed for a retry). */
  queued: number;
  /** Of which left for a later poll by the per-channel cap. */
  deferred: number;
  /** Of which will be read from the feed's own transcript file: nothing to transcribe. */
  fromTranscriptFile: number;
  /** Seconds of audio to transcribe (the episodes with audio and no transcript file), estimated ones included. */
  audioSeconds: number;
  /** The part of `audioSeconds` estimated (episodes whose feed gives no duration: the median of the known ones). */
  estimatedAudioSeconds: number;
  /** Episodes to transcribe whose duration is neither known nor estimable (no duration known anywhere). */
  unknownDuration: number;
  /** When the longest-waiting queued episode of the class was queued (ISO), or null. */
  oldestQueuedAt: string | null;
  /** Seconds until this work is transcribed at the measured rate, every source taking its turn; null without a measured rate. */
  etaSeconds: number | null;
}

export interface WorkItem {
  episodeId: string;
  title: string;
}

/** One followed source's work. */
export interface SourceProgress {
  slug: string;
  source: string;
  stopped: boolean;
  /** The poll state as follow.json holds it (what the `--list` line shows). */
  poll: Pick<FollowState, 'lastPollAt' | 'lastOutcome' | 'lastStatus' | 'lastError' | 'itemsSeen' | 'errors' | 'nextPollAt' | 'stoppedAt'>;
  waiting: Record<WorkClass, ClassBacklog>;
  /** Episodes whose processing job is running, with when it started (ISO). */
  processing: (WorkItem & { since: string | null })[];
  /** Episodes failed on their current source version, with the stored sentence (the first {@link MAX_LISTED_FAILURES}). */
  failed: (WorkItem & { error: string })[];
  failedTotal: number;
}

/** The measured cost of transcription: wall seconds per audio second over the last `episodes` transcribed. */
export interface MeasuredRate {
  wallSecondsPerAudioSecond: number;
  episodes: number;
  audioSeconds: number;
}

/** What `npm run follow -- --list --json` prints (shape version 1). */
export interface Progress {
  version: 1;
  at: string;
  rate: MeasuredRate | null;
  /** Processing jobs that run at once: workers connected to the processing queue (at least 1) × each one's concurrency. */
  slots: number;
  totals: Record<WorkClass, ClassBacklog>;
  sources: SourceProgress[];
}

/** Failures listed per source; the rest are counted in `failedTotal`. */
export const MAX_LISTED_FAILURES = 20;

/** Completed jobs looked at for the rate (newest first), and transcribed episodes it is measured over. */
export const RATE_JOBS_SCANNED = 500;
export const RATE_EPISODES = 20;

export const emptyBacklog = (): ClassBacklog => ({
  episodes: 0,
  queued: 0,
  deferred: 0,
  fromTranscriptFile: 0,
  audioSeconds: 0,
  estimatedAudioSeconds: 0,
  unknownDuration: 0,
  oldestQueuedAt: null,
  etaSeconds: null,
});

/** The middle of `values` (the mean of the two middle ones for an even count), or null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The rate measured on completed processing jobs (newest first): transcription wall seconds over audio seconds of the
 * last `episodes` transcribed from audio, or null when none is among them.
 */
export function rateOf(results: readonly (Partial<ProcessResult> | null | undefined)[], episodes = RATE_EPISODES): MeasuredRate | null {
  const timed = results.filter((r): r is ProcessResult => !!r && (r.audioSeconds ?? 0) > 0 && (r.transcribeSeconds ?? 0) > 0).slice(0, episodes);
  if (timed.length === 0) return null;
  const audioSeconds = timed.reduce((s, r) => s + r.audioSeconds!, 0);
  const wall = timed.reduce((s, r) => s + r.transcribeSeconds!, 0);
  return { wallSecondsPerAudioSecond: wall / audioSeconds, episodes: timed.length, audioSeconds };
}

/**
 * When each source's waiting work is done with every source taking its turn (work-order.ts): all `new` work first,
 * then backfill, and within a class a source whose work is `w` is done once every other source has done `min(w, its
 * own)` (processor sharing: the channels alternate). Audio seconds × rate ÷ slots; null without a rate.
 */
export function etasOf(work: readonly Record<WorkClass, number>[], rate: number | null, slots: number): Record<WorkClass, number | null>[] {
  if (rate === null) return work.map(() => ({ new: null, backfill: null }));
  const per = rate / Math.max(1, slots);
  const fresh = work.map((w) => w.new);
  const allNew = fresh.reduce((s, w) => s + w, 0);
  const shared = (own: number, all: readonly number[]) => all.reduce((s, w) => s + Math.min(w, own), 0);
  return work.map((w) => ({
    new: w.new > 0 ? shared(w.new, fresh) * per : 0,
    backfill:
      w.backfill > 0
        ? (allNew +
            shared(
              w.backfill,
              work.map((x) => x.backfill),
            )) *
          per
        : 0,
  }));
}

/** What the queue holds of a processing job: its state and what the progress needs of it. */
export interface QueuedJob {
  state: 'active' | 'queued';
  priority: number;
  /** When it was added (ms). */
  timestamp: number;
  /** When its current attempt started (ms). */
  processedOn: number | null;
}

/** The processing queue's unfinished jobs by id: running (`active`) or waiting (`waiting`, `prioritized`, `delayed`). */
export async function unfinishedJobs(queue: Pick<Queue<ProcessJob>, 'getJobs'>): Promise<Map<string, QueuedJob>> {
  const [active, waiting] = await Promise.all([queue.getJobs(['active']), queue.getJobs(['prioritized', 'waiting', 'delayed'])]);
  const jobs = new Map<string, QueuedJob>();
  const put = (state: QueuedJob['state']) => (job: Job | undefined) => {
    if (job?.id) jobs.set(job.id, { state, priority: job.priority, timestamp: job.timestamp, processedOn: job.processedOn ?? null });
  };
  waiting.forEach(put('queued'));
  active.forEach(put('active'));
  return jobs;
}

/** What an episode's file says that the progress needs; read once per episode version (durations do not change under it). */
export interface EpisodeFacts {
  title: string;
  durationMs: number | null;
  status: string | null;
  error: string | null;
}

/**
 * Reads an episode's facts: `fresh` from its file; else from what was read before for the same source version (the
 * lengths of waiting episodes), and from the file only when `read` allows it (undefined when it does not).
 */
export type FactsReader = (slug: string, episodeId: string, digest: string, { fresh, read }: { fresh: boolean; read?: boolean }) => Promise<EpisodeFacts | undefined>;

/** Episode versions remembered by a {@link factsReader} before it starts again empty (a bound on its memory). */
export const FACTS_CACHE_LIMIT = 200_000;

/** Reads the facts from `<libraryDir>/<slug>/episodes/<id>.json`, remembering those not asked `fresh`. */
export function factsReader(libraryDir: string): FactsReader {
  const cache = new Map<string, EpisodeFacts>();
  return async (slug, episodeId, digest, { fresh, read = true }) => {
    const key = `${slug}/${episodeId}/${digest}`;
    const known = fresh ? undefined : cache.get(key);
    if (known || (!fresh && !read)) return known;
    const record = await readEpisodeRecord(channelDir(libraryDir, slug), episodeId).catch(() => undefined);
    const facts: EpisodeFacts = {
      title: record?.title ?? episodeId,
      durationMs: typeof record?.durationMs === 'number' && record.durationMs > 0 ? record.durationMs : null,
      status: record?.status ?? null,
      error: record?.error ?? null,
    };
    if (cache.size >= FACTS_CACHE_LIMIT) cache.clear();
    cache.set(key, facts);
    return facts;
  };
}

/** A waiting episode as counted: its class, whether queued, and its audio to transcribe (null: unknown duration). */
interface Waiting {
  cls: WorkClass;
  queuedAt: number | null;
  transcribe: boolean;
  seconds: number | null;
}

/** An item's audio goes to the transcriber unless the feed gives a transcript file (or there is no audio at all). */
const transcribes = (s: ItemSource): boolean => s.transcripts.length === 0 && !!s.enclosureUrl;

function addWaiting(backlog: ClassBacklog, w: Waiting, estimate: number | null): void {
  backlog.episodes++;
  if (w.queuedAt !== null) {
    backlog.queued++;
    const at = new Date(w.queuedAt).toISOString();
    if (!backlog.oldestQueuedAt || at < backlog.oldestQueuedAt) backlog.oldestQueuedAt = at;
  } else backlog.deferred++;
  if (!w.transcribe) {
    backlog.fromTranscriptFile++;
    return;
  }
  if (w.seconds !== null) backlog.audioSeconds += w.seconds;
  else if (estimate !== null) {
    backlog.audioSeconds += estimate;
    backlog.estimatedAudioSeconds += estimate;
  } else backlog.unknownDuration++;
}

/** Sums class backlogs (counts and seconds added, the oldest queued time kept). */
export function sumBacklogs(parts: readonly ClassBacklog[]): ClassBacklog {
  const total = emptyBacklog();
  for (const p of parts) {
    for (const k of ['episodes', 'queued', 'deferred', 'fromTranscriptFile', 'audioSeconds', 'estimatedAudioSeconds', 'unknownDuration'] as const) total[k] += p[k];
    if (p.oldestQueuedAt && (!total.oldestQueuedAt || p.oldestQueuedAt < total.oldestQueuedAt)) total.oldestQueuedAt = p.oldestQueuedAt;
  }
  return total;
}

export interface ReadProgressOptions {
  libraryDir: string;
  queue: Pick<Queue<ProcessJob>, 'getJobs'>;
  rule: RecentRule;
  /** Read each failed and processing episode's title and sentence (the CLI); off for the metrics, which only count. */
  details?: boolean;
  facts?: FactsReader;
  /**
   * Episode files read for lengths not known yet, at most (default: all): a first reading of a large backlog stays
   * bounded, the lengths not read yet are estimated like unknown ones, and the next readings read on.
   */
  maxReads?: number;
  /** The followed sources, when already read (else read from `libraryDir`). */
  states?: readonly FollowState[];
  now?: number;
}

/**
 * Reads every followed source's work: an item whose current source version is not processed waits, in the class of
 * its queued job (the order BullMQ keeps) or, when not queued, in the class the work order gives it now; it is
 * processing while its job runs. Unknown durations are estimated by the median of the source's known ones (else of
 * all sources'). Without a rate every `etaSeconds` is null (see {@link withEtas}).
 */
export async function readProgress({
  libraryDir,
  queue,
  rule,
  details = true,
  facts = factsReader(libraryDir),
  maxReads = Number.POSITIVE_INFINITY,
  states: given,
  now = Date.now(),
}: ReadProgressOptions): Promise<Progress> {
  const [states, jobs] = await Promise.all([given ?? listStates(libraryDir), unfinishedJobs(queue)]);
  let reads = 0;
  const perSource: { waiting: Waiting[]; progress: SourceProgress }[] = [];
  for (const state of states) {
    const fresh = newItems(
      Object.entries(state.items).map(([id, s]) => ({ id, publishedAt: s.publishedAt })),
      rule,
      now,
    );
    const progress: SourceProgress = {
      slug: state.slug,
      source: state.source,
      stopped: state.stoppedAt !== null,
      poll: {
        lastPollAt: state.lastPollAt,
        lastOutcome: state.lastOutcome,
        lastStatus: state.lastStatus,
        lastError: state.lastError,
        itemsSeen: state.itemsSeen,
        errors: state.errors,
        nextPollAt: state.nextPollAt,
        stoppedAt: state.stoppedAt,
      },
      waiting: { new: emptyBacklog(), backfill: emptyBacklog() },
      processing: [],
      failed: [],
      failedTotal: 0,
    };
    const waiting: Waiting[] = [];
    for (const [episodeId, source] of Object.entries(state.items)) {
      if (source.processed?.digest === source.digest) {
        if (source.processed.outcome !== 'failed') continue;
        progress.failedTotal++;
        if (details && progress.failed.length < MAX_LISTED_FAILURES) {
          const f = await facts(state.slug, episodeId, source.digest, { fresh: true });
          progress.failed.push({ episodeId, title: f?.title ?? episodeId, error: f?.error ?? 'failed (no reason was recorded)' });
        }
        continue;
      }
      // Started more often than any job may start it: no job will run it again (its last start fails it).
      if (startsOf(source, source.digest) > MAX_PROCESS_STARTS) continue;
      const job = jobs.get(processJobId({ episodeId, digest: source.digest }));
      if (job?.state === 'active') {
        if (details) {
          const f = await facts(state.slug, episodeId, source.digest, { fresh: true });
          progress.processing.push({ episodeId, title: f?.title ?? episodeId, since: job.processedOn ? new Date(job.processedOn).toISOString() : null });
        } else progress.processing.push({ episodeId, title: episodeId, since: null });
        continue;
      }
      const transcribe = transcribes(source);
      let f: EpisodeFacts | undefined;
      if (transcribe) {
        f = await facts(state.slug, episodeId, source.digest, { fresh: false, read: false });
        if (!f && reads < maxReads) {
          reads++;
          f = await facts(state.slug, episodeId, source.digest, { fresh: false });
        }
      }
      waiting.push({
        cls: job ? turnOfPriority(job.priority).cls : fresh.has(episodeId) ? 'new' : 'backfill',
        queuedAt: job ? job.timestamp : null,
        transcribe,
        seconds: f?.durationMs != null ? f.durationMs / 1000 : null,
      });
    }
    perSource.push({ waiting, progress });
  }
  const known = (ws: readonly Waiting[]) => ws.flatMap((w) => (w.transcribe && w.seconds !== null ? [w.seconds] : []));
  const everywhere = median(perSource.flatMap((s) => known(s.waiting)));
  for (const { waiting, progress } of perSource) {
    const estimate = median(known(waiting)) ?? everywhere;
    for (const w of waiting) addWaiting(progress.waiting[w.cls], w, estimate);
  }
  const sources = perSource.map((s) => s.progress);
  return {
    version: 1,
    at: new Date(now).toISOString(),
    rate: null,
    slots: 1,
    totals: { new: sumBacklogs(sources.map((s) => s.waiting.new)), backfill: sumBacklogs(sources.map((s) => s.waiting.backfill)) },
    sources,
  };
}

/** The rate measured on the queue's last completed jobs (kept a day, see PROCESS_JOB_OPTIONS). */
export async function measuredRate(queue: Pick<Queue<ProcessJob>, 'getJobs'>, episodes = RATE_EPISODES): Promise<MeasuredRate | null> {
  const done = await queue.getJobs(['completed'], 0, RATE_JOBS_SCANNED - 1, false);
  return rateOf(
    done.map((j) => j?.returnvalue as Partial<ProcessResult> | undefined),
    episodes,
  );
}

/**
 * The progress with its rate, slots and estimates: each source's classes by {@link etasOf}, the totals' `new` when all
 * new work is done and `backfill` when everything is.
 */
export function withEtas(progress: Progress, rate: MeasuredRate | null, slots: number): Progress {
  const per = rate?.wallSecondsPerAudioSecond ?? null;
  const n = Math.max(1, slots);
  const etas = etasOf(
    progress.sources.map((s) => ({ new: s.waiting.new.audioSeconds, backfill: s.waiting.backfill.audioSeconds })),
    per,
    n,
  );
  const eta = (seconds: number) => (per === null ? null : (seconds * per) / n);
  const { new: fresh, backfill } = progress.totals;
  return {
    ...progress,
    rate,
    slots: n,
    totals: { new: { ...fresh, etaSeconds: eta(fresh.audioSeconds) }, backfill: { ...backfill, etaSeconds: eta(fresh.audioSeconds + backfill.audioSeconds) } },
    sources: progress.sources.map((s, i) => ({
      ...s,
      waiting: { new: { ...s.waiting.new, etaSeconds: etas[i]!.new }, backfill: { ...s.waiting.backfill, etaSeconds: etas[i]!.backfill } },
    })),
  };
}
