// `rotate-key --secrets`: each endpoint's new secret made once per run, and deliveries during the changeover signed by
// the new and the old secret (both verify with the reference library), after it by the new one only.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../core/config/load.js';
import type { Change } from '../../core/contract/changes.js';
import { deliveryBody, deliveryHeaders } from '../../pipeline/webhooks/payload.js';
import { SecretRenewals } from '../../pipeline/webhooks/reseal.js';
import { keyringOf, openSecret, sealSecret } from '../../pipeline/webhooks/sealed.js';
import { newSecret } from '../../pipeline/webhooks/signing.js';
import { signingSecrets } from '../../pipeline/webhooks/store.js';

const keyring = keyringOf(loadConfig({ SECRETS_KEY: randomBytes(32).toString('base64') }).secrets)!;
const CHANGE: Change = { id: 'chg_9a', type: 'episode.updated', episodeId: 'ep_1', status: 'published', occurredAt: '2026-12-01T12:00:00.000Z' };

/** Whether the reference verifier, holding only `secret`, accepts `headers` at the attempt's own time. */
function verifies(secret: string, body: string, headers: Record<string, string>): boolean {
  const realNow = Date.now;
  Date.now = () => Number(headers['webhook-timestamp']) * 1000;
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  } finally {
    Date.now = realNow;
  }
}

describe('webhooks: renewing every secret (rotate-key --secrets)', function () {
  it('makes and seals one new secret per endpoint, the same on every attempt of a run', function () {
    let made = 0;
    const renewals = new SecretRenewals(keyring, () => (made++, newSecret()));
    const first = renewals.of('wh_a');
    expect(renewals.of('wh_a')).to.equal(first);
    expect(renewals.of('wh_b').secret).to.not.equal(first.secret);
    expect(made).to.equal(2);
    expect(openSecret(keyring, first.sealedSecret, 'wh_a')).to.equal(first.secret);
    expect(() => openSecret(keyring, first.sealedSecret, 'wh_b'), 'sealed for its own endpoint').to.throw();
  });

  it('signs with the new and the old secret during the changeover, and with the new one alone after it', function () {
    const old = newSecret();
    const { secret, sealedSecret } = new SecretRenewals(keyring).of('wh_a');
    const renewedAt = Date.parse('2026-12-01T12:00:00Z');
    // The endpoint as rotateSecret leaves it with a one-hour window.
    const endpoint = { secret: sealedSecret, previousSecret: sealSecret(keyring, old, 'wh_a'), previousSecretUntil: new Date(renewedAt + 3_600_000).toISOString() };
    const body = deliveryBody(CHANGE);
    const attempt = (at: Date) => {
      const secrets = signingSecrets(endpoint, at).map((stored) => openSecret(keyring, stored, 'wh_a'));
      return deliveryHeaders({ change: CHANGE, body, secrets, at });
    };

    const during = attempt(new Date(renewedAt + 60_000));
    expect(during['webhook-signature']!.split(' ')).to.have.length(2);
    expect(verifies(secret, body, during), 'a receiver that switched').to.equal(true);
    expect(verifies(old, body, during), 'a receiver that has not switched yet').to.equal(true);

    const after = attempt(new Date(renewedAt + 3_600_000));
    expect(after['webhook-signature']!.split(' ')).to.have.length(1);
    expect(verifies(secret, body, after)).to.equal(true);
    expect(verifies(old, body, after)).to.equal(false);
  });
});
