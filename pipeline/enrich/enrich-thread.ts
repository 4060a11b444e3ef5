// Enrichment before publishing, off the worker's event loop: `enrichForPublish` runs in a worker thread
// (enrich-thread-worker.ts) under a deadline, and the thread's I/O (embedding, NER, the language model) is answered
// here, where the model, the clients and their connections live. Only CPU work and file reads move.
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import type { Logger } from '../../core/ground/logger.js';
import type { FacetKindName, Generated } from './rules.js';
import { applierOf, notEnriched, type PublishEnrichment } from './publish.js';
import type { ChapterBounds, ChapterBrief, ChapterWriter, EmbedTexts, GeneratedFacet, NamedEntity, RecogniseEntities } from './types.js';

/** The I/O of the stages, answered in the calling thread; the rest of the stages is made in the enrichment thread. */
export interface EnrichParts {
  embed: EmbedTexts;
  bounds?: Partial<ChapterBounds> | undefined;
  /** Titles and claims by a language model; absent: the local method's. */
  writer?: ChapterWriter | undefined;
  /** Named-entity recognition; absent: no people or entities. */
  recognise?: RecogniseEntities | undefined;
}

export interface EnrichThreadOptions extends EnrichParts {
  /** Longest one episode's enrichment may run in the thread (ENRICH_DEADLINE_MS); past it the thread is stopped. */
  deadlineMs: number;
  log?: Logger | undefined;
}

/** Enriches an episode about to be published (see `enrichForPublish`); never throws but for `signal`. */
export interface PublishEnricher {
  enrich(record: EpisodeRecord, opts: { dir: string; channelLanguage: string | null; signal?: AbortSignal | undefined }): Promise<PublishEnrichment>;
}

export interface EnrichThread extends PublishEnricher {
  /** Stops the thread; an enrichment still running ends `failed`. */
  close(): Promise<void>;
}

/** What the thread is started with (`workerData`). */
export interface ThreadSetup {
  bounds: Partial<ChapterBounds> | undefined;
  writer: boolean;
  recognise: boolean;
  /** The calling thread's log level (`silent` without a logger): lines below it are not even sent. */
  logLevel: string;
  /** Nice value the thread sets itself to. */
  nice: number;
}

/** An error carried across the thread boundary: its class by name, and a catalogue code when it has one. */
export interface ThreadError {
  name: string;
  message: string;
  code?: string | undefined;
}

/** The I/O calls the thread asks for. */
export type ThreadCall =
  { fn: 'embed'; args: [texts: string[]] } | { fn: 'write'; args: [brief: ChapterBrief] } | { fn: 'recognise'; args: [texts: string[], opts: { language: string }] };

/** What `enrichForPublish` returned in the thread, without `apply` (a function): the ids `apply` needs come instead. */
export interface ThreadResult {
  made: Generated;
  facets: Record<FacetKindName, GeneratedFacet[]>;
  outcome: PublishEnrichment['outcome'];
  seconds: number;
  /** The folder's facet ids marked generated, as `enrichForPublish` read them. */
  generatedIds: string[];
  /** The episode's keyphrases for the channel statistics file (plain data, as `enrichForPublish` gave them). */
  keyphrases?: PublishEnrichment['keyphrases'];
}

export type ToThread =
  { type: 'enrich'; job: number; record: EpisodeRecord; dir: string; channelLanguage: string | null } | { type: 'answer'; call: number; value?: unknown; error?: ThreadError };

export type FromThread =
  | { type: 'ready' }
  | ({ type: 'call'; call: number } & ThreadCall)
  | { type: 'log'; line: string }
  | { type: 'done'; job: number; result: ThreadResult }
  | { type: 'failed'; job: number; error: ThreadError };

/** The thread's nice value (0–19): its CPU work waits for the event loop's when the cores are busy. */
const THREAD_NICE = 10;

/** A thread that cannot load its modules in this long is broken (not the episode's fault): its job fails. */
const START_LIMIT_MS = 60_000;

export const threadError = (err: unknown): ThreadError => {
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as { code?: unknown }).code;
  return { name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) };
};

/**
 * The thread's entry: the compiled .js beside this file, or under tsx the .ts through a small boot script that
 * registers tsx in the thread first (a thread does not take the loader hooks `--import tsx` gave this one).
 */
function spawnThread(setup: ThreadSetup): Worker {
  const ext = extname(fileURLToPath(import.meta.url));
  const entry = new URL(`./enrich-thread-worker${ext}`, import.meta.url);
  if (ext !== '.ts') return new Worker(entry, { workerData: setup });
  // tsx's ESM entry by its package's exports (under mocha this module may run as CommonJS, without import.meta.resolve).
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('tsx/package.json');
  const api = (require(pkg) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api']!.import.default;
  const tsx = pathToFileURL(join(dirname(pkg), api)).href;
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { eval: true, workerData: setup, execArgv: [] });
}

/** Forwards a line the thread's logger wrote to `log`, at its level, with its fields. */
function relayLog(log: Logger, line: string): void {
  try {
    const { level, msg, time: _time, pid: _pid, hostname: _host, name: _name, ...fields } = JSON.parse(line) as Record<string, unknown> & { level: number; msg?: string };
    const label = log.levels.labels[level] ?? 'info';
    (log[label as 'info'] ?? log.info).call(log, fields, msg ?? '');
  } catch {
    log.warn({ line: line.slice(0, 500) }, 'unreadable log line from the enrichment thread');
  }
}

interface Live {
  worker: Worker;
  ready: Promise<void>;
  /** Settles when the thread exits, however: with the reason when it was not asked to. */
  gone: Promise<Error>;
  /** The running job's: aborted when it ends, so the I/O it asked for stops. */
  calls: AbortController;
  onResult?: ((m: Extract<FromThread, { type: 'done' | 'failed' }>) => void) | undefined;
  stopped: boolean;
}

/**
 * Starts the enrichment thread (on first use). One episode at a time: jobs wait their turn, and each one's deadline
 * runs from when the thread takes it. Past the deadline, or when the thread crashes, the thread is terminated (a
 * new one starts for the next job) and the episode is published bare: `failed`, logged with the episode and the
 * deadline, counted as any failed enrichment.
 */
export function startEnrichThread({ embed, bounds, writer, recognise, deadlineMs, log }: EnrichThreadOptions): EnrichThread {
  const setup: ThreadSetup = { bounds, writer: writer !== undefined, recognise: recognise !== undefined, logLevel: log?.level ?? 'silent', nice: THREAD_NICE };
  let live: Live | undefined;
  let turn: Promise<unknown> = Promise.resolve();
  let jobs = 0;
  let closed = false;

  function start(): Live {
    const worker = spawnThread(setup);
    worker.unref();
    let ready!: () => void;
    const me: Live = { worker, ready: new Promise<void>((r) => (ready = r)), gone: undefined as never, calls: new AbortController(), stopped: false };
    me.gone = new Promise<Error>((resolve) => {
      worker.on('error', (err) => resolve(err));
      worker.on('exit', (code) => resolve(new Error(`the enrichment thread exited (code ${code})`)));
    });
    void me.gone.then(() => {
      me.stopped = true;
      me.calls.abort();
      if (live === me) live = undefined;
    });
    worker.on('message', (m: FromThread) => {
      if (m.type === 'ready') ready();
      else if (m.type === 'log') {
        if (log) relayLog(log, m.line);
      } else if (m.type === 'call') void answer(me, m);
      else me.onResult?.(m);
    });
    return me;
  }

  async function answer(me: Live, m: Extract<FromThread, { type: 'call' }>): Promise<void> {
    const { signal } = me.calls;
    let reply: ToThread;
    try {
      let value: unknown;
      if (m.fn === 'embed') value = await embed(m.args[0]);
      else if (m.fn === 'write') value = await writer!.write(m.args[0], signal);
      else value = (await recognise!(m.args[0], { ...m.args[1], signal })).map((list): NamedEntity[] => list.map(({ text, label }) => ({ text, label })));
      reply = { type: 'answer', call: m.call, value };
    } catch (err) {
      reply = { type: 'answer', call: m.call, error: threadError(err) };
    }
    if (me.stopped) return;
    try {
      me.worker.postMessage(reply);
    } catch (err) {
      // An answer that cannot be copied to the thread (not plain data) fails that call, not the worker.
      me.worker.postMessage({ type: 'answer', call: m.call, error: threadError(err) } satisfies ToThread);
    }
  }

  /** Stops `me` (a new thread starts for the next job) and waits until it is gone. */
  async function stop(me: Live): Promise<void> {
    me.stopped = true;
    me.calls.abort();
    if (live === me) live = undefined;
    await me.worker.terminate();
  }

  async function run(
    record: EpisodeRecord,
    { dir, channelLanguage, signal }: { dir: string; channelLanguage: string | null; signal?: AbortSignal | undefined },
  ): Promise<PublishEnrichment> {
    signal?.throwIfAborted();
    if (closed) return notEnriched('failed');
    const me = (live ??= start());
    const job = ++jobs;
    const episode = { episodeId: record.id };
    let timer: NodeJS.Timeout | undefined;
    const after = (ms: number, what: 'start' | 'deadline') => new Promise<{ what: typeof what }>((resolve) => (timer = setTimeout(() => resolve({ what }), ms)));
    const aborted = new Promise<{ what: 'aborted' }>((resolve) => signal?.addEventListener('abort', () => resolve({ what: 'aborted' }), { once: true }));
    const gone = me.gone.then((err) => ({ what: 'gone' as const, err }));
    me.worker.ref();
    let started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const up = await Promise.race([me.ready.then(() => ({ what: 'ready' as const })), after(START_LIMIT_MS, 'start'), aborted, gone]);
      clearTimeout(timer);
      if (up.what === 'ready') {
        me.calls = new AbortController();
        const result = new Promise<{ what: 'result'; m: Extract<FromThread, { type: 'done' | 'failed' }> }>(
          (resolve) => (me.onResult = (m) => m.job === job && resolve({ what: 'result', m })),
        );
        started = performance.now();
        me.worker.postMessage({ type: 'enrich', job, record, dir, channelLanguage } satisfies ToThread);
        const end = await Promise.race([result, after(deadlineMs, 'deadline'), aborted, gone]);
        clearTimeout(timer);
        if (end.what === 'result' && end.m.type === 'done') {
          me.calls.abort(); // I/O the thread asked for and no longer waits on
          const { made, facets, outcome, seconds: took, generatedIds, keyphrases } = end.m.result;
          return { made, facets, outcome, seconds: took, apply: applierOf(made, new Set(generatedIds)), ...(keyphrases ? { keyphrases } : {}) };
        }
        if (end.what === 'result') {
          me.calls.abort();
          log?.warn(
            { ...episode, err: (end.m as Extract<FromThread, { type: 'failed' }>).error.message },
            'enrichment failed: the episode is published without generated chapters',
          );
          return notEnriched('failed', seconds());
        }
        if (end.what === 'deadline') {
          await stop(me);
          log?.warn(
            { ...episode, deadlineMs, seconds: seconds() },
            'enrichment ran past its deadline (ENRICH_DEADLINE_MS): the thread was stopped and the episode is published without generated chapters',
          );
          return notEnriched('failed', seconds());
        }
        if (end.what === 'gone') {
          log?.warn({ ...episode, err: end.err.message }, 'the enrichment thread stopped: the episode is published without generated chapters');
          return notEnriched('failed', seconds());
        }
      } else if (up.what === 'start' || up.what === 'gone') {
        await stop(me);
        const err = up.what === 'gone' ? up.err.message : `not ready in ${START_LIMIT_MS / 1000} s`;
        log?.warn({ ...episode, err }, 'the enrichment thread could not start: the episode is published without generated chapters');
        return notEnriched('failed', seconds());
      }
      // The job was given up (`signal`): its thread goes with it, as enrichForPublish throws the abort.
      await stop(me);
      throw signal!.reason;
    } finally {
      clearTimeout(timer);
      me.onResult = undefined;
      if (!me.stopped) me.worker.unref();
    }
  }

  return {
    enrich(record, opts) {
      const mine = turn.then(() => run(record, opts));
      turn = mine.catch(() => undefined);
      return mine;
    },
    async close() {
      closed = true;
      if (live) await stop(live);
    },
  };
}
