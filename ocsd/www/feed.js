// SPDX-License-Identifier: BSD-2-Clause
// ocs-web's feed shared by every page of a browser (a SharedWorker): one
// event stream (/events) for all of them.  A browser holds six
// connections a host over HTTP/1.1 and a page's own stream holds one, so
// a seventh page's requests waited for a socket that never came free.
// Pages send {hello: 1} (on connecting) and {bye: 1} (leaving); the
// worker sends each {k: NAME, d: DATA} as the stream's "event: NAME" with
// its data unparsed (each page parses its own), and {k: 'open'} or
// {k: 'error'} as the stream's state changes.  A page that comes later
// is sent what ocs-web sends a new stream: the history of events, then
// the latest of each snapshot.
'use strict';
const SNAPS = ['show', 'status', 'agents', 'runs', 'ocsd'];
const HISTORY = 200;       // as ocs-web keeps (WEB_HISTORY)
const ports = new Set();
const snap = new Map();    // name -> its latest data
const history = [];        // "events" data, oldest first
let es = null;
let state = 'error';

function send(m) {
  ports.forEach((p) => p.postMessage(m));
}

// The stream, opened for the first page and closed when the last leaves
// (a page kept in the back/forward cache gives its connection back).
function open() {
  if (es) return;
  es = new EventSource('/events');
  es.onopen = () => { state = 'open'; send({ k: 'open' }); };
  es.onerror = () => { state = 'error'; send({ k: 'error' }); };
  SNAPS.forEach((k) => es.addEventListener(k, (e) => {
    snap.set(k, e.data);
    send({ k, d: e.data });
  }));
  es.addEventListener('events', (e) => {
    history.push(e.data);
    if (history.length > HISTORY) history.shift();
    send({ k: 'events', d: e.data });
  });
}

function close() {
  if (!es) return;
  es.close();
  es = null;
  state = 'error';
  // What a new stream sends first comes again whole: nothing kept.
  snap.clear();
  history.length = 0;
}

function hello(p) {
  ports.add(p);
  if (!es) { open(); return; }
  history.forEach((d) => p.postMessage({ k: 'events', d }));
  snap.forEach((d, k) => p.postMessage({ k, d }));
  p.postMessage({ k: state });
}

self.onconnect = (e) => {
  const p = e.ports[0];
  p.onmessage = (m) => {
    const o = m.data || {};
    if (o.hello) hello(p);
    else if (o.bye) {
      ports.delete(p);
      if (!ports.size) close();
    }
  };
  p.start();
};
