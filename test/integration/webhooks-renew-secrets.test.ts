// `npm run webhooks -- rotate-key --secrets` on the real store: every endpoint gets a new secret, printed once; a real
// delivery during the changeover carries two signatures, one verifying with the new secret and one with the old, and
// after the window only the new one signs.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import type { Change } from '../../core/contract/changes.js';
import { deliverChange } from '../../pipeline/webhooks/deliver.js';
import { openSecret } from '../../pipeline/webhooks/sealed.js';
import { getEndpoint, newEndpoint, signingSecrets, storeEndpoint } from '../../pipeline/webhooks/store.js';
import { createApiTestStore, WORLD_CHANNELS, type ApiTestStore } from '../support/api-fixture.js';
import { REPO_ROOT, testClient } from '../support/indexer-env.js';
import { testSecretsKey } from '../support/secrets-key.js';
import { startRecordingEndpoint, type Received } from '../support/webhooks-env.js';
import type { Client } from '../../core/store/opensearch.js';

const run = promisify(execFile);
const CHANGE: Change = { id: 'chg_renew', type: 'episode.updated', episodeId: 'ep_1', status: 'published', occurredAt: '2026-12-01T12:00:00.000Z' };

/** Whether the reference verifier, holding only `secret`, accepts the POST (at the attempt's own time). */
function verifies(secret: string, { headers, body }: Received): boolean {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

describe('webhooks: rotate-key --secrets', function () {
  this.timeout(120_000);
  const key = testSecretsKey();
  let client: Client;
  let store: ApiTestStore;
  let receiver: Awaited<ReturnType<typeof startRecordingEndpoint>>;

  before(async function () {
    client = testClient();
    store = await createApiTestStore(client);
    await store.channels(WORLD_CHANNELS);
    receiver = await startRecordingEndpoint();
  });

  after(async function () {
    await receiver?.close();
    await store?.drop();
    await client?.close();
  });

  it('gives every endpoint a new secret, and the old one signs beside it only for the window', async function () {
    const deps = { client, aliases: store.aliases };
    const made = [
      newEndpoint({ url: `${receiver.base}/a`, keyring: key.keyring, allowPrivate: true }),
      newEndpoint({ url: `${receiver.base}/b`, keyring: key.keyring, allowPrivate: true }),
    ];
    for (const e of made) await storeEndpoint(deps, 'alpha', e);

    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/webhooks.ts', 'rotate-key', '--secrets', '--grace', '600'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...key.env, INDEX_PREFIX: store.prefix, LOG_LEVEL: 'warn' },
    });
    const [summary, ...lines] = stdout.trim().split('\n');
    expect(summary).to.match(/^2 of 2 endpoints have a new secret sealed under key \S+; the old ones also sign until \S+; give each receiver its secret now/);
    const printed = new Map(lines.map((l) => l.split('\t')).map(([id, slug, secret]) => [id!, { slug, secret: secret! }]));
    expect([...printed.keys()].sort()).to.deep.equal(made.map((e) => e.id).sort());

    for (const original of made) {
      const renewed = printed.get(original.id)!;
      expect(renewed.secret)
        .to.match(/^whsec_/)
        .and.not.equal(original.secret);
      const stored = (await getEndpoint(deps, original.id))!;
      expect(openSecret(key.keyring, stored.secret, original.id)).to.equal(renewed.secret);
      const until = Date.parse(stored.previousSecretUntil!);
      expect(until - Date.now()).to.be.within(500_000, 600_000);

      const before = receiver.received.length;
      const delivered = await deliverChange(
        { store: deps, keyring: key.keyring, outbound: { allowPrivate: true, userAgent: 'CreatorContentAPI/test', timeoutMs: 5000 } },
        { endpointId: original.id, change: CHANGE },
      );
      expect(delivered.status).to.equal(204);
      const post = receiver.received[before]!;
      expect(post.headers['webhook-signature']!.split(' ')).to.have.length(2);
      expect(verifies(renewed.secret, post), 'a receiver that switched').to.equal(true);
      expect(verifies(original.secret, post), 'a receiver that has not switched yet').to.equal(true);

      // After the window the stored old secret no longer signs.
      const after = signingSecrets(stored, new Date(until + 1000)).map((s) => openSecret(key.keyring, s, original.id));
      expect(after).to.deep.equal([renewed.secret]);
    }
  });
});
