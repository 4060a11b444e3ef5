// Every record schema of the library format, compiled once with ajv: the one place they live.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { EPISODE_STATUSES, type EpisodeStatus, type FacetKind } from '../src/store/documents.js';

// ajv-formats is CommonJS; under NodeNext its default import may arrive wrapped.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (
  ajv: Ajv,
) => Ajv;

/** A library user (`users.json`). */
export interface UserRecord {
  id: string;
  name: string;
  plan: string;
}

/** A library channel (`channels.json`). */
export interface ChannelRecord {
  id: string;
  slug: string;
  title: string;
  providerType: 'youtube' | 'rss';
  ownerId: string;
  memberIds: string[];
  customDomain?: string | null;
}

/** A facet display name (`topics.json`, `people.json`, `entities.json`, `collections.json`). */
export interface FacetRecord {
  id: string;
  name: string;
  /** Collections only: the channel whose playlist it mirrors. */
  channelId?: string | null;
}

export interface WordRecord {
  t: string;
  s: number;
  e: number;
}

export interface SegmentRecord {
  speakerLabel?: string | null;
  startMs: number;
  endMs: number;
  text: string;
  words?: WordRecord[];
}

export interface TranscriptRecord {
  formatVersion: 1;
  segments: SegmentRecord[];
}

export interface KeyMomentRecord {
  type: string;
  title: string;
  startMs: number;
  endMs?: number | null;
}

export interface ChapterRecord {
  title: string;
  startMs: number;
  endMs: number;
  moments: KeyMomentRecord[];
}

/** One episode as the library holds it: catalog row, facet ids, transcript and chapters. */
export interface EpisodeRecord {
  id: string;
  channelId: string;
  title: string;
  description?: string | null;
  link?: string | null;
  thumbnail?: string | null;
  mediaUrl?: string | null;
  durationMs?: number | null;
  publishedAt: string;
  viewCount?: number | null;
  status: EpisodeStatus;
  summary?: string | null;
  error?: string | null;
  topicIds?: string[];
  personIds?: string[];
  entityIds?: string[];
  collectionIds?: string[];
  transcript?: TranscriptRecord | null;
  chapters?: ChapterRecord[] | null;
}

const id = { type: 'string', minLength: 1 } as const;
const ms = { type: 'integer', minimum: 0 } as const;
const nullableString = { type: ['string', 'null'] } as const;
const idList = { type: 'array', items: id } as const;

// Every object schema accepts additional fields: the spec lets the format grow additively.
export const userSchema = {
  $id: 'User',
  type: 'object',
  required: ['id', 'name', 'plan'],
  properties: { id, name: { type: 'string' }, plan: { type: 'string', minLength: 1 } },
} as const;

export const channelSchema = {
  $id: 'Channel',
  type: 'object',
  required: ['id', 'slug', 'title', 'providerType', 'ownerId', 'memberIds'],
  properties: {
    id,
    slug: { type: 'string', pattern: '^[a-z0-9-]{1,63}$' },
    title: { type: 'string' },
    providerType: { enum: ['youtube', 'rss'] },
    ownerId: id,
    memberIds: idList,
    customDomain: { type: ['string', 'null'], format: 'hostname' },
  },
} as const;

export const facetSchema = {
  $id: 'Facet',
  type: 'object',
  required: ['id', 'name'],
  properties: { id, name: { type: 'string' }, channelId: { type: ['string', 'null'] } },
} as const;

export const collectionSchema = {
  $id: 'Collection',
  type: 'object',
  required: ['id', 'name', 'channelId'],
  properties: { id, name: { type: 'string' }, channelId: id },
} as const;

const transcriptBody = {
  type: 'object',
  required: ['formatVersion', 'segments'],
  properties: {
    formatVersion: { const: 1 },
    segments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['startMs', 'endMs', 'text'],
        properties: {
          speakerLabel: nullableString,
          startMs: ms,
          endMs: ms,
          text: { type: 'string' },
          words: {
            type: 'array',
            items: {
              type: 'object',
              required: ['t', 's', 'e'],
              properties: { t: { type: 'string' }, s: ms, e: ms },
            },
          },
        },
      },
    },
  },
} as const;

export const transcriptSchema = { $id: 'TranscriptDocument', ...transcriptBody } as const;

export const chapterSchema = {
  $id: 'Chapter',
  type: 'object',
  required: ['title', 'startMs', 'endMs', 'moments'],
  properties: {
    title: { type: 'string' },
    startMs: ms,
    endMs: ms,
    moments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'title', 'startMs'],
        properties: {
          type: { type: 'string', minLength: 1 },
          title: { type: 'string' },
          startMs: ms,
          endMs: { type: ['integer', 'null'], minimum: 0 },
        },
      },
    },
  },
} as const;

export const episodeSchema = {
  $id: 'Episode',
  type: 'object',
  required: ['id', 'channelId', 'title', 'publishedAt', 'status'],
  properties: {
    id,
    channelId: id,
    title: { type: 'string' },
    description: nullableString,
    link: nullableString,
    thumbnail: nullableString,
    mediaUrl: nullableString,
    durationMs: { type: ['integer', 'null'], minimum: 0 },
    publishedAt: { type: 'string', format: 'date-time' },
    viewCount: { type: ['integer', 'null'], minimum: 0 },
    status: { enum: [...EPISODE_STATUSES] },
    summary: nullableString,
    error: nullableString,
    topicIds: idList,
    personIds: idList,
    entityIds: idList,
    collectionIds: idList,
    // `required`/`properties`/`items` only apply to objects/arrays, so adding 'null' to the type makes these nullable.
    transcript: { ...transcriptBody, type: ['object', 'null'] },
    chapters: { type: ['array', 'null'], items: { $ref: 'Chapter' } },
  },
} as const;

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
addFormats(ajv);
ajv.addSchema([chapterSchema]);

/** A schema check: the typed record, or the reason it was refused. */
export type Check<T> = { ok: true; value: T } | { ok: false; reason: string };

function checker<T>(validate: ValidateFunction): (data: unknown) => Check<T> {
  return (data) => {
    if (validate(data)) return { ok: true, value: data as T };
    return { ok: false, reason: describe(validate.errors) };
  };
}

function describe(errors: ErrorObject[] | null | undefined): string {
  // The deepest error is the most specific one.
  const first = [...(errors ?? [])].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  if (!first) return 'invalid';
  const where = first.instancePath || '(record)';
  const allowed = first.keyword === 'enum' ? `: ${(first.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` : '';
  return `${where} ${first.message ?? 'is invalid'}${allowed}`;
}

export const checkUser = checker<UserRecord>(ajv.compile(userSchema));
export const checkChannel = checker<ChannelRecord>(ajv.compile(channelSchema));
export const checkFacet = checker<FacetRecord>(ajv.compile(facetSchema));
export const checkCollection = checker<FacetRecord>(ajv.compile(collectionSchema));
const checkEpisodeShape = checker<EpisodeRecord>(ajv.compile(episodeSchema));

/**
 * Validates an Episode: the schema, then what a schema cannot say (times that run
 * backwards). Returns the first problem, with its JSON pointer.
 */
export function checkEpisode(data: unknown): Check<EpisodeRecord> {
  const shape = checkEpisodeShape(data);
  if (!shape.ok) return shape;
  const ep = shape.value;
  const segments = ep.transcript?.segments ?? [];
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (seg.endMs < seg.startMs) {
      return { ok: false, reason: `/transcript/segments/${i} endMs ${seg.endMs} is before startMs ${seg.startMs}` };
    }
    const words = seg.words ?? [];
    for (let w = 0; w < words.length; w++) {
      if (words[w]!.e < words[w]!.s) {
        return { ok: false, reason: `/transcript/segments/${i}/words/${w} e ${words[w]!.e} is before s ${words[w]!.s}` };
      }
    }
  }
  const chapters = ep.chapters ?? [];
  for (let i = 0; i < chapters.length; i++) {
    const ch = chapters[i]!;
    if (ch.endMs < ch.startMs) {
      return { ok: false, reason: `/chapters/${i} endMs ${ch.endMs} is before startMs ${ch.startMs}` };
    }
  }
  return shape;
}

/** Facet files of a library and the kind each one holds. */
export const FACET_FILES: readonly { file: string; kind: FacetKind }[] = [
  { file: 'topics.json', kind: 'topic' },
  { file: 'people.json', kind: 'person' },
  { file: 'entities.json', kind: 'entity' },
  { file: 'collections.json', kind: 'collection' },
];
