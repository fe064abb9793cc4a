// SPDX-License-Identifier: BSD-2-Clause
// ocs-web's page: four views of what ocsd knows, drawn from ocsctl -j's
// JSON (the feed at /events and /api/...), plain JavaScript, no library.
// window.ocs keeps what each view last drew (tests and bench_web read
// it): ocs.rendered[view] = ms from navigation to its first render,
// ocs.painted[view] the frame after it, ocs.drawMs[view] the draw alone,
// ocs.matrixAt the wall clock (ms) the matrix last changed on the page.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const snap = fetch('/api/snap').then((r) => r.json());
  const ocs = (window.ocs = { state: {}, rendered: {}, painted: {}, drawMs: {}, events: [],
    lastEventMs: 0, live: null, runShown: null });
  let view = 'switch';
  let zoom = 0;              // matrix cell pixels; 0: fit
  let cursor = { r: 0, c: 0 };
  let ports = null;          // /api/ports, for power and failed
  let portsAsked = 0;

  // ---- formatting ---------------------------------------------------------
  function fmtTime(s) {
    if (s === undefined || s === null || isNaN(s)) return '-';
    const a = Math.abs(s);
    if (a >= 1) return s.toFixed(3) + ' s';
    if (a >= 1e-3) return (s * 1e3).toFixed(3) + ' ms';
    return (s * 1e6).toFixed(3) + ' µs';
  }
  function fmtSize(b) {
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (b >= 1024 && i < u.length - 1 && b % 1024 === 0) { b /= 1024; i++; }
    return b + ' ' + u[i];
  }
  function cell(tr, text, v, cls) {
    const td = document.createElement('td');
    td.textContent = text;
    if (v !== undefined) td.dataset.v = String(v);
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }
  // One collator for every comparison: localeCompare with options makes
  // one a call (a 512-circuit sort took ~100 ms of the Switch page).
  const collator = new Intl.Collator(undefined, { numeric: true });
  function natural(a, b) {
    return collator.compare(String(a), String(b));
  }
  function done(v, t0) {
    if (ocs.rendered[v] === undefined) {
      ocs.rendered[v] = performance.now();
      ocs.drawMs[v] = performance.now() - t0;
      // Painted: the frame that shows it has been made.
      requestAnimationFrame(() => setTimeout(() => { ocs.painted[v] = performance.now(); }, 0));
    }
    document.body.dataset['ready' + v] = '1';
  }

  // ---- the feed ------------------------------------------------------------
  // Every snapshot at once, from ocs-web's memory (index.html preloads it
  // while app.js comes): the first draw waits for neither the script nor
  // the event stream.  The stream's own snapshots, when first, win.
  function onState(k) {
    if (k === 'show') { askPorts(); if (view === 'switch') drawSwitch(); }
    if (k === 'agents' && view === 'agents') drawAgents();
    if (k === 'runs' && view === 'runs') drawRuns();
    if (k === 'status') drawLive();
  }
  function applySnap(o) {
    ['show', 'status', 'agents', 'runs'].forEach((k) => {
      if (o[k] === undefined || ocs.state[k] !== undefined) return;
      ocs.state[k] = o[k];
      onState(k);
    });
  }

  function connect() {
    const es = new EventSource('/events');
    // A page left (into the back/forward cache) gives its connection
    // back: a browser has six for this host and each page's stream
    // holds one.  Coming back, it connects again.
    window.addEventListener('pagehide', () => es.close(), { once: true });
    const conn = $('conn');
    es.onopen = () => { conn.textContent = 'live'; conn.className = ''; };
    es.onerror = () => { conn.textContent = 'reconnecting…'; conn.className = 'bad'; };
    ['show', 'status', 'agents', 'runs'].forEach((k) =>
      es.addEventListener(k, (e) => {
        ocs.state[k] = JSON.parse(e.data);
        ocs.lastEventMs = Date.now();
        onState(k);
      }));
    es.addEventListener('ocsd', (e) => {
      const o = JSON.parse(e.data);
      conn.textContent = o.error ? 'ocsd: ' + o.error : 'live';
      conn.className = o.error ? 'bad' : '';
    });
    es.addEventListener('events', (e) => {
      const o = JSON.parse(e.data);
      (o.events || []).forEach(onEvent);
    });
  }

  function onEvent(ev) {
    ocs.events.push(ev);
    if (ocs.events.length > 500) ocs.events.shift();
    ocs.lastEventMs = Date.now();
    if (ev.kind === 'run') {
      if (ev.what === 'started')
        ocs.live = { run_id: ev.run_id, t0: ev.unix_ms, phases: [], text: ev.text };
      else if (ev.what === 'phase' && ocs.live && ocs.live.run_id === ev.run_id)
        ocs.live.phases.push({ phase: ev.phase, ms: ev.unix_ms });
      else if (ev.what === 'finished') {
        if (ocs.live && ocs.live.run_id === ev.run_id) ocs.live.ended = ev.text;
        showRun(ev.run_id);
      }
      drawLive();
    }
    if (ev.kind === 'switch' && ev.what === 'circuits') drawReconfs();
  }

  // ---- the switch ------------------------------------------------------------
  // The switch read, at most every 2 s a page (ocs-web answers every
  // page from one reading that young: ocsd is asked as for one page).
  function askPorts() {
    const now = Date.now();
    if (now - portsAsked < 2000) return;
    portsAsked = now;
    fetch('/api/ports').then((r) => r.json()).then((o) => {
      if (o.ports) { ports = o.ports; if (view === 'switch') drawSwitch(); }
    }).catch(() => {});
  }

  function geometry() {
    const sw = (ocs.state.show || {}).switch || {};
    const n = sw.ports || 0;
    const m = sw.egress || n;
    return { n, m };
  }

  function matrixData() {
    const show = ocs.state.show || {};
    const { n, m } = geometry();
    const live = new Map(), want = new Map();
    (show.live || []).forEach((p) => live.set(p.in, p.out - n));
    (show.desired || []).forEach((p) => want.set(p.in, p.out - n));
    const trx = new Map();
    (show.cabling || []).forEach((t) => { trx.set('i' + t.in, t.name); trx.set('o' + t.out, t.name); });
    const pinfo = new Map();
    (ports || []).forEach((p) => pinfo.set(p.port, p));
    return { n, m, live, want, trx, pinfo };
  }

  function portMark(d, port) {
    const p = d.pinfo.get(port);
    if (!p) return '';
    if (p.failed) return 'failed';
    // Dark: a transmitter cabled to an ingress sends no light, or a
    // patched egress gets none (an unpatched egress is dark by design).
    const lit = p.dbm !== null && p.dbm !== undefined && p.dbm > -40;
    if (port <= d.n && d.trx.has('i' + port) && !lit) return 'dark';
    if (port > d.n && p.peer && !lit) return 'dark';
    return '';
  }

  function drawSwitch() {
    const t0 = performance.now();
    const show = ocs.state.show;
    if (!show) return;
    const d = matrixData();
    const sw = show.switch || {};
    $('sw-summary').textContent = `${sw.driver} ${sw.address}: ` +
      (sw.connected ? 'connected' : 'NOT CONNECTED') +
      `, ${d.n}×${d.m}, ` + (show.in_sync === undefined ? 'map unknown'
        : show.in_sync ? 'in sync with the desired map' : 'DIVERGED from the desired map');
    const cv = $('matrix');
    const fit = Math.max(1, Math.min(24, Math.floor(Math.min(900, window.innerWidth - 80) / Math.max(1, d.m + 4))));
    const px = zoom || fit;
    const pad = 12;
    cv.width = pad + d.m * px + 1;
    cv.height = pad + d.n * px + 1;
    cv.dataset.px = px;
    cv.dataset.pad = pad;
    $('zoom-level').textContent = `${px} px a port`;
    const g = cv.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, cv.width, cv.height);
    if (px >= 4) {
      g.strokeStyle = '#e3e3e3';
      g.beginPath();
      for (let i = 0; i <= d.n; i++) { g.moveTo(pad, pad + i * px + 0.5); g.lineTo(pad + d.m * px, pad + i * px + 0.5); }
      for (let j = 0; j <= d.m; j++) { g.moveTo(pad + j * px + 0.5, pad); g.lineTo(pad + j * px + 0.5, pad + d.n * px); }
      g.stroke();
    }
    // Ports marked on the axes: failed red, dark grey.
    const marked = [];
    for (let i = 1; i <= d.n; i++) {
      const k = portMark(d, i);
      if (k) { g.fillStyle = k === 'failed' ? '#c00000' : '#333'; g.fillRect(0, pad + (i - 1) * px, pad - 2, px); marked.push([i, k]); }
    }
    for (let j = 1; j <= d.m; j++) {
      const k = portMark(d, d.n + j);
      if (k) { g.fillStyle = k === 'failed' ? '#c00000' : '#333'; g.fillRect(pad + (j - 1) * px, 0, px, pad - 2); marked.push([d.n + j, k]); }
    }
    const drift = [];
    const s = Math.max(1, px - (px >= 4 ? 1 : 0));
    d.live.forEach((out, inp) => {
      const ok = d.want.get(inp) === out;
      g.fillStyle = ok ? '#1b7a2f' : '#e07b00';
      g.fillRect(pad + (out - 1) * px + (px >= 4 ? 1 : 0), pad + (inp - 1) * px + (px >= 4 ? 1 : 0), s, s);
      if (!ok) drift.push([inp, out + d.n, 'only on the switch']);
    });
    d.want.forEach((out, inp) => {
      if (d.live.get(inp) === out) return;
      g.strokeStyle = '#c00000';
      g.lineWidth = Math.max(1, px / 4);
      g.strokeRect(pad + (out - 1) * px, pad + (inp - 1) * px, px, px);
      drift.push([inp, out + d.n, 'only in the desired map']);
    });
    // The keyboard's cursor.
    if (document.activeElement === cv) {
      g.strokeStyle = '#b3470a';
      g.lineWidth = 2;
      g.strokeRect(pad + cursor.c * px - 1, pad + cursor.r * px - 1, px + 2, px + 2);
    }
    // Tables: circuits, drift, ports marked.
    const tb = $('circuits').tBodies[0];
    tb.textContent = '';
    (show.circuits || []).slice().sort((a, b) => natural(a.a, b.a)).forEach((c) => {
      const tr = tb.insertRow();
      cell(tr, c.a); cell(tr, c.complete ? '↔' : '→'); cell(tr, c.b);
    });
    const db = $('drift').tBodies[0];
    db.textContent = '';
    drift.forEach(([i, o, w]) => { const tr = db.insertRow(); cell(tr, i); cell(tr, o); cell(tr, w); });
    const ml = $('marked');
    ml.textContent = '';
    marked.slice(0, 50).forEach(([p, k]) => {
      const li = document.createElement('li');
      li.textContent = `port ${p} (${d.trx.get((p <= d.n ? 'i' : 'o') + p) || 'not cabled'}): ${k}`;
      ml.appendChild(li);
    });
    if (!marked.length) ml.innerHTML = '<li>none</li>';
    drawReconfs();
    const key = [...d.live].join(';');
    if (!ocs.matrix || ocs.matrix.key !== key) ocs.matrixAt = Date.now();
    ocs.matrix = { live: d.live.size, desired: d.want.size, drift: drift.length, key };
    done('switch', t0);
  }

  function drawReconfs() {
    const ol = $('reconfs');
    ol.textContent = '';
    ocs.events.filter((e) => e.kind === 'switch').slice(-10).reverse().forEach((e) => {
      const li = document.createElement('li');
      li.textContent = new Date(e.unix_ms).toLocaleTimeString() + '.' +
        String(e.unix_ms % 1000).padStart(3, '0') + ' ' + e.what + ': ' + (e.text || '');
      ol.appendChild(li);
    });
    if (!ol.children.length) ol.innerHTML = '<li>none since ocs-web started</li>';
  }

  function describe(r, c) {
    const d = matrixData();
    if (r < 0 || c < 0 || r >= d.n || c >= d.m) return '';
    const inp = r + 1, out = d.n + c + 1;
    const pi = d.pinfo.get(inp), po = d.pinfo.get(out);
    const pw = (p) => (p && p.dbm !== null && p.dbm !== undefined ? p.dbm.toFixed(1) + ' dBm' : 'no reading') + (p && p.failed ? ', FAILED' : '');
    const l = d.live.get(inp) === c + 1, w = d.want.get(inp) === c + 1;
    return `ingress ${inp} (${d.trx.get('i' + inp) || 'not cabled'} TX, in ${pw(pi)})\n` +
      `egress ${out} (${d.trx.get('o' + out) || 'not cabled'} RX, out ${pw(po)})\n` +
      (l && w ? 'patched, as desired' : l ? 'patched, NOT in the desired map (drift)'
        : w ? 'desired, NOT on the switch (drift)' : 'not patched');
  }

  function matrixEvents() {
    const cv = $('matrix'), tip = $('tip');
    cv.addEventListener('mousemove', (e) => {
      const px = +cv.dataset.px, pad = +cv.dataset.pad;
      const rc = cv.getBoundingClientRect();
      const c = Math.floor((e.clientX - rc.left - pad) / px), r = Math.floor((e.clientY - rc.top - pad) / px);
      const t = describe(r, c);
      if (!t) { tip.hidden = true; return; }
      tip.textContent = t;
      tip.hidden = false;
      tip.style.left = (e.offsetX + 14) + 'px';
      tip.style.top = (e.offsetY + 14) + 'px';
    });
    cv.addEventListener('mouseleave', () => { tip.hidden = true; });
    cv.addEventListener('keydown', (e) => {
      const { n, m } = geometry();
      const step = e.shiftKey ? 10 : 1;
      if (e.key === 'ArrowUp') cursor.r = Math.max(0, cursor.r - step);
      else if (e.key === 'ArrowDown') cursor.r = Math.min(n - 1, cursor.r + step);
      else if (e.key === 'ArrowLeft') cursor.c = Math.max(0, cursor.c - step);
      else if (e.key === 'ArrowRight') cursor.c = Math.min(m - 1, cursor.c + step);
      else if (e.key === '+' || e.key === '=') { setZoom(1); return; }
      else if (e.key === '-') { setZoom(-1); return; }
      else return;
      e.preventDefault();
      $('cell-info').textContent = describe(cursor.r, cursor.c);
      drawSwitch();
    });
    cv.addEventListener('focus', drawSwitch);
    cv.addEventListener('wheel', (e) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      setZoom(e.deltaY < 0 ? 1 : -1);
    }, { passive: false });
    $('zoom-in').addEventListener('click', () => setZoom(1));
    $('zoom-out').addEventListener('click', () => setZoom(-1));
  }

  function setZoom(dir) {
    const cur = +$('matrix').dataset.px || 2;
    zoom = Math.max(1, Math.min(32, dir > 0 ? cur * 2 : Math.floor(cur / 2)));
    drawSwitch();
  }

  // ---- agents ---------------------------------------------------------------
  const agCols = [
    ['agent_id', 'id'], ['host', 'host'], ['transceivers', 'trx'],
    ['state', 'state'], ['fibres_up', 'fibres'], ['transport', 'transport'],
    ['seen_ms_ago', 'heard'], ['link', 'link'], ['down', 'transceivers down'],
  ];
  let agSort = { key: 'host', dir: 1 };
  let agRows = [];
  const ROW = 28;

  function agentsHead() {
    const h = $('ag-head');
    agCols.forEach(([k, label]) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = label;
      b.dataset.key = k;
      b.setAttribute('role', 'columnheader');
      b.addEventListener('click', () => {
        agSort = { key: k, dir: agSort.key === k ? -agSort.dir : 1 };
        drawAgents();
      });
      h.appendChild(b);
    });
    $('ag-filter').addEventListener('input', drawAgents);
    $('ag-body').addEventListener('scroll', paintAgents);
  }

  function trxState(a) {
    if (a.state === 'lost') return 'lost';
    const up = a.fibres_up === undefined ? a.transceivers : a.fibres_up;
    if (a.down) return `${up}/${a.transceivers} up, ` + (/carrier/.test(a.down) ? 'no carrier' : 'down');
    return up < a.transceivers ? `${up}/${a.transceivers} up, dark` : `${up}/${a.transceivers} up`;
  }

  function drawAgents() {
    const t0 = performance.now();
    const all = (ocs.state.agents || {}).agents || [];
    const f = $('ag-filter').value.trim().toLowerCase();
    agRows = all.filter((a) => !f || [a.host, a.state, a.transport, a.ifaces, a.down, trxState(a)]
      .some((v) => v && String(v).toLowerCase().includes(f)));
    const { key, dir } = agSort;
    agRows.sort((a, b) => dir * (typeof a[key] === 'number' ? (a[key] || 0) - (b[key] || 0) : natural(a[key] || '', b[key] || '')));
    $('ag-count').textContent = `${agRows.length} of ${all.length} agents`;
    $('ag-spacer').style.height = agRows.length * ROW + 'px';
    document.querySelectorAll('#ag-head button').forEach((b) =>
      b.setAttribute('aria-sort', b.dataset.key === key ? (dir > 0 ? 'ascending' : 'descending') : 'none'));
    paintAgents();
    done('agents', t0);
  }

  // Only the rows in sight are in the page: 1 000 agents draw as 30.
  function paintAgents() {
    const body = $('ag-body');
    const first = Math.floor(body.scrollTop / ROW);
    const count = Math.ceil(body.clientHeight / ROW) + 2;
    body.querySelectorAll('.vrow').forEach((r) => r.remove());
    for (let i = first; i < Math.min(agRows.length, first + count); i++) {
      const a = agRows[i];
      const row = document.createElement('div');
      row.className = 'vrow';
      row.setAttribute('role', 'row');
      row.style.top = i * ROW + 'px';
      row.dataset.host = a.host;
      row.dataset.state = a.state;
      const vals = [a.agent_id, a.host, a.transceivers, a.state, trxState(a),
        (a.transport || '-') + (a.ifaces ? ' ' + a.ifaces : ''),
        a.seen_ms_ago === undefined ? '-' : (a.seen_ms_ago / 1000).toFixed(1) + ' s ago',
        a.link ? 'attached' : 'not attached', a.down || ''];
      vals.forEach((v, k) => {
        const s = document.createElement('span');
        s.setAttribute('role', 'cell');
        s.textContent = String(v);
        if (k === 3) s.className = 'st-' + a.state;
        if (k === 4 && /dark|down|carrier/.test(v)) s.className = 'dark';
        row.appendChild(s);
      });
      body.appendChild(row);
    }
  }

  // ---- runs -----------------------------------------------------------------
  function drawRuns() {
    const t0 = performance.now();
    const runs = ((ocs.state.runs || {}).runs || []).slice().reverse();
    const tb = $('runs').tBodies[0];
    tb.textContent = '';
    runs.slice(0, 200).forEach((r) => {
      const tr = tb.insertRow();
      tr.tabIndex = 0;
      tr.dataset.run = r.run_id;
      tr.setAttribute('aria-selected', String(ocs.runShown === r.run_id));
      cell(tr, r.run_id, r.run_id);
      cell(tr, r.started_unix_ms ? new Date(r.started_unix_ms).toLocaleString() : '-');
      cell(tr, r.algo); cell(tr, r.nodes, r.nodes); cell(tr, fmtSize(r.bytes), r.bytes);
      cell(tr, fmtTime(r.total_s), r.total_s); cell(tr, fmtTime(r.predicted_s), r.predicted_s);
      cell(tr, r.aborted ? r.aborted : r.errors ? 'ERRORS' : 'verified', undefined, r.aborted || r.errors ? 'bad' : '');
      const go = () => showRun(r.run_id);
      tr.addEventListener('click', go);
      tr.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); go(); } });
    });
    if (ocs.runShown === null && runs.length) showRun(runs[0].run_id);
    done('runs', t0);
  }

  function drawLive() {
    const el = $('live-run');
    const st = ocs.state.status || {};
    const L = ocs.live;
    if (L && !L.ended) {
      const last = L.phases.length ? L.phases[L.phases.length - 1].phase : '-';
      el.textContent = `run ${L.run_id} in progress: ${L.text}; phase ${last} released, ` +
        `${L.phases.length} barriers, ${((Date.now() - L.t0) / 1000).toFixed(1)} s`;
      el.dataset.run = L.run_id;
      el.dataset.phase = last;
      drawLiveBar();
    } else {
      el.textContent = st.message ? st.message : L ? `run ${L.run_id} ${L.ended}` : 'no run in progress';
      el.dataset.run = L ? L.run_id : '';
    }
  }

  // A running run: its phases as they are released, on the timeline.
  function drawLiveBar() {
    if (view !== 'runs' || !ocs.live) return;
    const L = ocs.live, cv = $('timeline');
    const now = Date.now(), span = Math.max(1000, now - L.t0);
    cv.width = Math.max(600, Math.min(1400, window.innerWidth - 60));
    cv.height = 60;
    const g = cv.getContext('2d');
    g.fillStyle = '#fff'; g.fillRect(0, 0, cv.width, cv.height);
    const x = (ms) => 10 + (ms - L.t0) / span * (cv.width - 20);
    g.fillStyle = '#2f6fb5'; g.fillRect(10, 20, x(now) - 10, 20);
    g.fillStyle = '#111'; g.font = '12px sans-serif';
    L.phases.forEach((p) => { g.fillRect(x(p.ms), 12, 2, 36); g.fillText(String(p.phase), x(p.ms) + 3, 12); });
    $('tl-title').textContent = `Timeline of run ${L.run_id} (running)`;
  }

  function showRun(id) {
    ocs.runShown = id;
    fetch('/api/runs/' + id).then((r) => r.json()).then((o) => {
      if (!o.report) return;
      ocs.report = o.report;
      drawTimeline(o.report);
      document.querySelectorAll('#runs tbody tr').forEach((tr) =>
        tr.setAttribute('aria-selected', String(tr.dataset.run === String(id))));
    }).catch(() => {});
  }

  function drawTimeline(rep) {
    const t0 = performance.now();
    const ph = rep.phases || [], tl = (rep.timeline || []).slice().sort((a, b) => a.node - b.node);
    // Phase k starts after its reconfiguration (dark) and ends with its
    // slowest agent; waits end where the phase starts.
    const starts = [];
    let t = 0;
    const setup = Math.max(0, ...tl.map((a) => a.setup_s || 0));
    t = setup;
    ph.forEach((p) => {
      const rc = p.reconfigured ? p.reconf_s : 0;
      starts.push({ reconf0: t, start: t + rc, end: t + rc + p.data_s + (p.control_s || 0) });
      t = t + rc + p.data_s + (p.control_s || 0);
    });
    const total = Math.max(t, 1e-9);
    const cv = $('timeline');
    const rowH = tl.length > 40 ? 6 : 14;
    const left = rowH >= 14 ? 60 : 10;
    cv.width = Math.max(600, Math.min(1400, window.innerWidth - 60));
    cv.height = 24 + tl.length * rowH + 10;
    const W = cv.width - left - 10;
    const X = (s) => left + (s / total) * W;
    const g = cv.getContext('2d');
    g.fillStyle = '#fff'; g.fillRect(0, 0, cv.width, cv.height);
    g.fillStyle = '#e8c0c0';
    starts.forEach((s) => { if (s.start > s.reconf0) g.fillRect(X(s.reconf0), 18, Math.max(1, X(s.start) - X(s.reconf0)), cv.height - 18); });
    // The slowest agent of each phase.
    const slow = ph.map((p, k) => {
      let best = null, bv = -1;
      tl.forEach((a) => { const q = (a.phases || [])[k]; if (q && q.data_s > bv) { bv = q.data_s; best = a.host; } });
      return best;
    });
    // Colour by colour: a fill style set per rectangle (four for each
    // of 20 000 phase times) cost half the draw; rectangles stay
    // rectangles (one Path2D of them all was slower still to paint).
    const rects = { setup: [], wait: [], data: [], verify: [], slow: [] };
    g.fillStyle = '#111'; g.font = '11px sans-serif';
    tl.forEach((a, i) => {
      const y = 22 + i * rowH, h = rowH - 2;
      if (left > 10) g.fillText(a.host, 2, y + h - 2);
      rects.setup.push(X(0), y, Math.max(1, X(a.setup_s || 0) - X(0)), h);
      (a.phases || []).forEach((q, k) => {
        const s = starts[k];
        if (!s) return;
        const w0 = X(Math.max(0, s.reconf0 - q.wait_s));
        rects.wait.push(w0, y, Math.max(1, X(s.reconf0) - w0), h);
        const d0 = X(s.start), d1 = X(s.start + q.data_s);
        rects.data.push(d0, y, Math.max(1, d1 - d0), h);
        const v0 = X(s.start + q.data_s - q.verify_s);
        if (d1 > v0) rects.verify.push(v0, y, d1 - v0, h);
        if (slow[k] === a.host && rowH >= 6) rects.slow.push(d0, y, Math.max(2, d1 - d0), h);
      });
    });
    [['setup', '#8a8a8a'], ['wait', '#f0c24a'], ['data', '#2f6fb5'], ['verify', '#8fb6e3']].forEach(([k, c]) => {
      const r = rects[k];
      g.fillStyle = c;
      for (let i = 0; i < r.length; i += 4) g.fillRect(r[i], r[i + 1], r[i + 2], r[i + 3]);
    });
    g.strokeStyle = '#c00000'; g.lineWidth = 1.5;
    for (let i = 0; i < rects.slow.length; i += 4) g.strokeRect(rects.slow[i], rects.slow[i + 1], rects.slow[i + 2], rects.slow[i + 3]);
    g.fillStyle = '#000';
    ph.forEach((p, k) => { const s = starts[k]; g.fillRect(X(s.start + p.predicted_s), 16, 2, cv.height - 16); });
    g.font = '12px sans-serif';
    g.fillText(`run ${rep.run_id}: ${rep.algo}, ${rep.nodes} nodes, ${fmtSize(rep.bytes)}; total ${fmtTime(rep.total_s)}, model ${fmtTime(rep.predicted_s)}`, left, 12);
    $('tl-title').textContent = `Timeline of run ${rep.run_id}`;
    const tb = $('phases').tBodies[0];
    tb.textContent = '';
    ph.forEach((p, k) => {
      const tr = tb.insertRow();
      tr.dataset.phase = p.phase;
      cell(tr, p.phase, p.phase);
      cell(tr, p.reconfigured ? fmtTime(p.reconf_s) : '-', p.reconf_s);
      cell(tr, fmtTime(p.data_s), p.data_s);
      cell(tr, p.reconfigured ? fmtTime(p.barrier_s) : '-', p.barrier_s);
      cell(tr, fmtTime(p.predicted_s), p.predicted_s);
      cell(tr, slow[k] || '-');
    });
    done('timeline', t0);
  }

  // ---- plans and sweeps -----------------------------------------------------
  let sweepRows = [];

  function loadPlans() {
    fetch('/api/plans').then((r) => r.json()).then((list) => {
      const s = $('plan-pick');
      s.textContent = '';
      list.forEach((p) => s.add(new Option(p.name, p.n)));
      if (list.length) pickPlan();
    }).catch(() => {});
    fetch('/api/sweeps').then((r) => r.json()).then((list) => {
      const s = $('sweep-pick');
      s.textContent = '';
      list.forEach((p) => s.add(new Option(p.name, p.n)));
      if (list.length) pickSweep();
      else done('plans', performance.now());
    }).catch(() => {});
  }

  function pickPlan() {
    fetch('/api/plan?n=' + $('plan-pick').value).then((r) => r.json()).then(drawPlan).catch(() => {});
  }

  // Phases of circuits: a column a phase, nodes on a circle, a chord a
  // transfer (relayed ones dashed), set or reused said.
  function drawPlan(p) {
    const list = p.phase_list || [];
    $('plan-info').textContent = `${p.algo}: ${p.nodes} nodes, ${list.length} phases, ` +
      `reconfigure before ${(p.reconfigure_before || []).join(',') || '-'}; model ${fmtTime(p.predicted_s)}` +
      (list.length ? '' : ' (no phase_list: ocs-plan --json --phases)');
    const cv = $('plan');
    const R = 70, cw = 2 * R + 30;
    cv.width = Math.max(300, list.length * cw + 20);
    cv.height = 2 * R + 60;
    const g = cv.getContext('2d');
    g.fillStyle = '#fff'; g.fillRect(0, 0, cv.width, cv.height);
    const n = p.nodes || 1;
    list.forEach((ph, k) => {
      const cx = 10 + k * cw + cw / 2, cy = R + 30;
      const pt = (i) => [cx + R * Math.cos(2 * Math.PI * i / n - Math.PI / 2), cy + R * Math.sin(2 * Math.PI * i / n - Math.PI / 2)];
      g.fillStyle = '#111'; g.font = '12px sans-serif';
      g.fillText(`phase ${ph.phase !== undefined ? ph.phase : k}` + (ph.circuits ? ' (' + ph.circuits + ')' : ''), cx - R, 14);
      (ph.transfers || ph.nodes || []).forEach((t) => {
        (t.transfers || [t]).forEach((x) => {
          const src = x.src !== undefined ? x.src : t.node, dst = x.dst !== undefined ? x.dst : x.peer;
          if (src === undefined || dst === undefined) return;
          const [x1, y1] = pt(src), [x2, y2] = pt(dst);
          g.strokeStyle = (x.hops || 1) > 1 ? '#e07b00' : '#2f6fb5';
          g.setLineDash((x.hops || 1) > 1 ? [3, 3] : []);
          g.beginPath(); g.moveTo(x1, y1); g.lineTo(x2, y2); g.stroke();
        });
      });
      g.setLineDash([]);
      for (let i = 0; i < n && n <= 256; i++) { const [x, y] = pt(i); g.fillStyle = '#111'; g.fillRect(x - 1.5, y - 1.5, 3, 3); }
    });
    document.body.dataset.readyplan = '1';
  }

  function parseCSV(text) {
    const lines = text.split('\n').filter((l) => l.trim());
    const head = lines.shift().split(',');
    return lines.map((l) => {
      const v = l.split(','), o = {};
      head.forEach((h, i) => { o[h] = v[i] === '' || v[i] === undefined ? null : isNaN(+v[i]) ? v[i] : +v[i]; });
      return o;
    });
  }

  function pickSweep() {
    const n = $('sweep-pick').value;
    Promise.all([fetch(`/api/sweep?n=${n}&file=sweep.csv`).then((r) => r.text()),
      fetch(`/api/sweep?n=${n}&file=meta.json`).then((r) => r.json()).catch(() => ({}))])
      .then(([csv, meta]) => {
        sweepRows = parseCSV(csv);
        const combos = [...new Set(sweepRows.map((r) => r.algo + ':' + r.nodes))];
        const s = $('pair-pick');
        s.textContent = '';
        combos.forEach((a) => combos.forEach((b) => { if (a !== b && !a.startsWith('static')) s.add(new Option(`${a} over ${b}`, a + '/' + b)); }));
        const pref = [...s.options].findIndex((o) => /^retri:\d+\/static/.test(o.value));
        if (pref >= 0) s.selectedIndex = pref;
        $('sweep-info').textContent = (meta.command ? meta.command + '; ' : '') + `${sweepRows.length} points`;
        drawHeat();
      }).catch(() => {});
  }

  // speedup time(B)/time(A) over delta x size, A's R* in each cell, and
  // measured/predicted where measured: ocs-sweep --plots's numbers.
  function drawHeat() {
    const t0 = performance.now();
    const [A, B] = ($('pair-pick').value || '/').split('/');
    const meas = $('sweep-measured').checked;
    const key = (r) => r.algo + ':' + r.nodes;
    const xs = [...new Set(sweepRows.map((r) => r.delta_s))].sort((a, b) => a - b);
    const ys = [...new Set(sweepRows.map((r) => r.bytes))].sort((a, b) => a - b);
    const find = (k, b, d) => sweepRows.find((r) => key(r) === k && r.bytes === b && r.delta_s === d);
    const cw = 46, ch = 22, left = 80, top = 20;
    const cv = $('heat');
    cv.width = left + xs.length * cw + 20;
    cv.height = top + ys.length * ch + 40;
    const g = cv.getContext('2d');
    g.fillStyle = '#fff'; g.fillRect(0, 0, cv.width, cv.height);
    g.font = '10px sans-serif';
    const cells = [];
    ys.forEach((b, j) => xs.forEach((d, i) => {
      const ra = find(A, b, d), rb = find(B, b, d);
      const ta = ra && (meas ? ra.measured_s : ra.predicted_s), tb = rb && (meas ? rb.measured_s : rb.predicted_s);
      if (!(ta > 0) || !(tb > 0)) return;
      const sp = tb / ta, l = Math.max(-1, Math.min(1, Math.log10(sp) / 2));
      const x = left + i * cw, y = top + (ys.length - 1 - j) * ch;
      g.fillStyle = l >= 0 ? `rgb(255,${Math.round(255 - 200 * l)},${Math.round(255 - 200 * l)})` : `rgb(${Math.round(255 + 200 * l)},${Math.round(255 + 200 * l)},255)`;
      g.fillRect(x, y, cw - 1, ch - 1);
      g.fillStyle = '#000';
      g.fillText(String(ra.reconfigurations), x + 3, y + 10);
      if (ra.measured_s > 0 && ra.predicted_s > 0) g.fillText((ra.measured_s / ra.predicted_s).toFixed(2), x + 3, y + 20);
      cells.push({ delta_s: d, bytes: b, speedup: sp, r: ra.reconfigurations });
    }));
    g.fillStyle = '#111';
    ys.forEach((b, j) => g.fillText(fmtSize(b), 2, top + (ys.length - 1 - j) * ch + 14));
    xs.forEach((d, i) => { if (i % 2 === 0) g.fillText(fmtTime(d), left + i * cw, top + ys.length * ch + 14); });
    g.fillText(`speedup time(${B}) / time(${A}); R* of ${A} in each cell` + (meas ? ' (measured)' : ''), left, 12);
    ocs.heat = cells;
    done('plans', t0);
  }

  function planEvents() {
    $('plan-pick').addEventListener('change', pickPlan);
    $('sweep-pick').addEventListener('change', pickSweep);
    $('pair-pick').addEventListener('change', drawHeat);
    $('sweep-measured').addEventListener('change', drawHeat);
    $('plan-file').addEventListener('change', (e) => {
      const f = e.target.files[0];
      if (f) f.text().then((t) => drawPlan(JSON.parse(t))).catch(() => {});
    });
  }

  // ---- the views --------------------------------------------------------------
  function route() {
    const v = (location.hash || '#switch').slice(1);
    view = ['switch', 'agents', 'runs', 'plans'].includes(v) ? v : 'switch';
    ['switch', 'agents', 'runs', 'plans'].forEach((k) => {
      $('page-' + k).hidden = k !== view;
      const a = $('tab-' + k);
      if (k === view) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    });
    document.title = 'ocsd — ' + $('tab-' + view).textContent;
    if (view === 'switch') drawSwitch();
    if (view === 'agents') drawAgents();
    if (view === 'runs') { drawRuns(); drawLive(); }
    if (view === 'plans' && !$('plan-pick').options.length && !$('sweep-pick').options.length) loadPlans();
  }

  window.addEventListener('hashchange', route);
  window.addEventListener('pageshow', (e) => { if (e.persisted) connect(); });
  window.addEventListener('resize', () => { if (view === 'switch') drawSwitch(); });
  setInterval(() => { if (view === 'runs' && ocs.live && !ocs.live.ended) drawLive(); }, 500);
  matrixEvents();
  agentsHead();
  planEvents();
  route();
  snap.then(applySnap).catch(() => {});
  connect();
})();
