// `npm run users -- create <userId> --admin|--creator | invite <userId> [--role creator] | reset-link <userId> | list`:
// console accounts, by invitation only. Each link printed is a one-time link: it sets the account's password once.
import { Command, InvalidArgumentError } from 'commander';
import { Redis } from 'ioredis';
import { commandConfig, describeFailure, reachRedis } from './lib/reach.js';
import { createLogger } from '../core/ground/logger.js';
import { positive } from './lib/cli-args.js';
import { withOperatorStore } from './lib/operator-store.js';
import { ACCOUNT_ROLES, AccountError, listAccounts, type AccountRole } from '../core/store/accounts.js';
import { accountStore, inviteAccount, passwordLink, type IdentityDeps, type Invitation } from '../src/console/identity.js';
import { identityDeps } from '../src/console/router.js';

/** A refusal of this command line (a bad flag, a store that stays away), printed as its one line. */
class UsersError extends Error {
  override name = 'UsersError';
}

const config = commandConfig();
// Logs go to stderr: stdout carries only what a script may capture (the link on the last line).
const log = createLogger({ name: 'users', level: config.logLevel, fd: 2 });

/** Runs one accounts operation with the store and Redis (the links live there), again while the store is busy. */
async function withIdentity<T>(run: (deps: IdentityDeps) => Promise<T>, { redis: needsRedis = true } = {}): Promise<T> {
  const { wait } = program.opts<{ wait: number }>();
  if (needsRedis) await reachRedis(config);
  const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    return await withOperatorStore({ config, log, waitSeconds: wait, index: 'accounts', refuse: (message) => new UsersError(message) }, ({ client }) =>
      run(identityDeps({ config, client, redis })),
    );
  } finally {
    redis.disconnect();
  }
}

function printLink(invitation: Invitation, what: string): void {
  const { account, url, expiresAt } = invitation;
  process.stdout.write(`${what} ${account.userId} (${account.role}). One-time link, valid until ${expiresAt.toISOString()}; give it to them privately:\n${url}\n`);
}

function role(raw: string): AccountRole {
  if (!(ACCOUNT_ROLES as readonly string[]).includes(raw)) throw new InvalidArgumentError(`expected ${ACCOUNT_ROLES.join(' or ')}`);
  return raw as AccountRole;
}

const program = new Command()
  .name('users')
  .description('Console accounts: invite-only, each with a one-time link that sets its password (there is no default password).')
  .option('--wait <seconds>', 'how long to keep retrying while OpenSearch is busy', positive, 30)
  .showHelpAfterError();

program
  .command('create')
  .description('create an account (the first admin, or any other) and print its one-time link')
  .argument('<userId>')
  .option('--admin', 'an admin: also invites others and makes one-time links')
  .option('--creator', 'a creator: a user of the library')
  .action(async (userId: string, { admin, creator }: { admin?: boolean; creator?: boolean }) => {
    if (Boolean(admin) === Boolean(creator)) throw new UsersError('say --admin or --creator');
    const invitation = await withIdentity((deps) => inviteAccount(deps, { userId, role: admin ? 'admin' : 'creator' }));
    printLink(invitation, 'Created');
  });

program
  .command('invite')
  .description('invite a user of the library (a creator by default) and print the one-time link')
  .argument('<userId>')
  .option('--role <role>', `${ACCOUNT_ROLES.join(' or ')}`, role, 'creator' as AccountRole)
  .action(async (userId: string, { role: chosen }: { role: AccountRole }) => {
    const invitation = await withIdentity((deps) => inviteAccount(deps, { userId, role: chosen }));
    printLink(invitation, 'Invited');
  });

program
  .command('reset-link')
  .description('print a new one-time link for an existing account (a forgotten password, an expired invite)')
  .argument('<userId>')
  .action(async (userId: string) => {
    const invitation = await withIdentity((deps) => passwordLink(deps, userId));
    printLink(invitation, 'Reset link for');
  });

program
  .command('list')
  .description('list the accounts: user id, role, whether a password is set, upstream links, created')
  .action(async () => {
    const accounts = await withIdentity((deps) => listAccounts(accountStore(deps)), { redis: false });
    for (const a of accounts) {
      process.stdout.write([a.userId, a.role, a.passwordHash ? 'password set' : 'invited', `${a.links.length} links`, `created ${a.createdAt}`].join('\t') + '\n');
    }
    if (accounts.length === 0) process.stdout.write('no accounts yet: make the first admin with `npm run users -- create <userId> --admin`\n');
  });

program.parseAsync().catch((error: unknown) => {
  if (error instanceof AccountError || error instanceof UsersError) {
    process.stderr.write(`users: ${error.message}\n`);
  } else {
    log.error({ err: error }, 'users failed');
    process.stderr.write(`users: ${describeFailure(error, config)}\n`);
  }
  process.exit(1);
});
