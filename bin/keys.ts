// `npm run keys -- create --user <id> [--name <label>] | revoke <keyId> | list --user <id>`: API keys, outside the read-only API.
import { Command, InvalidArgumentError } from 'commander';
import { commandConfig, describeFailure } from './lib/reach.js';
import { createLogger } from '../core/ground/logger.js';
import { KEY_EXPIRY_DAYS, KeyStoreError, listApiKeys, newApiKey, parseKeyExpiry, revokeApiKey, storeApiKey, type KeyExpiryDays, type KeyStoreDeps } from '../src/auth/key-store.js';
import { positive } from './lib/cli-args.js';
import { withOperatorStore } from './lib/operator-store.js';

const config = commandConfig();
// Logs go to stderr: stdout carries only what a script may capture (the key on the last line).
const log = createLogger({ name: 'keys', level: config.logLevel, fd: 2 });

/**
 * Runs one api-keys operation against the store, again while a reindex write-blocks it (see withOperatorStore). Each
 * is safe to run again: create stores a key made once, before the first attempt, under an id it cannot write twice;
 * revoke only rewrites the one record; list only reads.
 */
async function withStore<T>(run: (deps: KeyStoreDeps) => Promise<T>): Promise<T> {
  const { wait } = program.opts<{ wait: number }>();
  return withOperatorStore({ config, log, waitSeconds: wait, index: 'api-keys', refuse: (message) => new KeyStoreError(message) }, run);
}

/** `--expires`: one of the lifetimes the console offers too. */
function expiry(raw: string): KeyExpiryDays {
  const days = parseKeyExpiry(raw);
  if (days === undefined) throw new InvalidArgumentError(`expected ${KEY_EXPIRY_DAYS.map((d) => d ?? 'never').join(', ')}`);
  return days;
}

const program = new Command()
  .name('keys')
  .description('Create, revoke and list API keys. A key is shown once, at creation; only its sha256 is stored.')
  .option('--wait <seconds>', 'how long to keep retrying while OpenSearch is busy or a reindex write-blocks the keys', positive, 30)
  .showHelpAfterError();

program
  .command('create')
  .description('create a key for a user on the paid plan; prints the key once, on the last line of stdout')
  .requiredOption('--user <id>', 'user id owning the key')
  .option('--name <label>', 'a label to recognise the key by')
  .option('--expires <days>', `days the key lasts: ${KEY_EXPIRY_DAYS.map((d) => d ?? 'never').join(', ')}`, expiry, null)
  .action(async ({ user, name, expires }: { user: string; name?: string; expires: KeyExpiryDays }) => {
    const created = newApiKey({ userId: user, name: name ?? null, expiresInDays: expires });
    const { key, record } = await withStore((deps) => storeApiKey(deps, created));
    log.info({ keyId: record.keyId, userId: record.userId }, 'key created');
    process.stdout.write(`keyId ${record.keyId} for ${record.userId}${record.name ? ` (${record.name})` : ''}; store the key now, it is not shown again:\n${key}\n`);
  });

program
  .command('revoke')
  .description('revoke a key by its id; effective on the next request, and kept by every later restore (the ledger)')
  .argument('<keyId>')
  .action(async (keyId: string) => {
    const record = await withStore((deps) => revokeApiKey(deps, keyId));
    if (!record) throw new KeyStoreError(`no key "${keyId}"`);
    process.stdout.write(`${record.keyId} revoked at ${record.revokedAt}\n`);
  });

program
  .command('list')
  .description("list a user's keys (id, label, last 4 characters, dates); never the keys themselves")
  .requiredOption('--user <id>', 'user id')
  .action(async ({ user }: { user: string }) => {
    const records = await withStore((deps) => listApiKeys(deps, user));
    for (const r of records) {
      const state = r.revokedAt ? `revoked ${r.revokedAt}` : r.expiresAt && Date.parse(r.expiresAt) <= Date.now() ? `expired ${r.expiresAt}` : 'active';
      const dates = [`created ${r.createdAt}`, `expires ${r.expiresAt ?? 'never'}`, `last used ${r.lastUsedAt ?? 'never'}`];
      process.stdout.write([r.keyId, r.name ?? '-', `…${r.last4}`, ...dates, state].join('\t') + '\n');
    }
    if (records.length === 0) process.stdout.write(`no keys for ${user}\n`);
  });

program.parseAsync().catch((error: unknown) => {
  if (error instanceof KeyStoreError) {
    process.stderr.write(`keys: ${error.message}\n`);
  } else {
    log.error({ err: error }, 'keys failed');
    process.stderr.write(`keys: ${describeFailure(error, config)}\n`);
  }
  process.exit(1);
});
