// HTML or its Markdown twin, by the request's Accept header with its q-values (decision 21).
import type { Request } from 'express';

/**
 * True for Markdown, false for HTML, undefined when the client accepts neither (406). No
 * `Accept`, or `*\/*`, is HTML; otherwise the higher q-value wins, and on equal q-values the
 * type the client listed first. Express's `accepts` (negotiator) parses the q-values.
 */
export function wantsMarkdown(req: Pick<Request, 'accepts' | 'get'>): boolean | undefined {
  if (!req.get('accept')) return false;
  const choice = req.accepts(['text/html', 'text/markdown']);
  if (choice === false) return undefined;
  return choice === 'text/markdown';
}
