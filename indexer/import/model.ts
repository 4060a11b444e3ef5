// What an importer hands the library writer: one channel, its episodes as library records, the facet names they
// use, and a report per item. Records are built with a fixed key order, so the same input writes the same bytes.
import { safeHttpUrl } from '../../src/channel-urls.js';
import type { EpisodeRecord, FacetRecord, TranscriptRecord } from '../../src/library-format.js';
import { cleanText, slugify, toSegmentRecords, type DraftTranscript } from './text.js';

export interface ItemReport {
  /** The episode id, or the item's title or file when it got none. */
  item: string;
  outcome: 'imported' | 'skipped';
  /** Why it was skipped, or what it was imported without. */
  notes: string[];
}

export interface ImportedChannel {
  channel: { id: string; slug: string; title: string; providerType: 'rss' | 'youtube' };
  episodes: EpisodeRecord[];
  people: FacetRecord[];
  topics: FacetRecord[];
  items: ItemReport[];
  /** Problems of the source as a whole that did not stop it (a bad caption file, broken description chapters). */
  warnings: string[];
}

/** Facets by name: a stable id from the name, `p_…` for people, `t_…` for topics. */
export class FacetNames {
  private readonly byId = new Map<string, string>();
  constructor(private readonly prefix: 'p' | 't') {}

  /** The ids of `names` (empty and repeated names dropped), registering each. */
  ids(names: readonly string[]): string[] {
    const ids: string[] = [];
    for (const raw of names) {
      const name = cleanText(raw);
      if (!name) continue;
      const id = `${this.prefix}_${slugify(name, 80)}`;
      if (!this.byId.has(id)) this.byId.set(id, name);
      if (!ids.includes(id)) ids.push(id);
    }
    return ids;
  }

  records(): FacetRecord[] {
    return [...this.byId].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, name]) => ({ id, name }));
  }
}

/** The library transcript of a draft; it says whether its word times are the source's own. */
export function transcriptRecord(draft: DraftTranscript): TranscriptRecord {
  return { formatVersion: 1, segments: toSegmentRecords(draft), wordTimings: draft.timing };
}

/** What an importer knows of an episode: every catalog field it may fill, each given (null when the source has none). */
export type EpisodeFields = Required<Omit<EpisodeRecord, 'status' | 'error' | 'entityIds' | 'collectionIds'>>;

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
