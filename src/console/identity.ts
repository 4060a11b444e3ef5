// Who may sign in: accounts made by invitation only (the users CLI and the admin page call these same functions), each
// with a one-time link to set its password. No default password, no first-visitor setup. An account may then link an
// upstream OpenID Connect identity, one account per identity.
import { createHash, randomBytes } from 'node:crypto';
import type { Client, IndexAliases } from '../../core/store/opensearch.js';
import {
  accountByLink,
  AccountError,
  addAccountLink,
  createAccount,
  getAccount,
  removeAccountLink,
  type AccountDoc,
  type AccountLink,
  type AccountRole,
  type AccountStoreDeps,
} from '../../core/store/accounts.js';
import { createLink, linkUrl, type LinkStoreOptions } from './links.js';
import { defineErrors, type ErrorCatalogue } from '../../core/ground/define-errors.js';

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

const LINK_ERRORS = {
  linked_elsewhere: { message: 'the identity is linked to another account' },
  issuer_taken: { message: 'the account is linked to this provider already' },
  busy: { message: 'the identity is being linked right now' },
} as const satisfies ErrorCatalogue;

/** Why an upstream identity was not linked: the page says the message. */
export class LinkRefusal extends defineErrors('LinkRefusal', LINK_ERRORS).Error {}

/** How long the claim on an identity being linked holds at most (a process that dies mid-link frees it then). */
const LINK_CLAIM_MS = 30_000;

/**
 * Links the upstream identity `link` to `userId`'s account. Each identity links to one account only: while it is
 * checked and added, a Redis claim on it (SET NX) keeps a second account from linking it at the same moment; one
 * already on another account is refused (`linked_elsewhere`), and so is a second identity of the same issuer on this
 * account (`issuer_taken`: unlink the first). Linking it again to the same account changes nothing.
 */
export async function linkIdentity(deps: IdentityDeps, userId: string, link: AccountLink): Promise<void> {
  const { redis, prefix } = deps.links;
  const claim = `console:${prefix}upstream-link:${createHash('sha256').update(`${link.issuer}\0${link.subject}`).digest('hex')}`;
  const token = randomBytes(16).toString('hex');
  if ((await redis.set(claim, token, 'PX', LINK_CLAIM_MS, 'NX')) !== 'OK') throw new LinkRefusal('busy', 'This identity is being linked right now; try again in a moment.');
  try {
    const store = accountStore(deps);
    const holder = await accountByLink(store, link);
    if (holder && holder.userId !== userId) throw new LinkRefusal('linked_elsewhere', 'This identity is already linked to another account, so it cannot be linked to this one.');
    if (holder) return;
    const account = await getAccount(store, userId);
    if (!account) throw new AccountError('no_account', `no account "${userId}"`);
    if (account.links.some((l) => l.issuer === link.issuer)) {
      throw new LinkRefusal('issuer_taken', 'This account is already linked to another identity of this provider; unlink it first.');
    }
    await addAccountLink(store, userId, link);
  } finally {
    if ((await redis.get(claim)) === token) await redis.del(claim);
  }
}

/** Removes the upstream identity `link` from `userId`'s account; false when the account did not have it. */
export async function unlinkIdentity(deps: IdentityDeps, userId: string, link: AccountLink): Promise<boolean> {
  const store = accountStore(deps);
  const account = await getAccount(store, userId);
  if (!account?.links.some((l) => l.issuer === link.issuer && l.subject === link.subject)) return false;
  await removeAccountLink(store, userId, link);
  return true;
}
