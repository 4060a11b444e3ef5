// `npm run webhooks -- add --channel <slug> --url <https URL> | list | remove <id> | rotate <id> [--grace <s>] | rotate-key [--secrets [--grace <s>]] | test <id> | deliveries <id>`:
// webhook endpoints, registered by whoever runs the service (the API stays read-only). Deliveries run in the worker.
// Secrets are sealed with SECRETS_KEY before they reach the store; `add`, `rotate` and `rotate-key` need it.
import { Command } from 'commander';
import { commandConfig, describeFailure, reachRedis } from './lib/reach.js';
import { createLogger } from '../core/ground/logger.js';
import { WebhookError } from '../pipeline/webhooks/errors.js';
import { listEndpoints, newEndpoint, removeEndpoint, rotateSecret, storeEndpoint, type EndpointDoc, type WebhookStoreDeps } from '../pipeline/webhooks/store.js';
import { refuseUnknownKeys, renewSecrets, resealSecrets, SecretRenewals } from '../pipeline/webhooks/reseal.js';
import { printable } from '../core/ground/shell-words.js';
import { keyringOf, sealSecret, type Keyring } from '../pipeline/webhooks/sealed.js';
import { newSecret } from '../pipeline/webhooks/signing.js';
import { storeFailure } from '../core/store/transient.js';
import { positive } from './lib/cli-args.js';
import { withOperatorStore } from './lib/operator-store.js';
import { createRedisConnection } from '../indexer/queue.js';
import { deliveryJournal, type DeliveryJournal, type JournalEntry } from '../pipeline/webhooks/journal.js';
import { sendTestEvent } from '../pipeline/webhooks/test-event.js';

const config = commandConfig();
// Logs go to stderr: stdout carries only what a script may capture (the secret on the last line).
const log = createLogger({ name: 'webhooks', level: config.logLevel, fd: 2 });

/** SECRETS_KEY (and SECRETS_KEY_PREVIOUS), or a refusal saying what to set. */
function requireKeyring(): Keyring {
  const keyring = keyringOf(config.secrets);
  if (!keyring) {
    throw new WebhookError(
      'secrets_key_missing',
      'SECRETS_KEY is unset: webhook secrets are sealed with it before they are stored; set it to the key the worker has (a first one: `openssl rand -base64 32`)',
    );
  }
  return keyring;
}

/** Runs one webhooks operation against the store, again while a reindex write-blocks it (see withOperatorStore). */
async function withStore<T>(run: (deps: WebhookStoreDeps) => Promise<T>): Promise<T> {
  const { wait } = program.opts<{ wait: number }>();
  return withOperatorStore({ config, log, waitSeconds: wait, index: 'webhooks', refuse: (message) => new WebhookError('store_busy', message) }, run);
}

/** One line of `list`: id, channel, URL, last delivery, failures in a row, state. Never the secret. */
function endpointLine(e: EndpointDoc): string {
  const last = e.lastDeliveryAt ? `last ${e.lastDeliveryAt} ${e.lastDeliveryStatus}` : 'never delivered';
  const state = e.failingSince ? `failing since ${e.failingSince}` : 'ok';
  return [e.id, e.channelSlug, e.url, last, `failures ${e.consecutiveFailures}`, state].join('\t');
}

const program = new Command()
  .name('webhooks')
  .description('Register, list, remove and rotate webhook endpoints. A secret is shown once, when made; the worker delivers.')
  .option('--wait <seconds>', 'how long to keep retrying while OpenSearch is busy or a reindex write-blocks the index', positive, 30)
  .showHelpAfterError();

program
  .command('add')
  .description("register an endpoint for a channel's changes; prints its secret once, on the last line of stdout")
  .requiredOption('--channel <slug>', 'the channel whose changes are delivered')
  .requiredOption('--url <url>', 'https URL receiving the POSTs (http only on loopback, with OUTBOUND_ALLOW_PRIVATE=true)')
  .action(async ({ channel, url }: { channel: string; url: string }) => {
    const keyring = requireKeyring();
    const created = newEndpoint({ url, keyring, allowPrivate: config.pipeline.allowPrivate });
    const endpoint = await withStore(async (deps) => {
      // A key other than the service's would seal a secret the worker cannot open: the stored ones say which key that is.
      refuseUnknownKeys(await listEndpoints(deps, { size: 10_000 }), keyring);
      return storeEndpoint(deps, channel, created);
    });
    log.info({ endpointId: endpoint.id, channel: endpoint.channelSlug }, 'webhook endpoint added');
    process.stdout.write(`${endpoint.id} for ${endpoint.channelSlug} → ${endpoint.url}; store the secret now, it is not shown again:\n${created.secret}\n`);
  });

program
  .command('list')
  .description('list endpoints: id, channel, URL, last delivery (time, status), failures in a row, and whether failing')
  .action(async () => {
    const endpoints = await withStore((deps) => listEndpoints(deps));
    for (const e of endpoints) process.stdout.write(endpointLine(e) + '\n');
    if (endpoints.length === 0) process.stdout.write('no webhook endpoints\n');
  });

program
  .command('remove')
  .description('remove an endpoint; its pending deliveries are dropped, and every later restore removes it again (the ledger)')
  .argument('<id>')
  .action(async (id: string) => {
    if (!(await withStore((deps) => removeEndpoint(deps, id)))) throw new WebhookError('unknown_endpoint', `no webhook endpoint "${id}"`);
    process.stdout.write(`${id} removed\n`);
  });

program
  .command('rotate')
  .description('give an endpoint a new secret (printed once, on the last line); deliveries sign with it from now on')
  .argument('<id>')
  .option('--grace <seconds>', 'the old secret also signs for this long (two signatures per delivery)', (v) => (v === '0' ? 0 : positive(v)), 0)
  .action(async (id: string, { grace }: { grace: number }) => {
    const keyring = requireKeyring();
    // Made and sealed once: an attempt retried after its answer was lost finds this secret in place and changes nothing.
    const secret = newSecret();
    const sealedSecret = sealSecret(keyring, secret, id);
    const rotated = await withStore(async (deps) => {
      refuseUnknownKeys(await listEndpoints(deps, { size: 10_000 }), keyring);
      return rotateSecret(deps, id, { graceMs: grace * 1000, sealedSecret });
    });
    if (!rotated) throw new WebhookError('unknown_endpoint', `no webhook endpoint "${id}"`);
    const until = rotated.previousSecretUntil;
    process.stdout.write(`${id} has a new secret${grace > 0 && until ? ` (the old one also signs until ${until})` : ''}; store it now, it is not shown again:\n${secret}\n`);
  });

program
  .command('rotate-key')
  .description(
    'seal every stored secret under SECRETS_KEY: those under SECRETS_KEY_PREVIOUS and any stored in clear (give the workers both keys first); safe to run again. ' +
      'With --secrets, every endpoint also gets a new secret (printed once, one line per endpoint), the old one signing beside it for --grace',
  )
  .option('--secrets', 'also give every endpoint a new signing secret (after a suspected leak of a SECRETS_KEY: old snapshots hold the old secrets)')
  .option('--grace <seconds>', 'with --secrets: the old secrets also sign for this long (two signatures per delivery)', (v) => (v === '0' ? 0 : positive(v)), 86_400)
  .action(async ({ secrets, grace }: { secrets?: boolean; grace: number }) => {
    const keyring = requireKeyring();
    if (secrets) {
      const renewals = new SecretRenewals(keyring);
      const { renewed, resealed } = await withStore((deps) => renewSecrets(deps, keyring, renewals, { graceMs: grace * 1000, log }));
      const until = renewed.find((r) => r.oldSignsUntil)?.oldSignsUntil;
      process.stdout.write(
        `${renewed.length} of ${resealed.endpoints} endpoints have a new secret sealed under key ${keyring.current.id}` +
          (until ? `; the old ones also sign until ${until}` : '') +
          (resealed.unreadable.length > 0 ? `; ${resealed.unreadable.join(', ')} had an unreadable secret and sign with the new one only` : '') +
          '; give each receiver its secret now, they are not shown again:\n',
      );
      for (const r of renewed) process.stdout.write(`${r.id}\t${printable(r.channelSlug)}\t${r.secret}\n`);
      return;
    }
    const report = await withStore((deps) => resealSecrets(deps, keyring, { scope: 'all', log }));
    process.stdout.write(
      `${report.resealed} of ${report.endpoints} endpoints re-sealed under key ${keyring.current.id}; ${report.current} already were` +
        (report.unreadable.length > 0 ? `; ${report.unreadable.length} do not open and need a new secret (rotate ${report.unreadable.join(', ')})` : '') +
        '\n',
    );
    if (report.unreadable.length > 0) process.exitCode = 1;
  });

/** Runs `run` with the deliveries' journal in Redis (REDIS_URL), closing the connection after. */
async function withJournal<T>(run: (journal: DeliveryJournal) => Promise<T>): Promise<T> {
  await reachRedis(config);
  const connection = createRedisConnection(config.redisUrl);
  try {
    return await run(deliveryJournal(connection, config.indexPrefix));
  } finally {
    connection.disconnect();
  }
}

/** One line of `test` and `deliveries`: time, kind, status, latency, the answer's first characters (printable). */
const journalLine = (e: JournalEntry): string => [e.at, e.kind, e.eventId, e.ok ? `ok ${e.status}` : `failed ${e.status}`, `${e.latencyMs} ms`, printable(e.answer)].join('\t');

program
  .command('test')
  .description('send a signed test event (type webhook.test) to an endpoint now and print its status, latency and answer')
  .argument('<id>')
  .action(async (id: string) => {
    const keyring = requireKeyring();
    const entry = await withJournal((journal) =>
      withStore((store) =>
        sendTestEvent({ store, keyring, journal, outbound: { allowPrivate: config.pipeline.allowPrivate, userAgent: config.pipeline.userAgent, timeoutMs: 10_000 } }, id),
      ),
    );
    process.stdout.write(journalLine(entry) + '\n');
    if (!entry.ok) process.exitCode = 1;
  });

program
  .command('deliveries')
  .description("an endpoint's recent attempts, newest first: time, change or test, status, latency, the answer's first characters")
  .argument('<id>')
  .action(async (id: string) => {
    const entries = await withJournal((journal) => journal.recent(id));
    for (const e of entries) process.stdout.write(journalLine(e) + '\n');
    if (entries.length === 0) process.stdout.write(`no attempts recorded for ${id}\n`);
  });

program.parseAsync().catch((error: unknown) => {
  if (error instanceof WebhookError) {
    process.stderr.write(`webhooks: ${error.message}\n`);
  } else {
    // The store's own account (status, type, reason), never the client's error whole: its `meta` carries the request sent.
    const failure = storeFailure(error);
    if (failure) log.error({ failure }, 'webhooks failed');
    else log.error({ err: error }, 'webhooks failed');
    process.stderr.write(`webhooks: ${describeFailure(error, config)}\n`);
  }
  process.exit(1);
});
