// The speech of an episode record as enrichment reads it: its language and its text in reading order (what the
// channel statistics and the keyphrases read). The files themselves are read and written by core/library.
import type { EpisodeRecord } from '../../core/contract/library-format.js';
import { orderedSegments } from './enrich-episode.js';
import type { EnrichSegment } from './types.js';

/** The language enrichment reads an episode in. */
export const languageOf = (record: EpisodeRecord, channelLanguage: string | null | undefined): string => (record.language || channelLanguage || 'en').toLowerCase();

/** The speech of a record as one text, in the order the chapters read it: what channel statistics and keyphrases read. */
export const speechText = (segments: readonly EnrichSegment[]): string =>
  orderedSegments(segments)
    .map((s) => s.text.trim())
    .join(' ');
