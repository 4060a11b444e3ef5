// The served OpenAPI document lints clean under Redocly's recommended rules, and the lint `npm test` runs fails on a single warning.
import { expect } from 'chai';
import { lintOpenApiDocuments, servedOpenApiDocuments } from '../../scripts/dev/lint.js';

type Doc = { info: Record<string, unknown>; servers: { url: string }[]; tags: { name: string; description?: string }[] };

/** A deep copy of the default served document, changed by `edit`. */
function served(edit: (doc: Doc) => void): Doc {
  const doc = structuredClone(servedOpenApiDocuments()['openapi.json']) as Doc;
  edit(doc);
  return doc;
}

describe('OpenAPI document: Redocly lint', function () {
  // One Redocly CLI run each (about a second; more on a busy machine).
  this.timeout(60_000);

  it('lints clean under the recommended rules, with anonymous reading off and on', function () {
    const { ok, report } = lintOpenApiDocuments();
    expect(ok, report).to.equal(true);
    expect(report).to.include('openapi.json: validated').and.include('openapi-anonymous-read.json: validated');
    expect(report).to.not.match(/You have \d+ (warning|error)|Validation failed/);
  });

  it('fails on one warning each: no licence, a tag without a description, a server on localhost or example.com', function () {
    const { ok, report } = lintOpenApiDocuments({
      'no-license.json': served((d) => delete d.info.license),
      'bare-tag.json': served((d) => delete d.tags[0]!.description),
      'localhost.json': served((d) => (d.servers = [{ url: 'http://localhost:8080' }])),
      'example.json': served((d) => (d.servers = [{ url: 'https://api.example.com' }])),
    });
    expect(ok).to.equal(false);
    for (const rule of ['info-license', 'tag-description', 'no-server-example.com']) expect(report).to.include(rule);
    expect(report)
      .to.match(/no-license\.json/)
      .and.match(/bare-tag\.json/)
      .and.match(/localhost\.json/)
      .and.match(/example\.json/);
  });
});
