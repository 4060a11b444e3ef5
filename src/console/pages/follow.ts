// Follow a feed (decision 32): the feed URL and a channel slug → a preview through the safe fetcher → the one-time token
// to put in the feed → "Check and follow" queues the request, which the worker runs with the CLI's followSource once
// the feed carries the token → its state. An operator may approve instead with the `npm run follow` command shown.
import { h, type ComponentChildren } from 'preact';
import type { Request } from 'express';
import { PAID_PLAN } from '../../auth/access.js';
import type { UserDoc } from '../../../core/store/documents.js';
import { FetchError, describeFetchError } from '../../../core/ground/outbound/errors.js';
import { shellWord } from '../../../core/ground/shell-words.js';
import { FOLLOW_ERRORS, FollowError } from '../../../pipeline/follow/errors.js';
import { CLAIM_TTL_SECONDS, claimFeed, openClaim, previewFeed, type FeedPreview, type FollowClaim } from '../../../pipeline/follow/ownership.js';
import { followRequestState, requestFollow, type FollowRequestState } from '../../../pipeline/follow/requests.js';
import { field, notice, postForm } from '../layout.js';
import { ConsolePageError, formValue, type ConsoleDeps, type ConsoleSection } from '../section.js';

/** How long a preview waits for the feed. */
const PREVIEW_TIMEOUT_MS = 10_000;
/** Longest feed URL the form takes. */
export const FEED_URL_CHARS = 2000;
/** How often the progressive script re-reads a waiting or running request's page. */
const REFRESH_SECONDS = 3;

/** Why this user may not follow feeds, or undefined when they may. */
function refusal(userId: string, user: UserDoc | undefined): string | undefined {
  if (!user) return `Following a feed makes a channel owned by a user of the library, and there is no user "${userId}": ask an operator to follow it for you.`;
  if (user.plan !== PAID_PLAN) return `Following a feed needs the ${PAID_PLAN} plan, and ${userId} is on the "${user.plan}" plan. Ask for the ${PAID_PLAN} plan to follow feeds.`;
  return undefined;
}

/** The feed URL as claimed and queued (`new URL` normalised), or undefined when it is not an http(s) URL. */
export function feedUrlOf(text: string): string | undefined {
  if (!text || text.length > FEED_URL_CHARS) return undefined;
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A preview's failure as one sentence for the creator. */
export function previewProblem(err: unknown): string | undefined {
  if (err instanceof FetchError) {
    if (err.code === 'private_address') return 'The feed’s address is a private one (loopback, a local network…), so it is refused.';
    const said = describeFetchError(err, 'the feed');
    return `${said.charAt(0).toUpperCase()}${said.slice(1)}.`;
  }
  if (err instanceof FollowError && err.code === 'bad_source') return 'That address answered, but not with an RSS feed.';
  return undefined;
}

/**
 * A refusal of the worker as the creator reads it: the follow command's sentence, without the detail when it names
 * another owner's channel or user (the catalogue sentence says enough and tells nothing about them).
 */
export function shownReason(reason: string): string {
  for (const code of ['channel_taken', 'owner_mismatch', 'feed_taken'] as const) {
    const message = FOLLOW_ERRORS[code].message;
    if (reason === message || reason.startsWith(`${message}:`)) return `${message}.`;
  }
  return reason.endsWith('.') ? reason : `${reason}.`;
}

/** The command line an operator runs to approve the follow without the token. */
export const operatorCommand = (claim: Pick<FollowClaim, 'feedUrl' | 'slug' | 'userId'>) =>
  `npm run follow -- ${shellWord(claim.feedUrl)} --channel ${shellWord(claim.slug)} --owner ${shellWord(claim.userId)}`;

/** The line the feed must carry, at channel level. */
export const verifyLine = (token: string) => `<podcast:txt purpose="verify">${token}</podcast:txt>`;

const statusPath = (feedUrl: string) => `/console/follow/status?feed=${encodeURIComponent(feedUrl)}`;

function startForm(req: Request, { url = '', slug = '', problem }: { url?: string; slug?: string; problem?: string | undefined } = {}): ComponentChildren {
  return postForm(req, '/console/follow', [
    h('h2', null, 'Follow a feed'),
    problem ? notice('error', h('p', { 'data-problem': '' }, problem)) : null,
    field(
      'feed',
      'Feed URL',
      { type: 'url', required: true, maxLength: FEED_URL_CHARS, value: url, autocomplete: 'off', inputMode: 'url' },
      'The RSS feed of your podcast, as your host gives it.',
    ),
    field(
      'slug',
      'Channel',
      { type: 'text', required: true, maxLength: 63, pattern: '[a-z0-9\\-]{1,63}', value: slug, autocomplete: 'off' },
      'Its short name: lowercase letters, digits and dashes (it becomes the channel’s address).',
    ),
    h('button', { type: 'submit' }, 'Preview'),
  ]);
}

/** How to prove the feed is yours, and the operator's way instead. */
function proofSteps(req: Request, claim: FollowClaim, preview?: FeedPreview): ComponentChildren {
  const carries = preview?.verifyTokens.includes(claim.token) === true;
  return h(
    'section',
    { class: 'proof', 'aria-labelledby': 'proof-title' },
    h('h2', { id: 'proof-title' }, 'Show that the feed is yours'),
    h(
      'p',
      null,
      'Add this line to the feed, inside ',
      h('code', null, '<channel>'),
      ' (not inside an item), then check. Your host may call it a “verification tag” or let you add raw XML.',
    ),
    h(
      'p',
      { class: 'secret' },
      h('code', { id: 'verify-line' }, verifyLine(claim.token)),
      ' ',
      h('button', { type: 'button', class: 'copy', 'data-copy': 'verify-line', hidden: true }, 'Copy'),
    ),
    carries ? notice('info', 'The feed carries this token already.') : null,
    h('p', { class: 'hint' }, `The token is yours for this feed for ${Math.round(CLAIM_TTL_SECONDS / 86_400)} days, and is used once.`),
    postForm(req, '/console/follow/check', [h('input', { type: 'hidden', name: 'feed', value: claim.feedUrl }), h('button', { type: 'submit' }, 'Check and follow')]),
    h(
      'details',
      null,
      h('summary', null, 'Or ask an operator to approve it'),
      h('p', null, 'An operator who knows the feed is yours can follow it for you without the token:'),
      h('pre', null, h('code', { id: 'operator-command' }, operatorCommand(claim))),
    ),
  );
}

/** The request's state, in the region the progressive script refreshes while it waits or runs. */
function stateRegion(req: Request, claim: FollowClaim | undefined, feedUrl: string, state: FollowRequestState): ComponentChildren {
  const moving = state.state === 'waiting' || state.state === 'running';
  const body = (() => {
    switch (state.state) {
      case 'waiting':
        return h('p', null, h('span', { class: 'chip status-pending' }, 'waiting'), ' The request waits for the worker.');
      case 'running':
        return h('p', null, h('span', { class: 'chip status-processing' }, 'running'), ' The worker is reading the feed.');
      case 'done':
        return [
          h(
            'p',
            null,
            h('span', { class: 'chip status-published' }, 'done'),
            ` Followed as ${state.result.slug}: ${state.result.items} items in the feed, ${state.result.added} new, ${state.result.enqueued} queued for processing.`,
          ),
          h('p', null, h('a', { href: `/console/episodes/${encodeURIComponent(state.result.slug)}` }, `See the episodes of ${state.result.slug}`)),
        ];
      case 'refused':
        return [
          h('p', null, h('span', { class: 'chip status-failed' }, 'refused'), ' ', h('span', { 'data-reason': '' }, shownReason(state.reason))),
          claim ? h('p', null, 'Fix what it says and check again, or ask an operator to approve it.') : null,
        ];
      case 'unknown':
        return h('p', null, 'This follow has not been asked for yet.');
    }
  })();
  return h(
    'section',
    { id: 'follow-state', class: 'live', 'aria-labelledby': 'state-title', ...(moving ? { 'data-live': String(REFRESH_SECONDS) } : {}) },
    h('h2', { id: 'state-title' }, 'State'),
    h('div', { role: 'status' }, body),
    moving ? h('p', null, h('a', { href: statusPath(feedUrl) }, 'Reload to see its progress')) : null,
  );
}

async function refusedFor(deps: ConsoleDeps, userId: string): Promise<string | undefined> {
  return refusal(userId, await deps.queries().user(userId));
}

export const followSection: ConsoleSection = {
  path: '/console/follow',
  label: 'Follow a feed',
  roles: ['admin', 'creator'],
  mount(router, deps, page) {
    router.get(
      '/console/follow',
      page(async ({ req, user, render }) => {
        const refused = await refusedFor(deps, user.userId);
        if (refused) return render('Follow a feed', notice('warning', h('p', { 'data-refusal': '' }, refused)));
        render('Follow a feed', startForm(req));
      }),
    );

    // The preview, and the claim with its token.
    router.post(
      '/console/follow',
      page(async ({ req, user, render }) => {
        const refused = await refusedFor(deps, user.userId);
        if (refused) throw new ConsolePageError(403, refused);
        const given = formValue(req, 'feed');
        const slug = formValue(req, 'slug');
        const feedUrl = feedUrlOf(given);
        const again = (problem: string) => render('Follow a feed', startForm(req, { url: given, slug, problem }), 400);
        if (!feedUrl) return again('Give the feed’s address, starting with https://.');
        if (!/^[a-z0-9-]{1,63}$/.test(slug)) return again('The channel’s short name is lowercase letters, digits and dashes, at most 63 characters.');
        let preview: FeedPreview;
        try {
          preview = await previewFeed(feedUrl, { ...deps.outbound, timeoutMs: PREVIEW_TIMEOUT_MS });
        } catch (err) {
          const problem = previewProblem(err);
          if (problem === undefined) throw err;
          req.log.info({ userId: user.userId, code: (err as { code?: string }).code }, 'feed preview refused');
          return again(problem);
        }
        const claim = await claimFeed(deps.redis, deps.indexPrefix, { userId: user.userId, feedUrl, slug });
        render('Follow a feed', [
          h(
            'section',
            { class: 'preview', 'aria-labelledby': 'preview-title' },
            h('h2', { id: 'preview-title' }, 'The feed'),
            h(
              'dl',
              null,
              h('dt', null, 'Title'),
              h('dd', { 'data-preview-title': '' }, preview.title),
              h('dt', null, 'Items'),
              h('dd', { 'data-preview-items': '' }, String(preview.itemCount)),
              h('dt', null, 'Channel'),
              h('dd', null, h('code', null, slug)),
            ),
          ),
          proofSteps(req, claim, preview),
        ]);
      }),
    );

    // "Check and follow": the worker fetches the feed again and decides.
    router.post(
      '/console/follow/check',
      page(async ({ req, res, user }) => {
        const refused = await refusedFor(deps, user.userId);
        if (refused) throw new ConsolePageError(403, refused);
        const feedUrl = feedUrlOf(formValue(req, 'feed'));
        const claim = feedUrl ? await openClaim(deps.redis, deps.indexPrefix, user.userId, feedUrl) : undefined;
        if (!feedUrl || !claim) throw new ConsolePageError(400, 'There is no open request to follow that feed (a token lasts a week): preview the feed again.');
        await requestFollow(deps.followRequests(), { userId: user.userId, feedUrl });
        req.log.info({ userId: user.userId, slug: claim.slug }, 'follow requested in the console');
        res.redirect(303, statusPath(feedUrl));
      }),
    );

    router.get(
      '/console/follow/status',
      page(async ({ req, user, render }) => {
        const feedUrl = typeof req.query.feed === 'string' ? feedUrlOf(req.query.feed) : undefined;
        if (!feedUrl) throw new ConsolePageError(404, 'No follow of that feed was asked for.');
        const request = { userId: user.userId, feedUrl };
        const [claim, state] = await Promise.all([openClaim(deps.redis, deps.indexPrefix, user.userId, feedUrl), followRequestState(deps.followRequests(), request)]);
        if (!claim && state.state === 'unknown') throw new ConsolePageError(404, 'No follow of that feed was asked for.');
        render('Follow a feed', [
          h('p', null, 'Feed: ', h('code', null, feedUrl), claim ? [' as ', h('code', null, claim.slug)] : null),
          stateRegion(req, claim, feedUrl, state),
          claim && state.state !== 'waiting' && state.state !== 'running' ? proofSteps(req, claim) : null,
          h('p', null, h('a', { href: '/console/follow' }, 'Follow another feed')),
        ]);
      }),
    );
  },
};
