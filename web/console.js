// The console's progressive script: copy buttons for secrets shown once, a confirmation asked in place before a
// destructive form is sent (without this script, the server asks on a page of its own), and regions that follow what
// the worker does (`data-live="<seconds>"`: the page is read again and the region replaced, until it stops moving).
// The pages work without it: each live region has a reload link.
(function () {
  'use strict';

  for (const button of document.querySelectorAll('button[data-copy]')) {
    const target = document.getElementById(button.dataset.copy);
    if (!target || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(target.textContent.trim());
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Select and copy it';
      }
    });
  }

  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm)) {
        event.preventDefault();
        return;
      }
      const confirmed = document.createElement('input');
      confirmed.type = 'hidden';
      confirmed.name = 'confirm';
      confirmed.value = 'yes';
      form.append(confirmed);
    });
  }

  // A live region re-reads its own page (same origin, the session's cookie) and takes the new copy of itself; the new
  // copy without `data-live` (nothing waits or runs any more) is the last. Requests stop while the tab is hidden.
  function follow(region) {
    const every = Math.max(2, Number(region.dataset.live) || 5) * 1000;
    const tick = async () => {
      if (document.hidden) return window.setTimeout(tick, every);
      let next;
      try {
        const res = await window.fetch(window.location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } });
        if (!res.ok) return window.setTimeout(tick, every * 2);
        const doc = new window.DOMParser().parseFromString(await res.text(), 'text/html');
        next = doc.getElementById(region.id);
      } catch {
        return window.setTimeout(tick, every * 2);
      }
      if (!next) return;
      region.replaceWith(next);
      if (next.dataset.live) follow(next);
    };
    window.setTimeout(tick, every);
  }
  for (const region of document.querySelectorAll('[data-live][id]')) follow(region);
})();
