// The Markdown twins of the pages and llms.txt, built as mdast trees and serialized by mdast-util-to-markdown, which escapes text: a transcript cannot inject a link or a heading.
import type { BlockContent, Heading, List, ListItem, Paragraph, PhrasingContent, Root, RootContent } from 'mdast';
import { toMarkdown } from 'mdast-util-to-markdown';
import type { SearchAnswer } from '../../core/search/search.js';
import type { EpisodePage, FacetName, LibraryPage, PageChannel } from './load.js';
import { clock } from '../../core/ground/clock.js';
import { safeHttpUrl } from './media.js';
import { currentSegmentIndex, GENERATED_LABEL, generatedShare, momentsOnly, transcriptWindow, TRANSCRIPT_WINDOW } from './html/episode.js';

const text = (value: string): PhrasingContent => ({ type: 'text', value });
const strong = (value: string): PhrasingContent => ({ type: 'strong', children: [text(value)] });
const link = (url: string, label: string): PhrasingContent => ({ type: 'link', url, children: [text(label)] });
const heading = (depth: 1 | 2 | 3, value: string): Heading => ({ type: 'heading', depth, children: [text(value)] });
const paragraph = (...children: PhrasingContent[]): Paragraph => ({ type: 'paragraph', children });
const item = (...children: (PhrasingContent | BlockContent)[]): ListItem => {
  const phrasing = children.filter((c) => !['list', 'paragraph'].includes(c.type)) as PhrasingContent[];
  const blocks = children.filter((c) => ['list', 'paragraph'].includes(c.type)) as BlockContent[];
  return { type: 'listItem', spread: false, children: [{ type: 'paragraph', children: phrasing }, ...blocks] };
};
const list = (items: ListItem[], ordered = false): List => ({ type: 'list', ordered, spread: false, children: items });

/** Whitespace that {@link line} folds: anything but a lone space (checked first: most text has none). */
const FOLDED = /\s\s|[^\S ]/;

/** One line of text: newlines and runs of space in library text folded (a line break would start a new block). */
const line = (value: string) => (FOLDED.test(value) ? value.replace(/\s+/g, ' ') : value).trim();

const INLINE_UNSAFE = /[\\`*_[<&~]|\]\(/;

function serialize(children: RootContent[]): string {
  const root: Root = { type: 'root', children };
  return toMarkdown(root, { bullet: '-', emphasis: '_', strong: '*', rule: '-', fences: true });
}

/**
 * Library text inside a line of a twin built as a string: whitespace folded (no new block can start) and every
 * character that could open an inline construct backslash-escaped (`\\`, `` ` ``, `*`, `_`, `[`, `<`, `&`, `~`,
 * and `(` after `]`), so that no link, image, autolink, HTML, entity, emphasis or code can be made.
 */
export function inlineText(value: string): string {
  const folded = line(value);
  return INLINE_UNSAFE.test(folded) ? folded.replace(/[\\`*_[<&~]|(?<=\])\(/g, '\\$&') : folded;
}

/** A link destination as a string: the characters that would end or break it percent-encoded. */
const destination = (url: string) => url.replace(/[ ()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** `[m:ss](<page>?t=<ms>)`: a timestamp as a link to the moment. */
const momentLine = (pageUrl: string, ms: number) => `[${clock(ms)}](${destination(`${pageUrl}?t=${Math.max(0, Math.floor(ms))}`)})`;

/**
 * The chapters list and the transcript of a twin, built as strings in one pass: an episode may hold 2,000 chapters,
 * 10,000 moments and 50,000 segments, and mdast-util-to-markdown took ~5 s for that many nodes (its escaping checks
 * every node against every unsafe pattern). Each line starts with its timestamp link, so no line can begin a block.
 */
function chaptersMarkdown(page: EpisodePage, tagChapters: boolean): string {
  let out = '';
  for (const c of page.chapters) {
    out += `- ${momentLine(page.url, c.startMs)} ${inlineText(c.title)}${tagChapters && c.generated ? GENERATED_SUFFIX : ''}\n`;
    for (const m of c.moments) out += `  - ${momentLine(page.url, m.startMs)} ${inlineText(m.type)}: ${inlineText(m.title)}${m.generated ? GENERATED_SUFFIX : ''}\n`;
  }
  return out;
}

/** What follows a generated chapter, moment or name in a twin (decision 27). */
const GENERATED_SUFFIX = ' (generated)';

/** The note under the chapters heading: all of them generated, or those tagged. */
function chaptersNote(share: 'none' | 'all' | 'some'): string {
  if (share === 'none') return '';
  return share === 'all' ? `_${GENERATED_LABEL}, not by the creator._\n\n` : '_Chapters tagged (generated) were made from the transcript, not by the creator._\n\n';
}

const names = (list: readonly FacetName[]) => list.map((n) => `${line(n.name)}${n.generated ? GENERATED_SUFFIX : ''}`).join(', ');

/** The transcript of a twin: whole, or the window around `t` the HTML page shows, with links to the rest. */
function transcriptMarkdown(page: EpisodePage, t: number | undefined): string {
  if (page.segments.length === 0) return 'No transcript yet.\n';
  const { from, to } = transcriptWindow(page.segments.length, currentSegmentIndex(page.segments, t));
  const twin = `${page.url}.md`;
  const part = (i: number, label: string) => `[${label}](${destination(`${twin}?t=${Math.floor(page.segments[i]!.startMs)}`)})`;
  let out = '';
  if (to - from < page.segments.length) {
    out += `Segments ${from + 1} to ${to} of ${page.segments.length}, around this moment.`;
    if (from > 0) out += ` ${part(Math.max(0, from - Math.ceil(TRANSCRIPT_WINDOW / 2)), 'Earlier')}`;
    if (to < page.segments.length) out += ` ${part(Math.min(page.segments.length - 1, to + Math.floor(TRANSCRIPT_WINDOW / 2)), 'Later')}`;
    out += '\n';
  }
  for (let i = from; i < to; i++) {
    const s = page.segments[i]!;
    const speaker = s.speaker ? `**${inlineText(s.speaker)}:** ` : '';
    out += `${out === '' ? '' : '\n'}${momentLine(page.url, s.startMs)} ${speaker}${inlineText(s.text)}\n`;
  }
  return out;
}

/** An episode's twin; `t` (ms) picks the window of a transcript longer than {@link TRANSCRIPT_WINDOW} segments. */
export function episodeMarkdown(page: EpisodePage, t?: number): string {
  const { episode } = page;
  const out: RootContent[] = [heading(1, line(episode.title))];
  const facts: PhrasingContent[] = [text(`Published ${episode.publishedAt.slice(0, 10)}`)];
  if (episode.durationMs) facts.push(text(` · ${clock(episode.durationMs)}`));
  facts.push(text(' · '), link(page.url, 'Episode page'));
  const source = safeHttpUrl(episode.mediaUrl) ?? safeHttpUrl(episode.link);
  if (source) facts.push(text(' · '), link(source, 'Source'));
  out.push(paragraph(...facts));
  if (page.people.length > 0) out.push(paragraph(strong('People:'), text(` ${names(page.people)}`)));
  if (page.topics.length > 0) out.push(paragraph(strong('Topics:'), text(` ${names(page.topics)}`)));
  if (episode.summary) out.push(paragraph(text(line(episode.summary))));
  let md = serialize(out);
  if (momentsOnly(page.chapters)) {
    // A lone generated chapter only restates the episode: its moments without a table of contents, as on the page.
    const moments = page.chapters[0]!.moments;
    if (moments.length > 0) {
      md += `\n## Key moments\n\n${chaptersNote('all')}`;
      for (const m of moments) md += `- ${momentLine(page.url, m.startMs)} ${inlineText(m.type)}: ${inlineText(m.title)}\n`;
    }
  } else if (page.chapters.length > 0) {
    const share = generatedShare(page.chapters);
    md += `\n## Chapters\n\n${chaptersNote(share)}${chaptersMarkdown(page, share === 'some')}`;
  }
  md += `\n## Transcript\n\n${transcriptMarkdown(page, t)}`;
  if (page.related.length > 0) {
    md += `\n${serialize([heading(2, 'Related episodes'), list(page.related.map((r) => item(link(`${r.url}.md`, line(r.title)), text(` (${r.publishedAt.slice(0, 10)})`))))])}`;
  }
  return md;
}

export function libraryMarkdown(page: LibraryPage): string {
  const out: RootContent[] = [heading(1, line(page.channel.doc.title)), paragraph(text('Published episodes, newest first. Each links to its Markdown twin.'))];
  out.push(
    page.episodes.length === 0
      ? paragraph(text('No published episodes yet.'))
      : list(
          page.episodes.map(({ episode, url }) =>
            item(link(`${url}.md`, line(episode.title)), text(` (${episode.publishedAt.slice(0, 10)}${episode.durationMs ? `, ${clock(episode.durationMs)}` : ''})`)),
          ),
        ),
  );
  if (page.next) out.push(paragraph(link(`${page.channel.origin}/index.md?cursor=${encodeURIComponent(page.next)}`, 'Older episodes')));
  return serialize(out);
}

export function searchMarkdown(channel: PageChannel, query: string, answer: SearchAnswer | undefined): string {
  const out: RootContent[] = [heading(1, query ? `Search: ${line(query)}` : 'Search')];
  if (!query) {
    out.push(paragraph(text('Add '), { type: 'inlineCode', value: '?q=<words>' }, text(' to search the published episodes of '), text(line(channel.doc.title)), text('.')));
    return serialize(out);
  }
  const results = answer?.episodes ?? [];
  if (results.length === 0) out.push(paragraph(text('Nothing found.')));
  for (const e of results) {
    out.push(heading(2, line(e.title)));
    out.push(paragraph(link(`${e.url}.md`, 'Episode (Markdown)'), text(` · ${e.publishedAt.slice(0, 10)}`)));
    out.push(list(e.segments.map((s) => item(link(s.url, clock(s.startMs)), text(' '), ...(s.speaker ? [strong(`${line(s.speaker)}:`), text(' ')] : []), text(line(s.text))))));
  }
  return serialize(out);
}

/** A not-found twin: a heading and a way back. */
export function notFoundMarkdown(channel: PageChannel): string {
  return serialize([
    heading(1, 'Not found'),
    paragraph(text('There is no published episode or page at this address.')),
    paragraph(link(`${channel.origin}/index.md`, 'All episodes')),
  ]);
}

/** At most this many episodes are linked from llms.txt; the rest through the library twin. */
export const LLMS_EPISODES = 50;

/** llms.txt (llmstxt.org): H1, a summary blockquote, sections of links; the API and MCP endpoint for programs. */
export function llmsTxt(
  channel: PageChannel,
  page: LibraryPage,
  { publicBaseUrl, mcp }: { publicBaseUrl: string; /** The channel has an MCP tool server. */ mcp: boolean },
): string {
  const out: RootContent[] = [
    heading(1, line(channel.doc.title)),
    {
      type: 'blockquote',
      children: [
        paragraph(
          text(
            `Published episodes of ${line(channel.doc.title)}: word-timed transcripts, chapters and key moments. Every timestamp links to the moment on the episode page; every page has a Markdown twin (append .md).`,
          ),
        ),
      ],
    },
    heading(2, 'Episodes'),
    list(
      page.episodes.map(({ episode, url }) =>
        item(link(`${url}.md`, line(episode.title)), text(`: ${episode.publishedAt.slice(0, 10)}${episode.durationMs ? `, ${clock(episode.durationMs)}` : ''}`)),
      ),
    ),
  ];
  if (page.next) out.push(paragraph(link(`${channel.origin}/index.md`, 'All episodes'), text(' (newest first, paged)')));
  out.push(
    heading(2, 'Search and API'),
    list([
      item(link(`${channel.origin}/search.md?q=`, 'Search (Markdown)'), text(': append your words to q; each hit cites moments with links')),
      ...(mcp ? [item(link(`${channel.origin}/mcp`, 'MCP tool server'), text(': Streamable HTTP, one read-only tool, search'))] : []),
      item(link(`${publicBaseUrl}/api/v1/openapi.json`, 'OpenAPI document'), text(': the REST API (members, with an API key)')),
    ]),
  );
  return serialize(out);
}
