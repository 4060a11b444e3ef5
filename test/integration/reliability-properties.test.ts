// Hostile input as properties (fast-check): generated long multi-term queries, path casings and encodings never reach a 5xx, and every error is JSON.
import { expect } from 'chai';
import fc from 'fast-check';
import type { ApiResponse } from '../support/api-harness.js';
import { useApiWorld } from '../support/api-world.js';

/** Fixed seed: a failure names its counterexample and reproduces; `FC_SEED` tries others. */
const SEED = Number(process.env.FC_SEED ?? 1107);
const RUNS = Number(process.env.FC_RUNS ?? 60);

/** Known routes of the small world, with and without query strings. */
const PATHS = [
  '/api/v1/channels',
  '/api/v1/channels/alpha/episodes?limit=3',
  '/api/v1/channels/alpha/search?q=tomatoes&fast=true',
  '/api/v1/episodes/ep_a01/transcript',
  '/api/v1/episodes/ep_a01/chapters',
  '/api/v1/episodes/ep_a01/related',
  '/api/v1/openapi.json',
  '/api/channels',
  '/healthz',
  '/.well-known/oauth-protected-resource',
];

/** Words of every kind the engine's tokenizer treats differently: ASCII, accents, CJK, RTL, emoji, digits, punctuation. */
const word = fc.oneof(
  fc.stringMatching(/^[a-z]{1,12}$/),
  fc.stringMatching(/^[0-9]{1,6}$/),
  fc.constantFrom('tomatoes', 'soil', 'budget', 'café', 'naïve', 'Straße', 'ÅNGSTRÖM', "o'neil", 'e-mail', 'U.S.A.', 'C++', '#hashtag', '@user'),
  fc.constantFrom('預算', '会議', 'データ', '한국어', 'ميزانية', 'עברית', 'привет', 'ελληνικά', 'हिन्दी', 'ไทย'),
  fc.constantFrom('🎙️', '🔥', '👩🏽‍💻', '🏳️‍🌈', '∑', '½', '™', '\u200b', '\u202e', '\ufeff'),
  fc.constantFrom('AND', 'OR', 'NOT', '*', '?', '~', '^2', '"', '(', ')', '[', ']', '{', '}', ':', '\\', '/', '-', '+', '&&', '||', '!'),
);

/** Queries of 1 to 400 words, cut to the 1,000-character limit (so every one is valid input). */
const longQuery = fc
  .array(word, { minLength: 1, maxLength: 400 })
  .map((words) => [...words.join(' ')].slice(0, 1000).join('').trim())
  .filter((q) => q !== '' && q.length <= 1000);

/** The JSON error body, whatever the status. */
function expectJsonError(res: ApiResponse, label: string): void {
  expect(String(res.headers['content-type']), label).to.match(/^application\/json/);
  expect(res.body, label).to.include.keys('error', 'code', 'requestId');
}

/** No 5xx; a 2xx is JSON; anything else is the JSON error shape. */
function expectNoServerError(res: ApiResponse, label: string): void {
  expect(res.status, `${label} → ${res.status} ${res.text.slice(0, 200)}`).to.be.below(500);
  if (res.status >= 400) expectJsonError(res, label);
  else if (res.status !== 204) expect(String(res.headers['content-type']), label).to.match(/^application\/json/);
}

/** Percent-encodes the characters at the chosen positions (unreserved ones too: `%61` for `a`). */
function encodeAt(path: string, positions: number[]): string {
  const chars = [...path];
  for (const p of positions) {
    const i = p % chars.length;
    const c = chars[i]!;
    if (c === '%' || c === '?' || c === '&' || c === '=') continue;
    chars[i] = [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return chars.join('');
}

describe('reliability: hostile input properties (fast-check)', function () {
  this.timeout(300_000);
  const world = useApiWorld();
  const get = (path: string) => world.api.request(path, { headers: world.memberHeaders });

  it('answers any query of up to 1,000 characters and 400 terms with 200 JSON, fast or not, echoing it', async function () {
    await fc.assert(
      fc.asyncProperty(longQuery, fc.boolean(), fc.boolean(), async (query, fast, useQ) => {
        const res = await get(`/api/v1/channels/alpha/search?fast=${fast}&${useQ ? 'q' : 'query'}=${encodeURIComponent(query)}`);
        expect(res.status, `${JSON.stringify(query.slice(0, 80))}… → ${res.status} ${res.text.slice(0, 200)}`).to.equal(200);
        expect(res.body.query).to.equal(query.trim());
        expect(res.body.episodes).to.be.an('array');
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('answers any other casing of a known path with a JSON 4xx, never a 5xx or a page', async function () {
    const casing = fc
      .constantFrom(...PATHS)
      .chain((path) =>
        fc
          .array(fc.boolean(), { minLength: path.length, maxLength: path.length })
          .map((flips) => [...path].map((c, i) => (flips[i] ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c)).join('')),
      );
    await fc.assert(
      fc.asyncProperty(casing, async (path) => {
        const res = await get(path);
        expectNoServerError(res, path);
        // Routes match case-sensitively: a change outside the slug, the id and the query string is no route at all.
        const route = (p: string) =>
          p
            .split('?')[0]!
            .replace(/alpha/i, 'alpha')
            .replace(/ep_a01/i, 'ep_a01');
        const original = PATHS.find((p) => p.toLowerCase() === path.toLowerCase())!;
        if (route(path) !== route(original)) {
          expect(res.status, path).to.equal(404);
          expect(res.body.code, path).to.equal('route_not_found');
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('answers known paths with characters percent-encoded, and random escapes, with 200 or a JSON 4xx', async function () {
    const encoded = fc.tuple(fc.constantFrom(...PATHS), fc.array(fc.nat(), { minLength: 1, maxLength: 6 })).map(([p, at]) => encodeAt(p, at));
    const escapes = fc
      .array(
        fc.oneof(
          fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, '0')}`),
          fc.constantFrom('..', '.', '/', '//', '%2F', '%2e%2e', '%5C', '%25', '%u0041', '%', '%%', '%zz', '~', ';', ','),
        ),
        {
          minLength: 1,
          maxLength: 12,
        },
      )
      .chain((parts) => fc.constantFrom(...PATHS).map((p) => ({ p, parts })))
      .map(({ p, parts }) => {
        const [route, query] = p.split('?');
        const segments = route!.split('/');
        segments.splice(Math.min(3, segments.length - 1), 1, parts.join(''));
        return segments.join('/') + (query ? `?${query}` : '');
      });
    await fc.assert(
      fc.asyncProperty(fc.oneof(encoded, escapes), async (path) => {
        expectNoServerError(await get(path), path);
      }),
      { seed: SEED, numRuns: RUNS * 2 },
    );
  });

  it('answers query strings with odd encodings (invalid UTF-8, lone surrogates, repeats, nulls) with 200 or a JSON 400', async function () {
    const value = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))),
      fc.constantFrom('%ED%A0%BD', '%C0%AF', '%FF%FE', '%00', '%E0%A4%A', '%', '+', '%2B', ''),
      fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 10 }).map((bytes) => bytes.map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
    );
    const name = fc.constantFrom('query', 'q', 'fast', 'limit', 'topicIds', 'episodeIds', 'year', 'cursor', 'status', 'sort', 'Query', 'LIMIT', 'x');
    const qs = fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 4 }).map((pairs) => pairs.map(([n, v]) => `${n}=${v}`).join('&'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/api/v1/channels/alpha/search', '/api/v1/channels/alpha/episodes'), qs, async (route, query) => {
        const res = await get(`${route}?${query}`);
        expectNoServerError(res, `${route}?${query}`);
        if (res.status >= 400) expect(res.status, `${route}?${query}`).to.equal(400);
      }),
      { seed: SEED, numRuns: RUNS * 2 },
    );
  });
});
