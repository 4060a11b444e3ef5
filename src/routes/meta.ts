// Documents served without a credential: the OpenAPI description and the RFC 9728 metadata, each built once at start-up.
import type { Static } from '@sinclair/typebox';
import { route, type Route } from '../http/route.js';
import { GetOpenApiDocument, GetProtectedResourceMetadata } from '../openapi/operations.js';

export function serveOpenApiDocument(document: Static<typeof GetOpenApiDocument.response>): Route {
  return route(GetOpenApiDocument, () => document);
}

export function serveResourceMetadata(metadata: Static<typeof GetProtectedResourceMetadata.response>): Route {
  return route(GetProtectedResourceMetadata, () => metadata);
}
