// What an importer hands the library writer: one channel, its episodes as library records, the facet names they
// use, and a report per item. Records are built with a fixed key order, so the same input writes the same bytes.
import { safeHttpUrl } from '../core/ground/channel-urls.js';
import type { ChannelSourceRecord, EpisodeRecord, FacetRecord, SegmentRecord, TranscriptRecord } from '../core/contract/library-format.js';
import { checkEpisode } from '../core/library/checks.js';
import { cleanText, facetNameSlug, toSegmentRecords, type DraftTranscript } from './text.js';

export interface ItemReport {
  /** The episode id, or the item's title or file when it got none. */
  item: string;
  outcome: 'imported' | 'skipped';
  /** Why it was skipped, or what it was imported without. */
  notes: string[];
}

/** The channel an importer read: its id and slug, and the source it came from (kept on the channel record). */
export interface ImportedChannelInfo {
  id: string;
  slug: string;
  title: string;
  providerType: 'rss' | 'youtube';
  /** Where it came from: an import from another source into the same channel is refused unless told. */
  source?: ChannelSourceRecord;
}

export interface ImportedChannel {
  channel: ImportedChannelInfo;
  episodes: EpisodeRecord[];
  people: FacetRecord[];
  topics: FacetRecord[];
  items: ItemReport[];
  /** Problems of the source as a whole that did not stop it (a bad caption file, broken description chapters). */
  warnings: string[];
}

/** Facets by name: a stable id from the name (see facetNameSlug), `p_…` for people, `t_…` for topics. */
export class FacetNames {
  private readonly byId = new Map<string, string>();
  constructor(private readonly prefix: 'p' | 't') {}

  /** The ids of `names` (empty and repeated names dropped), registering each. */
  ids(names: readonly string[]): string[] {
    const ids: string[] = [];
    for (const raw of names) {
      const name = cleanText(raw);
      if (!name) continue;
      const id = `${this.prefix}_${facetNameSlug(name)}`;
      if (!this.byId.has(id)) this.byId.set(id, name);
      if (!ids.includes(id)) ids.push(id);
    }
    return ids;
  }

  records(): FacetRecord[] {
    return [...this.byId].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, name]) => ({ id, name }));
  }
}

/**
 * Segments in order of start, none starting before the previous one ends: a segment that runs into the next is
 * cut where the next starts, and so are its words. Ingest refuses segments out of order, and overlaps beyond a
 * frame or two (SEGMENT_OVERLAP_TOLERANCE_MS); caption files overlap often, so the importer writes none.
 */
export function orderedSegments(segments: readonly SegmentRecord[]): SegmentRecord[] {
  const sorted = [...segments].sort((a, b) => a.startMs - b.startMs);
  return sorted.map((seg, i) => {
    const next = sorted[i + 1];
    if (!next || seg.endMs <= next.startMs) return seg;
    const endMs = Math.max(seg.startMs, next.startMs);
    const words = seg.words?.map((w) => ({ t: w.t, s: Math.min(w.s, endMs), e: Math.min(w.e, endMs) }));
    return { ...seg, endMs, ...(words ? { words } : {}) };
  });
}

/** The library transcript of a draft; it says whether its word times are the source's own. */
export function transcriptRecord(draft: DraftTranscript): TranscriptRecord {
  return { formatVersion: 1, segments: orderedSegments(toSegmentRecords(draft)), wordTimings: draft.timing };
}

/**
 * The record as ingest will judge it (`checkEpisode`: the caps of EPISODE_LIMITS, times that run backwards, …):
 * the importer skips what ingest would refuse, with the same reason, rather than write it.
 */
export function ingestProblem(record: EpisodeRecord): string | undefined {
  // Through JSON, as ingest reads it: a number that is not finite would be written as null.
  const checked = checkEpisode(JSON.parse(JSON.stringify(record)));
  return checked.ok ? undefined : `not imported: ${checked.reason}`;
}

/** The longest duration believed: 100 days (a longer one is a typo, and would not fit the store's numbers). */
const MAX_DURATION_S = 100 * 24 * 3600;

/** A duration in ms from a source's seconds, or null for one that is negative, not finite or absurd (`-5`, `1e400`). */
export function durationOf(seconds: number | null | undefined): number | null {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_DURATION_S ? Math.round(seconds * 1000) : null;
}

/** What an importer knows of an episode: every catalog field it may fill, each given (null when the source has none). */
export type EpisodeFields = Required<Omit<EpisodeRecord, 'status' | 'error' | 'entityIds' | 'collectionIds' | 'language' | 'archivedBy'>>;

/** A published episode record, keys always in this order. */
export function episodeRecord(f: EpisodeFields): EpisodeRecord {
  return {
    id: f.id,
    channelId: f.channelId,
    title: f.title,
    description: f.description,
    summary: f.summary,
    link: f.link,
    thumbnail: f.thumbnail,
    mediaUrl: f.mediaUrl,
    durationMs: f.durationMs,
    publishedAt: f.publishedAt,
    viewCount: f.viewCount,
    status: 'published',
    personIds: f.personIds,
    topicIds: f.topicIds,
    transcript: f.transcript,
    chapters: f.chapters,
  };
}

/** A summary from a description: plain text, cut at a sentence or word near `max` characters. */
export function summaryOf(text: string, max = 500): string | null {
  if (!text) return null;
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const sentence = cut.lastIndexOf('. ');
  return sentence > max / 2 ? cut.slice(0, sentence + 1) : `${cut.slice(0, cut.lastIndexOf(' ')).trimEnd()}…`;
}

/** An http(s) URL, or null. */
export const httpUrl = (value: string | undefined | null): string | null => safeHttpUrl(value) ?? null;

/** Where an episode ends: its duration, else its last spoken or charted moment. */
export function episodeEnd(durationMs: number | null, draft: DraftTranscript | undefined): number {
  return durationMs ?? Math.max(0, ...(draft?.segments.map((s) => s.endMs) ?? []));
}
