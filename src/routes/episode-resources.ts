// GET /api/v1/episodes/{episodeId}/transcript, /chapters and /related.
import type { Static } from '@sinclair/typebox';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { accessEpisode } from '../auth/access.js';
import { channelOrigin, type ChannelSites } from '../../core/ground/channel-urls.js';
import { createError } from '../errors.js';
import { route, type Route } from '../http/route.js';
import { GetChapters, GetRelated, GetTranscript } from '../openapi/operations.js';
import { answeredChapter, toRelatedEpisode } from '../serve/member-reads.js';

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
