// The workbench guard's pure parts (which Host, which Origin, which token, which refusal) and its icon's bytes.
import { expect } from 'chai';
import { chartPixel, iconFile } from '../../scripts/eval/workbench/favicon.js';
import { cookieValue, isLoopbackHost, isOwnOrigin, newWorkbenchToken, refusalOf, tokenCookieName, tokenMatches } from '../../scripts/eval/workbench/guard.js';

describe('workbench guard: who may call', function () {
  const token = 'the-run-token';
  const port = 8090;
  const req = (method: string, path: string, headers: Record<string, string>) => ({ method, path, headers });
  const publicPaths = new Set(['/', '/assets/workbench.js', '/favicon.ico']);

  it('accepts 127.0.0.1, localhost and [::1] on its own port as Host, and no other name or port', function () {
    for (const host of ['127.0.0.1:8090', 'localhost:8090', 'LOCALHOST:8090', '[::1]:8090']) expect(isLoopbackHost(host, port), host).to.equal(true);
    for (const host of [
      undefined,
      '',
      '127.0.0.1',
      'localhost',
      '127.0.0.1:8091',
      'attacker.example:8090',
      '127.0.0.1.attacker.example:8090',
      'localhost.:8090',
      '[::1]',
      '0.0.0.0:8090',
    ])
      expect(isLoopbackHost(host, port), String(host)).to.equal(false);
    // A browser leaves the default port out of Host.
    expect([isLoopbackHost('localhost', 80), isLoopbackHost('localhost:80', 80)]).to.deep.equal([true, true]);
  });

  it("takes as the page's own Origin only http:// and the request's Host", function () {
    expect(isOwnOrigin('http://127.0.0.1:8090', '127.0.0.1:8090')).to.equal(true);
    for (const origin of [undefined, 'null', 'https://127.0.0.1:8090', 'http://localhost:8090', 'http://127.0.0.1:8091', 'http://attacker.example:8090'])
      expect(isOwnOrigin(origin, '127.0.0.1:8090'), String(origin)).to.equal(false);
  });

  it('matches the token exactly, and nothing empty; tokens are new each run and URL-safe', function () {
    expect(tokenMatches(token, token)).to.equal(true);
    for (const given of [undefined, '', 'the-run-toke', 'the-run-token ', 'THE-RUN-TOKEN']) expect(tokenMatches(given, token), String(given)).to.equal(false);
    const [a, b] = [newWorkbenchToken(), newWorkbenchToken()];
    expect(a).to.not.equal(b);
    expect(a).to.match(/^[A-Za-z0-9_-]{43}$/);
  });

  it("reads its own port's cookie from a Cookie header", function () {
    expect(cookieValue(`a=1; ${tokenCookieName(8090)}=t1; ${tokenCookieName(8091)}=t2`, tokenCookieName(8090))).to.equal('t1');
    expect(cookieValue('workbench_token_80900=t3', tokenCookieName(8090))).to.equal(undefined);
    expect(cookieValue(undefined, 'x')).to.equal(undefined);
  });

  it('refuses, in order: a foreign Host, a write from another Origin (or from none without the token header), an API call without the right token', function () {
    const own = { host: '127.0.0.1:8090' };
    const cookie = { cookie: `${tokenCookieName(port)}=${token}` };
    expect(refusalOf(req('GET', '/api/state', { host: 'attacker.example:8090', 'x-workbench-token': token }), { token, port, publicPaths })).to.equal('wrong_host');
    expect(refusalOf(req('GET', '/', { host: 'attacker.example:8090' }), { token, port, publicPaths }), 'the page too').to.equal('wrong_host');
    expect(refusalOf(req('PUT', '/api/configs/x', { ...own, ...cookie, origin: 'http://attacker.example:8090' }), { token, port, publicPaths })).to.equal('foreign_origin');
    expect(refusalOf(req('POST', '/api/compare', { ...own, ...cookie, origin: 'null' }), { token, port, publicPaths })).to.equal('foreign_origin');
    expect(refusalOf(req('POST', '/api/compare', { ...own, ...cookie }), { token, port, publicPaths }), 'no Origin, cookie only').to.equal('foreign_origin');
    expect(refusalOf(req('POST', '/api/compare', { ...own, 'x-workbench-token': token }), { token, port, publicPaths }), 'a script with the header').to.equal(null);
    expect(refusalOf(req('POST', '/api/compare', { ...own, 'x-workbench-token': 'nope' }), { token, port, publicPaths })).to.equal('wrong_token');
    expect(refusalOf(req('GET', '/api/state', own), { token, port, publicPaths })).to.equal('no_token');
    expect(refusalOf(req('GET', '/api/state', { ...own, cookie: `${tokenCookieName(port)}=nope` }), { token, port, publicPaths })).to.equal('wrong_token');
    expect(refusalOf(req('GET', '/api/state', { ...own, cookie: `${tokenCookieName(port + 1)}=${token}` }), { token, port, publicPaths }), "another port's cookie").to.equal(
      'no_token',
    );
    expect(refusalOf(req('POST', '/api/judgments', { ...own, ...cookie, origin: 'http://127.0.0.1:8090' }), { token, port, publicPaths })).to.equal(null);
    expect(refusalOf(req('GET', '/', own), { token, port, publicPaths }), 'the page itself needs no token').to.equal(null);
    expect(refusalOf(req('GET', '/favicon.ico', own), { token, port, publicPaths })).to.equal(null);
    for (const path of ['/API/state', '/api/state/', '/%61pi/state', '/api', '/anything', '/Favicon.ico'])
      expect(refusalOf(req('GET', path, own), { token, port, publicPaths }), `${path}: only the public paths, exactly`).to.equal('no_token');
  });
});

describe('workbench icon', function () {
  it('is a Windows icon of a 16 and a 32 pixel 32-bit image, each where its directory entry says', function () {
    const ico = iconFile();
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)]).to.deep.equal([0, 1, 2]);
    for (const [i, size] of [16, 32].entries()) {
      const entry = 6 + 16 * i;
      expect([ico[entry], ico[entry + 1], ico.readUInt16LE(entry + 6)]).to.deep.equal([size, size, 32]);
      const [length, offset] = [ico.readUInt32LE(entry + 8), ico.readUInt32LE(entry + 12)];
      expect(length).to.equal(40 + size * size * 4 + 4 * size);
      expect([ico.readUInt32LE(offset), ico.readInt32LE(offset + 4), ico.readInt32LE(offset + 8), ico.readUInt16LE(offset + 14)]).to.deep.equal([40, size, size * 2, 32]);
    }
    expect(ico.length).to.equal(6 + 32 + 1128 + 4264);
  });

  it('draws something: some pixels opaque, some clear, the same picture at both sizes', function () {
    const alphas = Array.from({ length: 256 }, (_, i) => chartPixel(i % 16, Math.floor(i / 16), 16)[3]);
    expect(alphas.filter((a) => a === 255).length).to.be.within(40, 200);
    expect(chartPixel(7, 5, 16)).to.deep.equal(chartPixel(14, 10, 32));
    expect(() => iconFile({ sizes: [256] })).to.throw(/1-255/);
  });
});
