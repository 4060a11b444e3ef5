// Console accounts in the store: who may sign in to the console, with what role and credentials. Not library data: the
// library folder never holds them (users, channels, membership and plans stay there and are read at call time).
import type { Client } from './opensearch.js';
import { storeFailure } from './transient.js';
import { defineErrors, type ErrorCatalogue } from '../ground/define-errors.js';

/** What an account may do in the console: an admin also invites and makes one-time links. */
export type AccountRole = 'admin' | 'creator';
export const ACCOUNT_ROLES: readonly AccountRole[] = ['admin', 'creator'];

/** An upstream OpenID Connect identity linked to an account: matched on both, never on an e-mail address. */
export interface AccountLink {
  issuer: string;
  subject: string;
}

/** An account as stored, under `_id` = its user id. */
export interface AccountDoc {
  userId: string;
  role: AccountRole;
  /** argon2id (PHC string); null until the account's first one-time link is used. */
  passwordHash: string | null;
  /** When the password was last set: a console session signed in before it is refused. */
  passwordChangedAt: string | null;
  links: AccountLink[];
  createdAt: string;
  updatedAt: string;
}

export interface AccountStoreDeps {
  client: Client;
  /** The alias of the accounts index (`<prefix>accounts`). */
  index: string;
}

const ACCOUNT_ERRORS = {
  account_exists: { message: 'the account exists already' },
  no_account: { message: 'no such account' },
  no_user: { message: 'no such user in the library' },
} as const satisfies ErrorCatalogue;

/** Why an account could not be made or changed; the console and the CLI print the message. */
export class AccountError extends defineErrors('AccountError', ACCOUNT_ERRORS).Error {}

/** The account of `userId`, read in real time (a GET: a password just set counts at once). */
export async function getAccount({ client, index }: AccountStoreDeps, userId: string): Promise<AccountDoc | undefined> {
  const res = await client.get({ index, id: userId }, { ignore: [404] });
  const body = res.body as { found?: boolean; _source?: AccountDoc };
  return body.found ? body._source : undefined;
}

/** Stores a new account without a password; refused (`account_exists`) when `userId` has one. */
export async function createAccount(
  { client, index }: AccountStoreDeps,
  { userId, role, now = new Date() }: { userId: string; role: AccountRole; now?: Date },
): Promise<AccountDoc> {
  const at = now.toISOString();
  const doc: AccountDoc = { userId, role, passwordHash: null, passwordChangedAt: null, links: [], createdAt: at, updatedAt: at };
  try {
    await client.index({ index, id: userId, body: doc as never, op_type: 'create', refresh: 'wait_for' } as never);
  } catch (error) {
    if (storeFailure(error)?.status === 409) throw new AccountError('account_exists', `"${userId}" already has an account; make a one-time link for it instead`);
    throw error;
  }
  return doc;
}

/** Sets an account's password hash (and when); `no_account` when there is none. */
export async function setPasswordHash({ client, index }: AccountStoreDeps, userId: string, passwordHash: string, now = new Date()): Promise<void> {
  const at = now.toISOString();
  try {
    await client.update({ index, id: userId, body: { doc: { passwordHash, passwordChangedAt: at, updatedAt: at } }, refresh: 'wait_for', retry_on_conflict: 3 } as never);
  } catch (error) {
    if (storeFailure(error)?.status === 404) throw new AccountError('no_account', `no account "${userId}"`);
    throw error;
  }
}

/** Every account, by user id (a deployment has a few hundred at most). */
export async function listAccounts({ client, index }: AccountStoreDeps): Promise<AccountDoc[]> {
  const res = await client.search({ index, body: { size: 1000, query: { match_all: {} }, sort: [{ userId: 'asc' }] } as never });
  return res.body.hits.hits.map((h) => h._source as AccountDoc);
}

/** The account an upstream identity is linked to: issuer and subject both, exactly. */
export async function accountByLink({ client, index }: AccountStoreDeps, link: AccountLink): Promise<AccountDoc | undefined> {
  const res = await client.search({
    index,
    body: {
      size: 1,
      query: { nested: { path: 'links', query: { bool: { filter: [{ term: { 'links.issuer': link.issuer } }, { term: { 'links.subject': link.subject } }] } } } },
    } as never,
  });
  return (res.body.hits.hits[0]?._source as AccountDoc | undefined) ?? undefined;
}

/** Links an upstream identity to an account (once; linking it again changes nothing). */
export async function addAccountLink(deps: AccountStoreDeps, userId: string, link: AccountLink, now = new Date()): Promise<void> {
  const account = await getAccount(deps, userId);
  if (!account) throw new AccountError('no_account', `no account "${userId}"`);
  if (account.links.some((l) => l.issuer === link.issuer && l.subject === link.subject)) return;
  const links = [...account.links, { issuer: link.issuer, subject: link.subject }];
  await deps.client.update({ index: deps.index, id: userId, body: { doc: { links, updatedAt: now.toISOString() } }, refresh: 'wait_for' } as never);
}

/** Removes an upstream identity from an account (absent: nothing changes); `no_account` when there is none. */
export async function removeAccountLink(deps: AccountStoreDeps, userId: string, link: AccountLink, now = new Date()): Promise<void> {
  const account = await getAccount(deps, userId);
  if (!account) throw new AccountError('no_account', `no account "${userId}"`);
  const links = account.links.filter((l) => !(l.issuer === link.issuer && l.subject === link.subject));
  if (links.length === account.links.length) return;
  await deps.client.update({ index: deps.index, id: userId, body: { doc: { links, updatedAt: now.toISOString() } }, refresh: 'wait_for' } as never);
}
