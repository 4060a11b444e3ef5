// The library format's record schemas (src/library-format.ts) compiled once with ajv, and the checks a schema cannot say.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FacetKind } from '../src/store/documents.js';
import { Channel, Collection, Episode, Facet, User, type ChannelRecord, type EpisodeRecord, type FacetRecord, type UserRecord } from '../src/library-format.js';

export type { ChannelRecord, ChapterRecord, EpisodeRecord, FacetRecord, KeyMomentRecord, SegmentRecord, TranscriptRecord, UserRecord, WordRecord } from '../src/library-format.js';

// ajv-formats is CommonJS; under NodeNext its default import may arrive wrapped.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (ajv: Ajv) => Ajv;

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
addFormats(ajv);

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

export const checkUser = checker<UserRecord>(ajv.compile(User));
export const checkChannel = checker<ChannelRecord>(ajv.compile(Channel));
export const checkFacet = checker<FacetRecord>(ajv.compile(Facet));
export const checkCollection = checker<FacetRecord>(ajv.compile(Collection));
const checkEpisodeShape = checker<EpisodeRecord>(ajv.compile(Episode));

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
