// /pulse enhancements. Every page works without this file; with it:
//  - the dashboard listens to the change stream (/pulse/stream, Server-Sent Events) and shows
//    each change as it arrives; a newer build's changes replace the "Last build" tiles (its id,
//    time and counts) and add to "Last 7 days";
//  - inputs marked data-suggest fetch suggestions from /pulse/suggest into their datalist.
// Text from the server is inserted with textContent only, never as HTML, and without the
// bidirectional controls the server drops from every page it renders (lib/html.ts
// BIDI_CONTROLS): a change's why quotes upstream titles, which would show reordered.
(function () {
  'use strict';

  var BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

  function plain(text) {
    return String(text).replace(BIDI_CONTROLS, '');
  }

  function el(tag, text, attrs) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = plain(text);
    if (attrs) for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) node.setAttribute(k, attrs[k]);
    return node;
  }

  // ── Live updates ──────────────────────────────────────────────────────────────────────────
  function subjectHref(change) {
    if (change.cve_id) return '/pulse/cves/' + encodeURIComponent(change.cve_id);
    if (change.vendor && change.advisory_id) {
      return '/pulse/advisories/' + encodeURIComponent(change.vendor) + '/' + encodeURIComponent(change.advisory_id);
    }
    return null;
  }

  // As the server writes a kind (api/pulse/format.ts kindLabel): "KEV added", "new CVE".
  function kindLabel(kind) {
    return kind.replace(/_/g, ' ').replace(/\b(?:cve|kev|epss|cvss|ssvc)\b/g, function (acronym) {
      return acronym.toUpperCase();
    });
  }

  function showChange(list, change) {
    var li = el('li', null, { 'data-change-id': change.change_id || '' });
    var subject = change.cve_id || change.advisory_id || 'change';
    var href = subjectHref(change);
    li.appendChild(href ? el('a', subject, { href: href }) : el('strong', subject));
    li.appendChild(document.createTextNode(' '));
    li.appendChild(el('span', kindLabel(change.kind || ''), { class: 'badge sev-NONE' }));
    if (change.why) li.appendChild(el('p', change.why));
    list.insertBefore(li, list.firstChild);
    while (list.children.length > 50) list.removeChild(list.lastChild);
  }

  function setCount(cell, n) {
    cell.textContent = n.toLocaleString('en-US');
  }

  function addTo(cell, by) {
    if (!cell) return;
    setCount(cell, (parseInt(cell.textContent.replace(/[^0-9]/g, ''), 10) || 0) + by);
  }

  // The "Last build" tiles show one build: a change of another (newer) build replaces it — its
  // id and time, every count from 0 — and the change is counted there and in "Last 7 days". A
  // change of the build already shown was counted by the server (the stream may replay it).
  function countChange(change) {
    var panel = document.getElementById('last-build');
    if (!panel || !change.kind || !change.build_id) return;
    if (panel.getAttribute('data-build-id') === change.build_id) return;
    if (panel.getAttribute('data-live-build') !== change.build_id) {
      panel.setAttribute('data-live-build', change.build_id);
      var id = document.getElementById('last-build-id');
      var at = document.getElementById('last-build-at');
      if (id) id.textContent = change.build_id;
      if (at && change.detected_at) at.textContent = String(change.detected_at).slice(0, 10) + ' ' + String(change.detected_at).slice(11, 16) + ' UTC';
      Array.prototype.forEach.call(panel.querySelectorAll('[data-live-count], [data-live-total]'), function (cell) { setCount(cell, 0); });
    }
    var week = document.getElementById('last-week');
    [panel, week].forEach(function (box) {
      if (!box) return;
      addTo(box.querySelector('[data-live-count="' + change.kind + '"]'), 1);
      var total = box.querySelector('[data-live-total]');
      addTo(total, 1);
      var noun = box.querySelector('.noun');
      if (total && noun) noun.textContent = total.textContent === '1' ? 'change' : 'changes';
    });
  }

  function startLive() {
    var list = document.getElementById('live-list');
    var status = document.getElementById('live-status');
    if (!list || typeof EventSource === 'undefined') return;
    var src = list.getAttribute('data-stream') || '/pulse/stream';
    var es = new EventSource(src);
    var received = 0;
    function onChange(ev) {
      var change;
      try { change = JSON.parse(ev.data); } catch (e) { return; }
      if (!change || typeof change !== 'object') return;
      var items = Array.isArray(change.changes) ? change.changes : [change];
      for (var i = 0; i < items.length; i++) {
        showChange(list, items[i]);
        countChange(items[i]);
        received++;
      }
      if (status) status.textContent = 'Live: ' + received + ' change' + (received === 1 ? '' : 's') + ' received since this page opened.';
      document.body.setAttribute('data-live-received', String(received));
    }
    es.onmessage = onChange;
    es.addEventListener('change', onChange);
    es.onopen = function () {
      if (status && received === 0) status.textContent = 'Live: connected; new changes appear here as builds are published.';
      document.body.setAttribute('data-live', 'open');
    };
    es.onerror = function () {
      // CLOSED: the server refused the stream (too many open from this address, no snapshot):
      // EventSource does not retry then, so the page must not say it does.
      var closed = es.readyState === EventSource.CLOSED;
      if (status) status.textContent = closed ? 'Live updates are not available right now (too many open from this address?); reload the page later.' : 'Live: connection lost, retrying…';
      document.body.setAttribute('data-live', closed ? 'refused' : 'retrying');
    };
  }

  // ── Suggestions ───────────────────────────────────────────────────────────────────────────
  // A field's list is the answer for what it holds now, for the vendor (ecosystem) the form
  // holds now: each request aborts the one before and an answer that is not the latest is
  // dropped (a slow answer for "ci" replaced the one for "cisco"), and a change of the scope
  // field asks again for the fields scoped by it (a product's list stayed the first vendor's).
  function startSuggest() {
    var refreshers = {};
    var inputs = document.querySelectorAll('input[data-suggest]');
    Array.prototype.forEach.call(inputs, function (input) {
      var list = document.getElementById(input.getAttribute('list'));
      if (!list) return;
      var scope = document.getElementById(input.getAttribute('data-suggest-scope') || '');
      var timer = null;
      var last = null;
      var latest = 0;
      var pending = null;
      function show(values) {
        while (list.firstChild) list.removeChild(list.firstChild);
        values.forEach(function (v) {
          var opt = el('option', null, { value: v.value });
          if (v.label) opt.textContent = plain(v.label);
          list.appendChild(opt);
        });
      }
      function ask() {
        var params = new URLSearchParams({ field: input.getAttribute('data-suggest'), q: input.value.trim() });
        if (scope && scope.value.trim()) params.set('scope', scope.value.trim());
        var key = params.toString();
        if (key === last) return;
        last = key;
        var mine = ++latest;
        if (pending) pending.abort();
        pending = typeof AbortController === 'undefined' ? null : new AbortController();
        fetch('/pulse/suggest?' + key, { headers: { Accept: 'application/json' }, signal: pending ? pending.signal : undefined })
          .then(function (r) { return r.ok ? r.json() : { values: [] }; })
          .then(function (body) { if (mine === latest) show(body.values || []); })
          .catch(function () { if (mine === latest) last = null; });
      }
      function later() {
        clearTimeout(timer);
        timer = setTimeout(ask, 150);
      }
      input.addEventListener('input', later);
      if (scope) (refreshers[scope.id] = refreshers[scope.id] || []).push(later);
    });
    Object.keys(refreshers).forEach(function (id) {
      document.getElementById(id).addEventListener('input', function () { refreshers[id].forEach(function (f) { f(); }); });
    });
  }

  function start() {
    startLive();
    startSuggest();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
