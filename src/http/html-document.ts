// The skeleton every HTML answer of the service shares (channel pages, the console, the sign-in and consent pages):
// doctype, `lang`, charset, viewport and title, around each surface's own head and body.
import { h, type ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** An HTML document, as a string starting with the doctype: `head` after the charset, viewport and title. */
export function htmlSkeleton(title: string, head: ComponentChildren, body: ComponentChildren): string {
  const doc = h(
    'html',
    { lang: 'en' },
    h('head', null, h('meta', { charset: 'utf-8' }), h('meta', { name: 'viewport', content: 'width=device-width, initial-scale=1' }), h('title', null, title), head),
    h('body', null, body),
  );
  return `<!doctype html>${renderToString(doc)}`;
}
