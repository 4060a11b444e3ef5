// The enrichment thread (started by enrich-thread.ts): `enrichForPublish` with stages whose I/O (embedding, NER, the
// language model) is asked of the thread that started it. Nothing here may load the model library: this thread is
// terminated at its deadline.
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { readLibraryMeta } from '../../core/library/reader.js';
import type { FromThread, ThreadCall, ThreadError, ThreadSetup, ToThread } from './enrich-thread.js';
import { facetsOf } from './plan.js';
import { NerError, type NerErrorCode, NER_ERRORS } from './ner.js';
import { createPeopleStage } from './people.js';
import { enrichForPublish } from './publish.js';
import { stagesOf } from './stages.js';
import type { ChapterWriting, NamedEntity } from './types.js';

// Below the event loop's thread (on Linux a nice value is a thread's): the loop's polls, webhooks and /metrics come
// first when the cores are busy, as with the embedder's workers (core/embedding/embedder-pool.ts).
const setup = workerData as ThreadSetup;
try {
  setPriority(setup.nice);
} catch {
  // a value the OS refuses leaves the priority as it was
}

const port = parentPort!;
const post = (m: FromThread) => port.postMessage(m);

const waiting = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
let calls = 0;

/** An error from the other side as the stages expect it: a NerError keeps its class and code (the people stage decides by them). */
function revive(e: ThreadError): Error {
  const err = e.name === 'NerError' && e.code && e.code in NER_ERRORS ? new NerError(e.code as NerErrorCode) : new Error(e.message);
  err.message = e.message;
  err.name = e.name;
  return err;
}

function ask<T>(call: ThreadCall): Promise<T> {
  const id = ++calls;
  return new Promise<T>((resolve, reject) => {
    waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
    post({ type: 'call', call: id, ...call });
  });
}

// Lines go to the starting thread's logger (its level, names and redaction); below its level nothing is sent.
const log = pino({ level: setup.logLevel, base: undefined }, { write: (line: string) => post({ type: 'log', line }) });

const stages = stagesOf({
  embed: (texts) => ask<number[][]>({ fn: 'embed', args: [texts] }),
  bounds: setup.bounds,
  writer: setup.writer ? { write: (brief) => ask<ChapterWriting | null>({ fn: 'write', args: [brief] }) } : undefined,
  findNames: createPeopleStage({ recognise: setup.recognise ? (texts, { language }) => ask<NamedEntity[][]>({ fn: 'recognise', args: [texts, { language }] }) : undefined, log }),
});

port.on('message', (m: ToThread) => {
  if (m.type === 'answer') {
    const pending = waiting.get(m.call);
    waiting.delete(m.call);
    if (m.error) pending?.reject(revive(m.error));
    else pending?.resolve(m.value);
    return;
  }
  void enrich(m);
});

async function enrich({ job, record, dir, channelLanguage }: Extract<ToThread, { type: 'enrich' }>): Promise<void> {
  try {
    // The ids `apply` needs, read as enrichForPublish reads them; a folder that cannot be read fails there anyway.
    const generatedIds = await readLibraryMeta(dir).then(
      (meta) => [...facetsOf(meta).generatedIds],
      () => [],
    );
    const r = await enrichForPublish(record, { stages, dir, channelLanguage, log });
    post({
      type: 'done',
      job,
      result: { made: r.made, facets: r.facets, outcome: r.outcome, seconds: r.seconds, generatedIds, ...(r.keyphrases ? { keyphrases: r.keyphrases } : {}) },
    });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    post({ type: 'failed', job, error: { name: e.name, message: e.message } });
  }
}

post({ type: 'ready' });
