// Account: change the password (the current one required), and the upstream sign-in links the account has (link, unlink).
import { h } from 'preact';
import type { Request } from 'express';
import { getAccount, setPasswordHash } from '../../../core/store/accounts.js';
import { accountStore } from '../identity.js';
import { field, notice, postForm } from '../layout.js';
import { hashPassword, passwordProblem, PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS, verifyPassword } from '../passwords.js';
import { ConsolePageError, rawFormValue, type ConsoleDeps, type ConsoleSection, type SectionRequest } from '../section.js';
import { signIn } from '../session.js';
import { mountUpstreamLinks, upstreamLinksPart } from './upstream.js';

const newPasswordInputs = (autocomplete = 'new-password') => [
  field(
    'password',
    'New password',
    { type: 'password', required: true, minLength: PASSWORD_MIN_CHARS, maxLength: PASSWORD_MAX_CHARS, autocomplete },
    `At least ${PASSWORD_MIN_CHARS} characters.`,
  ),
  field('confirmation', 'New password again', { type: 'password', required: true, minLength: PASSWORD_MIN_CHARS, maxLength: PASSWORD_MAX_CHARS, autocomplete }),
];

/** The two fields of a new password, for the account page and the one-time link page. */
export { newPasswordInputs };

async function accountPage(
  deps: ConsoleDeps,
  { req, user, render }: SectionRequest,
  { message, problem, status = 200 }: { message?: string; problem?: string; status?: number } = {},
) {
  const account = await getAccount(accountStore(deps.identity), user.userId);
  if (!account) throw new ConsolePageError(404, 'This account no longer exists.');
  render(
    'Account',
    [
      message ? notice('info', message) : null,
      h('p', null, `Signed in as ${account.userId} (${account.role}).`),
      passwordForm(req, problem),
      upstreamLinksPart(req, deps.upstream, account.links),
    ],
    status,
  );
}

/** The notice after a link or unlink came back here. */
function linkNews(req: Request, deps: ConsoleDeps): string | undefined {
  if (req.query.linked === '1') return `Linked: you can now sign in with ${deps.upstream?.name ?? 'the provider'} as well as your password.`;
  if (req.query.unlinked === '1') return 'Unlinked: that identity no longer signs in to this account.';
  return undefined;
}

function passwordForm(req: Request, problem?: string) {
  return postForm(req, '/console/account/password', [
    h('h2', null, 'Change your password'),
    problem ? notice('error', problem) : null,
    field('current', 'Current password', { type: 'password', required: true, autocomplete: 'current-password' }),
    ...newPasswordInputs(),
    h('button', { type: 'submit' }, 'Change password'),
  ]);
}

export const accountSection: ConsoleSection = {
  path: '/console/account',
  label: 'Account',
  roles: ['admin', 'creator'],
  mount(router, deps, page) {
    router.get(
      '/console/account',
      page((ctx) => accountPage(deps, ctx, { message: linkNews(ctx.req, deps) })),
    );
    mountUpstreamLinks(router, deps, page);
    router.post(
      '/console/account/password',
      page(async (ctx) => {
        const { req, user } = ctx;
        const store = accountStore(deps.identity);
        const account = await getAccount(store, user.userId);
        if (!(await verifyPassword(account?.passwordHash, rawFormValue(req, 'current')))) {
          return accountPage(deps, ctx, { problem: 'The current password is not right.', status: 400 });
        }
        const problem = passwordProblem(rawFormValue(req, 'password'), rawFormValue(req, 'confirmation'));
        if (problem) return accountPage(deps, ctx, { problem, status: 400 });
        await setPasswordHash(store, user.userId, await hashPassword(rawFormValue(req, 'password')));
        // Every other session of the account ends (they signed in before the change); this one starts again.
        await signIn(req, user.userId);
        req.log.info({ userId: user.userId }, 'console password changed');
        await accountPage(deps, ctx, { message: 'Your password is changed; any other session of this account is signed out.' });
      }),
    );
  },
};
