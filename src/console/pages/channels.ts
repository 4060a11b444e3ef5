// Channels: every channel the account's user owns or is a member of, with its owner's plan, and why a free plan's
// channel answers 403 on the data endpoints.
import { h } from 'preact';
import { PAID_PLAN } from '../../auth/access.js';
import { notice } from '../layout.js';
import type { ConsoleSection } from '../section.js';

export const channelsSection: ConsoleSection = {
  path: '/console/channels',
  label: 'Channels',
  roles: ['admin', 'creator'],
  mount(router, deps, page) {
    router.get(
      this.path,
      page(async ({ user, render }) => {
        const queries = deps.queries();
        const channels = await queries.channelsOfMember(user.userId);
        const owners = new Map((await queries.users([...new Set(channels.map((c) => c.ownerId))])).map((u) => [u.id, u]));
        if (channels.length === 0) {
          return render(
            'Channels',
            h('p', null, `${user.userId} is not a member of any channel yet. An owner adds members in the library; a channel appears here once it is loaded.`),
          );
        }
        const rows = channels.map((channel) => {
          const plan = owners.get(channel.ownerId)?.plan ?? 'unknown';
          const paid = plan === PAID_PLAN;
          return h(
            'tr',
            { 'data-channel': channel.slug },
            h('th', { scope: 'row' }, channel.title, h('br', null), h('code', null, channel.slug)),
            h('td', null, channel.ownerId === user.userId ? 'owner' : 'member'),
            h('td', null, h('span', { class: `badge ${paid ? 'paid' : 'free'}` }, plan)),
            h(
              'td',
              null,
              paid
                ? `Readable with your API keys at /api/v1/channels/${channel.slug}/…`
                : `No: its owner's plan is "${plan}", so the data endpoints answer 403 plan_required for this channel. API access needs the owner on the ${PAID_PLAN} plan.`,
            ),
          );
        });
        render('Channels', [
          channels.some((c) => owners.get(c.ownerId)?.plan !== PAID_PLAN)
            ? notice('info', "Channels whose owner is on a free plan are listed, but the API answers 403 for them until the owner's plan includes API access.")
            : null,
          h(
            'div',
            { class: 'table', tabIndex: 0, role: 'region', 'aria-label': 'Channels' },
            h(
              'table',
              null,
              h('caption', null, `Channels of ${user.userId}`),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  h('th', { scope: 'col' }, 'Channel'),
                  h('th', { scope: 'col' }, 'You are'),
                  h('th', { scope: 'col' }, "Owner's plan"),
                  h('th', { scope: 'col' }, 'API access'),
                ),
              ),
              h('tbody', null, rows),
            ),
          ),
        ]);
      }),
    );
  },
};
