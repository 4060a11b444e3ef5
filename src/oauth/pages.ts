// The authorization server's pages: consent and errors. Rendered by Preact (every text and attribute escaped), no script, one hashed style.
import { createHash } from 'node:crypto';
import { h, type ComponentChildren } from 'preact';
import { htmlSkeleton } from '../http/html-document.js';

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:1.5rem;color:#1a1a1a;background:#f6f6f4}main{max-width:32rem;margin:0 auto;background:#fff;padding:1.5rem;border-radius:8px;border:1px solid #ddd}' +
  'h1{font-size:1.35rem;margin-top:0}.badge{display:inline-block;font-size:.8rem;padding:0 .4rem;border-radius:4px;background:#fde7b0;color:#5a3d00;margin-left:.4rem}' +
  '.warning{background:#fff4d6;border-left:4px solid #c98a00;padding:.5rem .75rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}' +
  '.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.25rem}button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #555;background:#fff;cursor:pointer}button.allow{background:#1d5fd1;border-color:#1d5fd1;color:#fff}';

/**
 * The pages' Content-Security-Policy: nothing loads but the one style (by hash). There is no `form-action`: Chromium
 * applies it to the redirects after a form's POST, and the consent answer's redirect goes to the client's own
 * callback (another origin, often a loopback port), which `form-action 'self'` would block.
 */
export const PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; frame-ancestors 'none'; base-uri 'none'`;

function page(title: string, body: ComponentChildren): string {
  return htmlSkeleton(title, h('style', null, STYLE), h('main', null, body));
}

/** What the consent page shows: who asks, where the answer goes, what for, and the form's token. */
export interface ConsentView {
  clientName: string;
  /** `dynamic`: registered by itself, its name unverified; `metadata-document`: named by a document on `clientHost`; `static`: configured. */
  clientKind: 'dynamic' | 'metadata-document' | 'static';
  /** The host of a client ID metadata document. */
  clientHost?: string | undefined;
  /** Where the browser goes after the answer. */
  redirectHost: string;
  /** The redirect goes to this machine (loopback): an app running here, or anything that listens on that port. */
  redirectIsLocal: boolean;
  scopes: string[];
  /** The resources the token is for (the REST API, the creator tool server). */
  resources: string[];
  /** The signed-in user the grant is for. */
  userId: string;
  action: string;
  csrfToken: string;
}

const SCOPE_SENTENCES: Record<string, string> = {
  'creator:read': 'read your channels, including drafts and episodes not yet published',
  openid: 'know your user id',
  offline_access: 'stay connected while you are away',
};

/** The consent page: Allow and Deny, each a form with the interaction's own CSRF token. */
export function consentPage(view: ConsentView): string {
  const hidden = h('input', { type: 'hidden', name: 'csrf', value: view.csrfToken });
  return page(
    `Allow ${view.clientName}?`,
    h(
      'div',
      null,
      h('h1', null, 'Allow ', h('strong', null, view.clientName), view.clientKind === 'dynamic' ? h('span', { class: 'badge' }, 'unverified') : null, ' to access your account?'),
      view.clientKind === 'dynamic' ? h('p', null, 'This app registered itself: its name is what it says it is, nobody checked it.') : null,
      view.clientKind === 'metadata-document' ? h('p', null, 'This app is described by a document on ', h('strong', null, view.clientHost), '.') : null,
      h(
        'dl',
        null,
        h('dt', null, 'Signed in as'),
        h('dd', null, view.userId),
        h('dt', null, 'It may'),
        h(
          'dd',
          null,
          h(
            'ul',
            null,
            view.scopes.map((scope) => h('li', null, SCOPE_SENTENCES[scope] ?? scope, ' (', h('code', null, scope), ')')),
          ),
        ),
        h('dt', null, 'Through'),
        h('dd', null, view.resources.join(', ')),
        h('dt', null, 'Answer goes to'),
        h('dd', null, view.redirectHost),
      ),
      view.redirectIsLocal
        ? h(
            'p',
            { class: 'warning', role: 'note' },
            'The answer goes to a program on this computer (',
            view.redirectHost,
            '). Allow only if you just started this sign-in from an app here.',
          )
        : null,
      h(
        'div',
        { class: 'actions' },
        h(
          'form',
          { method: 'post', action: view.action },
          hidden,
          h('input', { type: 'hidden', name: 'decision', value: 'allow' }),
          h('button', { type: 'submit', class: 'allow' }, 'Allow'),
        ),
        h('form', { method: 'post', action: view.action }, hidden, h('input', { type: 'hidden', name: 'decision', value: 'deny' }), h('button', { type: 'submit' }, 'Deny')),
      ),
    ),
  );
}

/** A page for a request that cannot go on (no client to send the error back to). */
export function errorPage({ error, description }: { error: string; description?: string | undefined }): string {
  return page('Sign-in error', [
    h('h1', null, 'This sign-in request cannot go on'),
    h('p', null, h('code', null, error)),
    description ? h('p', null, description) : null,
    h('p', null, 'Go back to the app and start again.'),
  ]);
}
