// Admin: every account with its role, invitations and one-time links (the same functions `npm run users` calls).
import { h } from 'preact';
import type { Request } from 'express';
import { ACCOUNT_ROLES, AccountError, listAccounts, type AccountRole } from '../../../core/store/accounts.js';
import { accountStore, inviteAccount, passwordLink, type Invitation } from '../identity.js';
import { field, notice, postForm, shownDate } from '../layout.js';
import { formValue, type ConsoleDeps, type ConsoleSection, type SectionRequest } from '../section.js';

/** Longest user id typed into a form. */
const USER_ID_CHARS = 200;

function linkShown(invitation: Invitation) {
  return h(
    'section',
    { class: 'new-key', 'aria-labelledby': 'link-title' },
    h('h2', { id: 'link-title' }, `One-time link for ${invitation.account.userId}`),
    notice(
      'warning',
      `Give it to ${invitation.account.userId} privately: whoever opens it first sets the password. It works once, until ${shownDate(invitation.expiresAt.toISOString())}.`,
    ),
    h(
      'p',
      { class: 'secret' },
      h('code', { id: 'one-time-link', 'data-secret': '' }, invitation.url),
      ' ',
      h('button', { type: 'button', class: 'copy', 'data-copy': 'one-time-link', hidden: true }, 'Copy'),
    ),
  );
}

function forms(req: Request) {
  return [
    postForm(req, '/console/admin/invite', [
      h('h2', null, 'Invite'),
      field(
        'invite-user',
        'User id',
        { name: 'userId', type: 'text', required: true, maxLength: USER_ID_CHARS, autocomplete: 'off' },
        'A creator must be a user of the library; an admin need not be.',
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'invite-role' }, 'Role'),
        h(
          'select',
          { id: 'invite-role', name: 'role' },
          ACCOUNT_ROLES.map((r) => h('option', { value: r, selected: r === 'creator' }, r)),
        ),
      ),
      h('button', { type: 'submit' }, 'Invite'),
    ]),
    postForm(req, '/console/admin/link', [
      h('h2', null, 'One-time link'),
      field(
        'link-user',
        'User id',
        { name: 'userId', type: 'text', required: true, maxLength: USER_ID_CHARS, autocomplete: 'off' },
        'For an account that forgot its password or whose invite expired.',
      ),
      h('button', { type: 'submit' }, 'Make a link'),
    ]),
  ];
}

async function adminPage(
  deps: ConsoleDeps,
  { req, render }: SectionRequest,
  { invitation, problem, status = 200 }: { invitation?: Invitation; problem?: string; status?: number } = {},
) {
  const accounts = await listAccounts(accountStore(deps.identity));
  render(
    'Admin',
    [
      invitation ? linkShown(invitation) : null,
      problem ? notice('error', problem) : null,
      h(
        'div',
        { class: 'table', tabIndex: 0, role: 'region', 'aria-label': 'Accounts' },
        h(
          'table',
          null,
          h('caption', null, 'Accounts'),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['User', 'Role', 'Password', 'Upstream links', 'Created'].map((t) => h('th', { scope: 'col' }, t)),
            ),
          ),
          h(
            'tbody',
            null,
            accounts.map((a) =>
              h(
                'tr',
                { 'data-account': a.userId },
                h('th', { scope: 'row' }, a.userId),
                h('td', null, a.role),
                h('td', null, a.passwordHash ? `set ${shownDate(a.passwordChangedAt)}` : 'not yet (invited)'),
                h('td', null, String(a.links.length)),
                h('td', null, shownDate(a.createdAt)),
              ),
            ),
          ),
        ),
      ),
      ...forms(req),
    ],
    status,
  );
}

/** An AccountError as the admin page says it (400), anything else thrown on. */
async function refusedOr<T>(run: () => Promise<T>): Promise<{ value: T } | { problem: string }> {
  try {
    return { value: await run() };
  } catch (error) {
    if (error instanceof AccountError) return { problem: error.message };
    throw error;
  }
}

export const adminSection: ConsoleSection = {
  path: '/console/admin',
  label: 'Admin',
  roles: ['admin'],
  mount(router, deps, page) {
    router.get(
      '/console/admin',
      page((ctx) => adminPage(deps, ctx)),
    );
    router.post(
      '/console/admin/invite',
      page(async (ctx) => {
        const userId = formValue(ctx.req, 'userId');
        const role = formValue(ctx.req, 'role') as AccountRole;
        if (!userId || userId.length > USER_ID_CHARS || !ACCOUNT_ROLES.includes(role)) return adminPage(deps, ctx, { problem: 'Give a user id and a role.', status: 400 });
        const outcome = await refusedOr(() => inviteAccount(deps.identity, { userId, role }));
        if ('problem' in outcome) return adminPage(deps, ctx, { problem: outcome.problem, status: 400 });
        ctx.req.log.info({ userId, role, by: ctx.user.userId }, 'account invited in the console');
        await adminPage(deps, ctx, { invitation: outcome.value, status: 201 });
      }),
    );
    router.post(
      '/console/admin/link',
      page(async (ctx) => {
        const userId = formValue(ctx.req, 'userId');
        if (!userId || userId.length > USER_ID_CHARS) return adminPage(deps, ctx, { problem: 'Give a user id.', status: 400 });
        const outcome = await refusedOr(() => passwordLink(deps.identity, userId));
        if ('problem' in outcome) return adminPage(deps, ctx, { problem: outcome.problem, status: 400 });
        ctx.req.log.info({ userId, by: ctx.user.userId }, 'one-time link made in the console');
        await adminPage(deps, ctx, { invitation: outcome.value, status: 201 });
      }),
    );
  },
};
