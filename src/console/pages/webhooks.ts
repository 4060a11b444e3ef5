// Webhooks of a channel, for its owner: add an endpoint (its secret shown once), list them (last delivery, failures,
// failing since), send a signed test event and see its answer, read the recent deliveries, remove one after a
// confirmation. The same functions `npm run webhooks` calls (pipeline/webhooks/).
import { h, type ComponentChildren } from 'preact';
import type { Request } from 'express';
import type { ChannelDoc } from '../../../core/store/documents.js';
import { WebhookError } from '../../../pipeline/webhooks/errors.js';
import { deliveryJournal, type JournalEntry } from '../../../pipeline/webhooks/journal.js';
import { refuseUnknownKeys } from '../../../pipeline/webhooks/reseal.js';
import { getEndpoint, listEndpoints, newEndpoint, removeEndpoint, storeEndpoint, type EndpointDoc, type WebhookStoreDeps } from '../../../pipeline/webhooks/store.js';
import { sendTestEvent } from '../../../pipeline/webhooks/test-event.js';
import { ownedChannel } from '../channel-access.js';
import { field, notice, postForm, shownDate } from '../layout.js';
import { ConsolePageError, formValue, type ConsoleDeps, type ConsoleSection, type SectionRequest } from '../section.js';

/** Endpoints one channel may have (each delivery goes to each of them). */
export const ENDPOINTS_PER_CHANNEL = 20;
/** Deliveries shown per endpoint. */
const DELIVERIES_SHOWN = 10;
/** How long a test event waits for the receiver. */
const TEST_TIMEOUT_MS = 10_000;
const URL_CHARS = 2000;

const OWNER_ONLY = 'manages its webhooks';

const channelPath = (slug: string) => `/console/webhooks/${encodeURIComponent(slug)}`;
const endpointPath = (slug: string, id: string, action: string) => `${channelPath(slug)}/${encodeURIComponent(id)}/${action}`;

/** Said instead of the forms when the API process holds no SECRETS_KEY. */
const NO_KEY =
  'Webhooks need SECRETS_KEY in the API process: a signing secret is sealed with it before it is stored, and opened with it to sign a test event. Until the operator sets it (the same key the worker has), endpoints can be listed and removed here, not added or tested.';

const storeOf = (deps: ConsoleDeps): WebhookStoreDeps => ({ client: deps.client, aliases: deps.aliases });

/** The endpoint `id` of `channel`; a 404 page for one of another channel, as for one that does not exist. */
async function endpointOf(deps: ConsoleDeps, channel: ChannelDoc, id: string): Promise<EndpointDoc> {
  const endpoint = /^wh_[0-9a-f]{16}$/.test(id) ? await getEndpoint(storeOf(deps), id) : undefined;
  if (!endpoint || endpoint.channelId !== channel.id) throw new ConsolePageError(404, 'This channel has no such webhook.');
  return endpoint;
}

function entryLine(e: JournalEntry): ComponentChildren {
  return h(
    'tr',
    { 'data-delivery': e.eventId },
    h('td', null, shownDate(e.at)),
    h('td', null, e.kind === 'test' ? 'test event' : 'change'),
    h('td', null, h('span', { class: `chip ${e.ok ? 'status-published' : 'status-failed'}` }, e.status)),
    h('td', null, `${e.latencyMs} ms`),
    h('td', null, e.answer ? h('code', { class: 'answer' }, e.answer) : '—'),
  );
}

function deliveriesTable(id: string, entries: JournalEntry[]): ComponentChildren {
  if (entries.length === 0) return h('p', null, 'No deliveries yet.');
  return h(
    'div',
    { class: 'table', tabIndex: 0, role: 'region', 'aria-label': `Recent deliveries to ${id}` },
    h(
      'table',
      null,
      h('caption', null, 'Recent deliveries, newest first'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['When', 'What', 'Status', 'Took', 'Answer (first characters)'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h('tbody', null, entries.map(entryLine)),
    ),
  );
}

function endpointSection(req: Request, channel: ChannelDoc, e: EndpointDoc, entries: JournalEntry[], canSign: boolean): ComponentChildren {
  const last = e.lastDeliveryAt ? `${shownDate(e.lastDeliveryAt)}, ${e.lastDeliveryStatus ?? '?'}` : 'never';
  return h(
    'section',
    { class: 'endpoint', 'data-endpoint': e.id, 'aria-labelledby': `${e.id}-title` },
    h('h3', { id: `${e.id}-title` }, h('code', null, e.url)),
    h(
      'dl',
      null,
      h('dt', null, 'Id'),
      h('dd', null, h('code', null, e.id)),
      h('dt', null, 'Added'),
      h('dd', null, shownDate(e.createdAt)),
      h('dt', null, 'Last delivery'),
      h('dd', null, last),
      h('dt', null, 'Failures in a row'),
      h('dd', null, String(e.consecutiveFailures)),
      h('dt', null, 'Failing since'),
      h('dd', null, e.failingSince ? shownDate(e.failingSince) : '—'),
    ),
    h(
      'div',
      { class: 'actions' },
      canSign ? postForm(req, endpointPath(channel.slug, e.id, 'test'), h('button', { type: 'submit' }, 'Send a test event')) : null,
      postForm(req, endpointPath(channel.slug, e.id, 'remove'), h('button', { type: 'submit', class: 'danger' }, 'Remove…'), {
        'data-confirm': `Remove the webhook to ${e.url}? It receives nothing more, and its pending deliveries are dropped.`,
      }),
    ),
    deliveriesTable(e.id, entries),
  );
}

function addForm(req: Request, channel: ChannelDoc, problem?: string): ComponentChildren {
  return postForm(req, channelPath(channel.slug), [
    h('h2', null, 'Add a webhook'),
    problem ? notice('error', h('p', { 'data-problem': '' }, problem)) : null,
    field(
      'url',
      'Endpoint URL',
      { type: 'url', required: true, maxLength: URL_CHARS, autocomplete: 'off', inputMode: 'url' },
      `An https URL that receives a signed POST (Standard Webhooks) for each change of ${channel.slug}.`,
    ),
    h('button', { type: 'submit' }, 'Add webhook'),
  ]);
}

interface PageNews {
  created?: { url: string; secret: string; id: string };
  tested?: { endpoint: EndpointDoc; entry: JournalEntry };
  problem?: string;
  status?: number;
}

async function channelPage(deps: ConsoleDeps, { req, render }: SectionRequest, channel: ChannelDoc, news: PageNews = {}) {
  const journal = deliveryJournal(deps.redis, deps.indexPrefix);
  const endpoints = await listEndpoints(storeOf(deps), { channelId: channel.id, size: ENDPOINTS_PER_CHANNEL });
  const journals = await Promise.all(endpoints.map((e) => journal.recent(e.id, DELIVERIES_SHOWN)));
  const canSign = deps.keyring !== undefined;
  const removed = typeof req.query.removed === 'string' && /^wh_[0-9a-f]{16}$/.test(req.query.removed) ? req.query.removed : undefined;
  const { created, tested } = news;
  render(
    `Webhooks of ${channel.title}`,
    [
      canSign ? null : notice('warning', h('p', { 'data-refusal': '' }, NO_KEY)),
      created
        ? h(
            'section',
            { class: 'new-key', 'aria-labelledby': 'new-secret-title' },
            h('h2', { id: 'new-secret-title' }, `Webhook ${created.id} added`),
            notice('warning', 'Copy its signing secret now and give it to your receiver: it is shown once, and stored only sealed.'),
            h(
              'p',
              { class: 'secret' },
              h('code', { id: 'new-secret', 'data-secret': '' }, created.secret),
              ' ',
              h('button', { type: 'button', class: 'copy', 'data-copy': 'new-secret', hidden: true }, 'Copy'),
            ),
            h('p', null, 'Receivers verify each POST with it (the webhook-id, webhook-timestamp and webhook-signature headers, as the Standard Webhooks libraries do).'),
          )
        : null,
      tested
        ? notice(
            tested.entry.ok ? 'info' : 'error',
            h(
              'p',
              { 'data-test-result': tested.entry.ok ? 'ok' : 'failed' },
              `Test event to ${tested.endpoint.url}: ${tested.entry.ok ? 'answered' : 'failed with'} ${tested.entry.status} in ${tested.entry.latencyMs} ms.`,
              tested.entry.answer ? [' It answered: ', h('code', { class: 'answer' }, tested.entry.answer)] : null,
            ),
          )
        : null,
      removed ? notice('info', `The webhook ${removed} is removed: it receives nothing more.`) : null,
      endpoints.length === 0 ? h('p', null, 'No webhooks yet.') : h('h2', null, 'Webhooks'),
      endpoints.map((e, i) => endpointSection(req, channel, e, journals[i]!, canSign)),
      canSign ? (endpoints.length < ENDPOINTS_PER_CHANNEL ? addForm(req, channel, news.problem) : h('p', null, `A channel has at most ${ENDPOINTS_PER_CHANNEL} webhooks.`)) : null,
    ],
    news.status ?? 200,
  );
}

/** A refusal of an endpoint URL, as the creator reads it. */
function urlProblem(err: WebhookError): string {
  return `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`;
}

export const webhooksSection: ConsoleSection = {
  path: '/console/webhooks',
  label: 'Webhooks',
  roles: ['admin', 'creator'],
  mount(router, deps, page) {
    router.get(
      '/console/webhooks',
      page(async ({ user, render }) => {
        const channels = await deps.queries().channelsOfMember(user.userId);
        const owned = channels.filter((c) => c.ownerId === user.userId);
        if (owned.length === 0) return render('Webhooks', h('p', null, 'Webhooks are managed by a channel’s owner, and you own no channel.'));
        render('Webhooks', [
          h('p', null, 'Choose a channel you own:'),
          h(
            'ul',
            null,
            owned.map((c) => h('li', null, h('a', { href: channelPath(c.slug) }, c.title), ' ', h('code', null, c.slug))),
          ),
        ]);
      }),
    );

    router.get(
      '/console/webhooks/:slug',
      page(async (ctx) => channelPage(deps, ctx, await ownedChannel(deps, ctx.user.userId, String(ctx.req.params.slug), OWNER_ONLY))),
    );

    router.post(
      '/console/webhooks/:slug',
      page(async (ctx) => {
        const { req, user } = ctx;
        const channel = await ownedChannel(deps, user.userId, String(req.params.slug), OWNER_ONLY);
        const keyring = deps.keyring;
        if (!keyring) throw new ConsolePageError(503, NO_KEY);
        const url = formValue(req, 'url');
        if (!url || url.length > URL_CHARS) return channelPage(deps, ctx, channel, { problem: 'Give the endpoint’s https URL.', status: 400 });
        const store = storeOf(deps);
        if ((await listEndpoints(store, { channelId: channel.id, size: ENDPOINTS_PER_CHANNEL })).length >= ENDPOINTS_PER_CHANNEL) {
          throw new ConsolePageError(409, `A channel has at most ${ENDPOINTS_PER_CHANNEL} webhooks; remove one first.`);
        }
        let created: ReturnType<typeof newEndpoint>;
        try {
          created = newEndpoint({ url, keyring, allowPrivate: deps.outbound.allowPrivate });
        } catch (err) {
          if (err instanceof WebhookError) return channelPage(deps, ctx, channel, { problem: urlProblem(err), status: 400 });
          throw err;
        }
        try {
          // As the CLI: a key other than the worker's would seal a secret the worker cannot open.
          refuseUnknownKeys(await listEndpoints(store, { size: 10_000 }), keyring);
        } catch (err) {
          if (!(err instanceof WebhookError)) throw err;
          req.log.error({ err }, 'webhook not added: SECRETS_KEY differs from the one stored secrets are sealed under');
          throw new ConsolePageError(503, 'Webhooks cannot be added right now: the service’s secrets key is being changed. Try again later, or tell the operator.');
        }
        const endpoint = await storeEndpoint(store, channel.slug, created);
        req.log.info({ endpointId: endpoint.id, channel: channel.slug, userId: user.userId }, 'webhook endpoint added in the console');
        await channelPage(deps, ctx, channel, { created: { id: endpoint.id, url: endpoint.url, secret: created.secret }, status: 201 });
      }),
    );

    router.post(
      '/console/webhooks/:slug/:id/test',
      page(async (ctx) => {
        const { req, user } = ctx;
        const channel = await ownedChannel(deps, user.userId, String(req.params.slug), OWNER_ONLY);
        const endpoint = await endpointOf(deps, channel, String(req.params.id));
        if (!deps.keyring) throw new ConsolePageError(503, NO_KEY);
        const journal = deliveryJournal(deps.redis, deps.indexPrefix);
        let entry: JournalEntry;
        try {
          entry = await sendTestEvent({ store: storeOf(deps), keyring: deps.keyring, journal, outbound: { ...deps.outbound, timeoutMs: TEST_TIMEOUT_MS } }, endpoint.id);
        } catch (err) {
          if (!(err instanceof WebhookError)) throw err;
          if (err.code === 'unknown_endpoint') throw new ConsolePageError(404, 'This channel has no such webhook.');
          req.log.error({ err, endpointId: endpoint.id }, 'test event not sent: its secret does not open');
          throw new ConsolePageError(503, 'The test event could not be signed: this webhook’s secret does not open with the service’s key. Tell the operator.');
        }
        req.log.info({ endpointId: endpoint.id, status: entry.status, ok: entry.ok }, 'webhook test event sent from the console');
        await channelPage(deps, ctx, channel, { tested: { endpoint, entry } });
      }),
    );

    // Without `confirm=yes` (no script to ask), the confirmation page; with it, the removal.
    router.post(
      '/console/webhooks/:slug/:id/remove',
      page(async ({ req, res, user, render }) => {
        const channel = await ownedChannel(deps, user.userId, String(req.params.slug), OWNER_ONLY);
        const endpoint = await endpointOf(deps, channel, String(req.params.id));
        if (formValue(req, 'confirm') !== 'yes') {
          return render('Remove a webhook', [
            h('p', null, 'Remove the webhook to ', h('code', null, endpoint.url), '? It receives nothing more, and its pending deliveries are dropped. This cannot be undone.'),
            postForm(req, endpointPath(channel.slug, endpoint.id, 'remove'), [
              h('input', { type: 'hidden', name: 'confirm', value: 'yes' }),
              h('button', { type: 'submit', class: 'danger' }, 'Remove the webhook'),
              ' ',
              h('a', { href: channelPath(channel.slug) }, 'Keep it'),
            ]),
          ]);
        }
        await removeEndpoint(storeOf(deps), endpoint.id);
        await deliveryJournal(deps.redis, deps.indexPrefix).drop(endpoint.id);
        req.log.info({ endpointId: endpoint.id, channel: channel.slug, userId: user.userId }, 'webhook endpoint removed in the console');
        res.redirect(303, `${channelPath(channel.slug)}?removed=${encodeURIComponent(endpoint.id)}`);
      }),
    );
  },
};
