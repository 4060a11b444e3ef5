// GET /api/v1/channels: the caller's channels, with `apiAccess` from each owner's plan at call time.
import type { RequestHandler } from 'express';
import { PAID_PLAN } from '../auth/access.js';

export function listChannels(): RequestHandler {
  return async (req, res) => {
    // requireCredential() refuses anonymous callers here: they always have a user id.
    const userId = req.principal!.userId!;
    const channels = await req.queries.channelsOfMember(userId);
    const owners = await req.queries.users([...new Set(channels.map((c) => c.ownerId))]);
    const paid = new Set(owners.filter((u) => u.plan === PAID_PLAN).map((u) => u.id));
    res.json({
      channels: channels.map((c) => ({
        id: c.id,
        slug: c.slug,
        title: c.title,
        providerType: c.providerType,
        apiAccess: paid.has(c.ownerId),
        language: c.language ?? 'en',
      })),
    });
  };
}
