// Connected apps: the OAuth grants this user gave (the client, whether its name is verified, its redirect host, when
// it was granted and last used), each revocable after a confirmation; a revoked grant's tokens are refused from the
// next request (src/oauth/grants.ts, the same store the authorization server writes).
import { h, type ComponentChildren } from 'preact';
import type { Request } from 'express';
import { createGrantStore, type GrantStore, type GrantSummary } from '../../oauth/grants.js';
import { notice, postForm, shownDate } from '../layout.js';
import { ConsolePageError, formValue, type ConsoleDeps, type ConsoleSection } from '../section.js';

const revokePath = (grantId: string) => `/console/apps/${encodeURIComponent(grantId)}/revoke`;

function appTable(req: Request, grants: GrantSummary[]): ComponentChildren {
  if (grants.length === 0) return h('p', null, 'No app is connected to your account. An app (an MCP client, a script) appears here once you allow it to sign in as you.');
  return h(
    'div',
    { class: 'table', tabIndex: 0, role: 'region', 'aria-label': 'Connected apps' },
    h(
      'table',
      null,
      h('caption', null, 'Apps you allowed to read as you'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['App', 'Name', 'Sends you back to', 'Allowed', 'Last used', ''].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        null,
        grants.map((g) =>
          h(
            'tr',
            { 'data-grant': g.grantId },
            h('th', { scope: 'row' }, g.clientName || '(no name)'),
            h('td', null, g.verified ? 'verified by its host' : h('span', { class: 'badge free' }, 'unverified: the app named itself')),
            h('td', null, g.redirectHosts.length > 0 ? g.redirectHosts.map((host, i) => [i > 0 ? ', ' : null, h('code', null, host)]) : '—'),
            h('td', null, shownDate(g.createdAt)),
            h('td', null, g.lastUsedAt ? shownDate(g.lastUsedAt) : 'never'),
            h(
              'td',
              null,
              postForm(req, revokePath(g.grantId), h('button', { type: 'submit', class: 'danger' }, 'Revoke…'), {
                'data-confirm': `Revoke the access of "${g.clientName}"? Its tokens are refused from its next request.`,
              }),
            ),
          ),
        ),
      ),
    ),
  );
}

export const appsSection: ConsoleSection = {
  path: '/console/apps',
  label: 'Connected apps',
  roles: ['admin', 'creator'],
  mount(router, deps: ConsoleDeps, page) {
    let store: GrantStore | undefined;
    const grants = () => (store ??= createGrantStore({ redis: deps.redis, indexPrefix: deps.indexPrefix }));

    router.get(
      '/console/apps',
      page(async ({ req, user, render }) => {
        const given = await grants().listGrants(user.userId);
        const revoked = typeof req.query.revoked === 'string' ? req.query.revoked.slice(0, 100) : undefined;
        render('Connected apps', [revoked ? notice('info', 'The app’s access is revoked: its tokens are refused from its next request.') : null, appTable(req, given)]);
      }),
    );

    // Without `confirm=yes` (no script to ask), the confirmation page; with it, the revocation.
    router.post(
      '/console/apps/:grantId/revoke',
      page(async ({ req, res, user, render }) => {
        const grantId = String(req.params.grantId);
        const grant = (await grants().listGrants(user.userId)).find((g) => g.grantId === grantId);
        if (!grant) throw new ConsolePageError(404, 'You have no such connected app.');
        if (formValue(req, 'confirm') !== 'yes') {
          return render('Revoke an app', [
            h('p', null, `Revoke the access of "${grant.clientName}"? Its tokens are refused from its next request; to use it again, you allow it again.`),
            postForm(req, revokePath(grantId), [
              h('input', { type: 'hidden', name: 'confirm', value: 'yes' }),
              h('button', { type: 'submit', class: 'danger' }, 'Revoke its access'),
              ' ',
              h('a', { href: '/console/apps' }, 'Keep it'),
            ]),
          ]);
        }
        if (!(await grants().revokeGrant(user.userId, grantId))) throw new ConsolePageError(404, 'You have no such connected app.');
        req.log.info({ grantId, clientId: grant.clientId, userId: user.userId }, 'grant revoked in the console');
        res.redirect(303, `/console/apps?revoked=${encodeURIComponent(grantId)}`);
      }),
    );
  },
};
