// GET /api/v1/channels: the caller's channels, with `apiAccess` from each owner's plan at call time.
import { route, type Route } from '../http/route.js';
import { ListChannels } from '../openapi/operations.js';
import { memberChannels, toChannelSummary } from '../serve/member-reads.js';

export function listChannels(): Route {
  return route(ListChannels, async (_input, req) => {
    // requireCredential() refuses anonymous callers here: they always have a user id.
    const channels = await memberChannels(req.queries, req.principal!.userId!);
    return { channels: channels.map(({ channel, apiAccess }) => toChannelSummary(channel, apiAccess)) };
  });
}
