// API keys: create (a required name, a lifetime; the key shown once), list (prefix and last four, created, last used,
// expiry) and revoke with a confirmation. The same functions `npm run keys` calls (src/auth/key-store.ts).
import { h, type ComponentChildren } from 'preact';
import type { Request } from 'express';
import { PAID_PLAN } from '../../auth/access.js';
import { API_KEY_PREFIX, isKeyUsable } from '../../auth/api-keys.js';
import { DEFAULT_KEY_EXPIRY_DAYS, KEY_EXPIRY_DAYS, apiKeyOfUser, createApiKey, listApiKeys, parseKeyExpiry, revokeApiKey } from '../../auth/key-store.js';
import type { ApiKeyDoc, UserDoc } from '../../../core/store/documents.js';
import { field, notice, postForm, shownDate } from '../layout.js';
import { ConsolePageError, formValue, type ConsoleDeps, type ConsoleSection, type SectionRequest } from '../section.js';

/** Longest key name. */
export const KEY_NAME_CHARS = 100;

/** How a key is shown once made: the prefix and its last four characters, never more. */
export const maskedKey = (record: Pick<ApiKeyDoc, 'last4'>) => `${API_KEY_PREFIX}…${record.last4}`;

function state(record: ApiKeyDoc): 'active' | 'expired' | 'revoked' {
  if (record.revokedAt) return 'revoked';
  return isKeyUsable(record) ? 'active' : 'expired';
}

/** Why this user may not have keys, or undefined when they may. */
function refusal(userId: string, user: UserDoc | undefined): string | undefined {
  if (!user) return `API keys belong to users of the library, and there is no user "${userId}": this account can sign in, but holds no keys.`;
  if (user.plan !== PAID_PLAN)
    return `API keys need the ${PAID_PLAN} plan, and ${userId} is on the "${user.plan}" plan: the data endpoints answer 403 plan_required without it, so a key would open nothing. Ask for the ${PAID_PLAN} plan to create keys.`;
  return undefined;
}

function createForm(req: Request, problem?: string): ComponentChildren {
  return postForm(req, '/console/keys', [
    h('h2', null, 'Create a key'),
    problem ? notice('error', problem) : null,
    field('name', 'Name', { type: 'text', required: true, maxLength: KEY_NAME_CHARS, autocomplete: 'off' }, 'What the key is for, to recognise it later (e.g. "newsletter site").'),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'expires' }, 'Expires after'),
      h(
        'select',
        { id: 'expires', name: 'expires' },
        KEY_EXPIRY_DAYS.map((d) => h('option', { value: d === null ? 'never' : String(d), selected: d === DEFAULT_KEY_EXPIRY_DAYS }, d === null ? 'never' : `${d} days`)),
      ),
    ),
    h('button', { type: 'submit' }, 'Create key'),
  ]);
}

function keyTable(req: Request, records: ApiKeyDoc[]): ComponentChildren {
  if (records.length === 0) return h('p', null, 'No keys yet.');
  return h(
    'div',
    { class: 'table', tabIndex: 0, role: 'region', 'aria-label': 'API keys' },
    h(
      'table',
      null,
      h('caption', null, 'Your API keys'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Name', 'Key', 'Created', 'Last used', 'Expires', 'State', ''].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        null,
        records.map((r) =>
          h(
            'tr',
            { 'data-key-id': r.keyId, class: state(r) },
            h('th', { scope: 'row' }, r.name ?? '(no name)'),
            h('td', null, h('code', null, maskedKey(r))),
            h('td', null, shownDate(r.createdAt)),
            h('td', null, r.lastUsedAt ? shownDate(r.lastUsedAt) : 'never'),
            h('td', null, r.expiresAt ? shownDate(r.expiresAt) : 'never'),
            h('td', null, state(r)),
            h(
              'td',
              null,
              state(r) === 'active'
                ? postForm(req, `/console/keys/${encodeURIComponent(r.keyId)}/revoke`, h('button', { type: 'submit', class: 'danger' }, 'Revoke…'), {
                    'data-confirm': `Revoke the key "${r.name ?? r.keyId}"? Anything using it is refused from its next request.`,
                  })
                : null,
            ),
          ),
        ),
      ),
    ),
  );
}

/** The page: the key just made (once), notices, the form and the list. */
async function keysPage(
  deps: ConsoleDeps,
  { req, user, render }: SectionRequest,
  { created, problem, status = 200 }: { created?: { key: string; record: ApiKeyDoc }; problem?: string; status?: number } = {},
) {
  const owner = await deps.queries().user(user.userId);
  const refused = refusal(user.userId, owner);
  if (refused) return render('API keys', notice('warning', h('p', { 'data-refusal': '' }, refused)), status);
  const records = await listApiKeys(deps.keys, user.userId);
  const revoked = typeof req.query.revoked === 'string' ? records.find((r) => r.keyId === req.query.revoked && r.revokedAt) : undefined;
  render(
    'API keys',
    [
      created
        ? h(
            'section',
            { class: 'new-key', 'aria-labelledby': 'new-key-title' },
            h('h2', { id: 'new-key-title' }, `Your new key "${created.record.name}"`),
            notice('warning', 'Copy it now and keep it somewhere safe: it is shown once, and only its hash is stored.'),
            h(
              'p',
              { class: 'secret' },
              h('code', { id: 'new-key', 'data-secret': '' }, created.key),
              ' ',
              h('button', { type: 'button', class: 'copy', 'data-copy': 'new-key', hidden: true }, 'Copy'),
            ),
            h('p', null, 'Send it as ', h('code', null, 'x-api-key: <key>'), ' or ', h('code', null, 'Authorization: Bearer <key>'), '.'),
          )
        : null,
      revoked ? notice('info', `The key "${revoked.name ?? revoked.keyId}" is revoked: the API refuses it from the next request.`) : null,
      keyTable(req, records),
      createForm(req, problem),
    ],
    status,
  );
}

export const keysSection: ConsoleSection = {
  path: '/console/keys',
  label: 'API keys',
  roles: ['admin', 'creator'],
  mount(router, deps, page) {
    router.get(
      '/console/keys',
      page((ctx) => keysPage(deps, ctx)),
    );

    router.post(
      '/console/keys',
      page(async (ctx) => {
        const { req, user } = ctx;
        const refused = refusal(user.userId, await deps.queries().user(user.userId));
        if (refused) throw new ConsolePageError(403, refused);
        const name = formValue(req, 'name');
        const expiresInDays = parseKeyExpiry(formValue(req, 'expires'));
        const problem = !name
          ? 'Give the key a name.'
          : [...name].length > KEY_NAME_CHARS
            ? `Names have at most ${KEY_NAME_CHARS} characters.`
            : expiresInDays === undefined
              ? 'Choose when the key expires.'
              : undefined;
        if (problem) return keysPage(deps, ctx, { problem, status: 400 });
        const created = await createApiKey(deps.keys, { userId: user.userId, name, expiresInDays: expiresInDays! });
        req.log.info({ keyId: created.record.keyId, userId: user.userId }, 'key created in the console');
        await keysPage(deps, ctx, { created, status: 201 });
      }),
    );

    // Without `confirm=yes` (no script to ask), the confirmation page; with it, the revocation.
    router.post(
      '/console/keys/:keyId/revoke',
      page(async ({ req, res, user, render }) => {
        const keyId = String(req.params.keyId);
        const record = await apiKeyOfUser(deps.keys, user.userId, keyId);
        if (!record) throw new ConsolePageError(404, 'You have no such key.');
        if (formValue(req, 'confirm') !== 'yes') {
          return render('Revoke a key', [
            h(
              'p',
              null,
              `Revoke the key "${record.name ?? record.keyId}" (`,
              h('code', null, maskedKey(record)),
              ')? Anything using it is refused from its next request. This cannot be undone.',
            ),
            postForm(req, `/console/keys/${encodeURIComponent(keyId)}/revoke`, [
              h('input', { type: 'hidden', name: 'confirm', value: 'yes' }),
              h('button', { type: 'submit', class: 'danger' }, 'Revoke the key'),
              ' ',
              h('a', { href: '/console/keys' }, 'Keep it'),
            ]),
          ]);
        }
        await revokeApiKey(deps.keys, record.keyId);
        req.log.info({ keyId, userId: user.userId }, 'key revoked in the console');
        res.redirect(303, `/console/keys?revoked=${encodeURIComponent(keyId)}`);
      }),
    );
  },
};
