// GET /api/v1/episodes/{episodeId}/transcript, /chapters and /related.
import type { Static } from '@sinclair/typebox';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { accessEpisode } from '../auth/access.js';
import { channelOrigin, episodeUrl, type ChannelSites } from '../../core/ground/channel-urls.js';
import { createError } from '../errors.js';
import { route, type Route } from '../http/route.js';
import { GetChapters, GetRelated, GetTranscript } from '../openapi/operations.js';
import type { Chapter, RelatedEpisode } from '../../core/contract/shapes.js';
import type { EpisodeDoc } from '../../core/store/documents.js';

/** A related episode as the API shows it: the topic ids it shares with the episode asked about, and their number as its score. */
export function toRelatedEpisode(r: EpisodeDoc, origin: string, topics: ReadonlySet<string>): RelatedEpisode {
  const sharedTopicIds = [...new Set(r.topicIds)].filter((t) => topics.has(t));
  return {
    id: r.id,
    title: r.title,
    url: episodeUrl(origin, r.id),
    publishedAt: r.publishedAt,
    durationMs: r.durationMs ?? null,
    thumbnail: r.thumbnail ?? null,
    sharedTopicIds,
    score: sharedTopicIds.length,
  };
}

/**
 * The transcript exactly as stored (decision 17): none stored is a 404; stored but not
 * parseable or not matching the published TranscriptDocument schema is a 502, logged.
 */
export function getTranscript({ ajv }: { ajv: Ajv2020 }): Route {
  const validateTranscript = ajv.compile<Static<typeof GetTranscript.response>>(GetTranscript.response);
  return route(GetTranscript, async ({ params }, req) => {
    const { episode } = await accessEpisode(req.queries, req.principal!, params.episodeId);
    const stored = await req.queries.transcript(episode.id);
    if (!stored || stored.document === null || stored.document === undefined) throw createError('transcript_not_found');
    let document: unknown = stored.document;
    if (typeof document === 'string') {
      // Tolerate a transcript stored as JSON text; anything unparseable is the 502 below.
      try {
        document = JSON.parse(document);
      } catch {
        document = undefined;
      }
    }
    if (!validateTranscript(document)) {
      req.log.error({ episodeId: episode.id, errors: validateTranscript.errors?.slice(0, 3) }, 'stored transcript is invalid');
      throw createError('transcript_unreadable');
    }
    return document;
  });
}

/**
 * A stored chapter as the API answers it: `generated` on the chapter and on each key moment, `false` where the store
 * leaves it out (the creator's), so a client branches on a boolean that is always there (decision 27).
 */
export function answeredChapter(c: Chapter): Chapter {
  return { ...c, moments: c.moments.map((m) => ({ ...m, generated: m.generated === true })), generated: c.generated === true };
}

/** Chapters as stored, each saying whether it was generated; an episode without a chapters record has none (`[]`). */
export function getChapters(): Route {
  return route(GetChapters, async ({ params }, req) => {
    const { episode } = await accessEpisode(req.queries, req.principal!, params.episodeId);
    const stored = await req.queries.chapters(episode.id);
    return (stored?.chapters ?? []).map(answeredChapter);
  });
}

/** Decision 16: up to 10 other published episodes of the channel sharing the most topic ids. */
export function getRelated({ channelSites }: { channelSites: ChannelSites }): Route {
  return route(GetRelated, async ({ params }, req) => {
    const { channel, episode } = await accessEpisode(req.queries, req.principal!, params.episodeId);
    const topics = new Set(episode.topicIds ?? []);
    const related = await req.queries.relatedEpisodes({ channel, episodeId: episode.id, topicIds: [...topics] });
    const origin = channelOrigin(channel, channelSites);
    return related.map((r) => toRelatedEpisode(r, origin, topics));
  });
}
