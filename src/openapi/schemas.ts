// JSON Schemas (2020-12) of every body the API returns, by component name: the shapes of core/contract/shapes.ts and the library format's transcript, published in the OpenAPI document and used to validate.
import { CloneType } from '@sinclair/typebox';
import { API_ERRORS } from '../errors.js';
import { TranscriptDocument } from '../../core/contract/library-format.js';
import { SHAPES } from '../../core/contract/shapes.js';
import { ChangePageSchema, ChangeSchema, WebhookDeliverySchema } from '../../core/contract/changes.js';

export type JsonSchema = Record<string, unknown>;

const ERROR_CODE_LIST = Object.entries(API_ERRORS)
  .map(([code, { status }]) => `\`${code}\` (${status})`)
  .join(', ');

/** Every component schema of the OpenAPI document, by name. Objects accept additional fields. */
export const SCHEMAS: Record<string, JsonSchema> = {
  // The catalogue lives above the shapes: the document names its codes here.
  Error: CloneType(SHAPES.Error, { description: `Body of every error response (never HTML). Codes are stable: ${ERROR_CODE_LIST}.` }),
  ChannelSummary: SHAPES.ChannelSummary,
  ChannelList: SHAPES.ChannelList,
  Episode: SHAPES.Episode,
  EpisodePage: SHAPES.EpisodePage,
  Change: ChangeSchema,
  ChangePage: ChangePageSchema,
  WebhookDelivery: WebhookDeliverySchema,
  MatchedSegment: SHAPES.MatchedSegment,
  MatchedVia: SHAPES.MatchedVia,
  SearchResultEpisode: SHAPES.SearchResultEpisode,
  SearchResult: SHAPES.SearchResult,
  // The library format's own schema: what the indexer accepts is what the API publishes and serves.
  TranscriptDocument,
  KeyMoment: SHAPES.KeyMoment,
  Chapter: SHAPES.Chapter,
  RelatedEpisode: SHAPES.RelatedEpisode,
  ProtectedResourceMetadata: SHAPES.ProtectedResourceMetadata,
  Health: SHAPES.Health,
  Readiness: SHAPES.Readiness,
  ReadinessError: SHAPES.ReadinessError,
  OpenApiDocument: SHAPES.OpenApiDocument,
};
