// The one reader of library folders: meta (users, channels, facets) validated and cross-checked, episodes streamed
// from every form (`.json`, `.jsonl`, gzipped), single records and files; a bad file or record is reported and
// skipped where a whole library is read, and thrown where one record is asked for.
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createGunzip, gunzip } from 'node:zlib';
import type { FacetKind } from '../contract/library-format.js';
import { EPISODE_FILE, EPISODES_DIR, FACET_FILES, LIBRARY_FILES, episodePath, isLinesFile } from './layout.js';
import {
  checkChannel,
  checkCollection,
  checkEpisode,
  checkFacet,
  checkUser,
  type ChannelRecord,
  type Check,
  type EpisodeRecord,
  type FacetRecord,
  type UserRecord,
} from './checks.js';

const gunzipAsync = promisify(gunzip);

/** Something in the library that was not loaded, and why. */
export interface LibraryIssue {
  /** File the problem is in. */
  path: string;
  /** 1-based line of a `.jsonl` file. */
  line?: number;
  /** Record id, when the record got far enough to have one. */
  id?: string;
  reason: string;
}

/** `path:line: reason (id)`, the one way issues are printed. */
export function formatIssue(issue: LibraryIssue): string {
  const where = issue.line === undefined ? issue.path : `${issue.path}:${issue.line}`;
  return `${where}: ${issue.reason}${issue.id ? ` (${issue.id})` : ''}`;
}

export interface FacetEntry {
  kind: FacetKind;
  record: FacetRecord;
}

/** Everything of a library except its episodes, validated and cross-checked. */
export interface LibraryMeta {
  dir: string;
  users: UserRecord[];
  channels: ChannelRecord[];
  facets: FacetEntry[];
  issues: LibraryIssue[];
}

export interface EpisodeEntry {
  record: EpisodeRecord;
  path: string;
  line?: number;
}

/** Reads a whole file, gunzipping `.gz`. */
export async function readText(path: string): Promise<string> {
  const raw = await readFile(path);
  return (path.endsWith('.gz') ? await gunzipAsync(raw) : raw).toString('utf8');
}

export function parse(text: string): Check<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, reason: `invalid JSON: ${(err as Error).message}` };
  }
}

function idOf(data: unknown): string | undefined {
  const id = (data as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Reads a JSON array file; each item is checked on its own so one bad item skips only itself. */
async function readArray<T>(path: string, check: (data: unknown) => Check<T>, issues: LibraryIssue[], { optional = false } = {}): Promise<T[]> {
  let text: string;
  try {
    text = await readText(path);
  } catch (err) {
    if (optional && (err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    issues.push({ path, reason: `cannot read: ${(err as Error).message}` });
    return [];
  }
  const parsed = parse(text);
  if (!parsed.ok) {
    issues.push({ path, reason: parsed.reason });
    return [];
  }
  if (!Array.isArray(parsed.value)) {
    issues.push({ path, reason: 'expected a JSON array' });
    return [];
  }
  const out: T[] = [];
  const seen = new Set<string>();
  parsed.value.forEach((item, i) => {
    const checked = check(item);
    const id = idOf(item);
    if (!checked.ok) {
      issues.push({ path, id, reason: `item ${i}: ${checked.reason}` });
    } else if (seen.has(id!)) {
      issues.push({ path, id, reason: `item ${i}: duplicate id` });
    } else {
      seen.add(id!);
      out.push(checked.value);
    }
  });
  return out;
}

/**
 * Reads users, channels and facet names of a library. A channel whose owner or a
 * member is not a known user is skipped; the owner is always added to the members.
 */
export async function readLibraryMeta(dir: string): Promise<LibraryMeta> {
  const issues: LibraryIssue[] = [];
  const users = await readArray(join(dir, LIBRARY_FILES.users), checkUser, issues);
  const userIds = new Set(users.map((u) => u.id));
  const channelsPath = join(dir, LIBRARY_FILES.channels);
  const channels: ChannelRecord[] = [];
  for (const ch of await readArray(channelsPath, checkChannel, issues)) {
    const unknown = [ch.ownerId, ...ch.memberIds].filter((u) => !userIds.has(u));
    if (unknown.length > 0) {
      issues.push({ path: channelsPath, id: ch.id, reason: `unknown user ${[...new Set(unknown)].join(', ')}` });
      continue;
    }
    const memberIds = ch.memberIds.includes(ch.ownerId) ? ch.memberIds : [...ch.memberIds, ch.ownerId];
    channels.push({ ...ch, memberIds });
  }
  const channelIds = new Set(channels.map((c) => c.id));
  const facets: FacetEntry[] = [];
  for (const { file, kind } of FACET_FILES) {
    const path = join(dir, file);
    const records = await readArray(path, kind === 'collection' ? checkCollection : checkFacet, issues, { optional: true });
    for (const record of records) {
      // A facet names its channel when it is that channel's alone (a collection always does): it must be the library's own.
      if ((kind === 'collection' || record.channelId != null) && !channelIds.has(record.channelId!)) {
        issues.push({ path, id: record.id, reason: `unknown channel ${record.channelId}` });
        continue;
      }
      facets.push({ kind, record });
    }
  }
  return { dir, users, channels, facets, issues };
}

/** Episode files of a library, in name order (so every run reads in the same order). */
export async function listEpisodeFiles(dir: string): Promise<string[]> {
  const folder = join(dir, EPISODES_DIR);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .filter((n) => !n.startsWith('.') && EPISODE_FILE.test(n))
    .sort()
    .map((n) => join(folder, n));
}

/**
 * Lines of a (gzipped) text file, streamed: only the current chunk and line are
 * held, so a 300-episode `.jsonl.gz` never sits in memory whole.
 */
export async function* readLines(path: string): AsyncGenerator<string> {
  const file = createReadStream(path);
  const stream = path.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  file.on('error', (err) => stream.destroy(err));
  let rest = '';
  const decoder = new TextDecoder('utf-8');
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      rest += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = rest.indexOf('\n')) >= 0) {
        yield rest.slice(0, nl).replace(/\r$/, '');
        rest = rest.slice(nl + 1);
      }
    }
    rest += decoder.decode();
    if (rest !== '') yield rest;
  } finally {
    stream.destroy();
  }
}

/** How many episode records the files hold (non-blank lines of `.jsonl` files), for a progress total. */
export async function countEpisodes(dir: string): Promise<number> {
  let n = 0;
  for (const path of await listEpisodeFiles(dir)) {
    if (!isLinesFile(path)) {
      n++;
      continue;
    }
    try {
      for await (const line of readLines(path)) if (line.trim() !== '') n++;
    } catch {
      // A broken file is reported when it is read for real.
    }
  }
  return n;
}

export interface ReadEpisodesOptions {
  /** Channels that loaded; an episode of any other channel is skipped. */
  channelIds: ReadonlySet<string>;
  /** Called for each skipped file or record. */
  onIssue: (issue: LibraryIssue) => void;
}

/**
 * Streams the validated episodes of a library, one at a time. Invalid JSON, a
 * failed schema check, an unknown channel or a repeated id skips that record
 * (reported with path and line) and reading goes on.
 */
export async function* readEpisodes(dir: string, { channelIds, onIssue }: ReadEpisodesOptions): AsyncGenerator<EpisodeEntry> {
  const seen = new Set<string>();
  const accept = (data: unknown, path: string, line?: number): EpisodeEntry | undefined => {
    const issue = (reason: string, id = idOf(data)): undefined => {
      onIssue({ path, ...(line === undefined ? {} : { line }), ...(id ? { id } : {}), reason });
      return undefined;
    };
    const checked = checkEpisode(data);
    if (!checked.ok) return issue(checked.reason);
    const record = checked.value;
    if (!channelIds.has(record.channelId)) return issue(`unknown channel ${record.channelId}`);
    if (seen.has(record.id)) return issue('duplicate episode id');
    seen.add(record.id);
    return { record, path, ...(line === undefined ? {} : { line }) };
  };

  for (const path of await listEpisodeFiles(dir)) {
    if (isLinesFile(path)) {
      let lineNo = 0;
      try {
        for await (const text of readLines(path)) {
          lineNo++;
          if (text.trim() === '') continue;
          const parsed = parse(text);
          const entry = parsed.ok ? accept(parsed.value, path, lineNo) : (onIssue({ path, line: lineNo, reason: parsed.reason }), undefined);
          if (entry) yield entry;
        }
      } catch (err) {
        // A truncated or corrupt gzip stream: what was read stays loaded, the rest of the file is lost.
        onIssue({ path, line: lineNo + 1, reason: `cannot read further: ${(err as Error).message}` });
      }
      continue;
    }
    let text: string;
    try {
      if ((await stat(path)).isDirectory()) continue;
      text = await readText(path);
    } catch (err) {
      onIssue({ path, reason: `cannot read: ${(err as Error).message}` });
      continue;
    }
    const parsed = parse(text);
    if (!parsed.ok) {
      onIssue({ path, reason: parsed.reason });
      continue;
    }
    const entry = accept(parsed.value, path);
    if (entry) yield entry;
  }
}

/** JSON of a file (gunzipped when `.gz`), or undefined when it does not exist; a file that is no JSON throws, naming it. */
export async function readJsonFile<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readText(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const parsed = parse(text);
  if (!parsed.ok) throw new Error(`${path}: ${parsed.reason}`);
  return parsed.value as T;
}

/**
 * The records of a JSON array file as they stand, for a writer that rewrites it (users.json, channels.json, facet
 * files): [] when the file does not exist; a file that is no JSON array throws, naming it.
 */
export async function readRecordArray<T>(path: string): Promise<T[]> {
  const value = await readJsonFile<unknown>(path);
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`${path}: expected a JSON array`);
  return value as T[];
}

/** The users, channels or facets of a library's file as they stand (readRecordArray of `name` at its root). */
export const readLibraryArray = <T>(dir: string, name: string): Promise<T[]> => readRecordArray<T>(join(dir, name));

/**
 * One episode from its own file (`episodes/<id>.json`), checked: undefined when there is none; a record that is no
 * JSON or fails the format's checks throws, naming the file and why.
 */
export async function readEpisodeRecord<T extends EpisodeRecord = EpisodeRecord>(dir: string, id: string): Promise<T | undefined> {
  const path = episodePath(dir, id);
  const data = await readJsonFile<unknown>(path);
  if (data === undefined) return undefined;
  const checked = checkEpisode(data);
  if (!checked.ok) throw new Error(`${path}: ${checked.reason}`);
  return checked.value as T;
}

/**
 * Each record of the `.json` episode files as they stand, unchecked (the importer's own files, which it reconciles
 * and rewrites): a file that is no JSON is skipped, for ingest to report.
 */
export async function* episodeFileRecords(dir: string): AsyncGenerator<{ path: string; record: EpisodeRecord }> {
  for (const path of (await listEpisodeFiles(dir)).filter((p) => p.endsWith('.json'))) {
    const parsed = parse(await readText(path));
    if (parsed.ok && parsed.value !== null && typeof parsed.value === 'object') yield { path, record: parsed.value as EpisodeRecord };
  }
}

/** One episode file and the records it holds (one for `.json`, each line for `.jsonl`), as a writer rewrites it. */
export interface EpisodeFile {
  path: string;
  /** Raw lines of a `.jsonl` file (blank and broken ones kept as they are), or the one record of a `.json` file. */
  lines: string[];
  jsonl: boolean;
  gz: boolean;
}

/** An episode file whole, for a rewrite that keeps what it does not change (writeEpisodeFile writes it back). */
export async function readEpisodeFile(path: string): Promise<EpisodeFile> {
  const gz = path.endsWith('.gz');
  const jsonl = isLinesFile(path);
  if (jsonl) {
    const lines: string[] = [];
    for await (const line of readLines(path)) lines.push(line);
    return { path, lines, jsonl, gz };
  }
  return { path, lines: [await readText(path)], jsonl, gz };
}

/** A valid episode record of an episode file, with where it is. */
export interface EpisodeInFile<T extends EpisodeRecord = EpisodeRecord> {
  file: EpisodeFile;
  index: number;
  record: T;
}

/** Each valid episode record of `files` whose channel is one of `channelIds`, with where it is (broken ones left as they are: ingest reports them). */
export async function* episodesInFiles(files: readonly string[], channelIds: ReadonlySet<string>): AsyncGenerator<EpisodeInFile> {
  for (const path of files) {
    const file = await readEpisodeFile(path);
    for (let index = 0; index < file.lines.length; index++) {
      const text = file.lines[index]!;
      if (text.trim() === '') continue;
      const parsed = parse(text);
      if (!parsed.ok) continue;
      const checked = checkEpisode(parsed.value);
      if (checked.ok && channelIds.has(checked.value.channelId)) yield { file, index, record: checked.value };
    }
  }
}
