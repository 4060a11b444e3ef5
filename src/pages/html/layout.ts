// The frame of every channel page: head (title, description, Open Graph, the Markdown twin, JSON-LD), landmarks, search form. Rendered by Preact, which escapes every text and attribute.
import { h, type ComponentChildren } from 'preact';
import { htmlSkeleton } from '../../http/html-document.js';
import { SEARCH_LIMITS } from '../../../core/search/types.js';
import type { PageChannel } from '../load.js';

/** Script and style of the pages, served by the service itself (no inline code: the CSP forbids it). */
export const ASSET_VERSION = '3';

export interface Head {
  title: string;
  description?: string | null | undefined;
  /** Absolute URL of this page (Open Graph, canonical). */
  url: string;
  /** The page's Markdown twin. */
  markdownUrl?: string | undefined;
  ogType?: 'website' | 'video.episode' | 'music.song' | undefined;
  /** schema.org data, already made safe to sit inside a script element (see jsonld.ts). */
  jsonLd?: string | undefined;
}

/** A long text cut for a meta description: whole words, at most `max` characters. */
export function shorten(text: string, max = 200): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max / 2))}…`;
}

function header(channel: PageChannel, query = '') {
  return h(
    'header',
    { class: 'site' },
    h('a', { class: 'brand', href: '/' }, channel.doc.title),
    h(
      'form',
      { role: 'search', action: '/search', method: 'get', class: 'search-form' },
      h('label', { for: 'q' }, 'Search this channel'),
      h('input', { id: 'q', name: 'q', type: 'search', value: query, maxLength: SEARCH_LIMITS.queryChars, autocomplete: 'off' }),
      h('button', { type: 'submit' }, 'Search'),
    ),
  );
}

/** A channel site's HTML document: the shared skeleton with the pages' stylesheet, then `head`, around `body`. */
export function htmlDocument(title: string, head: ComponentChildren, body: ComponentChildren): string {
  return htmlSkeleton(title, [h('link', { rel: 'stylesheet', href: `/assets/page.css?v=${ASSET_VERSION}` }), head], body);
}

/** The whole page of a channel, as a string starting with the doctype. */
export function renderPage(channel: PageChannel, head: Head, main: ComponentChildren, { query = '' }: { query?: string } = {}): string {
  const description = head.description ? shorten(head.description) : undefined;
  return htmlDocument(
    `${shorten(head.title, 120)} · ${shorten(channel.doc.title, 80)}`,
    [
      description ? h('meta', { name: 'description', content: description }) : null,
      h('link', { rel: 'canonical', href: head.url }),
      head.markdownUrl ? h('link', { rel: 'alternate', type: 'text/markdown', href: head.markdownUrl }) : null,
      h('meta', { property: 'og:title', content: shorten(head.title, 200) }),
      description ? h('meta', { property: 'og:description', content: description }) : null,
      h('meta', { property: 'og:type', content: head.ogType ?? 'website' }),
      h('meta', { property: 'og:url', content: head.url }),
      h('meta', { property: 'og:site_name', content: shorten(channel.doc.title, 120) }),
      head.jsonLd ? h('script', { type: 'application/ld+json', dangerouslySetInnerHTML: { __html: head.jsonLd } }) : null,
      h('script', { src: `/assets/page.js?v=${ASSET_VERSION}`, defer: true }),
    ],
    [
      h('a', { class: 'skip', href: '#main' }, 'Skip to content'),
      header(channel, query),
      h('main', { id: 'main', tabIndex: -1 }, main),
      h(
        'footer',
        { class: 'site' },
        head.markdownUrl ? h('a', { href: head.markdownUrl, type: 'text/markdown' }, 'This page in Markdown') : null,
        ' · ',
        h('a', { href: '/llms.txt' }, 'llms.txt'),
      ),
    ],
  );
}
