// A transcript or chapters file an item points at: found beside the feed, or fetched with --fetch; what it is
// is told by its content (a `.json` may be chapters, a "text/vtt" may be SRT), never by its name or MIME type.
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import pRetry, { AbortError } from 'p-retry';
import { parseCaptions } from './captions.js';
import { parseHtmlTranscript } from './html-transcript.js';
import { jsonKind, parseJsonTranscript, type ChaptersJsonRecord } from './stt-json.js';
import { ImportProblem, type DraftTranscript } from './text.js';

export interface SourceOptions {
  /** Folder that relative URLs resolve against (the feed file's). */
  baseDir: string;
  /** Fetch absolute http(s) URLs; off, such files are left out with a reason. */
  fetch: boolean;
  /** Per-request limit when fetching. */
  timeoutMs?: number;
}

export type SourceKind = 'vtt' | 'srt' | 'json' | 'html' | 'text';

/** What a file is by its first characters. */
export function detectKind(text: string): SourceKind {
  const head = text.replace(/^\uFEFF/, '').trimStart();
  if (/^WEBVTT(?:[ \t\r\n]|$)/.test(head)) return 'vtt';
  if (/^(?:\d+[ \t]*\r?\n)?[ \t]*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}[ \t]*-->/.test(head)) return 'srt';
  if (head.startsWith('{') || head.startsWith('[')) return 'json';
  if (head.startsWith('<')) return 'html';
  return 'text';
}

/** Attempts at a remote file: a refused connection, a timeout, a 429 or a 5xx is tried again; another status is final. */
const FETCH_ATTEMPTS = 3;
/** A transcript of a ten-hour episode with word times is a few MB; more than this is not one. */
const MAX_FETCH_BYTES = 64 * 1024 * 1024;

async function fetchText(url: string, timeoutMs: number): Promise<string> {
  return pRetry(
    async () => {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      const length = Number(res.headers.get('content-length') ?? 0);
      if (res.ok && length <= MAX_FETCH_BYTES) return res.text();
      await res.body?.cancel().catch(() => undefined);
      if (length > MAX_FETCH_BYTES) throw new AbortError(new ImportProblem(url, `${length} bytes: larger than ${MAX_FETCH_BYTES} (not a transcript or chapters file)`));
      const problem = new ImportProblem(url, `fetch answered HTTP ${res.status}`);
      throw res.status === 429 || res.status >= 500 ? problem : new AbortError(problem);
    },
    { retries: FETCH_ATTEMPTS - 1, minTimeout: 250, factor: 2 },
  ).catch((err: unknown) => {
    throw err instanceof ImportProblem ? err : new ImportProblem(url, `fetch failed: ${(err as Error).message}`);
  });
}

/** The text of a file an item names: `url` relative to the feed's folder, or absolute (fetched only when allowed). */
export async function readSource(url: string, opts: SourceOptions): Promise<{ text: string; name: string }> {
  if (/^https?:\/\//i.test(url)) {
    if (!opts.fetch) throw new ImportProblem(url, 'remote file not fetched (run with --fetch to fetch it)');
    return { text: await fetchText(url, opts.timeoutMs ?? 30_000), name: url };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^file:/i.test(url)) throw new ImportProblem(url, 'not an http(s) URL or a local file');
  const path = resolvePath(opts.baseDir, decodeURIComponent(url.replace(/^file:\/\//i, '')));
  try {
    return { text: await readFile(path, 'utf8'), name: path };
  } catch (err) {
    throw new ImportProblem(path, (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message);
  }
}

/** JSON text parsed, or a problem naming the line of the syntax error. */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    const line = at ? text.slice(0, Number(at[1])).split('\n').length : undefined;
    throw new ImportProblem(file, `not valid JSON (${(err as Error).message})`, line ? `line ${line}` : undefined);
  }
}

/** A transcript file as a draft transcript, whatever its declared type; `endMs` (the episode's) ends an HTML transcript's last monologue. */
export async function parseTranscriptText(text: string, file: string, endMs?: number | null): Promise<DraftTranscript> {
  const kind = detectKind(text);
  if (kind === 'vtt' || kind === 'srt') return parseCaptions(text, kind, file);
  if (kind === 'json') {
    const value = parseJson(text, file);
    const draft = parseJsonTranscript(value);
    if (draft) return draft;
    throw new ImportProblem(
      file,
      jsonKind(value) === 'chapters' ? 'a chapters file where a transcript was expected' : 'JSON of no transcript shape we know (whisper, WhisperX, whisper.cpp, Podcast Index)',
    );
  }
  if (kind === 'html') return parseHtmlTranscript(text, file, endMs);
  throw new ImportProblem(file, 'a plain-text transcript has no timings: not imported');
}

/** A chapters file (JSON Chapters), whatever its declared type. */
export function parseChaptersText(text: string, file: string): ChaptersJsonRecord {
  if (detectKind(text) !== 'json') throw new ImportProblem(file, 'not a JSON chapters file');
  const value = parseJson(text, file);
  if (jsonKind(value) !== 'chapters') throw new ImportProblem(file, 'JSON without a chapters list of {startTime, title}');
  return value as ChaptersJsonRecord;
}
