// The safe fetcher's pure parts: which addresses are refused (every IPv4 and IPv6 spelling of them), and the
// sentences a creator reads for each failure.
import { expect } from 'chai';
import { embeddedIPv4, literalAddress, refusedReason } from '../../core/ground/outbound/address.js';
import { describeFetchError, FetchError } from '../../core/ground/outbound/errors.js';

describe('safe fetch: address rule', function () {
  it('refuses loopback, private, link-local, CGNAT, multicast, unspecified and the metadata addresses', function () {
    const refused = [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fd00:ec2::254',
      'fc00::1',
      'fe80::1',
      'ff02::1',
    ];
    expect(refused.filter((a) => refusedReason(a) === undefined)).to.deep.equal([]);
  });

  it('refuses an IPv4 address spelled inside IPv6: mapped, compatible, NAT64 and 6to4', function () {
    for (const address of ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '::10.0.0.1', '64:ff9b::a00:1', '2002:c0a8:101::1']) {
      expect(refusedReason(address), address).to.be.a('string');
    }
    expect(embeddedIPv4('::ffff:7f00:1')).to.equal('127.0.0.1');
    expect(embeddedIPv4('2002:c0a8:101::1')).to.equal('192.168.1.1');
  });

  it('lets public addresses through, IPv4 and IPv6, mapped or not', function () {
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::6810:85e5', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      expect(refusedReason(address), address).to.equal(undefined);
    }
  });

  it('treats a name as no address at all: only resolved addresses are checked', function () {
    expect(refusedReason('localhost')).to.equal('not an IP address');
    expect(literalAddress('localhost')).to.equal(undefined);
  });

  it('sees through the IPv4 spellings URL parsing normalizes (decimal, octal, hex, short)', function () {
    for (const spelled of ['http://2130706433/', 'http://0177.0.0.1/', 'http://0x7f.1/', 'http://127.1/', 'http://[::ffff:127.0.0.1]/']) {
      const address = literalAddress(new URL(spelled).hostname);
      expect(address, spelled).to.be.a('string');
      expect(refusedReason(address!), spelled).to.be.a('string');
    }
  });
});

describe('safe fetch: errors a creator reads', function () {
  it('names the thing and the cause in one sentence, without a URL', function () {
    const sentences = [
      new FetchError('http_status', 'https://x.test/a.mp3', 'm', { status: 404 }),
      new FetchError('too_large', 'https://x.test/feed', 'm', { limit: 16 * 1024 ** 2 }),
      new FetchError('private_address', 'http://10.0.0.1/t.vtt', 'm'),
      new FetchError('too_many_redirects', 'https://x.test/r', 'm', { limit: 5 }),
      new FetchError('timeout', 'https://x.test/feed', 'm', { limit: 30_000 }),
    ].map((err, i) => describeFetchError(err, ['the audio URL', 'the feed', 'the transcript URL', 'the chapters URL', 'the feed'][i]!));
    expect(sentences).to.deep.equal([
      'the audio URL answered 404',
      'the feed is larger than 16 MB',
      'the transcript URL points at a private address',
      'the chapters URL redirected more than 5 times',
      'the feed did not answer within 30 s',
    ]);
  });

  it('words every failure without a limit or a status after the thing that failed, as before the catalogue held the words', function () {
    const codes = [
      'bad_url',
      'scheme',
      'insecure_redirect',
      'network',
      'bad_encoding',
      'outside_folder',
      'symlink',
      'not_a_file',
      'not_found',
      'too_large',
      'timeout',
      'too_slow',
    ] as const;
    expect(codes.map((code) => describeFetchError(new FetchError(code, 'u', 'm'), 'the feed'))).to.deep.equal([
      'the feed is not a valid URL',
      'the feed is not an http or https URL',
      'the feed redirected from https to plain http',
      'the feed could not be reached',
      'the feed was sent compressed in a way that is not accepted',
      'the feed is outside the folder it may be read from',
      'the feed is a symbolic link, which is not followed',
      'the feed is not a regular file',
      'the feed was not found',
      'the feed is too large',
      'the feed did not answer in time',
      'the feed sent its data slower than the allowed rate, so the download was stopped',
    ]);
  });

  it('marks network failures, timeouts, 429 and 5xx as transient, and every refusal as final', function () {
    const transient = (code: ConstructorParameters<typeof FetchError>[0], status?: number) => new FetchError(code, 'u', 'm', { status }).transient;
    expect([transient('network'), transient('timeout'), transient('http_status', 429), transient('http_status', 503)]).to.deep.equal([true, true, true, true]);
    expect([transient('http_status', 404), transient('private_address'), transient('too_large'), transient('symlink')]).to.deep.equal([false, false, false, false]);
  });
});
