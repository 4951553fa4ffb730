/* mnemosyne web viewer: one page, routed by location.hash, talking only to /api/.
   No framework, no build step. Text from the server is put in the DOM as text nodes;
   the one exception is a note's server-rendered, sanitized HTML (GET /api/note/html). */
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const S = { csrf: '', auth: 'none', gen: 0, view: '', sel: -1, zones: null, noteKey: '' };
  let E = {}; // element references, taken once at start (note HTML may repeat ids)

  // ---- DOM helpers ------------------------------------------------------------
  /** h('a', {href, class, text, onclick}, ...children): an element; strings become text. */
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    add(el, kids);
    return el;
  }
  function add(el, ...kids) {
    for (const kid of [kids].flat(Infinity)) {
      if (kid == null || kid === false || kid === '') continue;
      el.append(kid instanceof Node ? kid : String(kid));
    }
    return el;
  }
  const fill = (el, ...kids) => { el.replaceChildren(); return add(el, kids); };
  const noteHref = (key) => '#/note/' + encodeURIComponent(key);
  const noteLink = (key, title, cls) => h('a', { href: noteHref(key), class: cls }, title || key);
  const badge = (text, kind) => h('span', { class: 'badge' + (kind ? ' badge-' + kind : ''), text });
  const zoneName = (z) => (z ? z : '(root)');
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many || one + 's'}`;
  const asText = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
  const shortTime = (iso) => (iso ? String(iso).replace('T', ' ').replace(/(\.\d+)?(Z|\+00:00)$/, ' UTC') : '—');
  function safeDecode(s) { try { return decodeURIComponent(s); } catch (_) { return s; } }
  function labelChips(labels) {
    return (labels || []).map((l) => h('a', { class: 'label', href: '#/search?labels=' + encodeURIComponent(l) }, l));
  }
  function dl(rows) {
    const list = h('dl', { class: 'kv' });
    for (const [k, v] of rows) if (v !== undefined) add(list, [h('dt', null, k), h('dd', null, v == null ? '—' : v)]);
    return list;
  }
  const empty = (text) => h('li', { class: 'empty', text: text || 'None' });

  // ---- API ----------------------------------------------------------------------
  class ApiError extends Error {
    constructor(status, info) { super(info.message || 'Request failed'); this.status = status; this.info = info; }
  }
  /** GET /api/<path>?params, or POST it with a JSON body (with the CSRF header). */
  async function api(path, params, body, retried) {
    let url = '/api/' + path;
    const sp = new URLSearchParams();
    for (const [k, v] of Object.entries(params || {})) if (v != null && v !== '') sp.set(k, String(v));
    if (sp.toString()) url += '?' + sp;
    const opts = { method: body === undefined ? 'GET' : 'POST', credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      opts.headers['Content-Type'] = 'application/json';
      opts.headers['X-Mnemosyne-CSRF'] = S.csrf;
      opts.body = JSON.stringify(body);
    }
    let res;
    try { res = await fetch(url, opts); } catch (e) {
      throw new ApiError(0, { error_type: 'NetworkError', message: 'The server did not answer.', hint: 'Is `mnemosyne serve` still running?' });
    }
    let data = null;
    try { data = await res.json(); } catch (_) { /* not JSON */ }
    if (res.ok) return data || {};
    const info = data && data.error && typeof data.error === 'object'
      ? data.error : { error_type: 'HTTP ' + res.status, message: res.statusText || 'The request failed.' };
    if (res.status === 401 && path !== 'login') showLogin();
    // A restarted server has a new CSRF value: fetch it and try once more.
    if (res.status === 403 && info.error_type === 'CsrfError' && !retried && path !== 'session') {
      await loadSession();
      return api(path, params, body, true);
    }
    throw new ApiError(res.status, info);
  }

  /** An error as readable text nodes (never HTML). */
  function errorContent(err) {
    const info = err && err.info ? err.info : { error_type: 'Error', message: String(err && err.message || err) };
    const out = [h('p', null, h('strong', null, info.error_type || 'Error'), ': ', info.message || '')];
    if (info.hint) out.push(h('p', { class: 'hint' }, 'Hint: ', info.hint));
    if (Array.isArray(info.valid_choices) && info.valid_choices.length) out.push(h('p', { class: 'hint' }, 'Valid: ', info.valid_choices.join(', ')));
    return out;
  }
  function showError(err) {
    if (err && err.status === 401) return; // the login form says it
    console.warn(err);
    fill(E.error, h('button', { type: 'button', class: 'close', 'aria-label': 'Dismiss', onclick: hideError }, '×'), errorContent(err));
    E.error.hidden = false;
  }
  function hideError() { E.error.hidden = true; E.error.replaceChildren(); }
  const inlineError = (err) => h('div', { class: 'msg error' }, errorContent(err));

  // ---- session and login --------------------------------------------------------
  async function loadSession() {
    const s = await api('session');
    S.csrf = s.csrf || '';
    S.auth = s.auth || 'none';
    fill(E.sessionInfo, `${s.vault ? 'vault ' + s.vault : 'not signed in'} · mnemosyne ${s.version || '?'}`,
      S.auth === 'token' && s.authenticated !== false ? h('button', { type: 'button', id: 'logout', class: 'link-btn', onclick: logout }, 'Sign out') : null);
    return s;
  }
  function showLogin() {
    if (!E.login.hidden) return;
    E.login.hidden = false;
    E.main.hidden = true;
    E.token.focus();
  }
  async function login(ev) {
    ev.preventDefault();
    try {
      if (!S.csrf) await loadSession().catch(() => {});
      await api('login', null, { token: E.token.value });
    } catch (err) {
      if (err.status === 401) E.loginError.textContent = 'The token was not accepted.'; else showError(err);
      return;
    }
    E.loginError.textContent = '';
    E.token.value = '';
    E.login.hidden = true;
    E.main.hidden = false;
    hideError();
    S.zones = null;
    await loadSession().catch(showError);
    S.view = '';
    route();
    refreshIndicator();
  }
  async function logout() {
    try { await api('logout', null, {}); } catch (err) { showError(err); return; }
    showLogin();
  }

  // ---- header: freshness / mode indicator, theme ---------------------------------
  function updateIndicator(d) {
    const idx = d.index || {};
    const state = d.degraded_reason ? 'degraded' : idx.fresh === true ? 'fresh' : idx.fresh === false ? 'stale' : 'unknown';
    E.indicator.dataset.state = state;
    E.indicatorText.textContent = `${idx.fresh === true ? 'fresh' : idx.fresh === false ? 'stale' : '?'} · ${d.mode || '?'}`;
    E.indicator.title = `Index ${state}; built ${shortTime(idx.built_at)}, checked ${shortTime(idx.checked_at)}` +
      `; search mode ${d.mode || '?'}${d.degraded_reason ? ' (' + d.degraded_reason + ')' : ''}`;
  }
  /** GET /api/status, shared by the callers that ask while one request is on its way. */
  let statusInFlight = null;
  function getStatus() {
    if (!statusInFlight) statusInFlight = api('status').finally(() => { statusInFlight = null; });
    return statusInFlight;
  }
  async function refreshIndicator() {
    if (document.hidden || !E.login.hidden) return;
    try { updateIndicator(await getStatus()); } catch (_) { /* shown elsewhere */ }
  }
  const THEME_KEY = 'mnemosyne-theme';
  const systemDark = () => window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
  const effectiveTheme = () => document.documentElement.dataset.theme || (systemDark() ? 'dark' : 'light');
  function applyTheme(t) {
    if (t === 'light' || t === 'dark') document.documentElement.dataset.theme = t;
    else delete document.documentElement.dataset.theme;
    if (E.themeToggle) E.themeToggle.setAttribute('aria-pressed', String(effectiveTheme() === 'dark'));
    if (G.nodes.length) draw();
  }
  function toggleTheme() {
    const next = effectiveTheme() === 'dark' ? 'light' : 'dark';
    try { localStorage.setItem(THEME_KEY, next); } catch (_) { /* storage off */ }
    applyTheme(next);
  }

  // ---- router ---------------------------------------------------------------------
  const VIEWS = ['search', 'note', 'graph', 'timeline', 'review', 'status'];
  function parseHash() {
    let raw = location.hash.replace(/^#\/?/, '');
    let query = '';
    const qi = raw.indexOf('?');
    if (qi >= 0) { query = raw.slice(qi + 1); raw = raw.slice(0, qi); }
    const slash = raw.indexOf('/');
    const view = (slash >= 0 ? raw.slice(0, slash) : raw) || 'search';
    return { view, rest: slash >= 0 ? raw.slice(slash + 1) : '', params: new URLSearchParams(query) };
  }
  async function route() {
    const r = parseHash();
    const view = VIEWS.includes(r.view) ? r.view : 'search';
    const gen = ++S.gen;
    const changed = view !== S.view;
    S.view = view;
    stopGraph();
    hideError();
    for (const sec of E.views) sec.hidden = sec.dataset.view !== view;
    if (view !== 'note') E.noteBody.replaceChildren(); // its heading ids must not shadow the page's
    for (const a of E.navLinks) {
      if (a.dataset.nav === view) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    }
    document.title = view[0].toUpperCase() + view.slice(1) + ' — mnemosyne';
    if (changed && view !== 'search' && view !== 'note') window.scrollTo(0, 0);
    try {
      await HANDLERS[view](r, gen, changed);
    } catch (err) {
      if (gen === S.gen) showError(err);
    }
  }

  // ---- search view -------------------------------------------------------------------
  let typingTimer = 0;
  function readFilters() {
    return {
      q: E.q.value.trim(), zone: E.zone.value, labels: E.labels.value.trim(),
      since: E.since.value, until: E.until.value, include_archive: E.arch.checked ? 'true' : '',
    };
  }
  function searchHash(f, page) {
    const sp = new URLSearchParams();
    for (const [k, v] of Object.entries(f)) if (v) sp.set(k, v);
    if (page > 1) sp.set('page', page);
    return '#/search' + (sp.toString() ? '?' + sp : '');
  }
  async function loadZones() {
    if (S.zones) return;
    const st = await getStatus();
    updateIndicator(st);
    S.zones = Object.keys(st.zones || {}).sort();
    for (const z of S.zones) if (z) E.zone.append(h('option', { value: z }, `${z} (${st.zones[z]})`));
  }
  async function viewSearch(r, gen, changed) {
    const p = r.params;
    await loadZones().catch(showError);
    const zone = p.get('zone') || '';
    if (zone && ![...E.zone.options].some((o) => o.value === zone)) E.zone.append(h('option', { value: zone }, zone));
    const set = (el, v) => { if (el.value !== v) el.value = v; };
    set(E.q, p.get('q') || ''); set(E.zone, zone); set(E.labels, p.get('labels') || '');
    set(E.since, p.get('since') || ''); set(E.until, p.get('until') || '');
    E.arch.checked = p.get('include_archive') === 'true';
    if (zone || p.get('labels') || p.get('since') || p.get('until') || E.arch.checked) E.filters.open = true;
    if (changed) { E.q.focus(); E.q.setSelectionRange(E.q.value.length, E.q.value.length); }
    await runSearch(gen, Number(p.get('page')) || 1);
  }
  /** Keep the address in step with the form without a history entry, then search. */
  function searchNow() {
    clearTimeout(typingTimer);
    history.replaceState(null, '', searchHash(readFilters()));
    const gen = ++S.gen;
    runSearch(gen, 1).catch((err) => { if (gen === S.gen) showError(err); });
  }
  function queryWords(q) {
    const seen = new Set();
    return q.split(/[\s"'`()[\]{}<>,;:!?*+|\\=]+/u)
      .map((w) => w.replace(/^[.\-#]+|[.\-#]+$/g, ''))
      .filter((w) => [...w].length >= 2 && !seen.has(w.toLowerCase()) && seen.add(w.toLowerCase()))
      .sort((a, b) => b.length - a.length);
  }
  /** The snippet as text nodes, each query word wrapped in <mark> (no HTML is parsed). */
  function highlight(text, words) {
    const frag = document.createDocumentFragment();
    if (!words.length) { frag.append(text); return frag; }
    // a Latin/Greek/Cyrillic word matches at a word start ("group" in "groups", not "do" in "down")
    const pat = (w) => (/^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\d]/u.test(w) ? '(?<![\\p{L}\\p{N}])' : '') +
      w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const re = new RegExp('(' + words.map(pat).join('|') + ')', 'giu');
    text.split(re).forEach((part, i) => { if (part) frag.append(i % 2 ? h('mark', null, part) : part); });
    return frag;
  }
  function hitItem(hit, words) {
    const meta = [
      h('span', { class: 'path', text: hit.path }),
      h('span', { class: 'zone', text: zoneName(hit.zone) }),
      hit.heading ? h('span', { class: 'heading', text: '§ ' + hit.heading }) : null,
      hit.date || hit.updated ? h('time', { text: hit.updated && hit.updated !== hit.date ? `${hit.date || ''} (updated ${hit.updated})` : hit.date || hit.updated }) : null,
      labelChips(hit.labels),
    ];
    return h('li', { class: 'hit', 'data-key': hit.key },
      h('div', { class: 'hit-head' }, noteLink(hit.key, hit.title, 'hit-title'),
        hit.stale ? badge('stale', 'warn') : null, hit.archived ? badge('archived', 'muted') : null),
      h('div', { class: 'meta' }, meta),
      hit.snippet ? h('p', { class: 'snippet' }, highlight(hit.snippet, words)) : null);
  }
  async function runSearch(gen, page) {
    const f = readFilters();
    setSel(-1);
    if (!f.q) return browse(gen, f, page);
    const data = await api('search', { q: f.q, limit: 20, zone: f.zone, labels: f.labels, include_archive: f.include_archive });
    if (gen !== S.gen) return;
    updateIndicator(data);
    // The search endpoint has no dates: apply since/until to the hits' own dates.
    const inRange = (x) => (!f.since || (x.date && x.date >= f.since)) && (!f.until || (x.date && x.date <= f.until));
    const all = data.hits || [], weakAll = data.best_weak || [];
    const hits = all.filter(inRange), weak = weakAll.filter(inRange);
    const hidden = all.length + weakAll.length - hits.length - weak.length;
    const words = queryWords(f.q);
    // the verdict, said plainly
    const v = [];
    if (data.no_strong_match) v.push(h('p', { class: 'verdict-title' }, 'No strong match — these are the closest notes, not answers'));
    if (data.absence_note) v.push(h('p', { class: 'absence' }, data.absence_note));
    const missing = (data.signals && data.signals.missing_names) || [];
    if (missing.length) v.push(h('p', null, 'Not in the vault: ', missing.join(', ')));
    v.push(h('p', { class: 'confidence' }, 'Confidence: ', h('strong', { 'data-confidence': data.confidence || '' }, data.confidence || '—'),
      ` · ${data.mode || '?'} search`, data.degraded_reason ? ` (${data.degraded_reason})` : ''));
    fill(E.verdict, v);
    E.verdict.dataset.verdict = data.no_strong_match ? 'weak' : 'ok';
    E.verdict.hidden = false;
    fill(E.results, hits.map((x) => hitItem(x, words)));
    fill(E.weakResults, weak.map((x) => hitItem(x, words)));
    E.weakBlock.hidden = !weak.length;
    E.count.textContent = (data.no_strong_match ? `No strong match; ${plural(weak.length, 'closest note')}` : plural(hits.length, 'result')) +
      (hidden ? ` (${hidden} outside the dates hidden)` : '');
    E.pager.hidden = true;
  }
  /** No query: the newest notes, filtered by zone, labels and dates (GET /api/notes). */
  async function browse(gen, f, page) {
    const data = await api('notes', { zone: f.zone, labels: f.labels, since: f.since, until: f.until, page, limit: 20 });
    if (gen !== S.gen) return;
    fill(E.verdict, h('p', null, 'Browsing the newest notes. Type to search.'));
    E.verdict.dataset.verdict = 'browse';
    E.verdict.hidden = false;
    const notes = data.notes || [];
    fill(E.results, notes.map((n) => hitItem(n, [])));
    E.weakBlock.hidden = true;
    const total = data.total || 0, limit = data.limit || 20, pages = Math.max(1, Math.ceil(total / limit));
    E.count.textContent = `${plural(total, 'note')}` + (pages > 1 ? `, page ${data.page || page} of ${pages}` : '');
    E.pager.hidden = pages <= 1;
    E.pageInfo.textContent = `${data.page || page} / ${pages}`;
    E.prev.disabled = page <= 1;
    E.next.disabled = page >= pages;
    E.pager.dataset.page = String(page);
  }
  function gotoPage(d) {
    const page = Math.max(1, (Number(E.pager.dataset.page) || 1) + d);
    location.hash = searchHash(readFilters(), page);
  }
  // keyboard selection through the hits
  const hitItems = () => [...E.results.querySelectorAll('li.hit'), ...E.weakResults.querySelectorAll('li.hit')];
  function setSel(i, focusLink) {
    const items = hitItems();
    S.sel = items.length ? Math.max(-1, Math.min(i, items.length - 1)) : -1;
    items.forEach((li, j) => {
      li.classList.toggle('selected', j === S.sel);
      if (j === S.sel) li.setAttribute('aria-current', 'true'); else li.removeAttribute('aria-current');
    });
    const cur = items[S.sel];
    if (cur) {
      cur.scrollIntoView({ block: 'nearest' });
      if (focusLink) cur.querySelector('a.hit-title').focus();
    }
  }
  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || !E.login.hidden) return;
    const t = e.target;
    const typing = t.matches && t.matches('input, textarea, select, [contenteditable]');
    if (e.key === '/' && !typing) {
      e.preventDefault();
      if (S.view === 'search') { E.q.focus(); E.q.select(); } else location.hash = '#/search';
      return;
    }
    if (S.view !== 'search') return;
    const inQ = t === E.q;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp' || ((e.key === 'j' || e.key === 'k') && !typing)) {
      if (typing && !inQ) return;
      e.preventDefault();
      setSel(S.sel + (e.key === 'ArrowDown' || e.key === 'j' ? 1 : -1), !inQ);
    } else if (e.key === 'Enter' && S.sel >= 0 && (inQ || !typing) && t.tagName !== 'A' && t.tagName !== 'BUTTON') {
      e.preventDefault();
      const cur = hitItems()[S.sel];
      if (cur) location.hash = noteHref(cur.dataset.key);
    } else if (e.key === 'Escape') {
      e.preventDefault(); // (a search input would clear itself)
      setSel(-1);
      E.q.focus();
    }
  }

  // ---- note view -------------------------------------------------------------------
  function linkList(ul, items, render) {
    fill(ul, items && items.length ? items.map(render) : empty());
  }
  const briefItem = (n) => h('li', null, noteLink(n.key, n.title), ' ', h('span', { class: 'path', text: n.path }));
  async function viewNote(r, gen) {
    const key = safeDecode(r.rest);
    if (!key) { location.hash = '#/search'; return; }
    E.noteTitle.textContent = 'Loading…';
    E.noteTitle.hidden = false;
    fill(E.noteMeta); fill(E.noteBody); fill(E.outline);
    for (const ul of [E.backlinks, E.outbound, E.unresolved, E.neighbours]) fill(ul);
    // the note shows as soon as it arrives; its links (neighbours need a search) follow
    const noting = api('note/html', { key }); // asked first: the server answers in turn
    const relating = api('related', { key, limit: 8 }).catch((err) => err);
    const note = await noting.catch((err) => {
      if (gen === S.gen) E.noteTitle.textContent = 'Cannot open ' + key;
      throw err;
    });
    if (gen !== S.gen) return;
    S.noteKey = note.key;
    document.title = (note.title || note.key) + ' — mnemosyne';
    E.noteTitle.textContent = note.title || note.key;
    const version = note.version ? String(note.version) : '';
    fill(E.noteMeta,
      h('span', { class: 'path', text: note.path }), h('span', { class: 'zone', text: zoneName(note.zone) }),
      version ? h('code', { class: 'version', title: 'version ' + version, text: 'v ' + version.slice(0, 10) }) : null,
      note.archived ? badge('archived', 'muted') : null, labelChips(note.labels));
    E.noteBody.innerHTML = note.html || ''; // the server's sanitized rendering: the only HTML inserted
    const first = E.noteBody.firstElementChild;
    E.noteTitle.hidden = !!first && first.tagName === 'H1'; // the note's own title heading stands in
    const outline = note.outline || [];
    E.outlineBox.hidden = !outline.length;
    fill(E.outline, outline.map((o) => h('li', { class: 'lvl-' + o.level },
      h('a', { href: noteHref(note.key) + '?anchor=' + encodeURIComponent(o.anchor), 'data-anchor': o.anchor }, o.heading))));
    E.graphLink.href = '#/graph/' + encodeURIComponent(note.key);
    const anchorFirst = r.params.get('anchor');
    if (anchorFirst) scrollToAnchor(anchorFirst, false); else window.scrollTo(0, 0);
    const rel = await relating;
    if (gen !== S.gen) return;
    if (rel instanceof Error) showError(rel);
    else {
      linkList(E.backlinks, rel.backlinks, briefItem);
      linkList(E.outbound, rel.outbound, briefItem);
      linkList(E.unresolved, rel.unresolved, (u) => h('li', null, h('span', { class: 'unresolved', text: '[[' + u.target + ']]' }),
        (u.candidates || []).length ? [' — maybe ', (u.candidates || []).map((c, i) => {
          const k = typeof c === 'string' ? c : c.key;
          return [i ? ', ' : '', noteLink(k, typeof c === 'string' ? c : c.title || k)];
        })] : null));
      linkList(E.neighbours, rel.neighbours, briefItem);
    }
  }
  function scrollToAnchor(anchor, remember) {
    const target = E.noteBody.querySelector('[id="' + CSS.escape(anchor) + '"]');
    if (!target) return;
    target.setAttribute('tabindex', '-1');
    target.scrollIntoView({ block: 'start' });
    target.focus({ preventScroll: true });
    if (remember) history.replaceState(null, '', noteHref(S.noteKey) + '?anchor=' + encodeURIComponent(anchor));
  }
  function onNoteClick(e) {
    const a = e.target.closest('a');
    if (!a) return;
    const href = a.getAttribute('href') || '';
    const anchor = a.dataset.anchor || (href.startsWith('#') && !href.startsWith('#/') ? safeDecode(href.slice(1)) : null);
    if (anchor) { e.preventDefault(); scrollToAnchor(anchor, true); }
  }

  // ---- graph view: canvas + a small force-directed layout -----------------------------
  const G = { nodes: [], edges: null, index: new Map(), center: -1, hover: -1, scale: 1, tx: 0, ty: 0,
    raf: 0, iter: 0, iters: 0, temp: 0, moved: false, drag: null, w: 0, h: 0, colors: new Map(), adj: null };
  const K = 40; // ideal link length, in layout units
  function hashStr(s) { let x = 2166136261; for (let i = 0; i < s.length; i++) { x ^= s.charCodeAt(i); x = Math.imul(x, 16777619); } return x >>> 0; }
  async function viewGraph(r, gen) {
    const key = r.rest ? safeDecode(r.rest) : '';
    const depth = r.params.get('depth') || '2';
    E.depth.value = depth;
    E.depthLabel.hidden = !key;
    E.graphWhole.hidden = !key;
    E.graphInfo.textContent = 'Loading the graph…';
    const data = await api('graph', key ? { key, depth } : {});
    if (gen !== S.gen) return;
    buildGraph(data);
    const n = G.nodes.length, m = G.edges.length / 2;
    const center = G.center >= 0 ? G.nodes[G.center] : null;
    E.graphInfo.textContent = `${plural(n, 'note')}, ${plural(m, 'link')}` +
      (center ? ` within ${depth} of “${center.title || center.key}”` : ' in the whole vault') +
      (data.truncated ? ` — truncated: only the ${n} ${center ? 'nearest' : 'most linked'} notes are drawn` : '');
    E.graphInfo.dataset.truncated = String(!!data.truncated);
    fill(E.legend, [...G.colors].map(([z, c]) => {
      const sw = h('span', { class: 'swatch', 'aria-hidden': 'true' });
      sw.style.background = c;
      return h('li', null, sw, zoneName(z));
    }));
    fill(E.graphList);
    E.graphListBox.open = false;
    resizeCanvas();
    startLayout(gen);
  }
  function buildGraph(data) {
    const nodes = data.nodes || [];
    G.index = new Map(nodes.map((nd, i) => [nd.key, i]));
    const zones = [...new Set(nodes.map((nd) => nd.zone || ''))].sort();
    G.colors = new Map(zones.map((z, i) => [z, `hsl(${Math.round((i * 137.508 + 210) % 360)} 62% 52%)`]));
    const spread = K * Math.sqrt(nodes.length + 1);
    G.nodes = nodes.map((nd) => {
      const hs = hashStr(nd.key), a = (hs % 6283) / 1000, rr = spread * Math.sqrt(((hs >>> 13) % 1000) / 1000);
      return { key: nd.key, title: nd.title || nd.key, zone: nd.zone || '', links: nd.links || 0,
        x: rr * Math.cos(a), y: rr * Math.sin(a), r: 3 + Math.min(7, Math.sqrt(nd.links || 0)), color: G.colors.get(nd.zone || '') };
    });
    const pairs = [];
    for (const [a, b] of data.edges || []) {
      const i = G.index.get(a), j = G.index.get(b);
      if (i !== undefined && j !== undefined && i !== j) pairs.push(i, j);
    }
    G.edges = Int32Array.from(pairs);
    G.adj = G.nodes.map(() => []);
    for (let e = 0; e < G.edges.length; e += 2) { G.adj[G.edges[e]].push(G.edges[e + 1]); G.adj[G.edges[e + 1]].push(G.edges[e]); }
    G.center = data.center != null && G.index.has(data.center) ? G.index.get(data.center) : -1;
    G.byLinks = G.nodes.map((_, i) => i).sort((a, b) => G.nodes[b].links - G.nodes[a].links);
    if (G.center >= 0) { G.nodes[G.center].x = 0; G.nodes[G.center].y = 0; }
    G.hover = -1; G.moved = false; G.iter = 0;
    G.iters = nodes.length > 1000 ? 220 : 300;
    G.temp = spread / 4;
    G.dx = new Float64Array(nodes.length);
    G.dy = new Float64Array(nodes.length);
  }
  /** One Fruchterman–Reingold step. Repulsion is exact for small graphs; past 400 nodes
      it only counts nodes in the neighbouring grid cells (cell = 2K), which keeps a
      2,000-note vault at a few milliseconds a step. A weak pull to the middle keeps
      unlinked notes close. */
  function layoutStep() {
    const N = G.nodes, n = N.length, dx = G.dx, dy = G.dy, k2 = K * K;
    dx.fill(0); dy.fill(0);
    const push = (i, j) => {
      let ddx = N[i].x - N[j].x, ddy = N[i].y - N[j].y, d2 = ddx * ddx + ddy * ddy;
      if (d2 < 0.01) { ddx = (i - j) * 0.1; ddy = 0.1; d2 = ddx * ddx + ddy * ddy; }
      return [ddx * k2 / d2, ddy * k2 / d2];
    };
    if (n <= 400) {
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
        const [fx, fy] = push(i, j);
        dx[i] += fx; dy[i] += fy; dx[j] -= fx; dy[j] -= fy;
      }
    } else {
      const cell = 2 * K, grid = new Map(), cut = cell * cell;
      const cellOf = (v) => Math.max(-4000, Math.min(4000, Math.floor(v / cell)));
      for (let i = 0; i < n; i++) {
        const c = (cellOf(N[i].x) + 5000) * 10000 + cellOf(N[i].y) + 5000;
        const list = grid.get(c);
        if (list) list.push(i); else grid.set(c, [i]);
      }
      for (let i = 0; i < n; i++) {
        const cx = cellOf(N[i].x), cy = cellOf(N[i].y);
        for (let gx = cx - 1; gx <= cx + 1; gx++) for (let gy = cy - 1; gy <= cy + 1; gy++) {
          const list = grid.get((gx + 5000) * 10000 + gy + 5000);
          if (!list) continue;
          for (const j of list) {
            if (j === i) continue;
            const ddx = N[i].x - N[j].x, ddy = N[i].y - N[j].y;
            if (ddx * ddx + ddy * ddy > cut) continue;
            const [fx, fy] = push(i, j);
            dx[i] += fx; dy[i] += fy;
          }
        }
      }
    }
    const E2 = G.edges;
    for (let e = 0; e < E2.length; e += 2) {
      const a = N[E2[e]], b = N[E2[e + 1]];
      const ddx = a.x - b.x, ddy = a.y - b.y, d = Math.sqrt(ddx * ddx + ddy * ddy) || 0.01, f = d / K;
      dx[E2[e]] -= ddx * f; dy[E2[e]] -= ddy * f; dx[E2[e + 1]] += ddx * f; dy[E2[e + 1]] += ddy * f;
    }
    const grav = n <= 400 ? 0.03 : 0.08;
    for (let i = 0; i < n; i++) {
      if (i === G.center) continue;
      const nd = N[i];
      const fx = dx[i] - nd.x * grav, fy = dy[i] - nd.y * grav, len = Math.sqrt(fx * fx + fy * fy);
      if (len > 0) { const s = Math.min(len, G.temp) / len; nd.x += fx * s; nd.y += fy * s; }
    }
    G.iter++;
    G.temp = Math.max(0.5, G.temp * 0.985);
  }
  function startLayout(gen) {
    const frame = () => {
      if (gen !== S.gen) return;
      const t0 = performance.now();
      while (G.iter < G.iters && performance.now() - t0 < 14) layoutStep();
      if (!G.moved) fitView();
      draw();
      G.raf = G.iter < G.iters ? requestAnimationFrame(frame) : 0;
    };
    G.raf = requestAnimationFrame(frame);
  }
  // For browser tests: where each node is drawn (CSS pixels in the canvas), and whether the layout is done.
  window.mnemosyneGraph = {
    nodes: () => G.nodes.map((nd) => ({ key: nd.key, x: sx(nd), y: sy(nd) })),
    done: () => G.iter >= G.iters, center: () => (G.center >= 0 ? G.nodes[G.center].key : null),
  };
  function stopGraph() { if (G.raf) cancelAnimationFrame(G.raf); G.raf = 0; G.drag = null; }
  function resizeCanvas() {
    const c = E.canvas, rect = c.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    G.w = Math.max(1, rect.width); G.h = Math.max(1, rect.height);
    c.width = Math.round(G.w * dpr); c.height = Math.round(G.h * dpr);
    if (!G.moved) fitView();
    draw();
  }
  function fitView() {
    const N = G.nodes;
    if (!N.length) return;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const nd of N) { x0 = Math.min(x0, nd.x); x1 = Math.max(x1, nd.x); y0 = Math.min(y0, nd.y); y1 = Math.max(y1, nd.y); }
    const left = 24, right = Math.min(160, G.w / 5), pad = 40; // room for labels
    G.scale = Math.min(3, (G.w - left - right) / Math.max(1, x1 - x0), (G.h - pad) / Math.max(1, y1 - y0));
    G.tx = left + (G.w - left - right) / 2 - ((x0 + x1) / 2) * G.scale;
    G.ty = G.h / 2 - ((y0 + y1) / 2) * G.scale;
  }
  const sx = (nd) => nd.x * G.scale + G.tx, sy = (nd) => nd.y * G.scale + G.ty;
  const sr = (nd) => Math.max(1.5, Math.min(16, nd.r * Math.sqrt(G.scale)));
  function draw() {
    const c = E.canvas;
    if (!c || S.view !== 'graph') return;
    const ctx = c.getContext('2d'), dpr = window.devicePixelRatio || 1, N = G.nodes, E2 = G.edges;
    const css = getComputedStyle(document.documentElement), v = (name) => css.getPropertyValue(name).trim();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, G.w, G.h);
    if (!N.length) return;
    const hov = G.hover, near = new Set(hov >= 0 ? G.adj[hov] : []);
    ctx.lineWidth = 1;
    ctx.strokeStyle = v('--edge');
    ctx.beginPath();
    for (let e = 0; e < E2.length; e += 2) {
      const a = N[E2[e]], b = N[E2[e + 1]];
      ctx.moveTo(sx(a), sy(a)); ctx.lineTo(sx(b), sy(b));
    }
    ctx.stroke();
    if (hov >= 0) { // the hovered note's links, in the accent colour
      ctx.strokeStyle = v('--accent'); ctx.lineWidth = 1.5; ctx.beginPath();
      for (const j of G.adj[hov]) { ctx.moveTo(sx(N[hov]), sy(N[hov])); ctx.lineTo(sx(N[j]), sy(N[j])); }
      ctx.stroke();
    }
    for (const [, color] of G.colors) { // one path per zone colour
      ctx.fillStyle = color; ctx.beginPath();
      for (const nd of N) if (nd.color === color) { const r = sr(nd); ctx.moveTo(sx(nd) + r, sy(nd)); ctx.arc(sx(nd), sy(nd), r, 0, 2 * Math.PI); }
      ctx.fill();
    }
    const ring = (i, color, w) => {
      const nd = N[i]; ctx.strokeStyle = color; ctx.lineWidth = w;
      ctx.beginPath(); ctx.arc(sx(nd), sy(nd), sr(nd) + w + 1, 0, 2 * Math.PI); ctx.stroke();
    };
    if (G.center >= 0) ring(G.center, v('--fg'), 2.5);
    if (hov >= 0) ring(hov, v('--accent'), 2);
    // Labels, greedily: the centre, the hovered note, its neighbours, then the most linked
    // notes, each only where it overlaps no label already placed (the first two always).
    const must = [hov, G.center].filter((i) => i >= 0);
    const crowded = N.length > 150 && G.scale < 1.5; // a hairball: no hub labels until zoomed in
    const rest = [...near, ...(crowded ? [] : G.byLinks || [])].slice(0, 400);
    const placed = [];
    ctx.textBaseline = 'middle';
    ctx.lineJoin = 'round';
    for (const i of new Set([...must, ...rest])) {
      if (placed.length >= 60) break;
      const nd = N[i], x = sx(nd) + sr(nd) + 4, y = sy(nd);
      if (x < -200 || x > G.w || y < 0 || y > G.h) continue;
      const bold = i === G.center || i === hov;
      const text = nd.title.length > 48 ? nd.title.slice(0, 47) + '…' : nd.title;
      ctx.font = (bold ? 'bold ' : '') + '12px system-ui, sans-serif';
      const box = [x - 2, y - 9, x + ctx.measureText(text).width + 2, y + 9];
      if (!must.includes(i) && placed.some((b) => box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3])) continue;
      placed.push(box);
      ctx.lineWidth = 3; ctx.strokeStyle = v('--bg'); ctx.strokeText(text, x, y);
      ctx.fillStyle = v('--fg'); ctx.fillText(text, x, y);
    }
  }
  function pick(px, py) {
    let best = -1, bestD = Infinity;
    G.nodes.forEach((nd, i) => {
      const dx = sx(nd) - px, dy = sy(nd) - py, d = dx * dx + dy * dy, r = sr(nd) + 5;
      if (d <= r * r && d < bestD) { best = i; bestD = d; }
    });
    return best;
  }
  function zoomAt(px, py, factor) {
    const s = Math.max(0.02, Math.min(20, G.scale * factor));
    G.tx = px - (px - G.tx) * (s / G.scale);
    G.ty = py - (py - G.ty) * (s / G.scale);
    G.scale = s; G.moved = true;
    draw();
  }
  function localXY(e) { const r = E.canvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
  function bindCanvas() {
    const c = E.canvas;
    c.addEventListener('pointerdown', (e) => {
      const [x, y] = localXY(e);
      G.drag = { x, y, tx: G.tx, ty: G.ty, moved: false };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener('pointermove', (e) => {
      const [x, y] = localXY(e);
      if (G.drag) {
        const dx = x - G.drag.x, dy = y - G.drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 4) G.drag.moved = true;
        if (G.drag.moved) { G.tx = G.drag.tx + dx; G.ty = G.drag.ty + dy; G.moved = true; draw(); }
        return;
      }
      const i = pick(x, y);
      if (i !== G.hover) {
        G.hover = i;
        c.style.cursor = i >= 0 ? 'pointer' : 'grab';
        c.title = i >= 0 ? `${G.nodes[i].title} (${zoneName(G.nodes[i].zone)})` : '';
        draw();
      }
    });
    c.addEventListener('pointerup', (e) => {
      const d = G.drag;
      G.drag = null;
      if (d && !d.moved) {
        const i = pick(...localXY(e));
        if (i >= 0) location.hash = noteHref(G.nodes[i].key);
      }
    });
    c.addEventListener('pointercancel', () => { G.drag = null; });
    c.addEventListener('pointerleave', () => { if (!G.drag && G.hover >= 0) { G.hover = -1; draw(); } });
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const [x, y] = localXY(e);
      zoomAt(x, y, Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015)));
    }, { passive: false });
    const mid = () => [G.w / 2, G.h / 2];
    E.zoomIn.addEventListener('click', () => zoomAt(...mid(), 1.4));
    E.zoomOut.addEventListener('click', () => zoomAt(...mid(), 1 / 1.4));
    E.zoomFit.addEventListener('click', () => { G.moved = false; fitView(); draw(); });
    E.depth.addEventListener('change', () => {
      const r = parseHash();
      if (r.rest) location.hash = '#/graph/' + r.rest + '?depth=' + E.depth.value;
    });
    E.graphListBox.addEventListener('toggle', () => {
      if (E.graphListBox.open && !E.graphList.childElementCount) {
        const sorted = [...G.nodes].sort((a, b) => b.links - a.links || a.title.localeCompare(b.title));
        fill(E.graphList, sorted.map((nd) => h('li', null, noteLink(nd.key, nd.title), ` (${nd.links})`)));
      }
    });
    if (window.ResizeObserver) new ResizeObserver(() => { if (S.view === 'graph') resizeCanvas(); }).observe(E.graphWrap);
    else window.addEventListener('resize', () => { if (S.view === 'graph') resizeCanvas(); });
  }

  // ---- timeline view: recent changes and the undo journal --------------------------
  async function viewTimeline(r, gen) {
    fill(E.recent, h('p', { class: 'muted' }, 'Loading…'));
    E.undoPreview.hidden = true;
    E.journal.before(E.undoPreview); // back from the transaction it was shown under
    fill(E.journalEntries, h('p', { class: 'muted' }, 'Loading…'));
    const [rec, jr, je] = await Promise.all([
      api('recent', { limit: 50 }), api('journal', { limit: 20 }), api('journal-entries', { limit: 30 }).catch((err) => err),
    ]);
    if (gen !== S.gen) return;
    renderRecent(rec);
    renderJournal(jr);
    if (je instanceof Error) fill(E.journalEntries, inlineError(je));
    else renderEntries(je);
  }
  /** The journal notes' dated sections, grouped by day, newest first. */
  function renderEntries(je) {
    const days = new Map();
    for (const e of je.entries || []) {
      const day = String(e.date || '').slice(0, 10) || 'undated';
      if (!days.has(day)) days.set(day, []);
      days.get(day).push(e);
    }
    const out = [];
    for (const [day, entries] of days) {
      out.push(h('h3', { class: 'day' }, h('time', { datetime: day }, day)));
      out.push(h('ul', { class: 'changes entries' }, entries.map((e) => h('li', { class: 'entry' },
        h('a', { href: noteHref(e.key) + (e.heading ? '?anchor=' + encodeURIComponent(anchorOf(e.heading)) : '') }, e.heading || e.title),
        ' ', h('span', { class: 'meta' }, h('span', { class: 'path', text: e.path })),
        e.snippet ? h('p', { class: 'snippet', text: e.snippet }) : null))));
    }
    if (!out.length) out.push(h('p', { class: 'muted' }, 'No journal entries.'));
    fill(E.journalEntries, out);
  }
  /** The id the server gives a heading (web/render.py: "h-" and its words joined by "-"). */
  function anchorOf(heading) {
    const words = String(heading).toLowerCase().match(/[\p{L}\p{N}_]+/gu) || [];
    return 'h-' + (words.join('-').slice(0, 80) || 'section');
  }
  function renderRecent(rec) {
    const days = new Map();
    for (const c of rec.changes || []) {
      const day = String(c.at || '').slice(0, 10) || 'undated';
      if (!days.has(day)) days.set(day, []);
      days.get(day).push(c);
    }
    const out = [];
    for (const [day, changes] of days) {
      out.push(h('h3', { class: 'day' }, h('time', { datetime: day }, day)));
      out.push(h('ul', { class: 'changes' }, changes.map((c) => h('li', { class: 'change', 'data-change': c.change || '' },
        badge(c.change || '?', c.change), ' ', noteLink(c.key, c.title), ' ',
        h('span', { class: 'meta' },
          h('span', { class: 'path', text: c.path }),
          c.previous_path ? h('span', null, 'from ' + c.previous_path) : null,
          h('time', { datetime: c.at }, String(c.at || '').slice(11, 16) + (c.at ? ' UTC' : '')),
          h('span', { class: 'source', text: 'source: ' + (c.source || '?') + (c.operation ? ' · ' + c.operation : '') }),
          c.transaction_id ? h('code', { text: c.transaction_id }) : null)))));
    }
    if (!out.length) out.push(h('p', { class: 'muted' }, 'No changes yet.'));
    if (rec.total > (rec.changes || []).length) out.push(h('p', { class: 'muted' }, `Showing ${(rec.changes || []).length} of ${rec.total} notes.`));
    fill(E.recent, out);
  }
  function renderJournal(jr) {
    const txns = jr.transactions || [];
    fill(E.journal, txns.length ? txns.map((t) => {
      const li = h('li', { class: 'txn', 'data-transaction-id': t.transaction_id });
      const state = badge(t.state || '?', t.state);
      add(li, [
        h('div', { class: 'txn-head' }, h('code', { class: 'txn-id', text: t.transaction_id }), ' ',
          h('strong', { text: t.operation || '?' }), ' ', state),
        h('div', { class: 'meta' }, h('time', { datetime: t.created }, shortTime(t.created))),
        h('ul', { class: 'paths' }, (t.paths || []).map((p) => h('li', null, /^[._]archive\//.test(p) || p.startsWith('.') ? p : noteLink(p, p)))),
        h('button', { type: 'button', class: 'preview-undo', 'data-transaction-id': t.transaction_id,
          onclick: () => previewUndo(t, li, state) }, 'Preview undo'),
      ]);
      return li;
    }) : empty('The journal is empty.'));
  }
  async function previewUndo(t, li, state) {
    const box = E.undoPreview;
    li.append(box);
    box.hidden = false;
    box.dataset.transactionId = t.transaction_id;
    fill(box, h('p', { class: 'muted' }, 'Checking what an undo would restore…'));
    let res;
    try { res = await api('undo', null, { transaction_id: t.transaction_id, confirm: false }); } catch (err) {
      fill(box, inlineError(err)); return;
    }
    const changed = res.changed_since || [];
    const actions = h('div', { class: 'actions' });
    fill(box,
      h('h3', null, 'Undo preview'),
      h('p', null, res.description || t.transaction_id),
      dl([['State', res.state], ['Undoable', res.undoable ? 'yes' : 'no']]),
      h('p', null, 'Would restore:'), h('ul', { class: 'paths' }, (res.paths || []).map((p) => h('li', { text: p }))),
      changed.length ? h('div', { class: 'msg warn' }, 'Changed since this operation: ', changed.map(asText).join(', ')) : null,
      actions);
    if (!res.undoable) { add(actions, h('p', { class: 'muted' }, 'This transaction cannot be undone.')); return; }
    const start = h('button', { type: 'button', class: 'undo' }, 'Undo…');
    add(actions, start);
    start.addEventListener('click', () => {
      fill(actions,
        h('p', { class: 'warn-text' }, `Put back the ${plural((res.paths || []).length, 'file')} above as they were before this ${res.operation || 'operation'}?`),
        h('button', { type: 'button', class: 'confirm-undo danger', onclick: () => doUndo(t, box, state) }, 'Confirm undo'), ' ',
        h('button', { type: 'button', class: 'cancel', onclick: () => { box.hidden = true; } }, 'Cancel'));
      actions.querySelector('.confirm-undo').focus();
    });
  }
  async function doUndo(t, box, state) {
    let res;
    try { res = await api('undo', null, { transaction_id: t.transaction_id, confirm: true }); } catch (err) {
      fill(box, inlineError(err)); return;
    }
    fill(box, h('h3', null, 'Undone'), h('p', null, res.description || t.transaction_id),
      dl([['State', res.state], ['Restored', (res.paths || []).join(', ')]]));
    box.dataset.result = res.state || 'done';
    state.textContent = res.state || 'undone';
    state.className = 'badge badge-' + (res.state || 'undone');
    api('recent', { limit: 50 }).then(renderRecent, showError);
    refreshIndicator();
  }

  // ---- review view -------------------------------------------------------------------
  async function viewReview(r, gen) {
    fill(E.reviewQuestions, h('p', { class: 'muted' }, 'Loading…'));
    fill(E.catalog);
    const [qs, cat] = await Promise.all([api('review/questions'), api('curation/catalog').catch((err) => err)]);
    if (gen !== S.gen) return;
    const list = qs.questions || [];
    fill(E.reviewQuestions, h('p', { class: 'count', 'aria-live': 'polite' }, plural(qs.total != null ? qs.total : list.length, 'open question')),
      list.map(questionCard));
    if (cat instanceof Error) fill(E.catalog, inlineError(cat)); else renderCatalog(cat);
  }
  function questionCard(q) {
    const card = h('article', { class: 'question panel', 'data-question-id': q.id });
    const name = 'answer-' + q.id;
    const ev = q.evidence || {};
    const body = h('textarea', { class: 'merge-body', rows: 10, 'aria-label': 'Merged body (Markdown)' });
    const mergeBox = h('div', { class: 'merge', hidden: true },
      h('p', null, `The merged body replaces the body of ${q.notes && q.notes[0] ? q.notes[0].path : 'the first note'}:`), body,
      q.notes && q.notes[0] ? h('button', { type: 'button', class: 'link-btn', onclick: async () => {
        try { body.value = (await api('note', { key: q.notes[0].key })).text || ''; } catch (err) { showError(err); }
      } }, 'Start from its current text') : null);
    const confirmArea = h('div', { class: 'actions' });
    const result = h('div', { class: 'review-result', 'aria-live': 'polite' });
    const applyBtn = h('button', { type: 'button', class: 'apply', disabled: true }, 'Apply answer…');
    const choices = (q.choices || []).map((c) => h('label', { class: 'choice' },
      h('input', { type: 'radio', name, value: c.id, 'data-needs-body': c.needs_body ? 'true' : null }),
      h('strong', { text: c.id.replace(/_/g, ' ') }), ' — ', c.effect || ''));
    const chosen = () => { const el = card.querySelector(`input[name="${name}"]:checked`); return el && (q.choices || []).find((c) => c.id === el.value); };
    const form = h('fieldset', { class: 'choices' }, h('legend', null, 'Your answer'), choices);
    form.addEventListener('change', () => {
      const c = chosen();
      applyBtn.disabled = !c;
      mergeBox.hidden = !(c && c.needs_body);
      confirmArea.replaceChildren();
    });
    applyBtn.addEventListener('click', () => {
      const c = chosen();
      if (!c) return;
      fill(confirmArea,
        h('p', { class: 'warn-text' }, `This will ${c.effect || c.id}.`),
        h('button', { type: 'button', class: 'confirm-apply danger', onclick: () => applyAnswer(q, c, body.value, card, result, confirmArea) },
          `Confirm: ${c.id.replace(/_/g, ' ')}`), ' ',
        h('button', { type: 'button', class: 'cancel', onclick: () => confirmArea.replaceChildren() }, 'Cancel'));
      confirmArea.querySelector('.confirm-apply').focus();
    });
    add(card,
      h('h3', null, badge(q.kind || '?', q.kind), ' ', q.question || ''),
      h('ul', { class: 'links' }, (q.notes || []).map((n) => h('li', null, noteLink(n.key, n.title), ' ',
        h('span', { class: 'path', text: n.path }), n.protected ? badge('protected: ' + n.protected, 'muted') : null))),
      ev.similarity != null ? h('p', { class: 'meta' }, `Similarity ${Math.round(ev.similarity * 100)}% (${ev.method || '?'})` +
        ((ev.shared_terms || []).length ? '; shared terms: ' + ev.shared_terms.slice(0, 12).join(', ') : '')) : null,
      ev.activation != null ? h('p', { class: 'meta' }, `Activation ${ev.activation}`) : null,
      form, mergeBox, h('div', { class: 'actions' }, applyBtn), confirmArea, result);
    return card;
  }
  async function applyAnswer(q, c, bodyText, card, result, confirmArea) {
    const payload = { question_id: q.id, answer: c.id };
    confirmArea.replaceChildren();
    if (c.needs_body) {
      if (!bodyText.trim()) { fill(result, h('div', { class: 'msg warn' }, 'Write the merged body first.')); return; }
      payload.body = bodyText;
    }
    let res;
    try { res = await api('review/apply', null, payload); } catch (err) { fill(result, inlineError(err)); return; }
    card.querySelectorAll('fieldset input, .apply, textarea').forEach((el) => { el.disabled = true; });
    fill(result, h('div', { class: 'msg ok' },
      h('p', null, `Applied “${res.answer}”: ${res.state}.`),
      dl([['Transaction', res.transaction_id ? h('code', { class: 'transaction-id', text: res.transaction_id }) : 'none (nothing written)'],
        ['Paths', (res.paths || []).join(', ') || '—']]),
      res.transaction_id ? h('button', { type: 'button', class: 'review-undo', onclick: (e) => reviewUndo(res.transaction_id, result, e.target) }, 'Undo this review') : null));
  }
  async function reviewUndo(id, result, btn) {
    btn.disabled = true;
    let res;
    try { res = await api('review/undo', null, { transaction_id: id }); } catch (err) { btn.disabled = false; add(result, inlineError(err)); return; }
    add(result, h('div', { class: 'msg ok undone' }, `Undone (${res.state}): ${(res.paths || []).join(', ')}. List the questions again to answer anew.`,
      ' ', h('a', { href: '#/review', onclick: (e) => { e.preventDefault(); route(); } }, 'Reload questions')));
  }
  function renderCatalog(cat) {
    const stale = cat.stale || [], dups = cat.duplicates || [];
    const pathLink = (p) => h('li', null, noteLink(p, p));
    fill(E.catalog,
      dl([['Active notes', cat.active_notes], ['Archive cap per pass', cat.archive_cap],
        ['Zones', (cat.zones || []).length], ['Notes listed', (cat.notes || []).length + (cat.notes_truncated ? ` (${cat.notes_truncated} more not listed)` : '')]]),
      h('details', { class: 'cat-stale' }, h('summary', null, `Stale candidates (${stale.length})`),
        h('ul', { class: 'links cols' }, stale.length ? stale.slice(0, 200).map((p) => pathLink(typeof p === 'string' ? p : p.path)) : empty())),
      h('details', { class: 'cat-dups', open: dups.length > 0 && dups.length <= 20 }, h('summary', null, `Duplicate candidates (${dups.length})`),
        h('ul', { class: 'links' }, dups.length ? dups.slice(0, 100).map((d) => h('li', null, noteLink(d.a, d.a), ' ↔ ', noteLink(d.b, d.b),
          d.similarity != null ? ` (${Math.round(d.similarity * 100)}%)` : '')) : empty())));
  }

  // ---- status view -------------------------------------------------------------------
  async function viewStatus(r, gen) {
    fill(E.statusBody, h('p', { class: 'muted' }, 'Loading…'));
    fill(E.capacity);
    const [st, cap] = await Promise.all([api('status'), api('capacity').catch((err) => err)]);
    if (gen !== S.gen) return;
    updateIndicator(st);
    const idx = st.index || {};
    const warnList = (items) => (items && items.length ? h('ul', { class: 'warnings' }, items.map((w) => h('li', { text: asText(w) }))) : 'none');
    const zones = Object.entries(st.zones || {});
    fill(E.statusBody,
      dl([['Vault', st.vault], ['Notes', st.notes], ['Archived', st.archived], ['Skipped', st.skipped],
        ['Sections', st.sections], ['Terms', st.terms],
        ['Search mode', h('span', { 'data-mode': st.mode || '' }, st.mode || '?')], ['Degraded reason', st.degraded_reason || 'none'],
        ['Index', h('span', { class: 'fresh-' + (idx.fresh ? 'yes' : 'no'), 'data-fresh': String(!!idx.fresh) }, idx.fresh ? 'fresh' : 'stale')],
        ['Built at', shortTime(idx.built_at)], ['Checked at', shortTime(idx.checked_at)],
        ['Staleness window', idx.staleness_window_s != null ? idx.staleness_window_s + ' s' : '—'],
        ['Stale files', idx.stale_files], ['Updated at', shortTime(st.updated_at)],
        ['Cache', st.cache ? `${st.cache.bytes} bytes` : undefined],
        ['Warnings', warnList(st.warnings)], ['Engine warnings', warnList(st.engine_warnings)],
        ['Recovered', warnList(st.recovered)]]),
      h('h2', null, 'Zones'),
      h('table', { class: 'grid' }, h('thead', null, h('tr', null, h('th', null, 'Zone'), h('th', null, 'Notes'))),
        h('tbody', null, zones.map(([z, n]) => h('tr', null, h('td', null, z ? h('a', { href: '#/search?zone=' + encodeURIComponent(z) }, z) : '(root)'), h('td', null, String(n)))))));
    if (cap instanceof Error) { fill(E.capacity, inlineError(cap)); return; }
    const rows = Object.entries(cap).filter(([, v]) => v && typeof v === 'object' && !Array.isArray(v) && 'count' in v);
    fill(E.capacity,
      h('table', { class: 'grid' }, h('thead', null, h('tr', null, ['Budget', 'Count', 'Limit', 'Over'].map((t) => h('th', null, t)))),
        h('tbody', null, rows.map(([k, v]) => h('tr', { class: v.over ? 'over' : null },
          h('td', null, k.replace(/_/g, ' ')), h('td', null, String(v.count)), h('td', null, v.budget == null ? 'none' : String(v.budget)),
          h('td', null, v.over ? 'over' : 'ok'))))),
      h('p', null, 'Over budget: ', (cap.over_budget || []).join(', ') || 'none'),
      (cap.retire_candidates || []).length ? [h('p', null, 'Retire candidates:'), h('ul', { class: 'links' }, cap.retire_candidates.map((p) => h('li', null, noteLink(p, p))))] : null);
  }

  const HANDLERS = { search: viewSearch, note: viewNote, graph: viewGraph, timeline: viewTimeline, review: viewReview, status: viewStatus };

  // ---- start -----------------------------------------------------------------------------
  try { applyTheme(localStorage.getItem(THEME_KEY)); } catch (_) { applyTheme(null); }
  async function start() {
    const ids = ['error', 'login', 'token', 'main', 'q', 'zone', 'labels', 'since', 'until', 'filters', 'verdict', 'count', 'results',
      'pager', 'note', 'outline', 'backlinks', 'outbound', 'unresolved', 'neighbours', 'depth', 'timeline', 'recent', 'journal',
      'catalog', 'capacity', 'indicator'];
    for (const id of ids) E[id] = $(id);
    Object.assign(E, {
      indicatorText: $('indicator-text'), themeToggle: $('theme-toggle'), loginError: $('login-error'), sessionInfo: $('session-info'), arch: $('include-archive'),
      searchForm: $('search-form'), weakBlock: $('weak-block'), weakResults: $('weak-results'), pageInfo: $('page-info'),
      prev: $('prev-page'), next: $('next-page'), noteTitle: $('note-title'), noteMeta: $('note-meta'), noteBody: $('note-body'),
      outlineBox: $('outline-box'), graphLink: $('graph-link'), canvas: $('graph-canvas'), graphWrap: $('graph-wrap'),
      graphInfo: $('graph-info'), depthLabel: $('depth-label'), graphWhole: $('graph-whole'), legend: $('graph-legend'),
      graphList: $('graph-list'), graphListBox: $('graph-list-box'), zoomIn: $('zoom-in'), zoomOut: $('zoom-out'), zoomFit: $('zoom-fit'),
      undoPreview: $('undo-preview'), journalEntries: $('journal-entries'), reviewQuestions: $('review-questions'), statusBody: $('status-body'),
      views: [...document.querySelectorAll('section.view')], navLinks: [...document.querySelectorAll('#nav a')],
    });
    applyTheme(document.documentElement.dataset.theme);
    E.themeToggle.addEventListener('click', toggleTheme);
    if (window.matchMedia) window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme(document.documentElement.dataset.theme));
    E.login.addEventListener('submit', login);
    E.searchForm.addEventListener('submit', (e) => {
      e.preventDefault();
      clearTimeout(typingTimer);
      // old hits must not be picked while the new ones load
      E.results.replaceChildren(); E.weakResults.replaceChildren(); setSel(-1);
      E.count.textContent = 'Searching…';
      const target = searchHash(readFilters());
      if (location.hash !== target) location.hash = target; else searchNow();
    });
    E.q.addEventListener('input', () => { clearTimeout(typingTimer); typingTimer = setTimeout(searchNow, 250); });
    E.labels.addEventListener('input', () => { clearTimeout(typingTimer); typingTimer = setTimeout(searchNow, 400); });
    for (const el of [E.zone, E.since, E.until, E.arch]) el.addEventListener('change', searchNow);
    E.prev.addEventListener('click', () => gotoPage(-1));
    E.next.addEventListener('click', () => gotoPage(1));
    E.note.addEventListener('click', onNoteClick);
    document.addEventListener('keydown', onKey);
    window.addEventListener('hashchange', route);
    bindCanvas();
    setInterval(refreshIndicator, 60000);
    let session = null;
    try { session = await loadSession(); } catch (err) { showError(err); }
    if (session && session.auth === 'token' && session.authenticated === false) { showLogin(); return; }
    route();
    refreshIndicator();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
})();
