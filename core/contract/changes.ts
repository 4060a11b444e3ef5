// The change feed's shapes (TypeBox), declared once: a change as the API and the webhooks show it, a page of them, and
// a webhook delivery's body. The OpenAPI document publishes the first two as components and the third under `webhooks`.
import { Type, type Static } from '@sinclair/typebox';
import { SHOWN_STATUSES, StringEnum } from './library-format.js';

export const CHANGE_TYPES = ['episode.created', 'episode.updated', 'episode.deleted'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

export const ChangeSchema = Type.Object({
  id: Type.String({ description: 'Unique and stable: the same change read twice (the feed is at-least-once) has the same id; de-duplicate on it.' }),
  type: StringEnum(CHANGE_TYPES, {
    description:
      '`episode.created`: the episode appeared (also when un-archived, or, on anonymous reads, published). `episode.updated`: its status, catalog fields, transcript or chapters changed; read it again. `episode.deleted`: it is gone (removed, archived, or, on anonymous reads, no longer published).',
  }),
  episodeId: Type.String(),
  status: Type.Unsafe<(typeof SHOWN_STATUSES)[number] | null>({
    type: ['string', 'null'],
    enum: [...SHOWN_STATUSES, null],
    description: 'Status after the change; null for `episode.deleted`.',
  }),
  occurredAt: Type.String({ format: 'date-time', description: 'When the change was recorded (ISO 8601 UTC).' }),
});

/** A change as the API returns it and a webhook delivers it. */
export type Change = Static<typeof ChangeSchema>;

export const ChangePageSchema = Type.Object({
  changes: Type.Array(Type.Unsafe<Change>({ $ref: '#/components/schemas/Change' }), { description: 'Oldest first; empty when caught up.' }),
  cursor: Type.String({ description: 'Always present: pass it back as `cursor` to get what happened after this page (also after an empty one).' }),
  hasMore: Type.Boolean({ description: 'True when more changes can be read right now; false when caught up (poll again later with `cursor`).' }),
});

/** The body of a webhook delivery (Standard Webhooks: `type`, `timestamp`, `data`); `data` is the change as the feed shows it. */
export const WebhookDeliverySchema = Type.Object({
  type: StringEnum(CHANGE_TYPES, { description: "The change's type, as in `data.type`." }),
  timestamp: Type.String({
    format: 'date-time',
    description: 'When the change occurred (`data.occurredAt`), not when this attempt was sent (that is the `webhook-timestamp` header).',
  }),
  data: Type.Unsafe<Change>({ $ref: '#/components/schemas/Change' }),
});
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;
