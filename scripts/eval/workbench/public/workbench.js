// The relevance workbench page: sets, configurations, one query under A and B, experiments with plots (Observable
// Plot, SVG), judgments and snapshots. Every number comes from the server, which runs the eval harness.
(() => {
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') node.textContent = v;
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  };
  const api = async (method, path, body) => {
    const res = await fetch(path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
    const json = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
    if (!res.ok) throw new Error(json.error || `HTTP ${res.status}`);
    return json;
  };
  const fmt = (x) => (x === null || x === undefined ? '–' : typeof x === 'number' ? x.toFixed(4) : String(x));
  const clock = (ms) => {
    const t = Math.floor(ms / 1000);
    return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
  };
  const MEASURES = { rr: 'seg MRR@10', ndcg: 'nDCG@10', precision: 'P@10', recall: 'Recall@10', episodeRr: 'episode MRR' };

  let state = { sets: [], configs: [], snapshots: [] };
  let setQueries = [];

  function fillSelect(select, items, value) {
    const keep = value ?? select.value;
    select.replaceChildren(...items.map((it) => el('option', { value: it.value, text: it.label })));
    if (items.some((it) => it.value === keep)) select.value = keep;
  }

  async function refresh() {
    state = await api('GET', '/api/state');
    $('library').textContent = `index prefix ${state.prefix}`;
    fillSelect(
      $('set'),
      state.sets.map((s) => ({
        value: s.name,
        label: `${s.name} (${s.queries})${s.source === 'workbench' ? '' : ' · dev set'}${s.missingChannels.length ? ' · not in this library' : ''}`,
      })),
    );
    const configs = [
      { value: '__default', label: 'defaults (hybrid)' },
      ...state.configs.map((c) => ({ value: c.name, label: `${c.name} (${c.config.mode}${c.config.settings ? `: ${c.config.settings}` : ''})` })),
    ];
    fillSelect($('config-a'), configs);
    fillSelect($('config-b'), configs);
    renderSnapshots();
    await loadSet();
  }

  async function loadSet() {
    const name = $('set').value;
    if (!name) return;
    const set = await api('GET', `/api/sets/${encodeURIComponent(name)}`);
    setQueries = set.queries;
    const info = state.sets.find((s) => s.name === name);
    const where =
      info && info.source !== 'workbench' ? `read-only dev set (${info.source.split('/').slice(-2).join('/')}); judgments go to a workbench copy` : 'saved in the workbench';
    const missing =
      info && info.missingChannels.length
        ? ` · channels not loaded under ${state.prefix}: ${info.missingChannels.slice(0, 3).join(', ')}${info.missingChannels.length > 3 ? ', …' : ''}`
        : '';
    $('set-info').textContent = where + missing;
    const keep = $('query-pick').value;
    fillSelect($('query-pick'), [{ value: '', label: '—' }, ...setQueries.map((q) => ({ value: q.id, label: `${q.id}: ${q.query.slice(0, 80)}` }))], keep);
  }

  const configOf = (select) => (select.value === '__default' ? { mode: 'hybrid', settings: '' } : select.value);
  const configLabel = (select) => select.selectedOptions[0]?.textContent ?? select.value;

  // ---- configurations ----
  $('config-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const f = new FormData(event.target);
    const parts = [];
    for (const key of ['fusion', 'k', 'keyword', 'semantic', 'title', 'candidates', 'chapterhits', 'landing', 'slack', 'lookahead']) {
      const v = String(f.get(key) ?? '').trim();
      if (v) parts.push(`${key}=${v}`);
    }
    const extra = String(f.get('extra') ?? '').trim();
    if (extra) parts.push(extra);
    try {
      const name = String(f.get('name')).trim();
      await api('PUT', `/api/configs/${encodeURIComponent(name)}`, { mode: f.get('mode'), settings: parts.join(' ') });
      $('config-status').textContent = `saved ${name}`;
      await refresh();
    } catch (err) {
      $('config-status').textContent = err.message;
    }
  });

  // ---- sets ----
  $('set').addEventListener('change', () => void loadSet());
  $('save-set').addEventListener('click', async () => {
    const name = $('new-set-name').value.trim();
    const text = $('new-set-text').value;
    const body = text.trim().startsWith('{') ? { jsonl: text } : { lines: text, channel: $('new-set-channel').value.trim() };
    try {
      await api('PUT', `/api/sets/${encodeURIComponent(name)}`, body);
      await refresh();
      $('set').value = name;
      await loadSet();
    } catch (err) {
      alert(err.message);
    }
  });

  // ---- one query ----
  $('query-pick').addEventListener('change', () => {
    const q = setQueries.find((x) => x.id === $('query-pick').value);
    if (!q) return;
    $('query-channel').value = q.channel;
    $('query-text').value = q.query;
  });

  const currentQuery = () => {
    const picked = setQueries.find((x) => x.id === $('query-pick').value && x.query === $('query-text').value);
    return { ...(picked ? { id: picked.id } : {}), channel: $('query-channel').value.trim(), query: $('query-text').value.trim() };
  };

  function rankingColumn(side, ranking, moves) {
    const rows = ranking.hits.map((h, i) => {
      const move = moves ? moves[i] : null;
      const badge = move
        ? move.kind === 'new'
          ? el('span', { class: 'badge new', text: 'new' })
          : move.kind === 'moved'
            ? el('span', { class: `badge ${move.by > 0 ? 'up' : 'down'}`, text: move.by > 0 ? `▲${move.by}` : `▼${-move.by}` })
            : null
        : null;
      const judge = (relevant) => async () => {
        await api('POST', '/api/judgments', { set: $('set').value, query: currentQuery(), segment: { episodeId: h.episodeId, startMs: h.startMs, endMs: h.endMs }, relevant });
        await loadSet();
        await compare();
      };
      return el(
        'li',
        { class: `hit ${h.judged.replace(' ', '-')}`, 'data-segment': h.segmentId, 'data-judged': h.judged },
        el(
          'div',
          { class: 'hit-head' },
          el('strong', { text: `${h.rank}.` }),
          ' ',
          badge,
          ' ',
          el('span', { class: 'title', text: h.title }),
          ' ',
          el('a', { href: h.url, target: '_blank', rel: 'noopener', text: clock(h.startMs) }),
        ),
        el('p', { class: 'text', text: h.text.length > 240 ? `${h.text.slice(0, 240)}…` : h.text }),
        el(
          'div',
          { class: 'legs muted' },
          `keyword #${h.keywordRank ?? '–'} · k-NN #${h.knnRank ?? '–'} · fused ${h.fusedScore === null ? '–' : h.fusedScore.toFixed(4)} · `,
          el('span', {
            class: 'judged',
            text:
              h.judged === 'unjudged'
                ? 'unjudged'
                : h.judged === 'relevant'
                  ? `relevant${h.offsetMs === null ? '' : `, lands ${(h.offsetMs / 1000).toFixed(1)} s ${h.offsetMs < 0 ? 'before' : 'after'} the answer starts`}`
                  : 'not relevant',
          }),
        ),
        el(
          'div',
          { class: 'judge' },
          el('button', { type: 'button', class: 'small', 'data-judge': 'relevant', onclick: judge(true), text: 'Relevant' }),
          el('button', { type: 'button', class: 'small secondary', 'data-judge': 'not', onclick: judge(false), text: 'Not relevant' }),
        ),
      );
    });
    const scores = ranking.scores
      ? `seg MRR ${fmt(ranking.scores.rr)} · nDCG@10 ${fmt(ranking.scores.ndcg)} · P@10 ${fmt(ranking.scores.precision)}`
      : 'no judgments for this query yet';
    return [
      el('h3', { text: `${side.toUpperCase()}: ${ranking.name}` }),
      el('p', { class: 'muted', text: `${scores} · ${ranking.tookMs.toFixed(0)} ms${ranking.degraded ? ` · degraded: ${ranking.degraded}` : ''}` }),
      el('ol', { class: 'hits' }, rows),
    ];
  }

  async function compare() {
    const query = currentQuery();
    if (!query.channel || !query.query) return void ($('compare-summary').textContent = 'Pick a query of the set, or type a channel and a query.');
    $('compare-summary').textContent = 'searching…';
    try {
      const r = await api('POST', '/api/compare', { query, set: $('set').value, a: configOf($('config-a')), b: configOf($('config-b')) });
      // An inline configuration (the defaults) comes back as "unsaved": show it as the page names it.
      if (r.a.name === 'unsaved') r.a.name = configLabel($('config-a'));
      if (r.b.name === 'unsaved') r.b.name = configLabel($('config-b'));
      $('column-a').replaceChildren(...rankingColumn('a', r.a, null));
      $('column-b').replaceChildren(...rankingColumn('b', r.b, r.diff.moves));
      const gone = r.diff.gone.length ? ` · gone from B: ${r.diff.gone.length}` : '';
      $('compare-summary').textContent = `Jaccard ${r.diff.jaccard.toFixed(3)} · RBO ${r.diff.rbo.toFixed(3)}${gone}`;
      $('compare-summary').dataset.rbo = r.diff.rbo.toFixed(3);
    } catch (err) {
      $('compare-summary').textContent = err.message;
    }
  }
  $('compare').addEventListener('click', () => void compare());

  // ---- experiments and plots ----
  function metricsTable(rows) {
    const head = ['', 'queries', 'seg MRR@10', 'nDCG@10', 'P@10', 'Recall@10', 'episode MRR', 'cite@1', 'landing@1', 'median offset s'];
    return el(
      'table',
      { class: 'metrics' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          head.map((h) => el('th', { scope: 'col', text: h })),
        ),
      ),
      el(
        'tbody',
        {},
        rows.map(([label, s]) =>
          el(
            'tr',
            { 'data-config': label },
            el('th', { scope: 'row', text: label }),
            [s.queries, s.rr, s.ndcg, s.precision, s.recall, s.episodeRr, s.overlap1, s.landing1, s.medianOffsetMs === null ? null : (s.medianOffsetMs / 1000).toFixed(1)].map(
              (v) => el('td', { text: typeof v === 'number' && !Number.isInteger(v) ? fmt(v) : (v ?? '–') }),
            ),
          ),
        ),
      ),
    );
  }

  function plots(a, b, measure, diff) {
    const name = MEASURES[measure];
    const points = [
      ...a.perQuery.map((q, i) => ({ i, value: q[measure], config: `A: ${a.configName}` })),
      ...b.perQuery.map((q, i) => ({ i, value: q[measure], config: `B: ${b.configName}` })),
    ];
    const perQuery = Plot.plot({
      title: `${name} per query`,
      width: 900,
      height: 260,
      x: { label: 'query (in set order)' },
      y: { label: name, domain: [0, 1] },
      color: { legend: true },
      marks: [Plot.dot(points, { x: 'i', y: 'value', stroke: 'config', r: 2.5 }), Plot.ruleY([0])],
    });
    const histogram = Plot.plot({
      title: `B − A, ${name}, per query (${diff.wins} wins, ${diff.ties} ties, ${diff.losses} losses)`,
      width: 900,
      height: 220,
      x: { label: `B − A (${name})` },
      y: { label: 'queries', grid: true },
      marks: [
        Plot.rectY(diff.deltas, Plot.binX({ y: 'count' }, { x: 'delta', thresholds: 21, fill: (d) => (d.delta > 0 ? 'win' : d.delta < 0 ? 'loss' : 'tie') })),
        Plot.ruleY([0]),
        Plot.ruleX([0]),
      ],
    });
    return el('div', { class: 'plots', 'data-plots': 'true' }, perQuery, histogram);
  }

  function perQueryTable(a, b, measure, diff) {
    const byId = new Map(b.perQuery.map((q) => [q.id, q]));
    const rows = a.perQuery.map((qa) => {
      const qb = byId.get(qa.id);
      const d = qb ? qb[measure] - qa[measure] : 0;
      return el(
        'tr',
        { class: d > 1e-9 ? 'win' : d < -1e-9 ? 'loss' : 'tie' },
        el('td', { text: qa.id }),
        el('td', { text: qa.query.slice(0, 90) }),
        el('td', { text: fmt(qa[measure]) }),
        el('td', { text: fmt(qb?.[measure]) }),
        el('td', { text: d.toFixed(4) }),
        el('td', { text: qa.landed ? 'lands' : qa.overlap ? 'overlaps' : '–' }),
        el('td', { text: qb?.landed ? 'lands' : qb?.overlap ? 'overlaps' : '–' }),
      );
    });
    return el(
      'details',
      {},
      el('summary', { text: `Per query (${diff.wins} wins, ${diff.ties} ties, ${diff.losses} losses for B on ${MEASURES[measure]})` }),
      el(
        'table',
        { class: 'per-query' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['id', 'query', 'A', 'B', 'B − A', 'A top cite', 'B top cite'].map((h) => el('th', { scope: 'col', text: h })),
          ),
        ),
        el('tbody', {}, rows),
      ),
    );
  }

  function winTieLoss(a, b, measure) {
    const byId = new Map(a.perQuery.map((q) => [q.id, q]));
    const deltas = b.perQuery.filter((q) => byId.has(q.id)).map((q) => ({ id: q.id, delta: q[measure] - byId.get(q.id)[measure] }));
    return {
      deltas,
      wins: deltas.filter((d) => d.delta > 1e-9).length,
      losses: deltas.filter((d) => d.delta < -1e-9).length,
      ties: deltas.filter((d) => Math.abs(d.delta) <= 1e-9).length,
    };
  }

  function showExperiments(target, a, b) {
    const measure = $('measure').value;
    const diff = winTieLoss(a, b, measure);
    const library = a.library
      ? el('p', {
          class: 'muted',
          text: `library: ${a.library.passagesIndex}, ${a.library.episodes} episodes, ${a.library.passages} passages, last indexed ${a.library.lastIndexedAt ?? '–'}`,
        })
      : null;
    target.replaceChildren(
      metricsTable([
        [`A: ${a.configName}`, a.summary],
        [`B: ${b.configName}`, b.summary],
      ]),
      el('p', {
        class: 'wtl',
        'data-wtl': `${diff.wins}/${diff.ties}/${diff.losses}`,
        text: `B against A on ${MEASURES[measure]}: ${diff.wins} wins, ${diff.ties} ties, ${diff.losses} losses`,
      }),
      library,
      plots(a, b, measure, diff),
      perQueryTable(a, b, measure, diff),
    );
  }

  let experiments = null;
  $('run-experiments').addEventListener('click', async () => {
    $('experiment-status').textContent = `running ${$('set').value} under A and B…`;
    try {
      const a = await api('POST', '/api/experiments', { set: $('set').value, config: configOf($('config-a')) });
      const b = await api('POST', '/api/experiments', { set: $('set').value, config: configOf($('config-b')) });
      a.configName = a.configName === 'unsaved' ? configLabel($('config-a')) : a.configName;
      b.configName = b.configName === 'unsaved' ? configLabel($('config-b')) : b.configName;
      experiments = { a, b };
      showExperiments($('experiment-results'), a, b);
      $('experiment-status').textContent = `done: ${a.summary.queries} queries each`;
      await refreshSnapshots();
    } catch (err) {
      $('experiment-status').textContent = err.message;
    }
  });
  $('measure').addEventListener('change', () => {
    if (experiments) showExperiments($('experiment-results'), experiments.a, experiments.b);
  });

  // ---- snapshots ----
  async function refreshSnapshots() {
    state = await api('GET', '/api/state');
    renderSnapshots();
  }
  function renderSnapshots() {
    $('snapshots').replaceChildren(
      ...state.snapshots.slice(0, 20).map((s) =>
        el(
          'li',
          {},
          el('button', {
            type: 'button',
            class: 'link',
            'data-snapshot': s.id,
            onclick: () => void openSnapshot(s.id),
            text: `${s.createdAt.slice(0, 19).replace('T', ' ')} · ${s.set} · ${s.configName}`,
          }),
          ` seg MRR ${fmt(s.summary.rr)}`,
        ),
      ),
    );
  }
  async function openSnapshot(id) {
    $('snapshot-view').replaceChildren(el('p', { class: 'muted', text: 'rerunning…' }));
    const r = await api('POST', `/api/snapshots/${encodeURIComponent(id)}/rerun`);
    r.snapshot.configName = `${r.snapshot.configName} (snapshot ${r.snapshot.createdAt.slice(0, 16)})`;
    r.rerun.configName = `${r.rerun.configName} (rerun now)`;
    showExperiments($('snapshot-view'), r.snapshot, r.rerun);
  }

  refresh().catch((err) => ($('library').textContent = err.message));
})();
