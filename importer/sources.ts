// A transcript or chapters file an item points at: found beside the feed, or fetched with --fetch; what it is
// is told by its content (a `.json` may be chapters, a "text/vtt" may be SRT), never by its name or MIME type.
import { resolve as resolvePath } from 'node:path';
import pRetry, { AbortError } from 'p-retry';
import { describeFetchError, fetchBytes, FetchError, httpStatusError, readLocalFile, TRANSCRIPT_MAX_BYTES, type SafeFetchOptions } from '../core/ground/outbound/safe-fetch.js';
import { parseCaptions } from './captions.js';
import { parseHtmlTranscript } from './html-transcript.js';
import { jsonKind, parseJsonTranscript, type ChaptersJsonRecord } from './stt-json.js';
import { ImportProblem, type DraftTranscript } from './text.js';

/** How remote files are fetched: the safe fetcher's address rule and User-Agent (from `config.pipeline`). */
export type OutboundOptions = Pick<SafeFetchOptions, 'allowPrivate' | 'userAgent' | 'isAllowedAddress'>;

export interface SourceOptions {
  /** Folder that relative URLs resolve against (the feed file's); a local file may not leave it. */
  baseDir: string;
  /** Fetch absolute http(s) URLs; off, such files are left out with a reason. */
  fetch: boolean;
  /** Per-request limit when fetching. */
  timeoutMs?: number;
  /** Outbound rules when fetching (default: private addresses refused, the fetcher's own User-Agent). */
  outbound?: OutboundOptions;
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

/** Attempts at a remote file: a refused connection, a timeout, a 429 or a 5xx is tried again; anything else is final. */
const FETCH_ATTEMPTS = 3;

/** A fetch or local-read failure as an import problem whose reason a creator reads. */
function problemOf(err: unknown, file: string): ImportProblem {
  if (err instanceof ImportProblem) return err;
  if (err instanceof FetchError) return new ImportProblem(file, describeFetchError(err, 'the file'));
  return new ImportProblem(file, (err as Error).message);
}

async function fetchText(url: string, timeoutMs: number, outbound: OutboundOptions): Promise<string> {
  return pRetry(
    async () => {
      try {
        const res = await fetchBytes(url, { maxBytes: TRANSCRIPT_MAX_BYTES, timeoutMs, ...outbound });
        if (res.status < 200 || res.status > 299) throw httpStatusError(res.url, res.status, res.headers);
        return res.body.toString('utf8');
      } catch (err) {
        throw err instanceof FetchError && err.transient ? err : new AbortError(err as Error);
      }
    },
    { retries: FETCH_ATTEMPTS - 1, minTimeout: 250, factor: 2 },
  ).catch((err: unknown) => {
    throw problemOf(err, url);
  });
}

/**
 * The text of a local file confined to `baseDir` (no `file:` URL, no path leaving the folder, no symbolic link, a
 * regular file of at most `maxBytes`), or an ImportProblem naming `ref` and why.
 */
export async function readConfinedText(baseDir: string, ref: string, { maxBytes = TRANSCRIPT_MAX_BYTES }: { maxBytes?: number } = {}): Promise<string> {
  try {
    return (await readLocalFile(baseDir, ref, { maxBytes })).toString('utf8');
  } catch (err) {
    throw problemOf(err, resolvePath(baseDir, ref));
  }
}

/** The text of a file an item names: `url` relative to the feed's folder (and inside it), or absolute http(s) (fetched only when allowed). */
export async function readSource(url: string, opts: SourceOptions): Promise<{ text: string; name: string }> {
  if (/^https?:\/\//i.test(url)) {
    if (!opts.fetch) throw new ImportProblem(url, 'remote file not fetched (run with --fetch to fetch it)');
    return { text: await fetchText(url, opts.timeoutMs ?? 30_000, opts.outbound ?? {}), name: url };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) throw new ImportProblem(url, "not an http(s) URL or a path inside the feed's folder");
  let ref: string;
  try {
    ref = decodeURIComponent(url);
  } catch {
    throw new ImportProblem(url, 'not a valid path (bad percent-encoding)');
  }
  const name = resolvePath(opts.baseDir, ref);
  try {
    return { text: (await readLocalFile(opts.baseDir, ref, { maxBytes: TRANSCRIPT_MAX_BYTES })).toString('utf8'), name };
  } catch (err) {
    throw problemOf(err, name);
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
