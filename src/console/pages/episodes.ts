// Episodes of a channel, for its members: what waits and what runs (counts by status, one aggregation), then a page of
// episodes newest first, each with its status as a chip and a failed one's sentence. While anything waits or runs, the
// progressive script re-reads the page every few seconds; without it, a reload link does the same.
import { h, type ComponentChildren } from 'preact';
import type { Request } from 'express';
import type { ChannelDoc, EpisodeDoc } from '../../../core/store/documents.js';
import { STATUS_VIEWS, type StatusView } from '../../store/episode-queries.js';
import { memberChannel } from '../channel-access.js';
import { EPISODES_PER_PAGE, PAGE_VIEWS, StaleCursorError, episodePageOf, statusCounts, type StatusCounts } from '../episode-reads.js';
import { notice, shownDate } from '../layout.js';
import { ConsolePageError, type ConsoleSection } from '../section.js';

const episodes = (n: number) => `${n} episode${n === 1 ? '' : 's'}`;

/** How often the progressive script re-reads the page while episodes wait or run. */
const REFRESH_SECONDS = 5;

/** What each view is called on the page. */
const VIEW_LABELS: Record<StatusView, string> = { all: 'All', queued: 'Waiting', indexing: 'Running', live: 'Live', failed: 'Failed' };

const pagePath = (slug: string, view: StatusView, after?: string) =>
  `/console/episodes/${encodeURIComponent(slug)}${view === 'all' && !after ? '' : `?${new URLSearchParams({ ...(view !== 'all' ? { view } : {}), ...(after ? { after } : {}) }).toString()}`}`;

/** The one-value query parameter `name`, or undefined; a repeated one is refused as the API refuses it. */
function queryValue(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new ConsolePageError(400, `The link's "${name}" is not one value.`);
  return value;
}

function countsPanel(channel: ChannelDoc, counts: StatusCounts, view: StatusView): ComponentChildren {
  const entry = (label: string, n: number, status: string, to: StatusView) =>
    h(
      'li',
      { 'data-count': status },
      h(
        'a',
        { href: pagePath(channel.slug, to), ...(to === view ? { 'aria-current': 'true' } : {}) },
        h('span', { class: `chip status-${status}` }, label),
        ' ',
        h('strong', null, String(n)),
      ),
    );
  return h(
    'section',
    { 'aria-labelledby': 'counts-title', class: 'counts' },
    h('h2', { id: 'counts-title' }, 'What waits and what runs'),
    h(
      'ul',
      { class: 'counts' },
      entry('waiting', counts.pending, 'pending', 'queued'),
      entry('running', counts.processing, 'processing', 'indexing'),
      entry('indexed', counts.indexed, 'indexed', 'live'),
      entry('published', counts.published, 'published', 'live'),
      entry('failed', counts.failed, 'failed', 'failed'),
    ),
    h(
      'p',
      { class: 'views' },
      'Show: ',
      PAGE_VIEWS.map((v, i) => [i > 0 ? ' · ' : null, v === view ? h('strong', null, VIEW_LABELS[v]) : h('a', { href: pagePath(channel.slug, v) }, VIEW_LABELS[v])]),
    ),
  );
}

function episodeTable(episodes: EpisodeDoc[], view: StatusView): ComponentChildren {
  if (episodes.length === 0) return h('p', null, view === 'all' ? 'No episodes yet.' : `No ${VIEW_LABELS[view].toLowerCase()} episodes.`);
  return h(
    'div',
    { class: 'table', tabIndex: 0, role: 'region', 'aria-label': 'Episodes' },
    h(
      'table',
      null,
      h('caption', null, view === 'all' ? 'Episodes, newest first' : `${VIEW_LABELS[view]} episodes, newest first`),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Episode', 'Published', 'Status'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        null,
        episodes.map((e) =>
          h(
            'tr',
            { 'data-episode': e.id, 'data-status': e.status },
            h('th', { scope: 'row' }, e.title || '(no title)', h('br', null), h('code', null, e.id)),
            h('td', null, shownDate(e.publishedAt)),
            h('td', null, h('span', { class: `chip status-${e.status}` }, e.status), e.status === 'failed' && e.error ? h('p', { class: 'error-sentence' }, e.error) : null),
          ),
        ),
      ),
    ),
  );
}

export const episodesSection: ConsoleSection = {
  path: '/console/episodes',
  label: 'Episodes',
  roles: ['admin', 'creator'],
  mount(router, deps, page) {
    router.get(
      '/console/episodes',
      page(async ({ user, render }) => {
        const channels = await deps.queries().channelsOfMember(user.userId);
        if (channels.length === 0) return render('Episodes', h('p', null, `${user.userId} is not a member of any channel yet.`));
        render('Episodes', [
          h('p', null, 'Choose a channel:'),
          h(
            'ul',
            null,
            channels.map((c) => h('li', null, h('a', { href: pagePath(c.slug, 'all') }, c.title), ' ', h('code', null, c.slug))),
          ),
        ]);
      }),
    );

    router.get(
      '/console/episodes/:slug',
      page(async ({ req, user, render }) => {
        const { channel } = await memberChannel(deps, user.userId, String(req.params.slug));
        const viewParam = queryValue(req, 'view') ?? 'all';
        if (!Object.hasOwn(STATUS_VIEWS, viewParam)) throw new ConsolePageError(400, `There is no "${viewParam}" view; the views are ${PAGE_VIEWS.join(', ')}.`);
        const view = viewParam as StatusView;
        const after = queryValue(req, 'after');
        const queries = deps.queries();
        let pageOf: Awaited<ReturnType<typeof episodePageOf>>;
        let counts: StatusCounts;
        try {
          [pageOf, counts] = await Promise.all([
            episodePageOf(queries, channel, { view, cursor: after }),
            statusCounts({ client: deps.client, aliases: deps.aliases, queries }, channel),
          ]);
        } catch (err) {
          if (err instanceof StaleCursorError) throw new ConsolePageError(400, 'This page link belongs to another list; start again from the newest episodes.');
          throw err;
        }
        const moving = counts.pending + counts.processing > 0;
        const here = pagePath(channel.slug, view, after);
        render(`Episodes of ${channel.title}`, [
          h(
            'div',
            { id: 'episodes-live', class: 'live', ...(moving ? { 'data-live': String(REFRESH_SECONDS) } : {}) },
            countsPanel(channel, counts, view),
            moving
              ? h(
                  'p',
                  { role: 'status' },
                  `${episodes(counts.pending + counts.processing)} ${counts.pending + counts.processing === 1 ? 'waits or runs' : 'wait or run'}; this page follows them.`,
                  ' ',
                  h('a', { href: here }, 'Reload'),
                )
              : null,
            counts.failed > 0 && view !== 'failed'
              ? notice('warning', [
                  `${episodes(counts.failed)} failed; ${counts.failed === 1 ? 'it says' : 'each says'} why. `,
                  h('a', { href: pagePath(channel.slug, 'failed') }, 'See them'),
                ])
              : null,
            episodeTable(pageOf.episodes, view),
          ),
          h(
            'nav',
            { class: 'pager', 'aria-label': 'Pages of episodes' },
            after ? h('a', { href: pagePath(channel.slug, view) }, 'Newest') : null,
            after && pageOf.next ? ' · ' : null,
            pageOf.next ? h('a', { href: pagePath(channel.slug, view, pageOf.next), rel: 'next' }, `Older (next ${EPISODES_PER_PAGE})`) : null,
          ),
        ]);
      }),
    );
  },
};
