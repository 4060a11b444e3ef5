// The library root (published episodes, newest first, keyset-paged), the search page (hits with their cited moments, the query's words marked) and the error pages.
import { h, type VNode } from 'preact';
import type { SearchAnswer } from '../../../core/search/search.js';
import type { LibraryPage, PageChannel } from '../load.js';
import { clock } from '../../../core/ground/clock.js';
import { htmlDocument, renderPage } from './layout.js';

/** The path of an episode page on its channel host (links stay on the host the reader is on). */
export const episodePath = (id: string) => `/episodes/${encodeURIComponent(id)}`;

/** `text` with the given ranges wrapped in `<mark>`; ranges out of bounds or overlapping are skipped. */
export function highlighted(text: string, ranges: readonly { start: number; end: number }[] | undefined): (string | VNode)[] {
  const out: (string | VNode)[] = [];
  let at = 0;
  for (const r of [...(ranges ?? [])].sort((a, b) => a.start - b.start)) {
    if (r.start < at || r.end > text.length || r.end <= r.start) continue;
    if (r.start > at) out.push(text.slice(at, r.start));
    out.push(h('mark', null, text.slice(r.start, r.end)));
    at = r.end;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

export function renderLibraryPage(page: LibraryPage, cursor: string | undefined): string {
  const { channel } = page;
  const main = h(
    'section',
    { 'aria-labelledby': 'library-h' },
    h('h1', { id: 'library-h' }, channel.doc.title),
    page.episodes.length === 0
      ? h('p', null, 'No published episodes yet.')
      : h(
          'ol',
          { class: 'library' },
          page.episodes.map(({ episode }) =>
            h(
              'li',
              { key: episode.id },
              h('h2', null, h('a', { href: episodePath(episode.id) }, episode.title)),
              h('p', { class: 'meta' }, [episode.publishedAt.slice(0, 10), episode.durationMs ? clock(episode.durationMs) : undefined].filter(Boolean).join(' · ')),
              episode.summary ? h('p', { class: 'summary' }, episode.summary) : null,
            ),
          ),
        ),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      cursor ? h('a', { href: '/' }, 'Newest') : null,
      page.next ? h('a', { href: `/?cursor=${encodeURIComponent(page.next)}`, rel: 'next' }, 'Older episodes') : null,
    ),
  );
  const url = `${channel.origin}/${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`;
  return renderPage(
    channel,
    {
      title: cursor ? 'Older episodes' : 'Episodes',
      description: `Published episodes of ${channel.doc.title}.`,
      url,
      markdownUrl: `${channel.origin}/index.md${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
    },
    main,
  );
}

export function renderSearchPage(channel: PageChannel, query: string, answer: SearchAnswer | undefined): string {
  const results = answer?.episodes ?? [];
  const main = h(
    'section',
    { 'aria-labelledby': 'search-h' },
    h('h1', { id: 'search-h' }, query ? `Search: ${query}` : 'Search'),
    answer?.degraded ? h('p', { class: 'note' }, 'Matched by words only just now; try again shortly for matches by meaning.') : null,
    !query
      ? h('p', null, 'Type what you are looking for above: a question works well.')
      : results.length === 0
        ? h('p', null, 'Nothing found.')
        : h(
            'ol',
            { class: 'results' },
            results.map((e) =>
              h(
                'li',
                { key: e.episodeId },
                h('h2', null, h('a', { href: episodePath(e.episodeId) }, e.title)),
                h('p', { class: 'meta' }, e.publishedAt.slice(0, 10)),
                h(
                  'ul',
                  { class: 'cited' },
                  e.segments.map((s) =>
                    h(
                      'li',
                      { key: s.segmentId },
                      h('a', { class: 'time', href: `/${s.deepLink}`, 'data-cite': true }, clock(s.startMs)),
                      s.speaker ? h('span', { class: 'speaker' }, s.speaker) : null,
                      h('p', null, highlighted(s.text, s.highlights)),
                    ),
                  ),
                ),
              ),
            ),
          ),
  );
  const qs = query ? `?q=${encodeURIComponent(query)}` : '';
  return renderPage(channel, { title: query ? `Search: ${query}` : 'Search', url: `${channel.origin}/search${qs}`, markdownUrl: `${channel.origin}/search.md${qs}` }, main, {
    query,
  });
}

const ERROR_TEXT: Record<number, [string, string]> = {
  404: ['Not found', 'There is no published episode or page at this address.'],
  406: ['Not acceptable', 'This page exists as HTML and as Markdown only.'],
  429: ['Too many requests', 'Please wait a moment before loading more pages.'],
  503: ['Temporarily unavailable', 'The library cannot be read right now. Please try again shortly.'],
};

/**
 * An error page of a channel (HTML, never JSON, on page paths). It names no URL of its own,
 * so every 404 of a channel is the same page, whatever was asked for.
 */
export function renderErrorPage(channel: PageChannel, status: number): string {
  const [title, text] = errorText(status);
  return renderPage(
    channel,
    { title, url: `${channel.origin}/` },
    h('section', { class: 'error' }, h('h1', null, title), h('p', null, text), h('p', null, h('a', { href: '/' }, 'All episodes'))),
  );
}

/** An error page when not even the channel could be read (the store is down): the same words, no channel frame. */
export function renderBareErrorPage(status: number): string {
  const [title, text] = errorText(status);
  return htmlDocument(title, null, h('main', { id: 'main' }, h('h1', null, title), h('p', null, text)));
}

export function errorText(status: number): [string, string] {
  return ERROR_TEXT[status] ?? ['Something went wrong', 'Please try again later.'];
}
