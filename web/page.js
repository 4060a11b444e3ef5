// The episode page's behaviour, on top of plain links that work without it: seek the player from a
// segment, chapter or moment without a reload, keep the address on that moment, copy its link, and
// bring the cited segment into view. Loaded as a file from the channel host (the CSP allows no inline script).
(() => {
  const EMBED_ORIGIN = 'https://www.youtube-nocookie.com';
  const article = document.querySelector('article.episode');
  if (!article) return;
  const segments = [...document.querySelectorAll('li.segment')];
  const player = document.querySelector('.player');
  const media = player ? player.querySelector('audio, video') : null;
  const frame = player ? player.querySelector('iframe') : null;
  const canonical = document.querySelector('link[rel="canonical"]');
  const pageUrl = (canonical ? canonical.href : location.href).split('?')[0];
  const reduceMotion = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  const momentLink = document.querySelector('[data-moment-link]');
  const copyButton = document.querySelector('[data-copy-moment]');
  const copied = document.querySelector('.copied');
  const follow = document.querySelector('[data-follow]');
  let lastFollowed = null;
  let cueMs = Number(article.dataset.t || 0);

  const clock = (ms) => {
    const t = Math.max(0, Math.floor(ms / 1000));
    const h = Math.floor(t / 3600),
      m = Math.floor((t % 3600) / 60),
      s = t % 60;
    const two = (n) => String(n).padStart(2, '0');
    return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
  };

  /** The segment a moment falls in, as the server chooses it. */
  const segmentAt = (ms) => {
    let found = null;
    for (const li of segments) {
      const start = Number(li.dataset.startMs),
        end = Number(li.dataset.endMs);
      if (start <= ms && ms < end) return li;
      if (start <= ms) found = li;
    }
    return found || segments[0] || null;
  };

  const markCurrent = (li) => {
    for (const other of document.querySelectorAll('li.segment[aria-current]')) {
      other.removeAttribute('aria-current');
      other.classList.remove('current');
    }
    if (!li) return;
    li.setAttribute('aria-current', 'time');
    li.classList.add('current');
  };

  const momentUrl = (ms) => `${pageUrl}?t=${Math.floor(ms)}`;

  const seekPlayer = (ms) => {
    cueMs = ms;
    if (player) player.dataset.cueMs = String(Math.floor(ms));
    if (media) {
      const seconds = ms / 1000;
      if (media.readyState >= 1) media.currentTime = seconds;
      else media.src = `${media.dataset.src}#t=${seconds}`;
    } else if (frame && frame.contentWindow) {
      frame.contentWindow.postMessage(JSON.stringify({ event: 'command', func: 'seekTo', args: [Math.floor(ms / 1000), true] }), EMBED_ORIGIN);
    }
  };

  const goTo = (ms, { scroll = false } = {}) => {
    const li = segmentAt(ms);
    markCurrent(li);
    seekPlayer(ms);
    const anchor = li ? `#t-${li.dataset.startMs}` : '';
    history.replaceState(null, '', `?t=${Math.floor(ms)}${anchor}`);
    if (momentLink) {
      momentLink.href = momentUrl(ms);
      momentLink.textContent = `Link to ${clock(ms)}`;
    }
    if (scroll && li) li.scrollIntoView({ block: 'center', behavior: reduceMotion ? 'auto' : 'smooth' });
  };

  // A very long transcript is shown as a window around the moment: a moment outside it opens its own window.
  const partial = document.querySelector('ol.segments[data-window="partial"]') !== null;
  const outsideWindow = (ms) => partial && segments.length > 0 && (ms < Number(segments[0].dataset.startMs) || ms >= Number(segments[segments.length - 1].dataset.endMs));

  document.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[data-seek]') : null;
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (outsideWindow(Number(link.dataset.seek))) return;
    event.preventDefault();
    goTo(Number(link.dataset.seek), { scroll: !link.closest('li.segment') });
  });

  if (copyButton && navigator.clipboard) {
    copyButton.hidden = false;
    copyButton.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(momentUrl(cueMs));
        if (copied) copied.textContent = 'Link copied';
      } catch {
        if (copied) copied.textContent = 'Could not copy: use the link beside it';
      }
    });
  }

  // Cue the player again where a browser dropped the cue: one that ignored the media fragment (or a server without
  // ranges) once the metadata is in, and iOS Safari, which ignores a seek before the first play.
  const recue = () => {
    if (cueMs && Math.abs(media.currentTime * 1000 - cueMs) > 500) media.currentTime = cueMs / 1000;
  };
  if (media) for (const event of ['loadedmetadata', 'play']) media.addEventListener(event, recue, { once: true });
  // Find in the transcript: segments holding the words are marked, Enter goes to the next one. While a search is
  // typed, following the playback does not scroll the page away from it.
  const find = document.querySelector('[data-find]');
  const findCount = document.querySelector('[data-find-count]');
  let matches = [];
  let matchAt = -1;
  if (find) {
    find.closest('.find').hidden = false;
    const update = () => {
      const words = find.value.trim().toLowerCase();
      matches = [];
      matchAt = -1;
      for (const li of segments) {
        const hit = words !== '' && li.textContent.toLowerCase().includes(words);
        li.classList.toggle('match', hit);
        if (hit) matches.push(li);
      }
      findCount.textContent = words === '' ? '' : matches.length === 1 ? '1 segment' : `${matches.length} segments`;
    };
    find.addEventListener('input', update);
    find.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' || matches.length === 0) return;
      event.preventDefault();
      matchAt = (matchAt + (event.shiftKey ? matches.length - 1 : 1)) % matches.length;
      matches[matchAt].scrollIntoView({ block: 'center', behavior: reduceMotion ? 'auto' : 'smooth' });
      findCount.textContent = `${matchAt + 1} of ${matches.length} segments`;
    });
  }
  const searching = () => find !== null && find.value.trim() !== '';

  // While it plays, the segment being spoken is current; "Follow the playback" keeps it in view (off: the reader scrolls alone).
  if (follow && media) follow.closest('label').hidden = false;
  if (media) {
    media.addEventListener('timeupdate', () => {
      if (media.paused) return;
      const li = segmentAt(media.currentTime * 1000);
      if (li === lastFollowed) return;
      lastFollowed = li;
      markCurrent(li);
      if (li && follow && follow.checked && !searching()) li.scrollIntoView({ block: 'center', behavior: reduceMotion ? 'auto' : 'smooth' });
    });
  }

  // The cited segment: into view on load (the server already marked it current and cued the player).
  const current = document.querySelector('li.segment[aria-current="time"]');
  if (current && article.dataset.t !== '') current.scrollIntoView({ block: 'center', behavior: 'auto' });
  if (player && article.dataset.t !== '') player.dataset.cueMs = String(cueMs);
})();
