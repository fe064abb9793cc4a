// SPDX-License-Identifier: BSD-2-Clause
// ocs-web's page: four views of what ocsd knows, drawn from ocsctl -j's
// JSON (the feed at /events and /api/...), plain JavaScript, no library.
// window.ocs keeps what each view last drew (tests and bench_web read
// it): ocs.rendered[view] = ms from navigation to its first render,
// ocs.painted[view] the frame after it, ocs.drawMs[view] the draw alone,
// ocs.matrixAt the wall clock (ms) the matrix last changed on the page,
// ocs.boards[switch] each matrix's geometry (ports n x m, px a port,
// pad) and how many port readings it drew with; ocs.heat the sweep
// heatmap's cells and ocs.heatModel the model_hash they are of;
// ocs.tl the run's timeline on the canvas (null while a running run's
// bar is): its agents' top, row height and a lane a plane apart, with
// each dark band's pixels; ocs.feed 'shared' (feed.js) or 'page'.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const snap = fetch('/api/snap').then((r) => r.json());
  const ocs = (window.ocs = { state: {}, rendered: {}, painted: {}, drawMs: {}, events: [],
    lastEventMs: 0, live: null, runShown: null, boards: {} });
  let view = 'switch';
  let zoom = 0;              // matrix cell pixels; 0: fit
  const ports = new Map();   // switch name -> /api/ports's, for power and failed
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
    if (k === 'show' && view === 'switch') { drawSwitch(); afterPaint(askPorts); }
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

  // A feed message: a snapshot, the events, ocsd's state, or the
  // stream's own ('open', 'error').
  function onFeed(k, data) {
    const conn = $('conn');
    if (k === 'open') { conn.textContent = 'live'; conn.className = ''; return; }
    if (k === 'error') { conn.textContent = 'reconnecting…'; conn.className = 'bad'; return; }
    const o = JSON.parse(data);
    if (k === 'ocsd') {
      conn.textContent = o.error ? 'ocsd: ' + o.error : 'live';
      conn.className = o.error ? 'bad' : '';
    } else if (k === 'events') {
      (o.events || []).forEach(onEvent);
    } else {
      ocs.state[k] = o;
      ocs.lastEventMs = Date.now();
      onState(k);
    }
  }

  // One event stream for every page of the browser (feed.js, a
  // SharedWorker): a browser holds six connections a host, and a stream
  // a page left the seventh page's requests waiting.  Where there is no
  // SharedWorker (or it fails), the page's own stream.
  function connect() {
    if (typeof SharedWorker === 'function') {
      try {
        const sw = new SharedWorker("/feed.js", { name: 'ocs-feed' });
        const port = sw.port;
        let heard = false;
        port.onmessage = (e) => { heard = true; onFeed(e.data.k, e.data.d); };
        sw.onerror = () => { if (!heard) { port.close(); ownStream(); } };
        port.start();
        port.postMessage({ hello: 1 });
        ocs.feed = 'shared';
        window.addEventListener('pagehide', () => { port.postMessage({ bye: 1 }); port.close(); }, { once: true });
        return;
      } catch (e) { /* no worker here: the page's own stream */ }
    }
    ownStream();
  }

  function ownStream() {
    ocs.feed = 'page';
    const es = new EventSource('/events');
    // A page left (into the back/forward cache) gives its connection
    // back; coming back, it connects again.
    window.addEventListener('pagehide', () => es.close(), { once: true });
    es.onopen = () => onFeed('open');
    es.onerror = () => onFeed('error');
    ['show', 'status', 'agents', 'runs', 'ocsd', 'events'].forEach((k) =>
      es.addEventListener(k, (e) => onFeed(k, e.data)));
  }

  function onEvent(ev) {
    ocs.events.push(ev);
    if (ocs.events.length > 500) ocs.events.shift();
    ocs.lastEventMs = Date.now();
    if (ev.kind === 'run') {
      if (ev.what === 'started') {
        ocs.live = { run_id: ev.run_id, t0: ev.unix_ms, phases: [], text: ev.text };
        // The history of events a page is sent first may start a run
        // the runs' list already holds ended: not drawn as running (its
        // bar would hide the timeline until its 'finished' came).
        if (((ocs.state.runs || {}).runs || []).some((r) => r.run_id === ev.run_id)) ocs.live.ended = 'ended';
      }
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
  // A fabric's show is {"switches": {"A": {...}, ...}} (ocsctl -j), a lone
  // switch's the one object: [name, its show] each ('' the lone one).
  function switchList() {
    const show = ocs.state.show;
    if (!show) return [];
    if (show.switches) return Object.keys(show.switches).map((k) => [k, show.switches[k]]);
    return [['', show]];
  }

  // Each switch's ports read, at most every 2 s a page (ocs-web answers
  // every page from one reading that young: ocsd is asked as for one).
  // Asked once the view is on screen: the answer's redraw is not the
  // first frame's work.
  function askPorts() {
    const now = Date.now();
    if (!ocs.state.show || now - portsAsked < 2000) return;
    portsAsked = now;
    switchList().forEach(([name]) => {
      fetch('/api/ports' + (name ? '?switch=' + encodeURIComponent(name) : '')).then((r) => r.json()).then((o) => {
        const p = name ? ((o.switches || {})[name] || {}).ports : o.ports;
        if (p) { ports.set(name, p); if (view === 'switch') drawSwitch(); }
      }).catch(() => {});
    });
  }
  function afterPaint(f) {
    requestAnimationFrame(() => setTimeout(f, 0));
  }

  // What a switch's matrix shows, indexed once a draw (hover and the
  // keyboard read it; it was remade at each mouse move).
  function matrixData(s, p) {
    const sw = s.switch || {};
    const n = sw.ports || 0, m = sw.egress || n;
    const live = new Map(), want = new Map();
    (s.live || []).forEach((q) => live.set(q.in, q.out - n));
    (s.desired || []).forEach((q) => want.set(q.in, q.out - n));
    const trx = new Map();
    (s.cabling || []).forEach((t) => { trx.set('i' + t.in, t.name); trx.set('o' + t.out, t.name); });
    const pinfo = new Map();
    (p || []).forEach((q) => pinfo.set(q.port, q));
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

  // A switch's board: its heading (a fabric's), summary, matrix, tooltip
  // and the cell under the cursor; made once, kept by name.
  const boards = new Map();
  function board(name) {
    let b = boards.get(name);
    if (b) return b;
    const el = (tag, cls) => { const e = document.createElement(tag); if (cls) e.className = cls; return e; };
    const sec = el('div', 'board'), sum = el('p'), wrap = el('div', 'matrix-wrap');
    const cv = el('canvas'), tip = el('div', 'tip'), info = el('p', 'cell-info');
    sec.dataset.switch = name;
    if (name) { const h = el('h3'); h.textContent = 'Switch ' + name; sec.appendChild(h); }
    cv.tabIndex = 0;
    cv.setAttribute('role', 'img');
    cv.setAttribute('aria-label', (name ? `Switch ${name}: ` : '') +
      'ingress by egress matrix; arrow keys move, + and - zoom');
    tip.setAttribute('role', 'tooltip');
    tip.hidden = true;
    info.setAttribute('aria-live', 'polite');
    info.textContent = 'Arrow keys or the mouse: a port pair.';
    wrap.append(cv, tip);
    sec.append(sum, wrap, info);
    $('matrices').appendChild(sec);
    b = { name, sec, sum, cv, tip, info, cursor: { r: 0, c: 0 }, d: null, px: 1, pad: 12 };
    matrixEvents(b);
    boards.set(name, b);
    return b;
  }

  function summary(s, d) {
    const sw = s.switch || {};
    return `${sw.driver} ${sw.address}: ` + (sw.connected ? 'connected' : 'NOT CONNECTED') +
      `, ${d.n}×${d.m}, ` + (s.in_sync === undefined ? 'map unknown'
        : s.in_sync ? 'in sync with the desired map' : 'DIVERGED from the desired map');
  }

  // One switch's matrix; its drift and marked ports for the tables.
  function drawBoard(b, s) {
    const d = (b.d = matrixData(s, ports.get(b.name)));
    b.sum.textContent = summary(s, d);
    const cv = b.cv;
    const fit = Math.max(1, Math.min(24, Math.floor(Math.min(900, window.innerWidth - 80) / Math.max(1, d.m + 4))));
    const px = (b.px = zoom || fit), pad = b.pad;
    cv.width = pad + d.m * px + 1;
    cv.height = pad + d.n * px + 1;
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
    for (let p = 1; p <= d.n + d.m; p++) {
      const k = portMark(d, p);
      if (!k) continue;
      g.fillStyle = k === 'failed' ? '#c00000' : '#333';
      if (p <= d.n) g.fillRect(0, pad + (p - 1) * px, pad - 2, px);
      else g.fillRect(pad + (p - d.n - 1) * px, 0, px, pad - 2);
      marked.push([p, k]);
    }
    const drift = [], in1 = px >= 4 ? 1 : 0, sz = Math.max(1, px - in1);
    // Colour by colour: a fill style set per cell costs more than its cell.
    [true, false].forEach((asWanted) => {
      g.fillStyle = asWanted ? '#1b7a2f' : '#e07b00';
      d.live.forEach((out, inp) => {
        if ((d.want.get(inp) === out) !== asWanted) return;
        g.fillRect(pad + (out - 1) * px + in1, pad + (inp - 1) * px + in1, sz, sz);
        if (!asWanted) drift.push([inp, out + d.n, 'only on the switch']);
      });
    });
    g.strokeStyle = '#c00000';
    g.lineWidth = Math.max(1, px / 4);
    d.want.forEach((out, inp) => {
      if (d.live.get(inp) === out) return;
      g.strokeRect(pad + (out - 1) * px, pad + (inp - 1) * px, px, px);
      drift.push([inp, out + d.n, 'only in the desired map']);
    });
    ocs.boards[b.name] = { n: d.n, m: d.m, px, pad, readings: d.pinfo.size };
    if (document.activeElement === cv) {
      g.strokeStyle = '#b3470a';
      g.lineWidth = 2;
      g.strokeRect(pad + b.cursor.c * px - 1, pad + b.cursor.r * px - 1, px + 2, px + 2);
    }
    return { drift, marked };
  }

  function esc(v) {
    return String(v).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  }
  // Rows of cells as one string of HTML: a thousand cells made one by one
  // were most of a table's time.  A cell is text, or [text, data-v].
  function rowsHTML(rows) {
    return rows.map((r) => '<tr>' + r.map((c) => (Array.isArray(c)
      ? `<td data-v="${esc(c[1])}">${esc(c[0])}</td>` : `<td>${esc(c)}</td>`)).join('') + '</tr>');
  }

  function drawSwitch() {
    const t0 = performance.now();
    const list = switchList();
    if (!list.length) return;
    const fabric = !!ocs.state.show.switches;
    boards.forEach((b, name) => {
      if (!list.some(([n]) => n === name)) { b.sec.remove(); boards.delete(name); delete ocs.boards[name]; }
    });
    const drift = [], marked = [], circuits = [], keys = [];
    let nlive = 0, nwant = 0;
    list.forEach(([name, s]) => {
      const b = board(name), r = drawBoard(b, s);
      const tag = (row) => (fabric ? row.concat([name]) : row);
      r.drift.forEach(([i, o, w]) => drift.push(tag([i, o, w])));
      r.marked.slice(0, 50).forEach(([p, k]) => marked.push((fabric ? name + ': ' : '') +
        `port ${p} (${b.d.trx.get((p <= b.d.n ? 'i' : 'o') + p) || 'not cabled'}): ${k}`));
      (s.circuits || []).forEach((c) => circuits.push(tag([c.a, c.complete ? '↔' : '→', c.b])));
      keys.push(name + ':' + [...b.d.live].join(';'));
      nlive += b.d.live.size;
      nwant += b.d.want.size;
    });
    $('sw-summary').textContent = fabric ? `A fabric of ${list.length} switches: ` +
      list.map(([n, s]) => n + (s.in_sync === false ? ' (DIVERGED)' : '')).join(', ') : '';
    $('zoom-level').textContent = `${[...boards.values()][0].px} px a port`;
    document.querySelectorAll('.fab-col').forEach((e) => { e.hidden = !fabric; });
    circuits.sort((x, y) => natural(x[0], y[0]) || natural(x[3] || '', y[3] || ''));
    fillRows($('circuits').tBodies[0], rowsHTML(circuits));
    fillRows($('drift').tBodies[0], rowsHTML(drift));
    $('marked').innerHTML = marked.length ? marked.map((t) => `<li>${esc(t)}</li>`).join('') : '<li>none</li>';
    drawReconfs();
    const key = keys.join('|');
    if (!ocs.matrix || ocs.matrix.key !== key) ocs.matrixAt = Date.now();
    ocs.matrix = { live: nlive, desired: nwant, drift: drift.length, key, switches: list.map(([n]) => n) };
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

  function describe(b, r, c) {
    const d = b.d;
    if (!d || r < 0 || c < 0 || r >= d.n || c >= d.m) return '';
    const inp = r + 1, out = d.n + c + 1;
    const pi = d.pinfo.get(inp), po = d.pinfo.get(out);
    const pw = (p) => (p && p.dbm !== null && p.dbm !== undefined ? p.dbm.toFixed(1) + ' dBm' : 'no reading') + (p && p.failed ? ', FAILED' : '');
    const l = d.live.get(inp) === c + 1, w = d.want.get(inp) === c + 1;
    return (b.name ? `switch ${b.name}: ` : '') +
      `ingress ${inp} (${d.trx.get('i' + inp) || 'not cabled'} TX, in ${pw(pi)})\n` +
      `egress ${out} (${d.trx.get('o' + out) || 'not cabled'} RX, out ${pw(po)})\n` +
      (l && w ? 'patched, as desired' : l ? 'patched, NOT in the desired map (drift)'
        : w ? 'desired, NOT on the switch (drift)' : 'not patched');
  }

  function matrixEvents(b) {
    const cv = b.cv, tip = b.tip;
    cv.addEventListener('mousemove', (e) => {
      const rc = cv.getBoundingClientRect();
      const c = Math.floor((e.clientX - rc.left - b.pad) / b.px), r = Math.floor((e.clientY - rc.top - b.pad) / b.px);
      const t = describe(b, r, c);
      if (!t) { tip.hidden = true; return; }
      tip.textContent = t;
      tip.hidden = false;
      tip.style.left = (e.offsetX + 14) + 'px';
      tip.style.top = (e.offsetY + 14) + 'px';
    });
    cv.addEventListener('mouseleave', () => { tip.hidden = true; });
    cv.addEventListener('keydown', (e) => {
      const d = b.d || { n: 0, m: 0 }, cur = b.cursor;
      const step = e.shiftKey ? 10 : 1;
      if (e.key === 'ArrowUp') cur.r = Math.max(0, cur.r - step);
      else if (e.key === 'ArrowDown') cur.r = Math.min(d.n - 1, cur.r + step);
      else if (e.key === 'ArrowLeft') cur.c = Math.max(0, cur.c - step);
      else if (e.key === 'ArrowRight') cur.c = Math.min(d.m - 1, cur.c + step);
      else if (e.key === '+' || e.key === '=') { setZoom(1); return; }
      else if (e.key === '-') { setZoom(-1); return; }
      else return;
      e.preventDefault();
      b.info.textContent = describe(b, cur.r, cur.c);
      drawSwitch();
    });
    cv.addEventListener('focus', drawSwitch);
    cv.addEventListener('blur', drawSwitch);
    cv.addEventListener('wheel', (e) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      setZoom(e.deltaY < 0 ? 1 : -1);
    }, { passive: false });
  }

  function setZoom(dir) {
    const first = [...boards.values()][0];
    const cur = first ? first.px : 2;
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
  // Long tables in two steps: the rows a screen shows now, the rest once
  // that frame is painted (a run's 256 phases' rows were more of the
  // first frame than its timeline).  The table's data-rows says how many
  // it holds once whole.
  const FIRST_ROWS = 40;
  function fillRows(tb, rows) {
    const token = (tb.fill = (tb.fill || 0) + 1);
    tb.innerHTML = rows.slice(0, FIRST_ROWS).join('');
    tb.parentNode.dataset.rows = rows.length <= FIRST_ROWS ? rows.length : '';
    if (rows.length > FIRST_ROWS) {
      afterPaint(() => {
        if (tb.fill !== token) return; // filled again since
        tb.insertAdjacentHTML('beforeend', rows.slice(FIRST_ROWS).join(''));
        tb.parentNode.dataset.rows = rows.length;
      });
    }
  }

  function drawRuns() {
    const t0 = performance.now();
    const runs = ((ocs.state.runs || {}).runs || []).slice().reverse();
    // The newest run's record asked for first: the timeline waits on it.
    if (ocs.runShown === null && runs.length) showRun(runs[0].run_id);
    const td = (text, v, cls) => '<td' + (v === undefined ? '' : ` data-v="${esc(v)}"`) +
      (cls ? ` class="${cls}"` : '') + '>' + esc(text) + '</td>';
    fillRows($('runs').tBodies[0], runs.slice(0, 200).map((r) => `<tr tabindex="0" data-run="${esc(r.run_id)}" ` +
      `aria-selected="${ocs.runShown === r.run_id}">` + td(r.run_id, r.run_id) +
      td(r.started_unix_ms ? new Date(r.started_unix_ms).toLocaleString() : '-') +
      td(r.algo) + td(r.nodes, r.nodes) + td(fmtSize(r.bytes), r.bytes) +
      td(fmtTime(r.total_s), r.total_s) + td(fmtTime(r.predicted_s), r.predicted_s) +
      td(r.aborted ? r.aborted : r.errors ? 'ERRORS' : 'verified', undefined, r.aborted || r.errors ? 'bad' : '') +
      '</tr>'));
    done('runs', t0);
  }
  // A row of the history, clicked or Enter/Space on it: its timeline.
  function runsEvents() {
    const tb = $('runs').tBodies[0];
    const go = (e) => {
      const tr = e.target.closest('tr[data-run]');
      if (tr) showRun(+tr.dataset.run);
    };
    tb.addEventListener('click', go);
    tb.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); go(e); } });
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
    ocs.tl = null; // the canvas no longer shows a record
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

  // The run's record for the timeline (/api/timeline/ID): ocsctl -j's
  // report with the agents' times as columns of microseconds, a fifth of
  // the bytes and no object per phase time.
  function showRun(id) {
    ocs.runShown = id;
    fetch('/api/timeline/' + id).then((r) => r.json()).then((o) => {
      if (o.run_id === undefined) return;
      ocs.report = o;
      drawTimeline(o);
      document.querySelectorAll('#runs tbody tr').forEach((tr) =>
        tr.setAttribute('aria-selected', String(tr.dataset.run === String(id))));
    }).catch(() => {});
  }

  // Phase k starts after its reconfiguration (dark) and ends with its
  // slowest agent; waits end where the phase starts.  Seconds.  A phase
  // whose planes were released apart starts with the first plane out:
  // planeOffsets' dark time of each plane from where the switches began
  // to move.
  function phaseSpans(ph, setup) {
    const reconf0 = new Float64Array(ph.length), start = new Float64Array(ph.length);
    const dark = [];
    let t = setup;
    ph.forEach((p, k) => {
      const off = p.planes && p.planes.length ? planeOffsets(p.planes) : null;
      const rc = off ? Math.min(...off) : p.reconfigured ? p.reconf_s : 0;
      dark[k] = off;
      reconf0[k] = t;
      start[k] = t + rc;
      t += rc + p.data_s + (p.control_s || 0);
    });
    return { reconf0, start, dark, total: Math.max(t, 1e-9) };
  }

  // A phase's planes: each one's time dark, from where its switch began
  // to move to its release.  release_s counts from the barrier's first
  // Ready; a plane left alone is released as the others begin to move,
  // a moved one its reconf_s (and its links' coming up) later: the
  // earliest of those is the start.
  function planeOffsets(planes) {
    const rel = (q) => (q.release_s > 0 ? q.release_s : 0);
    const base = Math.min(...planes.map((q) => rel(q) - (q.reconfigured && q.reconf_s > 0 ? q.reconf_s : 0)));
    return planes.map((q) => Math.max(0, rel(q) - Math.max(0, base)));
  }

  // '#rrggbb' as a pixel (ImageData is RGBA in memory: ABGR little-endian),
  // signed: a typed array's fill takes its fast path with a small integer.
  function rgba(hex) {
    const v = parseInt(hex.slice(1), 16);
    return 0xff000000 | ((v & 0xff) << 16) | (v & 0xff00) | (v >> 16);
  }
  const TL = { setup: rgba('#8a8a8a'), wait: rgba('#f0c24a'), data: rgba('#2f6fb5'),
    verify: rgba('#8fb6e3'), band: rgba('#e8c0c0'), white: -1 };

  // Span [x0, x1) of a line of pixels, whole pixels, at least one wide.
  function span(line, w, x0, x1, c) {
    const a = Math.round(x0);
    let b = Math.round(x1);
    if (b <= a) b = a + 1;
    line.fill(c, a < 0 ? 0 : a, b > w ? w : b);
  }

  // One agent's line: setup, then waits, data and verify, each layer over
  // the one before (a wait may reach back over the phase before's data);
  // the slowest of each phase noted.
  function agentLine(line, w, a, i, t) {
    const wn = a.wait_us, dn = a.data_us, vn = a.verify_us, n = dn.length;
    const ks = new Int32Array(n), sc = t.scale;
    for (let j = 0; j < n; j++) {
      const p = a.phase ? a.phase[j] : j; // absent: 0, 1, 2, ...
      const k = t.ph[j] && t.ph[j].phase === p ? j : t.byPhase.get(p);
      ks[j] = k === undefined ? -1 : k;
    }
    span(line, w, t.left, t.left + (a.setup_us || 0) * sc, TL.setup);
    for (let j = 0; j < n; j++) {
      const k = ks[j];
      if (k >= 0) span(line, w, Math.max(t.left, t.xr[k] - wn[j] * sc), t.xr[k], TL.wait);
    }
    for (let j = 0; j < n; j++) {
      const k = ks[j];
      if (k < 0) continue;
      const d1 = t.xs[k] + dn[j] * sc;
      span(line, w, t.xs[k], d1, TL.data);
      if (dn[j] > t.best[k]) { t.best[k] = dn[j]; t.slow[k] = i; t.slowX[k] = d1; }
    }
    for (let j = 0; j < n; j++) {
      const k = ks[j];
      if (k < 0 || !(vn[j] > 0)) continue;
      const d1 = t.xs[k] + dn[j] * sc;
      span(line, w, d1 - vn[j] * sc, d1, TL.verify);
    }
  }

  // The timeline's pixels: the reconfigurations as bands from y = 18
  // down, then each agent's row (from t.top) as one line drawn into a
  // row-high ImageData and put.  80 000 fillRect calls were the draw's time, and
  // an ImageData the canvas's size costs its first touch (~15 ms).
  function timelinePixels(g, w, h, ag, t, rowH) {
    g.fillStyle = '#fff';
    g.fillRect(0, 0, w, h);
    const bg = new Int32Array(w).fill(TL.white);
    g.fillStyle = '#e8c0c0';
    t.ph.forEach((p, k) => {
      if (t.xs[k] > t.xr[k]) {
        span(bg, w, t.xr[k], t.xs[k], TL.band);
        g.fillRect(t.xr[k], 18, Math.max(1, t.xs[k] - t.xr[k]), h - 18);
      }
    });
    const rh = rowH - 2, img = g.createImageData(w, rh), px = new Int32Array(img.data.buffer);
    ag.forEach((a, i) => {
      px.set(bg);
      agentLine(px, w, a, i, t);
      for (let r = 1; r < rh; r++) px.copyWithin(r * w, 0, w);
      g.putImageData(img, 0, t.top + i * rowH);
    });
  }

  // Planes apart: a lane a plane above the agents, lit (its circuits
  // carry data) but where it is dark: its switch moving (dark red), then
  // its links coming up (the bands' pink) until its release.  A phase
  // whose planes moved together darkens every lane alike.
  const LANE = 16;
  const PL = { lit: '#a9d3a9', moving: '#8b1a1a', links: '#e8c0c0' };
  function planeNames(ph) {
    const names = [];
    ph.forEach((p) => (p.planes || []).forEach((q) => { if (!names.includes(q.name)) names.push(q.name); }));
    return names;
  }
  function drawPlanes(g, ph, sp, X, names, t) {
    const lanes = names.map((name, i) => ({ name, y: 22 + i * LANE, h: LANE - 2, bands: [] }));
    const a = X(sp.reconf0.length ? sp.reconf0[0] : 0), b = X(sp.total);
    g.font = '11px sans-serif';
    lanes.forEach((l) => { g.fillStyle = PL.lit; g.fillRect(a, l.y, b - a, l.h); });
    ph.forEach((p, k) => {
      const off = sp.dark[k], x0 = Math.round(t.xr[k]);
      const each = off ? p.planes.map((q, j) => [lanes[names.indexOf(q.name)], q, off[j]])
        : p.reconfigured ? lanes.map((l) => [l, { name: l.name, reconfigured: true, reconf_s: p.reconf_s }, p.reconf_s]) : [];
      each.forEach(([l, q, d]) => {
        if (!(d > 0)) return;
        // Whole pixels: a band's edges not blended into the lane's.
        const xm = Math.round(q.reconfigured ? X(sp.reconf0[k] + Math.min(d, q.reconf_s || 0)) : x0);
        const x1 = Math.round(X(sp.reconf0[k] + d));
        g.fillStyle = PL.moving; g.fillRect(x0, l.y, Math.max(1, xm - x0), l.h);
        if (x1 > xm) { g.fillStyle = PL.links; g.fillRect(xm, l.y, x1 - xm, l.h); }
        const label = `${q.name} dark ${fmtTime(d)}`;
        if (x1 - x0 > g.measureText(label).width + 6) {
          g.fillStyle = xm - x0 > g.measureText(label).width + 6 ? '#fff' : '#111';
          g.fillText(label, x0 + 3, l.y + l.h - 3);
        }
        l.bands.push({ phase: p.phase, x0, x1, xMoved: xm, dark_s: d, label });
      });
    });
    g.fillStyle = '#111';
    lanes.forEach((l) => g.fillText('plane ' + l.name, 2, l.y + l.h - 3));
    return lanes;
  }

  function drawTimeline(rep) {
    const t0 = performance.now();
    const ph = rep.phases || [], ag = (rep.agents || []).slice().sort((a, b) => a.node - b.node);
    const sp = phaseSpans(ph, Math.max(0, ...ag.map((a) => (a.setup_us || 0) * 1e-6)));
    const names = planeNames(ph);
    const cv = $('timeline');
    const rowH = ag.length > 40 ? 6 : 14;
    const left = rowH >= 14 || names.length ? 60 : 10;
    const top = 22 + (names.length ? names.length * LANE + 4 : 0);
    cv.width = Math.max(600, Math.min(1400, window.innerWidth - 60));
    cv.height = top + ag.length * rowH + 10;
    const W = cv.width - left - 10;
    const X = (s) => left + (s / sp.total) * W;
    const g = cv.getContext('2d');
    const t = { ph, left, top, scale: W / sp.total * 1e-6, xr: sp.reconf0.map(X), xs: sp.start.map(X),
      byPhase: new Map(ph.map((p, k) => [p.phase, k])), best: new Float64Array(ph.length).fill(-1),
      slow: new Int32Array(ph.length).fill(-1), slowX: new Float64Array(ph.length) };
    timelinePixels(g, cv.width, cv.height, ag, t, rowH);
    ocs.tl = { top, rowH, planes: names.length ? drawPlanes(g, ph, sp, X, names, t) : [] };
    // Over the pixels: the slowest framed, the model's line, the words.
    g.strokeStyle = '#c00000'; g.lineWidth = 1.5;
    t.slow.forEach((i, k) => {
      if (i >= 0) g.strokeRect(t.xs[k], top + i * rowH, Math.max(2, t.slowX[k] - t.xs[k]), rowH - 2);
    });
    g.fillStyle = '#000';
    ph.forEach((p, k) => g.fillRect(X(sp.start[k] + p.predicted_s), 16, 2, cv.height - 16));
    g.fillStyle = '#111'; g.font = '11px sans-serif';
    if (rowH >= 14) ag.forEach((a, i) => g.fillText(a.host, 2, top + i * rowH + rowH - 4));
    g.font = '12px sans-serif';
    g.fillText(`run ${rep.run_id}: ${rep.algo}, ${rep.nodes} nodes, ${fmtSize(rep.bytes)}; total ${fmtTime(rep.total_s)}, model ${fmtTime(rep.predicted_s)}` +
      (rep.planes ? `; planes ${rep.planes} (model together ${fmtTime(rep.predicted_together_s)}, apart ${fmtTime(rep.predicted_apart_s)})` : ''), left, 12);
    $('tl-title').textContent = `Timeline of run ${rep.run_id}`;
    $('tl-planes').hidden = !names.length;
    phaseTable(ph, Array.from(t.slow, (i) => (i >= 0 ? ag[i].host : '-')), names);
    done('timeline', t0);
  }

  // The phases' table as one string of HTML: 1 500 cells made one by one
  // were a fifth of the draw.  Planes apart: each plane's reconfiguration
  // and release, two columns a plane.
  function phaseTable(ph, slow, names) {
    const td = (text, v) => (v === undefined ? '<td>' : `<td data-v="${esc(v)}">`) + esc(text) + '</td>';
    const head = $('phases').tHead.rows[0];
    head.querySelectorAll('.plane-col').forEach((e) => e.remove());
    names.forEach((n) => ['reconf', 'release'].forEach((w) => {
      const th = document.createElement('th');
      th.scope = 'col';
      th.className = 'plane-col';
      th.textContent = `${n} ${w}`;
      head.appendChild(th);
    }));
    const planeCells = (p) => names.map((n) => {
      const q = (p.planes || []).find((x) => x.name === n);
      if (!q) return '<td>-</td><td>-</td>';
      return td(q.reconfigured ? fmtTime(q.reconf_s) : '-', q.reconfigured ? q.reconf_s : undefined) +
        td(fmtTime(q.release_s), q.release_s);
    }).join('');
    fillRows($('phases').tBodies[0], ph.map((p, k) => `<tr data-phase="${esc(p.phase)}">` +
      td(p.phase, p.phase) +
      td(p.reconfigured ? fmtTime(p.reconf_s) : '-', p.reconf_s) +
      td(fmtTime(p.data_s), p.data_s) +
      td(p.reconfigured ? fmtTime(p.barrier_s) : '-', p.barrier_s) +
      td(fmtTime(p.predicted_s), p.predicted_s) +
      td(slow[k]) + planeCells(p) + '</tr>'));
  }

  // ---- plans and sweeps -----------------------------------------------------
  let sweepRows = [];       // sweep.csv, every model's rows
  let sweepModelList = [];  // its models, the latest last

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

  // sweep.csv's rows as objects; numbers where the column is one (a
  // model_hash of digits and an 'e' is text, not 7e12...).
  const TEXT_COLS = new Set(['algo', 'reconfigure_before', 'cpu_bound', 'model', 'model_hash']);
  function parseCSV(text) {
    const lines = text.split('\n').filter((l) => l.trim());
    const head = lines.shift().split(',');
    return lines.map((l) => {
      const v = l.split(','), o = {};
      head.forEach((h, i) => {
        const x = v[i];
        o[h] = x === '' || x === undefined ? null : TEXT_COLS.has(h) || isNaN(+x) ? x : +x;
      });
      return o;
    });
  }

  // The models whose rows a sweep holds (a CSV keeps every model run into
  // it, issue 40): by model_hash, in meta.json's order of runs (the
  // latest last), named with the parameters meta.json gives.
  function sweepModels(rows, meta) {
    const count = new Map();
    rows.forEach((r) => { const h = r.model_hash || ''; count.set(h, (count.get(h) || 0) + 1); });
    const runs = new Map();
    (meta.runs || []).forEach((r) => { if (r.model && count.has(r.model.hash)) { runs.delete(r.model.hash); runs.set(r.model.hash, r); } });
    const order = [...[...count.keys()].filter((h) => !runs.has(h)), ...runs.keys()];
    return order.map((h) => {
      const run = runs.get(h), m = (run && run.model) || {};
      const name = m.name || (rows.find((r) => (r.model_hash || '') === h) || {}).model || 'model';
      const what = m.bandwidth_bps ? ` (${fmtRate(m.bandwidth_bps)}, α_s ${fmtTime(m.alpha_s)}, α_h ${fmtTime(m.alpha_h)}` +
        (run.backend ? `, ${run.backend}` : '') + ')' : '';
      return { hash: h, label: `${name} ${h.slice(0, 8) || '(no hash)'}${what}, ${count.get(h)} rows`,
        command: run && run.command ? [].concat(run.command).join(' ') : meta.command };
    });
  }
  function fmtRate(b) {
    return b >= 1e9 ? b / 1e9 + ' Gbps' : b >= 1e6 ? b / 1e6 + ' Mbps' : b + ' bps';
  }

  function pickSweep() {
    const n = $('sweep-pick').value;
    Promise.all([fetch(`/api/sweep?n=${n}&file=sweep.csv`).then((r) => r.text()),
      fetch(`/api/sweep?n=${n}&file=meta.json`).then((r) => r.json()).catch(() => ({}))])
      .then(([csv, meta]) => {
        sweepRows = parseCSV(csv);
        sweepModelList = sweepModels(sweepRows, meta || {});
        const s = $('model-pick');
        s.textContent = '';
        sweepModelList.forEach((m) => s.add(new Option(m.label, m.hash)));
        s.selectedIndex = sweepModelList.length - 1;
        pickModel();
      }).catch(() => {});
  }

  // One model's rows: the pairs they hold, the heatmap of one.
  function modelRows() {
    const h = $('model-pick').value;
    return sweepRows.filter((r) => (r.model_hash || '') === h);
  }
  function pickModel() {
    const rows = modelRows(), m = sweepModelList[$('model-pick').selectedIndex] || {};
    const combos = [...new Set(rows.map((r) => r.algo + ':' + r.nodes))];
    const s = $('pair-pick'), was = s.value;
    s.textContent = '';
    combos.forEach((a) => combos.forEach((b) => { if (a !== b && !a.startsWith('static')) s.add(new Option(`${a} over ${b}`, a + '/' + b)); }));
    const keep = [...s.options].findIndex((o) => o.value === was);
    const pref = [...s.options].findIndex((o) => /^retri:\d+\/static/.test(o.value));
    if (keep >= 0) s.selectedIndex = keep; else if (pref >= 0) s.selectedIndex = pref;
    $('sweep-info').textContent = (m.command ? m.command + '; ' : '') + `${rows.length} points of this model` +
      (rows.length < sweepRows.length ? ` (${sweepRows.length} in the file)` : '');
    drawHeat();
  }

  // speedup time(B)/time(A) over delta x size, A's R* in each cell, and
  // measured/predicted where measured: ocs-sweep --plots's numbers.
  function drawHeat() {
    const t0 = performance.now();
    const [A, B] = ($('pair-pick').value || '/').split('/');
    const meas = $('sweep-measured').checked;
    const rows = modelRows();
    const key = (r) => r.algo + ':' + r.nodes;
    const xs = [...new Set(rows.map((r) => r.delta_s))].sort((a, b) => a - b);
    const ys = [...new Set(rows.map((r) => r.bytes))].sort((a, b) => a - b);
    const find = (k, b, d) => rows.find((r) => key(r) === k && r.bytes === b && r.delta_s === d);
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
    ocs.heatModel = $('model-pick').value;
    done('plans', t0);
  }

  function planEvents() {
    $('plan-pick').addEventListener('change', pickPlan);
    $('sweep-pick').addEventListener('change', pickSweep);
    $('model-pick').addEventListener('change', pickModel);
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
    if (view === 'switch') { drawSwitch(); afterPaint(askPorts); }
    if (view === 'agents') drawAgents();
    if (view === 'runs') { drawRuns(); drawLive(); }
    if (view === 'plans' && !$('plan-pick').options.length && !$('sweep-pick').options.length) loadPlans();
  }

  window.addEventListener('hashchange', route);
  window.addEventListener('pageshow', (e) => { if (e.persisted) connect(); });
  window.addEventListener('resize', () => { if (view === 'switch') drawSwitch(); });
  setInterval(() => { if (view === 'runs' && ocs.live && !ocs.live.ended) drawLive(); }, 500);
  $('zoom-in').addEventListener('click', () => setZoom(1));
  $('zoom-out').addEventListener('click', () => setZoom(-1));
  agentsHead();
  runsEvents();
  planEvents();
  route();
  snap.then(applySnap).catch(() => {});
  connect();
})();
