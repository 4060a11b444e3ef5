// The episode page: what a citation opens. The cited segment is current (aria-current="time"), every segment and moment links to its `?t=`, the player is cued to t.
import { h } from 'preact';
import type { EpisodePage, TranscriptSegment } from '../load.js';
import { clock, mediaFragmentUrl, playerFor, youtubeEmbedUrl } from '../media.js';
import { episodeJsonLd } from '../jsonld.js';
import { renderPage } from './layout.js';
import { episodePath } from './lists.js';

/** The segment a moment `t` falls in: the one containing it, else the last one begun before it, else the first. */
export function currentSegmentIndex(segments: readonly TranscriptSegment[], t: number | undefined): number {
  if (t === undefined || segments.length === 0) return -1;
  let found = -1;
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (s.startMs <= t && t < s.endMs) return i;
    if (s.startMs <= t) found = i;
  }
  return found === -1 ? 0 : found;
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
      h(p.kind, { controls: true, preload: 'metadata', src: mediaFragmentUrl(p.src, t), 'data-src': p.src }, h('a', { href: p.src }, 'Download the recording')),
    );
  }
  return h(
    'section',
    { class: 'player none', 'aria-label': 'Player', 'data-player': 'none' },
    h('p', null, 'No recording is linked to this episode: the transcript alone.'),
    sourceLink('Source page', p.source),
  );
}

function chapters(page: EpisodePage) {
  if (page.chapters.length === 0) return null;
  return h(
    'nav',
    { class: 'chapters', 'aria-labelledby': 'chapters-h' },
    h('h2', { id: 'chapters-h' }, 'Chapters'),
    h(
      'ol',
      null,
      page.chapters.map((c) =>
        h(
          'li',
          { key: `${c.startMs}` },
          h('a', { href: momentHref(c.startMs, anchorFor(page, c.startMs)), 'data-seek': c.startMs }, h('span', { class: 'time' }, clock(c.startMs)), ' ', c.title),
          c.moments.length > 0
            ? h(
                'ul',
                { class: 'moments' },
                c.moments.map((m) =>
                  h(
                    'li',
                    { key: `${m.startMs}-${m.title}` },
                    h('span', { class: 'moment-type' }, m.type),
                    ' ',
                    h('a', { href: momentHref(m.startMs, anchorFor(page, m.startMs)), 'data-seek': m.startMs }, h('span', { class: 'time' }, clock(m.startMs)), ' ', m.title),
                  ),
                ),
              )
            : null,
        ),
      ),
    ),
  );
}

/** The anchor (segment start) a moment lands in. */
function anchorFor(page: EpisodePage, ms: number): number {
  const i = currentSegmentIndex(page.segments, ms);
  return i >= 0 ? page.segments[i]!.startMs : ms;
}

function transcript(page: EpisodePage, current: number) {
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
    page.segments.length === 0
      ? h('p', null, 'No transcript yet.')
      : h(
          'ol',
          { class: 'segments' },
          page.segments.map((s, i) =>
            h(
              'li',
              {
                key: `${s.startMs}-${i}`,
                id: `t-${s.startMs}`,
                class: i === current ? 'segment current' : 'segment',
                'data-start-ms': s.startMs,
                'data-end-ms': s.endMs,
                'aria-current': i === current ? 'time' : undefined,
              },
              h('a', { class: 'time', href: momentHref(s.startMs), 'data-seek': s.startMs, 'aria-label': `${clock(s.startMs)}, play from here` }, clock(s.startMs)),
              s.speaker ? h('span', { class: 'speaker' }, s.speaker) : null,
              h('p', null, s.text),
            ),
          ),
        ),
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
      page.people.length > 0 ? h('p', { class: 'people' }, 'With ', page.people.join(', ')) : null,
      page.topics.length > 0
        ? h(
            'ul',
            { class: 'topics', 'aria-label': 'Topics' },
            page.topics.map((name) => h('li', { key: name }, name)),
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
