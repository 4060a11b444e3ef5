// Maps ranked episode groups to the spec's SearchResult, with citation URLs per decision 15.
import { channelOrigin, citation, episodeUrl, type ChannelSites } from '../ground/channel-urls.js';
import type { ChannelDoc } from '../store/documents.js';
import { chooseLanding, type LandingOptions } from './landing.js';
import {
  MATCHED_VIA_DESCRIPTIONS,
  type EpisodeGroup,
  type EpisodeMeta,
  type MatchedSegment,
  type MatchedVia,
  type PassageHit,
  type SearchResult,
  type TermRange,
} from './types.js';

/** `matchedVia` lists its values in the order of their descriptions, as the OpenAPI document does. */
const VIA_ORDER = Object.keys(MATCHED_VIA_DESCRIPTIONS) as readonly MatchedVia[];

function kindVia(passage: PassageHit): MatchedVia[] {
  return passage.kind === 'chapter' ? ['chapter'] : passage.kind === 'moment' ? ['moment'] : [];
}

function ordered(values: Iterable<MatchedVia>): MatchedVia[] {
  const set = new Set(values);
  return VIA_ORDER.filter((v) => set.has(v));
}

/**
 * The span a passage is cited with: from the sentence where the query's terms gather
 * (see {@link chooseLanding}) to the passage end, so `startMs`, `t` and the text all begin
 * where the answer does; the whole passage when nothing better is known.
 */
export function citedSpan(passage: PassageHit, landing: LandingOptions = {}): { text: string; startMs: number; highlights: TermRange[] } {
  const matches = passage.matches ?? [];
  const at = chooseLanding(passage.text, passage.marks ?? [], matches, landing);
  const offset = at?.offset ?? 0;
  return {
    text: passage.text.slice(offset),
    startMs: at?.ms ?? passage.startMs,
    highlights: matches.filter((m) => m.start >= offset).map((m) => ({ start: m.start - offset, end: m.end - offset })),
  };
}

function toSegment(origin: string, passage: PassageHit, via: MatchedVia[], landing?: LandingOptions): MatchedSegment {
  const span = citedSpan(passage, landing);
  return {
    segmentId: passage.id,
    text: span.text,
    startMs: span.startMs,
    endMs: passage.endMs,
    speaker: passage.speaker ?? null,
    ...citation(origin, passage.episodeId, span.startMs),
    matchedVia: ordered([...via, ...kindVia(passage)]),
    highlights: span.highlights,
  };
}

export interface ResultInputs {
  query: string;
  groups: readonly EpisodeGroup[];
  /** Catalog rows by episode id; an episode missing here (archived or deleted since) is dropped. */
  episodes: ReadonlyMap<string, EpisodeMeta>;
  /** The shown passages by id; a passage missing here is dropped. */
  passages: ReadonlyMap<string, PassageHit>;
  /** For episodes matched by title alone: the passage cited in their place. */
  titleSegments?: ReadonlyMap<string, PassageHit>;
  channel: Pick<ChannelDoc, 'slug' | 'customDomain'>;
  channelSites: ChannelSites;
  /** Tuning of where citations begin (the eval); defaults otherwise. */
  landing?: LandingOptions;
}

function viaOf(legs: Iterable<string>): MatchedVia[] {
  return [...legs] as MatchedVia[];
}

/** Builds the response: episodes in group order, segments with citation URLs and `matchedVia`. */
export function toSearchResult({ query, groups, episodes, passages, titleSegments = new Map(), channel, channelSites, landing }: ResultInputs): SearchResult {
  const origin = channelOrigin(channel, channelSites);
  const out: SearchResult['episodes'] = [];
  for (const group of groups) {
    const meta = episodes.get(group.episodeId);
    if (!meta) continue;
    const segments: MatchedSegment[] = [];
    for (const hit of group.passages) {
      const passage = passages.get(hit.id);
      if (passage) segments.push(toSegment(origin, passage, viaOf(Object.keys(hit.legs)), landing));
    }
    const filler = titleSegments.get(group.episodeId);
    if (segments.length === 0 && filler) segments.push(toSegment(origin, filler, ['title'], landing));
    out.push({
      episodeId: group.episodeId,
      title: meta.title,
      url: episodeUrl(origin, group.episodeId),
      score: group.score,
      matchedVia: ordered([...(group.title ? (['title'] as const) : []), ...segments.flatMap((s) => s.matchedVia)]),
      segments,
      summary: meta.summary ?? null,
      publishedAt: meta.publishedAt,
      durationMs: meta.durationMs ?? null,
    });
  }
  return { query, episodes: out };
}
