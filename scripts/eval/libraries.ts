// The eval's libraries: a data set as given or copied without chapters, loaded (idempotently) into a prefix of its own.
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Config } from '../../core/config/load.js';
import { createEmbedder, type Embedder } from '../../core/embedding/embedder.js';
import { withEmbeddingCache } from '../../core/embedding/embedding-cache.js';
import type { Logger } from '../../core/ground/logger.js';
import { createOpenSearchClient } from '../../core/store/opensearch.js';
import { loadLibrary } from '../../indexer/load-library.js';
import { createIndexerEmbedder } from '../../core/embedding/indexer-embedder.js';
import { listEpisodeFiles, readEpisodes, readLibraryMeta } from '../../core/library/reader.js';
import { createProgress } from '../../indexer/progress.js';
import { formatSummary } from '../../indexer/summary.js';
import { CACHE_DIR } from '../ops/provision/paths.js';
import type { EpisodeRecord } from '../../core/library/checks.js';
import { enrichTranscript } from '../../pipeline/enrich/enrich-episode.js';
import { documentFrequencies, type DocumentFrequencies } from '../../pipeline/enrich/phrases.js';
import { assignTopics, type Keyphrase } from '../../pipeline/enrich/topics.js';
import type { EmbedTexts, GeneratedChapter, GeneratedFacet } from '../../pipeline/enrich/types.js';

/**
 * Whether the library keeps its chapters, is searched on speech alone (`chapters: []` on every episode), or on speech
 * with what local enrichment generates from it (`generated`: chapters, moments and topics marked generated, people and
 * entities removed; `generated-as-creator`: the same chapters without the mark, indexed as a creator's would be;
 * `generated-titles-as-creator`: the same without their moments; `generated-cut`: the generated chapters' boundaries
 * only, as untitled chapters without moments, so passages are cut there and no title is searched).
 */
export type ChapterCondition = 'chapters' | 'speech' | 'generated' | 'generated-as-creator' | 'generated-titles-as-creator' | 'generated-cut';

export const CHAPTER_CONDITIONS: readonly ChapterCondition[] = ['chapters', 'speech', 'generated', 'generated-as-creator', 'generated-titles-as-creator', 'generated-cut'];

/** One library of an eval run: where its files are and the prefix it is loaded under. */
export interface EvalLibrary {
  /** Data set name (the folder's name). */
  name: string;
  condition: ChapterCondition;
  /** Folder of the library as loaded (a copy without chapters for `speech`). */
  dir: string;
  /** Judged queries of the data set (`queries-dev.jsonl` beside the original). */
  queries: string;
  prefix: string;
}

const META_FILES = ['users.json', 'channels.json', 'topics.json', 'people.json', 'entities.json', 'collections.json'];

/**
 * The library at `source` under a condition. `speech` writes a copy whose episodes carry
 * `chapters: []` (once; redone when the source's episode files are newer), so passages
 * are packed from speech alone and no chapter or moment title is indexed anywhere.
 */
export async function prepareLibrary(
  source: string,
  condition: ChapterCondition,
  { log, channel, embed }: { log?: Logger; channel?: string | undefined; embed?: () => Promise<EmbedTexts> } = {},
): Promise<EvalLibrary> {
  const name = basename(source.replace(/\/+$/, '')) + (channel ? `-${channel}` : '');
  const queries = join(source, 'queries-dev.jsonl');
  if (condition === 'chapters' && !channel) return { name, condition, dir: source, queries, prefix: `eval-${name}-` };
  const suffix = condition === 'chapters' ? '' : `-${condition}`;
  const dir = join(CACHE_DIR, 'eval', `${name}${suffix}`);
  const prefix = `eval-${name}${suffix}-`;
  const files = await listEpisodeFiles(source);
  const newest = Math.max(0, ...(await Promise.all(files.map(async (f) => (await stat(f)).mtimeMs))));
  const stamp = condition.startsWith('generated') ? `${newest} ${ENRICH_VERSION}` : String(newest);
  const done = await readFile(join(dir, '.source-mtime'), 'utf8').catch(() => '');
  if (done === stamp) return { name, condition, dir, queries, prefix };

  log?.info({ source, dir, condition }, 'writing a copy of the library');
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(join(tmp, 'episodes'), { recursive: true });
  for (const f of META_FILES) await copyFile(join(source, f), join(tmp, f)).catch(() => undefined);
  const meta = await readLibraryMeta(source);
  const channelIds = new Set(meta.channels.filter((c) => !channel || c.slug === channel).map((c) => c.id));
  if (channelIds.size === 0) throw new Error(`${source} has no channel "${channel}"`);
  const records: EpisodeRecord[] = [];
  for await (const { record } of readEpisodes(source, { channelIds, onIssue: () => undefined })) records.push(record);
  let written: EpisodeRecord[];
  if (condition === 'chapters') written = records;
  else if (condition === 'speech') written = records.map((r) => ({ ...r, chapters: [] }));
  else {
    const generated = (await readGenerated(join(CACHE_DIR, 'eval', `${name}-generated`), stamp, channelIds)) ?? (await generateAll(records, meta.channels, await embed!(), log));
    written = generated.records.map((r) =>
      condition === 'generated' ? r : condition === 'generated-cut' ? boundariesOnly(r) : withoutMark(r, { moments: condition === 'generated-as-creator' }),
    );
    await writeFile(join(tmp, 'topics.json'), JSON.stringify(generated.facets, null, 2) + '\n');
    await writeFile(join(tmp, 'people.json'), '[]\n');
    await writeFile(join(tmp, 'entities.json'), '[]\n');
  }
  const out = createWriteStream(join(tmp, 'episodes', 'episodes.jsonl'));
  let n = 0;
  for (const record of written) {
    if (!out.write(`${JSON.stringify(record)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
    n++;
  }
  out.end();
  await finished(out);
  await writeFile(join(tmp, '.source-mtime'), stamp);
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir);
  log?.info({ episodes: n }, 'library copy written');
  return { name, condition, dir, queries, prefix };
}

/** Changes whenever the enrichment's output may change: a copy made under another version is written again. */
export const ENRICH_VERSION = 'local-4';

/** Enrichment's own figures for one library copy. */
export interface EnrichRun {
  episodes: number;
  speechHours: number;
  seconds: number;
}

/**
 * Every episode stripped of chapters, topics, people and entities and given what local enrichment makes of its
 * transcript: chapters with moments per episode (channel-level phrase frequencies), topics chosen across each channel.
 */
export async function generateAll(
  records: readonly EpisodeRecord[],
  channels: readonly { id: string; language?: string | null | undefined }[],
  embed: EmbedTexts,
  log?: Logger,
): Promise<{ records: EpisodeRecord[]; facets: GeneratedFacet[]; run: EnrichRun }> {
  const t = Date.now();
  const languageOf = (r: EpisodeRecord) => (r as { language?: string | null }).language ?? channels.find((c) => c.id === r.channelId)?.language ?? 'en';
  const textOf = (r: EpisodeRecord) => (r.transcript?.segments ?? []).map((s) => s.text).join(' ');
  const freqs = new Map<string, DocumentFrequencies>();
  for (const c of channels) {
    const mine = records.filter((r) => r.channelId === c.id);
    if (mine.length > 0) freqs.set(c.id, documentFrequencies(mine.map(textOf), c.language ?? 'en'));
  }
  const made = new Map<string, { chapters: GeneratedChapter[]; keyphrases: Keyphrase[] }>();
  let speechMs = 0;
  for (const [i, r] of records.entries()) {
    const segments = r.transcript?.segments ?? [];
    if (segments.length > 0) speechMs += segments[segments.length - 1]!.endMs - segments[0]!.startMs;
    made.set(r.id, await enrichTranscript({ segments, language: languageOf(r), title: r.title }, { embed, freq: freqs.get(r.channelId) }));
    if ((i + 1) % 25 === 0) log?.info({ done: i + 1, total: records.length }, 'enriched');
  }
  const facets: GeneratedFacet[] = [];
  const topicIds = new Map<string, string[]>();
  for (const c of channels) {
    const topics = assignTopics(records.filter((r) => r.channelId === c.id).map((r) => ({ episodeId: r.id, keyphrases: made.get(r.id)!.keyphrases })));
    for (const [id, ids] of topics.topicIds) topicIds.set(id, ids);
    for (const f of topics.facets) if (!facets.some((x) => x.id === f.id)) facets.push(f);
  }
  const out = records.map((r) => ({ ...r, chapters: made.get(r.id)!.chapters, topicIds: topicIds.get(r.id) ?? [], personIds: [], entityIds: [] }));
  const run = { episodes: records.length, speechHours: speechMs / 3_600_000, seconds: (Date.now() - t) / 1000 };
  log?.info(run, 'library enriched');
  return { records: out, facets: facets.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)), run };
}

/** The record with its generated chapters (and moments, or none) unmarked: indexed as if a creator had written them. */
function withoutMark(r: EpisodeRecord, { moments }: { moments: boolean }): EpisodeRecord {
  return { ...r, chapters: (r.chapters ?? []).map(({ generated: _c, ...c }) => ({ ...c, moments: moments ? c.moments.map(({ generated: _m, ...m }) => m) : [] })) };
}

/** What an up-to-date `generated` copy (same stamp) already holds, so the other generated conditions do not enrich again. */
async function readGenerated(dir: string, stamp: string, channelIds: ReadonlySet<string>): Promise<{ records: EpisodeRecord[]; facets: GeneratedFacet[] } | undefined> {
  if ((await readFile(join(dir, '.source-mtime'), 'utf8').catch(() => '')) !== stamp) return undefined;
  const records: EpisodeRecord[] = [];
  for await (const { record } of readEpisodes(dir, { channelIds, onIssue: () => undefined })) records.push(record);
  return { records, facets: JSON.parse(await readFile(join(dir, 'topics.json'), 'utf8')) as GeneratedFacet[] };
}

/** The record with its generated chapters as untitled chapters of no moments: they cut passages and lend nothing. */
function boundariesOnly(r: EpisodeRecord): EpisodeRecord {
  return { ...r, chapters: (r.chapters ?? []).map((c) => ({ title: '', startMs: c.startMs, endMs: c.endMs, moments: [] })) };
}

/**
 * Loads a library into its prefix with the configured model behind the passage-vector
 * cache; unchanged episodes are skipped, so a second run costs a re-read of the files.
 */
export async function loadEvalLibrary(lib: EvalLibrary, config: Readonly<Config>, log: Logger): Promise<void> {
  const client = createOpenSearchClient({ url: config.opensearchUrl, timeoutMs: 120_000 });
  try {
    const embedder = await createIndexerEmbedder(config, { log });
    const progress = createProgress({ label: `${lib.name} (${lib.condition})`, log, intervalMs: 15_000 });
    let summary;
    try {
      summary = await loadLibrary({
        client,
        embedder,
        prefix: lib.prefix,
        dir: lib.dir,
        onProgress: (p) => progress.update(p.done, p.total, { embedded: p.embedded }),
      });
    } finally {
      progress.stop();
    }
    if (!summary.ok) throw new Error(`${lib.dir} did not load cleanly:\n${formatSummary(summary)}`);
    log.info(
      { library: lib.name, condition: lib.condition, episodes: summary.episodes, passages: summary.passages, seconds: Math.round(summary.durationMs / 1000) },
      'library ready',
    );
  } finally {
    await client.close();
  }
}

/**
 * The configured model whose query vectors persist in `<EMBED_CACHE_DIR>/queries` (the
 * eval asks the same few thousand questions run after run); the API never uses this.
 */
export async function createEvalEmbedder(config: Readonly<Config>): Promise<Embedder> {
  const model = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, batchSize: config.embedBatchSize });
  if (!config.embedCacheDir) return model;
  const asPassages: Embedder = {
    modelId: model.modelId,
    dimension: model.dimension,
    embeddedCount: 0,
    embedPassages: async (texts) => {
      const out: number[][] = [];
      for (const t of texts) out.push(await model.embedQuery(t));
      return out;
    },
    embedQuery: (text) => model.embedQuery(text),
  };
  const cached = await withEmbeddingCache(asPassages, { dir: join(config.embedCacheDir, 'queries') });
  return {
    modelId: model.modelId,
    dimension: model.dimension,
    get embeddedCount() {
      return model.embeddedCount;
    },
    embedPassages: (texts) => model.embedPassages(texts),
    embedQuery: async (text) => (await cached.embedPassages([text]))[0]!,
  };
}
