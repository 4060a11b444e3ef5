// The episode files of a library folder as enrichment reads and rewrites them (`.json`, `.jsonl`, gzipped), and the
// speech text of a record: what the channel statistics and the keyphrases read.
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { libraryJson, writeLibraryFile } from '../../importer/library-writer.js';
import { readLines } from '../../indexer/library-reader.js';
import { checkEpisode } from '../../indexer/schemas.js';
import { orderedSegments } from './enrich-episode.js';
import type { EnrichSegment } from './types.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** An episode record as the follower stores it: the format's fields plus the detected `language`. */
export type StoredEpisode = EpisodeRecord & { language?: string | null };

/** One episode file and the records it holds (one for `.json`, each line for `.jsonl`). */
export interface EpisodeFile {
  path: string;
  /** Raw lines of a `.jsonl` file (blank and broken ones kept as they are), or the one record of a `.json` file. */
  lines: string[];
  jsonl: boolean;
  gz: boolean;
}

export async function readEpisodeFile(path: string): Promise<EpisodeFile> {
  const gz = path.endsWith('.gz');
  const jsonl = /\.jsonl(\.gz)?$/.test(path);
  if (jsonl) {
    const lines: string[] = [];
    for await (const line of readLines(path)) lines.push(line);
    return { path, lines, jsonl, gz };
  }
  const raw = await readFile(path);
  return { path, lines: [(gz ? await gunzipAsync(raw) : raw).toString('utf8')], jsonl, gz };
}

export async function writeEpisodeFile(file: EpisodeFile): Promise<void> {
  const text = file.jsonl ? `${file.lines.join('\n')}\n` : file.lines[0]!;
  // gzip's header carries no time from Node's zlib: the same text gives the same bytes.
  await writeLibraryFile(file.path, file.gz ? await gzipAsync(Buffer.from(text, 'utf8'), { level: 9 }) : text);
}

/** The record of a line, re-serialised the way the file holds its records. */
export const serialise = (file: EpisodeFile, record: EpisodeRecord): string => (file.jsonl ? JSON.stringify(record) : libraryJson(record));

export interface LibraryRecord {
  file: EpisodeFile;
  index: number;
  record: StoredEpisode;
}

/** Each valid episode record of the files, with where it is. */
export async function* records(files: readonly string[], channelIds: ReadonlySet<string>): AsyncGenerator<LibraryRecord> {
  for (const path of files) {
    const file = await readEpisodeFile(path);
    for (let index = 0; index < file.lines.length; index++) {
      const text = file.lines[index]!;
      if (text.trim() === '') continue;
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        continue; // ingest reports a broken record; enrichment leaves it as it is
      }
      const checked = checkEpisode(data);
      if (checked.ok && channelIds.has(checked.value.channelId)) yield { file, index, record: checked.value };
    }
  }
}

/** The language enrichment reads an episode in. */
export const languageOf = (record: StoredEpisode, channelLanguage: string | null | undefined): string => (record.language || channelLanguage || 'en').toLowerCase();

/** The speech of a record as one text, in the order the chapters read it: what channel statistics and keyphrases read. */
export const speechText = (segments: readonly EnrichSegment[]): string =>
  orderedSegments(segments)
    .map((s) => s.text.trim())
    .join(' ');
