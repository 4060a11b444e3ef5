// The order of the API's checks (401, then 400, then 404/403, then the cursor) and a cursor refused for any flipped byte outside its sort key.
import { expect } from 'chai';
import { generateApiKey } from '../../src/auth/api-keys.js';
import { useApiWorld } from '../support/api-world.js';

describe('the order of checks: credential, parameters, channel, cursor', function () {
  this.timeout(120_000);
  const world = useApiWorld();
  let outsiderHeaders: Record<string, string>;
  let cursor: string;

  before(async function () {
    outsiderHeaders = { 'x-api-key': (await world.store.key('u_outsider')).key };
    const page = await world.api.request('/api/v1/channels/alpha/episodes?limit=2', { headers: world.memberHeaders });
    expect(page.status).to.equal(200);
    cursor = page.body.nextCursor;
    expect(cursor, 'a first page with a next one').to.be.a('string');
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await world.api.request(path, { headers });
    return [res.status, res.body?.code];
  };
  const BAD_LIMIT = 'limit=many';
  const BAD_CURSOR = 'cursor=not-a-cursor';

  for (const path of ['/api/v1/channels/alpha/episodes', '/api/v1/channels/alpha/changes']) {
    const on = (slug: string, query: string) => `${path.replace('/alpha/', `/${slug}/`)}?${query}`;

    it(`answers 401 before a bad parameter: nothing about the request is judged without a valid credential (${path})`, async function () {
      expect(await get(on('alpha', BAD_LIMIT))).to.deep.equal([401, 'credential_missing']);
      expect(await get(on('no-such-channel', BAD_LIMIT), { 'x-api-key': generateApiKey() })).to.deep.equal([401, 'invalid_api_key']);
    });

    it(`answers 400 for a bad parameter before telling whether the channel exists or may be read (${path})`, async function () {
      for (const [slug, headers, who] of [
        ['alpha', outsiderHeaders, 'a non-member'],
        ['no-such-channel', world.memberHeaders, 'an unknown channel'],
        ['free-show', world.memberHeaders, 'a member of a channel without API access'],
      ] as const) {
        expect(await get(on(slug, BAD_LIMIT), headers), who).to.deep.equal([400, 'invalid_parameter']);
      }
    });

    it(`answers 404 or 403 before judging the cursor, so a cursor tells nothing about a channel one may not read (${path})`, async function () {
      expect(await get(on('alpha', BAD_CURSOR), outsiderHeaders), 'a non-member').to.deep.equal([404, 'channel_not_found']);
      expect(await get(on('no-such-channel', BAD_CURSOR), world.memberHeaders), 'an unknown channel').to.deep.equal([404, 'channel_not_found']);
      expect(await get(on('free-show', BAD_CURSOR), world.memberHeaders), 'no API access').to.deep.equal([403, 'plan_required']);
      expect(await get(on('alpha', BAD_CURSOR), world.memberHeaders), 'a member').to.deep.equal([400, 'invalid_cursor']);
    });
  }

  it('answers a bad search parameter with 401 without a credential, 400 with one, whoever may read the channel', async function () {
    const path = (slug: string) => `/api/v1/channels/${slug}/search?q=garden&${BAD_LIMIT}`;
    expect(await get(path('alpha'))).to.deep.equal([401, 'credential_missing']);
    for (const [slug, headers] of [
      ['alpha', outsiderHeaders],
      ['no-such-channel', world.memberHeaders],
      ['free-show', world.memberHeaders],
    ] as const) {
      expect(await get(path(slug), headers), slug).to.deep.equal([400, 'invalid_parameter']);
    }
  });

  describe('a cursor with one bit flipped', function () {
    /**
     * The cursor is base64url of `{"v":1,"k":[<sort value>,"<id>"],"d":"<query digest>"}`. Its sort key is not a secret and
     * not signed: any key a client writes is a position in the same query's order (a page, never another query's rows),
     * so a flip there may well decode to a valid cursor. Every other byte (version, digest, names, punctuation) is checked.
     */
    it('is refused with 400 invalid_cursor for every bit of every byte outside the sort key', async function () {
      const json = Buffer.from(cursor, 'base64url');
      const text = json.toString('latin1');
      const keyStart = text.indexOf('"k":[') + '"k":['.length;
      const keyEnd = text.indexOf(']', keyStart);
      expect(keyStart, text).to.be.greaterThan(4);
      let checked = 0;
      for (let i = 0; i < json.length; i++) {
        if (i >= keyStart && i < keyEnd) continue;
        for (let bit = 0; bit < 8; bit++) {
          const flipped = Buffer.from(json);
          flipped[i] = flipped[i]! ^ (1 << bit);
          const res = await world.api.request(`/api/v1/channels/alpha/episodes?limit=2&cursor=${flipped.toString('base64url')}`, { headers: world.memberHeaders });
          expect([res.status, res.body?.code], `byte ${i} (${JSON.stringify(text[i])}) bit ${bit}`).to.deep.equal([400, 'invalid_cursor']);
          checked++;
        }
      }
      expect(checked, 'the digest alone is 16 bytes').to.be.at.least(8 * 16);
    });

    it('inside the sort key, is a page of the same query or a 400, never an error of ours', async function () {
      const json = Buffer.from(cursor, 'base64url');
      const text = json.toString('latin1');
      const keyStart = text.indexOf('"k":[') + '"k":['.length;
      const keyEnd = text.indexOf(']', keyStart);
      for (let i = keyStart; i < keyEnd; i++) {
        const flipped = Buffer.from(json);
        flipped[i] = flipped[i]! ^ 0x01;
        const res = await world.api.request(`/api/v1/channels/alpha/episodes?limit=2&cursor=${flipped.toString('base64url')}`, { headers: world.memberHeaders });
        if (res.status === 200) {
          const ids = world.alpha.map((e) => e.id);
          for (const e of res.body.episodes as { id: string }[]) expect(ids, `byte ${i}`).to.include(e.id);
        } else {
          expect([res.status, res.body?.code], `byte ${i}`).to.deep.equal([400, 'invalid_cursor']);
        }
      }
    });
  });
});
