// The change feed's shapes (TypeBox): a change and a page of them, published as OpenAPI components.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../contract/library-format.js';
import { CHANGE_TYPES } from '../store/changes.js';

/** Statuses a change can report: every status but `archived` (archiving is a deletion). */
const SHOWN_STATUSES = ['pending', 'processing', 'indexed', 'failed', 'published'] as const;

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
type ChangeShape = Static<typeof ChangeSchema>;

export const ChangePageSchema = Type.Object({
  changes: Type.Array(Type.Unsafe<ChangeShape>({ $ref: '#/components/schemas/Change' }), { description: 'Oldest first; empty when caught up.' }),
  cursor: Type.String({ description: 'Always present: pass it back as `cursor` to get what happened after this page (also after an empty one).' }),
  hasMore: Type.Boolean({ description: 'True when more changes can be read right now; false when caught up (poll again later with `cursor`).' }),
});
