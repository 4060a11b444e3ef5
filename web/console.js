// The console's progressive script: copy buttons for secrets shown once, and a confirmation asked in place before a
// destructive form is sent (without this script, the server asks on a page of its own). The pages work without it.
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
})();
