// Standard Webhooks signing against the reference library's own vector and verifier, and the endpoint URL rules.
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { checkEndpointUrl, isLoopbackHost } from '../../pipeline/webhooks/endpoint-url.js';
import { deliveryBody, deliveryHeaders } from '../../pipeline/webhooks/payload.js';
import { newSecret, secretKey, signature, signatureHeader } from '../../pipeline/webhooks/signing.js';
import { signingSecrets } from '../../pipeline/webhooks/store.js';
import type { Change } from '../../core/contract/changes.js';

// The vector of the reference JavaScript library's "sign function works" test (standard-webhooks, libraries/javascript).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  expected: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const CHANGE: Change = { id: 'chg_5f1c', type: 'episode.updated', episodeId: 'ep_1', status: 'published', occurredAt: '2026-06-01T12:00:00.000Z' };

describe('webhooks: signing', function () {
  it('signs the reference vector exactly as the Standard Webhooks library does', function () {
    expect(signature(VECTOR.secret, VECTOR)).to.equal(VECTOR.expected);
    expect(new Webhook(VECTOR.secret).sign(VECTOR.id, new Date(VECTOR.timestamp * 1000), VECTOR.body)).to.equal(VECTOR.expected);
  });

  it('makes whsec_ secrets of 24 random bytes that the reference library accepts', function () {
    const a = newSecret();
    expect(a).to.match(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(secretKey(a)).to.have.length(24);
    expect(newSecret()).to.not.equal(a);
    expect(() => new Webhook(a)).to.not.throw();
  });

  it('produces a delivery the reference verifier accepts, and one it rejects once the body or the secret is wrong', function () {
    const secret = newSecret();
    const body = deliveryBody(CHANGE);
    const headers = deliveryHeaders({ change: CHANGE, body, secrets: [secret], at: new Date() });
    expect(headers['webhook-id']).to.equal(CHANGE.id);
    expect(new Webhook(secret).verify(body, headers)).to.deep.equal({ type: 'episode.updated', timestamp: CHANGE.occurredAt, data: CHANGE });
    expect(() => new Webhook(secret).verify(body.replace('published', 'failed'), headers)).to.throw('No matching signature found');
    expect(() => new Webhook(newSecret()).verify(body, headers)).to.throw('No matching signature found');
  });

  it('signs with every secret of a rotation, space-separated, so either verifies', function () {
    const [current, old] = [newSecret(), newSecret()];
    const message = { id: 'chg_1', timestamp: 1_700_000_000, body: '{}' };
    const header = signatureHeader([current, old], message);
    expect(header.split(' ')).to.deep.equal([signature(current, message), signature(old, message)]);
    const at = new Date(1_700_000_000_000);
    const headers = { 'webhook-id': 'chg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': header };
    for (const s of [current, old]) {
      const hook = new Webhook(s);
      // The library checks the timestamp against its clock; verify at the message's own time.
      const realNow = Date.now;
      Date.now = () => at.getTime();
      try {
        expect(() => hook.verify('{}', headers)).to.not.throw();
      } finally {
        Date.now = realNow;
      }
    }
  });

  it('keeps the previous secret signing only until its grace period ends', function () {
    const endpoint = { secret: 'whsec_bmV3', previousSecret: 'whsec_b2xk', previousSecretUntil: '2026-06-01T12:00:00.000Z' };
    expect(signingSecrets(endpoint, new Date('2026-06-01T11:59:59Z'))).to.deep.equal(['whsec_bmV3', 'whsec_b2xk']);
    expect(signingSecrets(endpoint, new Date('2026-06-01T12:00:00Z'))).to.deep.equal(['whsec_bmV3']);
    expect(signingSecrets({ ...endpoint, previousSecret: null, previousSecretUntil: null }, new Date(0))).to.deep.equal(['whsec_bmV3']);
  });
});

describe('webhooks: endpoint URLs', function () {
  it('accepts https URLs and refuses plain http off loopback', function () {
    expect(checkEndpointUrl('https://hooks.example.com/in?x=1').href).to.equal('https://hooks.example.com/in?x=1');
    expect(() => checkEndpointUrl('http://hooks.example.com/in', { allowPrivate: true }))
      .to.throw()
      .with.property('code', 'insecure_url');
  });

  it('accepts http on loopback only with OUTBOUND_ALLOW_PRIVATE', function () {
    expect(() => checkEndpointUrl('http://127.0.0.1:9999/hook'))
      .to.throw()
      .with.property('code', 'insecure_url');
    expect(checkEndpointUrl('http://127.0.0.1:9999/hook', { allowPrivate: true }).port).to.equal('9999');
    expect(checkEndpointUrl('http://localhost:9999/hook', { allowPrivate: true }).hostname).to.equal('localhost');
    expect(checkEndpointUrl('http://[::1]:9999/hook', { allowPrivate: true }).hostname).to.equal('[::1]');
    expect(() => checkEndpointUrl('http://10.0.0.5/hook', { allowPrivate: true }))
      .to.throw()
      .with.property('code', 'insecure_url');
  });

  it('refuses literal private addresses, credentials, fragments and other schemes', function () {
    expect(() => checkEndpointUrl('https://169.254.169.254/latest'))
      .to.throw()
      .with.property('code', 'bad_url');
    expect(() => checkEndpointUrl('https://192.168.1.10/hook'))
      .to.throw()
      .with.property('code', 'bad_url');
    expect(checkEndpointUrl('https://192.168.1.10/hook', { allowPrivate: true }).hostname).to.equal('192.168.1.10');
    expect(() => checkEndpointUrl('https://user:pw@hooks.example.com/'))
      .to.throw()
      .with.property('code', 'bad_url');
    expect(() => checkEndpointUrl('https://hooks.example.com/#x'))
      .to.throw()
      .with.property('code', 'bad_url');
    expect(() => checkEndpointUrl('ftp://hooks.example.com/'))
      .to.throw()
      .with.property('code', 'bad_url');
    expect(() => checkEndpointUrl('hooks.example.com'))
      .to.throw()
      .with.property('code', 'bad_url');
  });

  it('knows loopback hosts', function () {
    expect(['localhost', 'a.localhost', '127.0.0.1', '127.8.0.1', '[::1]'].map(isLoopbackHost)).to.deep.equal([true, true, true, true, true]);
    expect(['example.com', '10.0.0.1', '[::2]', 'localhost.example.com'].map(isLoopbackHost)).to.deep.equal([false, false, false, false]);
  });
});
