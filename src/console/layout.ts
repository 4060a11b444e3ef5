// The frame of every console page: head, a skip link, the navigation of the sections the account may see, sign-out,
// and the page's own content. Rendered by Preact, which escapes every text and attribute; no inline script or style.
import { h, type ComponentChildren } from 'preact';
import { htmlSkeleton } from '../http/html-document.js';
import type { Request } from 'express';
import { CSRF_FIELD, csrfToken } from './csrf.js';
import type { SignedInUser } from './session.js';

/** The console's script and style, served by the console itself (the CSP forbids inline code). */
export const CONSOLE_ASSET_VERSION = '3';

/** A navigation entry: a section of the console. */
export interface NavEntry {
  href: string;
  label: string;
}

export interface ConsolePage {
  title: string;
  /** The signed-in account; undefined on the sign-in and one-time link pages. */
  user?: SignedInUser | undefined;
  /** Sections the account may open, in order. */
  nav?: readonly NavEntry[];
  /** The `href` of the section this page belongs to (marked `aria-current`). */
  current?: string | undefined;
}

/** A form posting to `action` with the session's CSRF token as a hidden field. */
export function postForm(req: Request, action: string, children: ComponentChildren, attrs: Record<string, unknown> = {}): ComponentChildren {
  return h('form', { method: 'post', action, ...attrs }, h('input', { type: 'hidden', name: CSRF_FIELD, value: csrfToken(req) }), children);
}

/** A labelled input (label before it, an optional hint tied to it by `aria-describedby`). */
export function field(id: string, label: string, input: Record<string, unknown>, hint?: string): ComponentChildren {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null,
    h('input', { id, name: id, ...(hint ? { 'aria-describedby': `${id}-hint` } : {}), ...input }),
  );
}

/** A notice at the top of a page: `role="status"` for news, `role="alert"` for a refusal. */
export function notice(kind: 'info' | 'error' | 'warning', children: ComponentChildren): ComponentChildren {
  return h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, children);
}

/** A date as people read it, in UTC (the server does not know the reader's zone), or a dash. */
export function shownDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** The whole page, as a string starting with the doctype. */
export function renderConsolePage(req: Request, page: ConsolePage, main: ComponentChildren): string {
  const nav = page.user
    ? h(
        'nav',
        { 'aria-label': 'Console' },
        h(
          'ul',
          null,
          (page.nav ?? []).map((entry) => h('li', null, h('a', { href: entry.href, ...(entry.href === page.current ? { 'aria-current': 'page' } : {}) }, entry.label))),
        ),
        postForm(req, '/console/sign-out', h('button', { type: 'submit', class: 'link' }, `Sign out ${page.user.userId}`), { class: 'sign-out' }),
      )
    : null;
  return htmlSkeleton(
    `${page.title} · Console`,
    [
      h('meta', { name: 'robots', content: 'noindex' }),
      h('link', { rel: 'stylesheet', href: `/console/assets/console.css?v=${CONSOLE_ASSET_VERSION}` }),
      h('script', { src: `/console/assets/console.js?v=${CONSOLE_ASSET_VERSION}`, defer: true }),
    ],
    [
      h('a', { class: 'skip', href: '#main' }, 'Skip to content'),
      h('header', { class: 'console' }, h('a', { class: 'brand', href: '/console' }, 'Creator console'), nav),
      h('main', { id: 'main' }, h('h1', null, page.title), main),
    ],
  );
}
