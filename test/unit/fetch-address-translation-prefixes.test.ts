// IPv6 translation and tunnel prefixes reach IPv4 hosts where a gateway exists: the local-use NAT64 prefix, SIIT and
// Teredo are refused like the private networks they can lead to; only global unicast passes (security review
// 2026-11-27, item 17).
import { expect } from 'chai';
import { refusedReason } from '../../core/ground/outbound/address.js';
import { fetchBytes, FetchError } from '../../core/ground/outbound/safe-fetch.js';

describe('outbound addresses: IPv6 translation and tunnel prefixes', function () {
  it('refuses the local-use NAT64 prefix 64:ff9b:1::/48 whatever IPv4 address it carries', function () {
    for (const address of ['64:ff9b:1::7f00:1', '64:ff9b:1:7f00:1::', '64:ff9b:1::808:808', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff']) {
      expect(refusedReason(address), address).to.be.a('string');
    }
  });

  it('refuses SIIT ::ffff:0:a.b.c.d for a private IPv4 address, and lets a public one through as mapped addresses are', function () {
    expect(refusedReason('::ffff:0:127.0.0.1')).to.equal('loopback (IPv4 inside IPv6)');
    expect(refusedReason('::ffff:0:a9fe:a9fe')).to.equal('link-local (IPv4 inside IPv6)');
    expect(refusedReason('::ffff:0:10.1.2.3')).to.equal('private (IPv4 inside IPv6)');
    expect(refusedReason('::ffff:0:8.8.8.8')).to.equal(undefined);
  });

  it('refuses Teredo 2001::/32 and the rest of 2001::/23, but not the public addresses beside them', function () {
    for (const address of ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1', '2001:2::1', '2001:10::1', '2001:1ff:ffff::1']) {
      expect(refusedReason(address), address).to.match(/^IETF protocol assignments/);
    }
    for (const address of ['2001:200::1', '2001:4860:4860::8888', '2606:4700::6810:85e5']) expect(refusedReason(address), address).to.equal(undefined);
  });

  it('refuses any IPv6 address outside global unicast 2000::/3 that carries no public IPv4 address', function () {
    for (const address of ['4000::1', 'e000::1', '1::1', '::2:0:0:1']) expect(refusedReason(address), address).to.equal('not global unicast (outside 2000::/3)');
  });

  it('refuses such a literal in a URL before connecting anywhere', async function () {
    for (const host of ['[64:ff9b:1::7f00:1]', '[::ffff:0:7f00:1]', '[2001:0:4136:e378:8000:63bf:3fff:fdd2]']) {
      const err = await fetchBytes(`http://${host}/feed.xml`, { maxBytes: 1024, allowPrivate: false, timeoutMs: 2000 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, host).to.be.instanceOf(FetchError);
      expect((err as FetchError).code, host).to.equal('private_address');
    }
  });
});
