// The episode page: what a citation opens. The cited segment is current (aria-current="time"), every segment and moment links to its `?t=`, the player is cued to t.
import { h } from 'preact';
import type { EpisodePage, FacetName, TranscriptSegment } from '../load.js';
import { clock } from '../../../core/ground/clock.js';
import { mediaFragmentUrl, playerFor, youtubeEmbedUrl } from '../media.js';
import { episodeJsonLd } from '../jsonld.js';
import { renderPage } from './layout.js';
import { episodePath } from './lists.js';

/**
 * The segment a moment `t` falls in: the last one begun at or before it (the one holding it, segments being sorted
 * and not overlapping), else the first. A binary search over the segments, sorted by start as the page loads them:
 * every chapter and moment anchor is one, so a page costs (chapters + moments) × log(segments), never their product.
 */
export function currentSegmentIndex(segments: readonly TranscriptSegment[], t: number | undefined): number {
  if (t === undefined || segments.length === 0) return -1;
  let lo = 0;
  let hi = segments.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (segments[mid]!.startMs <= t) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, lo - 1);
}

/** `?t=<ms>` of a moment, with the anchor of its segment so that the link works without JavaScript too. */
export const momentHref = (ms: number, anchorMs = ms) => `?t=${Math.max(0, Math.floor(ms))}#t-${Math.max(0, Math.floor(anchorMs))}`;

function player(page: EpisodePage, t: number) {
  const { episode, channel } = page;
  const p = playerFor(episode.mediaUrl, episode.link);
  const sourceLink = (label: string, href: string | undefined) => (href ? h('p', { class: 'source' }, h('a', { href, rel: 'noopener noreferrer nofollow' }, label)) : null);
  if (p.kind === 'youtube') {
    return h(
      'section',
      { class: 'player', 'aria-label': 'Player', 'data-player': 'youtube', 'data-video-id': p.videoId },
      h('iframe', {
        title: `Video: ${episode.title}`,
        src: youtubeEmbedUrl(p.videoId, t, channel.origin),
        allow: 'encrypted-media; picture-in-picture; fullscreen',
        allowFullScreen: true,
        referrerpolicy: 'strict-origin-when-cross-origin',
        loading: 'lazy',
      }),
      sourceLink('Watch on YouTube', p.source),
    );
  }
  if (p.kind === 'audio' || p.kind === 'video') {
    return h(
      'section',
      { class: 'player', 'aria-label': 'Player', 'data-player': p.kind },
      h(p.kind, { controls: true, preload: 'none', src: mediaFragmentUrl(p.src, t), 'data-src': p.src }, h('a', { href: p.src }, 'Download the recording')),
    );
  }
  return h(
    'section',
    { class: 'player none', 'aria-label': 'Player', 'data-player': 'none' },
    h('p', null, 'No recording is linked to this episode: the transcript alone.'),
    sourceLink('Source page', p.source),
  );
}

/** A chapter's or moment's link, anchored at the segment it lands in (as Preact renders it; see {@link segmentHtml}). */
function seekLinkHtml(page: EpisodePage, ms: number, title: string): string {
  return `<a href="${momentHref(ms, anchorFor(page, ms))}" data-seek="${ms}"><span class="time">${clock(ms)}</span> ${escapeHtml(title)}</a>`;
}

/** What labels a chapter, moment or name enrichment made (decision 27): the word itself, explained on hover. */
export const GENERATED_LABEL = 'Generated from the transcript';
const GENERATED_TAG = `<span class="generated" title="${GENERATED_LABEL}, not by the creator">generated</span>`;

/** Which of an episode's chapters were generated: none, all (one note says so), or some (each of them tagged). */
export function generatedShare(chapters: readonly { generated?: boolean | undefined }[]): 'none' | 'all' | 'some' {
  const n = chapters.filter((c) => c.generated === true).length;
  return n === 0 ? 'none' : n === chapters.length ? 'all' : 'some';
}

/** Chapters with their typed key moments, as strings for the same reason as the transcript (up to 2,000 and 10,000). */
function chaptersHtml(page: EpisodePage, tagChapters: boolean): string {
  let out = '';
  for (const c of page.chapters) {
    out += `<li>${seekLinkHtml(page, c.startMs, c.title)}${tagChapters && c.generated ? ` ${GENERATED_TAG}` : ''}`;
    if (c.moments.length > 0) {
      out += '<ul class="moments">';
      for (const m of c.moments) {
        out += `<li><span class="moment-type">${escapeHtml(m.type)}</span> ${m.generated ? `${GENERATED_TAG} ` : ''}${seekLinkHtml(page, m.startMs, m.title)}</li>`;
      }
      out += '</ul>';
    }
    out += '</li>';
  }
  return out;
}

/**
 * A lone generated chapter only restates the episode (enrichment makes one when the talk has fewer than three steps):
 * its moments are shown without a table of contents, as YouTube and Spotify show no chapters under three.
 */
export const momentsOnly = (chapters: readonly { generated?: boolean | undefined }[]): boolean => chapters.length === 1 && chapters[0]!.generated === true;

/** The key moments of a lone generated chapter, under a heading of their own. */
function keyMoments(page: EpisodePage) {
  const moments = page.chapters[0]!.moments;
  if (moments.length === 0) return null;
  let items = '';
  for (const m of moments) items += `<li><span class="moment-type">${escapeHtml(m.type)}</span> ${seekLinkHtml(page, m.startMs, m.title)}</li>`;
  return h(
    'nav',
    { class: 'chapters', 'aria-labelledby': 'moments-h' },
    h('h2', { id: 'moments-h' }, 'Key moments'),
    h('p', { class: 'generated-note' }, `${GENERATED_LABEL}, not by the creator.`),
    h('ul', { class: 'moments', dangerouslySetInnerHTML: { __html: items } }),
  );
}

function chapters(page: EpisodePage) {
  if (page.chapters.length === 0) return null;
  if (momentsOnly(page.chapters)) return keyMoments(page);
  const share = generatedShare(page.chapters);
  return h(
    'nav',
    { class: 'chapters', 'aria-labelledby': 'chapters-h' },
    h('h2', { id: 'chapters-h' }, 'Chapters'),
    share === 'none'
      ? null
      : h(
          'p',
          { class: 'generated-note' },
          share === 'all' ? `${GENERATED_LABEL}, not by the creator.` : 'Chapters tagged generated were made from the transcript, not by the creator.',
        ),
    h('ol', { dangerouslySetInnerHTML: { __html: chaptersHtml(page, share === 'some') } }),
  );
}

/** A person's or topic's name, tagged when enrichment found it in the transcript. */
function facetName({ name, generated }: FacetName) {
  return generated ? [name, ' ', h('span', { class: 'generated', title: `${GENERATED_LABEL}, not by the creator` }, 'generated')] : [name];
}

/** The anchor (segment start) a moment lands in. */
function anchorFor(page: EpisodePage, ms: number): number {
  const i = currentSegmentIndex(page.segments, ms);
  return i >= 0 ? page.segments[i]!.startMs : ms;
}

/** Text or an attribute value escaped as Preact escapes them (`&`, `<`, `"`): library text stays inert. */
export function escapeHtml(value: string): string {
  if (!/[&<"]/.test(value)) return value;
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;');
}

/**
 * One transcript segment as HTML, byte for byte what Preact renders for the same element (a unit test holds them
 * equal). Built as a string because a transcript may hold 50,000 segments: a VDOM node tree per segment cost
 * ~0.4 s for 20,000 of them, the strings a tenth of that. Every library value goes through {@link escapeHtml};
 * numbers are the segment's own finite milliseconds.
 */
export function segmentHtml(s: TranscriptSegment, current: boolean): string {
  const start = Math.floor(s.startMs);
  const at = clock(s.startMs);
  const state = current ? 'segment current" data-start-ms' : 'segment" data-start-ms';
  const speaker = s.speaker ? `<span class="speaker">${escapeHtml(s.speaker)}</span>` : '';
  return (
    `<li id="t-${s.startMs}" class="${state}="${s.startMs}" data-end-ms="${s.endMs}"${current ? ' aria-current="time"' : ''}>` +
    `<a class="time" href="${momentHref(start)}" data-seek="${s.startMs}" aria-label="${at}, play from here">${at}</a>${speaker}<p>${escapeHtml(s.text)}</p></li>`
  );
}

/** Segments shown on one page at most: every real episode whole (a 6-hour one has ~10,400), a hostile one bounded. */
export const TRANSCRIPT_WINDOW = 12_000;

/** The segments a page shows: all of them, or a window of {@link TRANSCRIPT_WINDOW} around the current one. */
export function transcriptWindow(count: number, current: number, size = TRANSCRIPT_WINDOW): { from: number; to: number } {
  if (count <= size) return { from: 0, to: count };
  const from = Math.min(Math.max(0, current - Math.floor(size / 2)), count - size);
  return { from, to: from + size };
}

/** A link to the part of a windowed transcript before or after the one shown, at its nearest segment. */
function windowLink(page: EpisodePage, i: number, label: string) {
  const ms = page.segments[i]!.startMs;
  return h('p', { class: 'transcript-more' }, h('a', { href: momentHref(ms) }, `${label} (from ${clock(ms)})`));
}

function transcript(page: EpisodePage, current: number) {
  const { from, to } = transcriptWindow(page.segments.length, current);
  let body = '';
  for (let i = from; i < to; i++) body += segmentHtml(page.segments[i]!, i === current);
  const windowed = to - from < page.segments.length;
  return h(
    'section',
    { class: 'transcript', 'aria-labelledby': 'transcript-h' },
    h('h2', { id: 'transcript-h' }, 'Transcript'),
    // Find in the transcript: shown by the page script (it needs it); without script the browser's own find works.
    page.segments.length === 0
      ? null
      : h(
          'div',
          { class: 'find', hidden: true },
          h('label', null, 'Find in the transcript ', h('input', { type: 'search', 'data-find': true, autocomplete: 'off' })),
          h('output', { 'data-find-count': true, 'aria-live': 'polite' }),
        ),
    windowed ? h('p', { class: 'note' }, `Segments ${from + 1} to ${to} of ${page.segments.length}, around this moment.`) : null,
    windowed && from > 0 ? windowLink(page, Math.max(0, from - Math.ceil(TRANSCRIPT_WINDOW / 2)), 'Earlier in the transcript') : null,
    page.segments.length === 0
      ? h('p', null, 'No transcript yet.')
      : // A partial window tells the page script that a moment outside it is another page (the link navigates).
        h('ol', { class: 'segments', 'data-window': windowed ? 'partial' : undefined, dangerouslySetInnerHTML: { __html: body } }),
    windowed && to < page.segments.length ? windowLink(page, Math.min(page.segments.length - 1, to + Math.floor(TRANSCRIPT_WINDOW / 2)), 'Later in the transcript') : null,
  );
}

/** The episode page at moment `t` (ms), or at its start. */
export function renderEpisodePage(page: EpisodePage, t: number | undefined): string {
  const { episode } = page;
  const current = currentSegmentIndex(page.segments, t);
  const cue = t ?? 0;
  const meta = [new Date(episode.publishedAt).toISOString().slice(0, 10), episode.durationMs ? clock(episode.durationMs) : undefined].filter(Boolean).join(' · ');
  const main = h(
    'article',
    { class: 'episode', 'data-episode-id': episode.id, 'data-t': t ?? '' },
    h(
      'header',
      { class: 'episode-head' },
      h('h1', null, episode.title),
      h('p', { class: 'meta' }, h('time', { dateTime: episode.publishedAt }, meta)),
      page.people.length > 0
        ? h(
            'p',
            { class: 'people' },
            'With ',
            page.people.flatMap((p, i) => [...(i > 0 ? [', '] : []), ...facetName(p)]),
          )
        : null,
      page.topics.length > 0
        ? h(
            'ul',
            { class: 'topics', 'aria-label': 'Topics' },
            page.topics.map((topic) => h('li', { key: topic.name }, facetName(topic))),
          )
        : null,
    ),
    h(
      'div',
      { class: 'episode-body' },
      // The player, the moment and the chapters stay beside the transcript on a wide screen (sticky), above it on a narrow one.
      h(
        'div',
        { class: 'listen' },
        player(page, cue),
        h(
          'div',
          { class: 'moment-bar' },
          h(
            'a',
            { class: 'moment-link', href: t === undefined ? page.url : `${page.url}?t=${t}`, 'data-moment-link': true },
            t === undefined ? 'Link to this episode' : `Link to ${clock(t)}`,
          ),
          h('button', { type: 'button', class: 'copy', 'data-copy-moment': true, hidden: true }, 'Copy link to this moment'),
          h('label', { class: 'follow', hidden: true }, h('input', { type: 'checkbox', 'data-follow': true, checked: true }), ' Follow the playback'),
          h('span', { class: 'copied', role: 'status' }),
        ),
        chapters(page),
      ),
      h(
        'div',
        { class: 'reading' },
        episode.summary ? h('p', { class: 'summary' }, episode.summary) : null,
        transcript(page, current),
        page.related.length > 0
          ? h(
              'section',
              { class: 'related', 'aria-labelledby': 'related-h' },
              h('h2', { id: 'related-h' }, 'Related episodes'),
              h(
                'ul',
                null,
                page.related.map((r) => h('li', { key: r.id }, h('a', { href: episodePath(r.id) }, r.title), ' ', h('span', { class: 'meta' }, r.publishedAt.slice(0, 10)))),
              ),
            )
          : null,
      ),
    ),
  );
  return renderPage(
    page.channel,
    {
      title: episode.title,
      description: episode.summary ?? episode.description,
      url: t === undefined ? page.url : `${page.url}?t=${t}`,
      markdownUrl: `${page.url}.md${t === undefined ? '' : `?t=${t}`}`,
      ogType: playerFor(episode.mediaUrl, null).kind === 'audio' ? 'music.song' : 'video.episode',
      jsonLd: episodeJsonLd(page),
    },
    main,
  );
}
