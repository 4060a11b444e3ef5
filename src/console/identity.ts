// Who may sign in: accounts made by invitation only (the users CLI and the admin page call these same functions), each
// with a one-time link to set its password. No default password, no first-visitor setup.
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import { AccountError, createAccount, getAccount, type AccountDoc, type AccountRole, type AccountStoreDeps } from '../../core/store/accounts.js';
import { createLink, linkUrl, type LinkStoreOptions } from './links.js';

export interface IdentityDeps {
  client: Client;
  aliases: Pick<IndexAliases, 'accounts' | 'users'>;
  links: LinkStoreOptions;
  publicBaseUrl: string;
}

/** An account and the one-time link that sets its password (shown once). */
export interface Invitation {
  account: AccountDoc;
  url: string;
  expiresAt: Date;
}

/** The accounts store of these dependencies. */
export const accountStore = ({ client, aliases }: Pick<IdentityDeps, 'client' | 'aliases'>): AccountStoreDeps => ({ client, index: aliases.accounts });

async function userExists({ client, aliases }: Pick<IdentityDeps, 'client' | 'aliases'>, userId: string): Promise<boolean> {
  const res = await client.get({ index: aliases.users, id: userId, _source: false } as never, { ignore: [404] });
  return (res.body as { found?: boolean }).found === true;
}

const expiry = (deps: IdentityDeps) => new Date(Date.now() + deps.links.ttlSeconds * 1000);

/**
 * Makes an account for `userId` with `role` and a one-time link to set its password. A creator is a user of the library
 * (`no_user` otherwise); an admin may be one too, or only an operator. An existing account is refused (`account_exists`):
 * {@link passwordLink} makes it a new link.
 */
export async function inviteAccount(deps: IdentityDeps, { userId, role }: { userId: string; role: AccountRole }): Promise<Invitation> {
  if (role === 'creator' && !(await userExists(deps, userId))) {
    throw new AccountError('no_user', `no user "${userId}" in the library: a creator account is for an existing user`);
  }
  const account = await createAccount(accountStore(deps), { userId, role });
  const token = await createLink(deps.links, { userId, purpose: 'invite' });
  return { account, url: linkUrl(deps.publicBaseUrl, token), expiresAt: expiry(deps) };
}

/** A new one-time link for an existing account (a forgotten password, or an invite that expired unused). */
export async function passwordLink(deps: IdentityDeps, userId: string): Promise<Invitation> {
  const account = await getAccount(accountStore(deps), userId);
  if (!account) throw new AccountError('no_account', `no account "${userId}"; invite it first`);
  const token = await createLink(deps.links, { userId, purpose: account.passwordHash ? 'reset' : 'invite' });
  return { account, url: linkUrl(deps.publicBaseUrl, token), expiresAt: expiry(deps) };
}
