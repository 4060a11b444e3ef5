import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { OPERATIONS } from '../../src/openapi/operations.js';
import { SCHEMAS } from '../../src/openapi/schemas.js';
import { API_ERRORS } from '../../src/errors.js';
import { createAjv, queryParser } from '../../src/http/validate-params.js';
import { MATCHED_VIA_DESCRIPTIONS } from '../../core/search/types.js';
import { loadConfig } from '../../core/config/load.js';
import { TranscriptDocument } from '../../core/contract/library-format.js';
import { checkEpisode } from '../../core/library/checks.js';
import { deliveryBody } from '../../pipeline/webhooks/payload.js';
import type { ChangeDoc } from '../../core/changes/log.js';
import { memberView, publishedView } from '../../core/changes/views.js';

type Doc = {
  openapi: string;
  info: { version: string; description: string };
  paths: Record<string, { get: { parameters?: { name: string; schema: object }[]; responses: Record<string, unknown>; security: unknown[] } }>;
  components: { schemas: Record<string, { description?: string }> };
};

describe('OpenAPI document: one source for routes, validation and docs', function () {
  const doc = buildOpenApiDocument(loadConfig({})) as unknown as Doc;

  it('is OpenAPI 3.1 with version label 1.0.0', function () {
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.info.version).to.equal('1.0.0');
  });

  it('describes every operation the app routes, each with 429 (but the unlimited /healthz), 500 and 503', function () {
    expect(Object.keys(doc.paths).sort()).to.deep.equal(OPERATIONS.map((o) => o.path).sort());
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const status of ['200', '500', '503']) expect(item.get.responses, `${path} ${status}`).to.have.property(status);
      if (path === '/healthz') expect(item.get.responses).not.to.have.property('429');
      else expect(item.get.responses, `${path} 429`).to.have.property('429');
    }
    expect(JSON.stringify(doc.paths['/api/v1/channels/{slug}/search']!.get.responses['503'])).to.match(/search_busy.*Retry-After: 1/);
    expect(doc.paths['/api/v1/episodes/{episodeId}/transcript']!.get.responses).to.have.property('502');
    // Every endpoint that takes a credential may answer 403 insufficient_scope (a token without creator:read), the channel list too.
    for (const [path, item] of Object.entries(doc.paths)) {
      if (item.get.security.length > 0) expect(item.get.responses, `${path} 403`).to.have.property('403');
    }
    const { responses } = (doc as unknown as { components: { responses: Record<string, unknown> } }).components;
    expect(JSON.stringify(responses.Forbidden))
      .to.match(/insufficient_scope/)
      .and.match(/plan_required/);
    expect(JSON.stringify(responses.TooManyRequests), "a search over its caller's share").to.match(/too_many_searches/);
  });

  it('compiles every component schema and parameter schema with ajv (2020-12, strict)', function () {
    const ajv = new Ajv2020({ strict: true });
    addFormats.default(ajv);
    ajv.addVocabulary(['components']);
    ajv.addSchema({ $id: 'doc', components: { schemas: SCHEMAS } } as object);
    for (const name of Object.keys(SCHEMAS)) expect(() => ajv.getSchema(`doc#/components/schemas/${name}`), name).not.to.throw();
    const strict = createAjv();
    for (const op of OPERATIONS) expect(() => queryParser(op.query, strict), op.operationId).not.to.throw();
  });

  it('publishes the webhook delivery under `webhooks`, and the bodies a delivery sends validate against it (and a wrong one does not)', function () {
    const hook = (doc as unknown as { webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }> }).webhooks['episode.change']!;
    expect(hook.post.requestBody.content['application/json']!.schema.$ref).to.equal('#/components/schemas/WebhookDelivery');
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: { schemas: SCHEMAS } } as object);
    const valid = ajv.getSchema('doc#/components/schemas/WebhookDelivery')!;
    const stored: ChangeDoc = {
      kind: 'change',
      id: 'chg_1',
      channelId: 'ch',
      seq: 7,
      type: 'episode.updated',
      episodeId: 'ep1',
      status: 'archived',
      previousStatus: 'published',
      occurredAt: '2026-11-27T10:00:00.000Z',
    };
    for (const change of [memberView(stored), publishedView({ ...stored, status: 'published' })!, publishedView({ ...stored, status: 'failed' })!]) {
      const body = JSON.parse(deliveryBody(change)) as unknown;
      expect(valid(body), JSON.stringify(valid.errors)).to.equal(true);
    }
    expect(memberView(stored).status, 'a stored archived status is never shown').to.equal(null);
    const wrong = { type: 'episode.updated', timestamp: '2026-11-27T10:00:00.000Z', data: { ...memberView(stored), status: 'archived' } };
    expect(valid(wrong), 'archived is not a status a change shows').to.equal(false);
  });

  it('publishes the transcript schema the indexer validates with, so both refuse the same word times', function () {
    expect(SCHEMAS.TranscriptDocument).to.equal(TranscriptDocument);
    const validate = createAjv().compile(SCHEMAS.TranscriptDocument!);
    const withWord = (s: number, e: number) => ({ formatVersion: 1, segments: [{ startMs: 0, endMs: 9, text: 'a', words: [{ t: 'a', s, e }] }] });
    const episode = (transcript: unknown) => ({ id: 'e', channelId: 'c', title: 't', publishedAt: '2024-01-01T00:00:00Z', status: 'published', transcript });
    expect(validate(withWord(0, 5))).to.equal(true);
    expect(checkEpisode(episode(withWord(0, 5))).ok).to.equal(true);
    for (const [s, e] of [
      [-1, 5],
      [0, -1],
      [0.5, 5],
    ] as const) {
      expect(validate(withWord(s, e)), `s ${s} e ${e}`).to.equal(false);
      expect(checkEpisode(episode(withWord(s, e))).ok, `s ${s} e ${e}`).to.equal(false);
    }
  });

  it('names every error code of the catalogue in the Error schema', function () {
    for (const code of Object.keys(API_ERRORS)) expect(doc.components.schemas.Error!.description).to.include(`\`${code}\``);
  });

  it("lists every matchedVia value with the search pipeline's meaning of it, and no other", function () {
    const served = JSON.parse(JSON.stringify(doc)) as Doc;
    const via = served.components.schemas.MatchedVia as { description: string; items: { enum: string[] } };
    const items = via.description.split('\n').filter((line) => line.startsWith('- '));
    expect(items).to.deep.equal(Object.entries(MATCHED_VIA_DESCRIPTIONS).map(([value, meaning]) => `- \`${value}\`: ${meaning}`));
    expect(via.items.enum).to.deep.equal(Object.keys(MATCHED_VIA_DESCRIPTIONS));
  });

  it('documents generated on Chapter and KeyMoment: a boolean made from the transcript, not by the creator (decision 27)', function () {
    const served = JSON.parse(JSON.stringify(doc)) as { components: { schemas: Record<string, { properties: Record<string, { type?: string; description?: string }> }> } };
    for (const shape of ['Chapter', 'KeyMoment']) {
      const field = served.components.schemas[shape]!.properties.generated;
      expect(field?.type, shape).to.equal('boolean');
      expect(field?.description, shape).to.match(/made from the transcript by enrichment.*not by the creator/);
    }
  });

  it('documents query/q precedence and the status views', function () {
    const params = doc.paths['/api/v1/channels/{slug}/search']!.get.parameters!;
    expect(JSON.stringify(params.find((p) => p.name === 'query'))).to.include('Wins over `q`');
    expect(doc.info.description).to.include('`live` = indexed or published');
  });

  it('opens data endpoints to anonymous callers in the document only when ANONYMOUS_READ=published', function () {
    const anon = buildOpenApiDocument(loadConfig({ ANONYMOUS_READ: 'published' })) as unknown as Doc;
    expect(anon.paths['/api/v1/channels/{slug}/episodes']!.get.security).to.deep.include({});
    expect(anon.paths['/api/v1/channels']!.get.security).not.to.deep.include({});
    expect(doc.paths['/api/v1/channels/{slug}/episodes']!.get.security).not.to.deep.include({});
  });
});
