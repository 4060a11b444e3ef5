// The channel statistics file (`channel-stats.json`): what the choice of topics needs from a channel's other episodes
// (document frequencies of candidate phrases, each episode's keyphrases, counts), so that enriching one episode reads
// that episode and this file, never the others. Kept at each publish (in the locked write) and by `npm run enrich`.
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import type { Logger } from '../../core/ground/logger.js';
import { writeLibraryFile } from '../../core/library/writer.js';
import { LIBRARY_FILES } from '../../core/library/layout.js';
import { episodesInFiles, listEpisodeFiles, readText } from '../../core/library/reader.js';
import { languageOf, speechText } from './speech.js';
import { candidatePhrases, type DocumentFrequencies } from './phrases.js';
import { PhraseCounts, type PhraseCountsJson } from './phrase-counts.js';
import { episodeKeyphrases, type Keyphrase } from './topics.js';

/** The file's name at the library folder's root. */
export const STATS_FILE = LIBRARY_FILES.channelStats;
// 2: phrase keys keep hyphenated words and capitalised names whole (phrases.ts), so a file of version 1 is rebuilt.
const STATS_VERSION = 2;

/**
 * Phrase keys kept per channel, 13 bytes each in the file. A one-hour episode brings about 1,000 keys no other episode
 * has (200 episodes of the podcast data set: 192,000 keys); past the cap the keys in fewest episodes go, down to 90 %
 * of it (their idf then reads a little high), and `dropped` counts them.
 */
export const MAX_DF_KEYS = 300_000;

/** One episode record of the channel as the statistics count it. */
export interface StatsEpisode {
  /** Its file, relative to the folder. */
  file: string;
  /** Counted in `n` (every record but an archived one, as a document). */
  counted: boolean;
  /** sha256 of the language and speech text whose phrases are in `df`; null when none are (archived, or no speech). */
  text: string | null;
  /** Its keyphrases for the topic choice, `[key, phrase]`, when `text` is set. */
  keyphrases?: [string, string][];
}

/** A channel's statistics in memory. */
export interface ChannelTally {
  channelId: string;
  /** The channel's language, in which `df`'s keys were stemmed. */
  language: string;
  episodes: Map<string, StatsEpisode>;
  /** Size and modification time of every episode file when it was last read: a file whose stamp differs is read again. */
  files: Map<string, string>;
  df: PhraseCounts;
  /** Keys dropped by {@link MAX_DF_KEYS}. */
  dropped: number;
  /** The file as it was read (its other channels are written back as they were; an unchanged file is not rewritten). */
  read?: { raw: string; channels: Record<string, TallyJson> };
}

interface TallyJson {
  language: string;
  episodes: Record<string, StatsEpisode>;
  files: Record<string, string>;
  /** Episodes per phrase key, by the key's 53-bit hash. */
  df: PhraseCountsJson;
  dropped: number;
}

interface StatsJson {
  version: number;
  channels: Record<string, TallyJson>;
}

/** The statistics cannot be brought up to date from the files that changed (a transcript changed or left with no copy of the old one): rebuild. */
export class StaleStats extends Error {
  override name = 'StaleStats';
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What a record adds to its channel's statistics. */
function shapeOf(record: EpisodeRecord, channelLanguage: string): { counted: boolean; text: string | null; body: string; language: string } {
  const language = languageOf(record, channelLanguage);
  const body = speechText(record.transcript?.segments ?? []);
  const text = body === '' ? null : sha256(`${language}\n${body}`);
  return { counted: record.status !== 'archived', text: record.status === 'archived' ? null : text, body, language };
}

/** The text digest a record would have in the statistics, whatever its status. */
const textOf = (record: EpisodeRecord, channelLanguage: string): string | null => {
  const body = speechText(record.transcript?.segments ?? []);
  return body === '' ? null : sha256(`${languageOf(record, channelLanguage)}\n${body}`);
};

/** The phrase keys of a text, each once. */
export const phraseKeys = (body: string, language: string): Set<string> => new Set(candidatePhrases(body, language).map((c) => c.key));

export const emptyTally = (channelId: string, language: string): ChannelTally => ({
  channelId,
  language,
  episodes: new Map(),
  files: new Map(),
  df: new PhraseCounts(),
  dropped: 0,
});

/** Episodes counted in `n`. */
export const countOf = (tally: ChannelTally): number => {
  let n = 0;
  for (const e of tally.episodes.values()) if (e.counted) n++;
  return n;
};

async function readStatsJson(dir: string): Promise<{ raw: string; json: StatsJson | undefined } | undefined> {
  let raw: string;
  try {
    raw = await readText(join(dir, STATS_FILE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const parsed = JSON.parse(raw) as StatsJson;
    return { raw, json: parsed?.version === STATS_VERSION && typeof parsed.channels === 'object' && parsed.channels !== null ? parsed : undefined };
  } catch {
    return { raw, json: undefined }; // a broken file is rebuilt, as a missing one
  }
}

/** The channel's statistics as the file holds them (not checked against the episode files), or undefined. */
export async function readTally(dir: string, channelId: string, language: string): Promise<ChannelTally | undefined> {
  const file = await readStatsJson(dir);
  const json = file?.json?.channels[channelId];
  if (!json || json.language !== language) return undefined;
  const df = PhraseCounts.fromJson(json.df);
  const read = { raw: file!.raw, channels: file!.json!.channels };
  return { channelId, language, episodes: new Map(Object.entries(json.episodes)), files: new Map(Object.entries(json.files)), df, dropped: json.dropped ?? 0, read };
}

/** Size and modification time of each episode file, by its path relative to the folder: stat only, nothing read. */
async function stampFiles(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const paths = await listEpisodeFiles(dir);
  // All at once: one by one, 200 stats waited on the thread pool in turn.
  const stats = await Promise.all(paths.map((path) => stat(path).catch(() => undefined)));
  paths.forEach((path, i) => {
    const s = stats[i];
    if (s?.isFile()) out.set(relative(dir, path), `${s.size}:${s.mtimeMs}`);
  });
  return out;
}

const addKeys = (tally: ChannelTally, keys: Iterable<string>, by: 1 | -1) => tally.df.add(keys, by);

/** Document frequencies for the keys of one text (the only ones its ranking looks up). */
const freqFor = (tally: ChannelTally, keys: Iterable<string>, n: number, count = (key: string) => tally.df.get(key)): DocumentFrequencies => ({
  n,
  df: new Map([...keys].map((key) => [key, count(key)])),
});

/**
 * Takes an episode's contribution out of the tally. Its phrases are computed again from one of `sources` (the episode's
 * record as it was, or as it is now when only its status changed) whose text is the one counted; without one the
 * statistics cannot be corrected, and StaleStats says so.
 */
function subtract(tally: ChannelTally, id: string, sources: readonly (EpisodeRecord | undefined)[]): void {
  const entry = tally.episodes.get(id);
  if (!entry) return;
  tally.episodes.delete(id);
  if (!entry.text) return;
  const source = sources.find((r) => r && textOf(r, tally.language) === entry.text);
  if (!source) throw new StaleStats(`episode ${id} changed its transcript outside the statistics`);
  addKeys(tally, phraseKeys(speechText(source.transcript?.segments ?? []), tally.language), -1);
}

/** A hint for an episode's keyphrases (what enrichment computed), used when its text is the one counted. */
export interface KeyphraseHint {
  text: string;
  keyphrases: Keyphrase[];
}

/** Records the episodes of `found` into the tally (their old contribution out, the new in); keyphrases last, on the final counts. */
function upsert(
  tally: ChannelTally,
  found: ReadonlyMap<string, { record: EpisodeRecord; file: string }>,
  { previous, hints }: { previous?: ReadonlyMap<string, EpisodeRecord> | undefined; hints?: ReadonlyMap<string, KeyphraseHint> | undefined },
): void {
  const toRank: { id: string; body: string; language: string; entry: StatsEpisode }[] = [];
  for (const [id, { record, file }] of found) {
    const shape = shapeOf(record, tally.language);
    const old = tally.episodes.get(id);
    if (old && old.text === shape.text) {
      tally.episodes.set(id, { ...old, file, counted: shape.counted });
      continue;
    }
    subtract(tally, id, [previous?.get(id), record]);
    const entry: StatsEpisode = { file, counted: shape.counted, text: shape.text };
    tally.episodes.set(id, entry);
    if (!shape.text) continue;
    addKeys(tally, phraseKeys(shape.body, tally.language), 1);
    const hint = hints?.get(id);
    if (hint && hint.text === shape.text) entry.keyphrases = hint.keyphrases.map((k) => [k.key, k.phrase]);
    else toRank.push({ id, body: shape.body, language: shape.language, entry });
  }
  const n = countOf(tally);
  for (const { body, language, entry } of toRank) {
    const freq = freqFor(tally, phraseKeys(body, tally.language), n);
    entry.keyphrases = episodeKeyphrases(body, { language, freq }).map((k) => [k.key, k.phrase]);
  }
}

/**
 * Brings a tally up to date with the folder: every episode file is stat'ed, and only those whose size or time differ
 * from the tally's record (written since by a poll, an import, a hand) are read; an episode gone or changed is taken
 * out and put in again. `previous` gives records as they were before a write the caller made (their old text);
 * throws StaleStats when a changed transcript's old text is nowhere.
 */
async function refresh(
  dir: string,
  tally: ChannelTally,
  opts: { previous?: ReadonlyMap<string, EpisodeRecord> | undefined; hints?: ReadonlyMap<string, KeyphraseHint> | undefined },
): Promise<string[]> {
  const now = await stampFiles(dir);
  const changed = [...now].filter(([file, stamp]) => tally.files.get(file) !== stamp).map(([file]) => file);
  const touched = new Set([...changed, ...[...tally.files.keys()].filter((f) => !now.has(f))]);
  if (touched.size === 0) return [];
  const found = new Map<string, { record: EpisodeRecord; file: string }>();
  for await (const { record, file } of episodesInFiles(
    changed.map((f) => join(dir, f)),
    new Set([tally.channelId]),
  ))
    found.set(record.id, { record, file: relative(dir, file.path) });
  for (const [id, entry] of [...tally.episodes]) if (touched.has(entry.file) && !found.has(id)) subtract(tally, id, [opts.previous?.get(id)]);
  upsert(tally, found, opts);
  for (const file of touched) {
    const stamp = now.get(file);
    if (stamp === undefined) tally.files.delete(file);
    else tally.files.set(file, stamp);
  }
  return changed;
}

/** The tally made from every episode file of the folder (a missing or stale file; `npm run enrich`). */
export async function rebuildTally(dir: string, channelId: string, language: string): Promise<ChannelTally> {
  const tally = emptyTally(channelId, language);
  await refresh(dir, tally, {});
  return tally;
}

export interface LoadedTally {
  tally: ChannelTally;
  /** `file` (read, brought up to date from the files that changed), `rebuilt` (from every episode file). */
  from: 'file' | 'rebuilt';
  /** Episode files read to bring it up to date. */
  read: string[];
}

/**
 * The channel's statistics, true to the folder as it is now: the file's, brought up to date from the episode files that
 * changed since it was written, else rebuilt from every episode file (missing, broken, of another version or
 * language, or a transcript changed outside it).
 */
export async function loadTally(
  dir: string,
  channelId: string,
  language: string,
  opts: { previous?: ReadonlyMap<string, EpisodeRecord>; hints?: ReadonlyMap<string, KeyphraseHint>; log?: Logger | undefined } = {},
): Promise<LoadedTally> {
  const stored = await readTally(dir, channelId, language);
  if (stored) {
    try {
      const read = await refresh(dir, stored, opts);
      return { tally: stored, from: 'file', read };
    } catch (err) {
      if (!(err instanceof StaleStats)) throw err;
      opts.log?.info({ channelId, reason: err.message }, 'channel statistics are stale: rebuilt from the episodes');
    }
  }
  const tally = emptyTally(channelId, language);
  const read = await refresh(dir, tally, { hints: opts.hints });
  return { tally, from: 'rebuilt', read };
}

/** Past {@link MAX_DF_KEYS}, down to 90 % of it, so that the next episodes do not each pay for the cut. */
function cap(tally: ChannelTally): void {
  if (tally.df.size > MAX_DF_KEYS) tally.dropped += tally.df.dropTo(Math.floor(MAX_DF_KEYS * 0.9));
}

const sortedRecord = <T>(map: ReadonlyMap<string, T>): Record<string, T> => Object.fromEntries([...map].sort((a, b) => (a[0] < b[0] ? -1 : 1)));

/**
 * Writes the channel's tally into the folder's statistics file, the other channels' kept (the caller holds the folder's
 * lock); true when the file changed.
 */
export async function saveTally(dir: string, tally: ChannelTally): Promise<boolean> {
  cap(tally);
  const df = tally.df.toJson();
  const json: TallyJson = { language: tally.language, episodes: sortedRecord(tally.episodes), files: sortedRecord(tally.files), df, dropped: tally.dropped };
  const existing = tally.read ?? (await readStatsJson(dir).then((f) => (f?.json ? { raw: f.raw, channels: f.json.channels } : undefined)));
  const channels = sortedRecord(new Map([...Object.entries(existing?.channels ?? {}), [tally.channelId, json]]));
  const text = `${JSON.stringify({ version: STATS_VERSION, channels })}\n`;
  if (text === existing?.raw) return false;
  await writeLibraryFile(join(dir, STATS_FILE), text);
  return true;
}

/**
 * The publishing write's step: the statistics file brought up to date with the folder as just written (`previous`:
 * the records as they were before that write), and saved. A failure is logged and leaves the file as it was: the next
 * reader finds the changed files by their stamps, or rebuilds.
 */
export async function recordChannelStats(
  dir: string,
  {
    channelId,
    channelLanguage,
    previous,
    hint,
    log,
  }: {
    channelId: string;
    channelLanguage: string | null;
    previous?: EpisodeRecord | undefined;
    hint?: (KeyphraseHint & { episodeId: string }) | undefined;
    log?: Logger | undefined;
  },
): Promise<void> {
  try {
    const { tally, from } = await loadTally(dir, channelId, (channelLanguage || 'en').toLowerCase(), {
      ...(previous ? { previous: new Map([[previous.id, previous]]) } : {}),
      ...(hint ? { hints: new Map([[hint.episodeId, hint]]) } : {}),
      log,
    });
    await saveTally(dir, tally);
    log?.debug({ channelId, from, episodes: tally.episodes.size, keys: tally.df.size }, 'channel statistics saved');
  } catch (err) {
    log?.warn({ channelId, err: (err as Error).message }, 'channel statistics not saved: the next enrichment brings them up to date from the episode files');
  }
}

/**
 * What enriching one episode takes from the tally: the document frequencies with the episode's new text in place of its
 * old contribution (`previous`: its record as the folder holds it), for the keys of that text (the only ones looked up),
 * and the other episodes' keyphrases.
 */
export function channelView(
  tally: ChannelTally,
  { episodeId, body, previous }: { episodeId: string; body: string; previous?: EpisodeRecord | undefined },
): { freq: DocumentFrequencies; others: { episodeId: string; keyphrases: Keyphrase[] }[] } {
  const entry = tally.episodes.get(episodeId);
  let oldKeys = new Set<string>();
  if (entry?.text) {
    if (!previous || textOf(previous, tally.language) !== entry.text) throw new StaleStats(`episode ${episodeId}'s counted text is not the one in its file`);
    oldKeys = phraseKeys(speechText(previous.transcript?.segments ?? []), tally.language);
  }
  const n = countOf(tally) - (entry?.counted ? 1 : 0) + 1;
  const freq = freqFor(tally, phraseKeys(body, tally.language), n, (key) => tally.df.get(key) - (oldKeys.has(key) ? 1 : 0) + 1);
  const others = [...tally.episodes]
    .filter(([id, e]) => id !== episodeId && e.text)
    .map(([id, e]) => ({ episodeId: id, keyphrases: (e.keyphrases ?? []).map(([key, phrase]) => ({ key, phrase, score: 1 })) }));
  return { freq, others };
}

/** The digest under which an episode's speech text is counted (for a {@link KeyphraseHint}). */
export const countedText = (record: EpisodeRecord, channelLanguage: string | null): string | null => textOf(record, (channelLanguage || 'en').toLowerCase());
