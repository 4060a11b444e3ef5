// Reads a library folder into validated records; a bad file or record is reported and skipped.
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createGunzip, gunzip } from 'node:zlib';
import {
  FACET_FILES,
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
} from './schemas.js';
import type { FacetKind } from '../core/store/documents.js';

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

const EPISODE_FILE = /\.(json|jsonl)(\.gz)?$/;

/** Reads a whole file, gunzipping `.gz`. */
async function readText(path: string): Promise<string> {
  const raw = await readFile(path);
  return (path.endsWith('.gz') ? await gunzipAsync(raw) : raw).toString('utf8');
}

function parse(text: string): Check<unknown> {
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
  const users = await readArray(join(dir, 'users.json'), checkUser, issues);
  const userIds = new Set(users.map((u) => u.id));
  const channelsPath = join(dir, 'channels.json');
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
  const folder = join(dir, 'episodes');
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
    if (!/\.jsonl(\.gz)?$/.test(path)) {
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
    if (/\.jsonl(\.gz)?$/.test(path)) {
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
