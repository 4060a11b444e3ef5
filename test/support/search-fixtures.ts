// Small builders of search inputs for the search unit tests (no services).
import type { ChannelDoc } from '../../core/store/documents.js';
import type { EpisodeMeta, LegHit, PassageHit, SearchParams } from '../../core/search/types.js';

export const CHANNEL: ChannelDoc = {
  id: 'ch_demo',
  slug: 'demo',
  title: 'Demo',
  providerType: 'rss',
  ownerId: 'u_owner',
  memberIds: ['u_owner'],
  customDomain: null,
};

export function params(overrides: Partial<SearchParams> = {}): SearchParams {
  return { query: 'remote control buttons', fast: false, limit: 10, publishedOnly: false, ...overrides };
}

/** A transcript passage; its start is derived from its id, so distinct passages cite distinct moments. */
export function passage(id: string, episodeId: string, overrides: Partial<PassageHit> = {}): PassageHit {
  const startMs = ([...id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 100_000, 7) + 1) * 1000;
  return { id, episodeId, kind: 'transcript', text: `text of ${id}`, chapterTitle: null, startMs, endMs: startMs + 1000, speaker: 'A', ...overrides };
}

export function meta(id: string, overrides: Partial<EpisodeMeta> = {}): EpisodeMeta {
  return { id, title: `Title ${id}`, summary: `Summary ${id}`, publishedAt: '2020-01-01T00:00:00Z', durationMs: 60_000, ...overrides };
}

/** Passage hits ranked in the order given: `['p1@e1', 'p2@e2']`. */
export function passageHits(...specs: string[]): LegHit[] {
  return specs.map((spec, i) => {
    const [id, episodeId] = spec.split('@') as [string, string];
    const p = passage(id, episodeId);
    return { type: 'passage', id, episodeId, startMs: p.startMs, rank: i + 1, score: 10 - i, passage: p };
  });
}

/** Episode hits of the title leg ranked in the order given. */
export function episodeHits(...ids: string[]): LegHit[] {
  return ids.map((id, i) => ({ type: 'episode', id, episodeId: id, rank: i + 1, score: 5 - i, episode: meta(id) }));
}
