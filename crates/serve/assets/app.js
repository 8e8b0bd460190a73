// shellgate approval page. Plain script, no build step, no external URLs.
// Everything that comes from a request (command, paths, session ids, …) is
// inserted with textContent only; control, bidi and invisible characters are
// shown as visible ⟨U+XXXX⟩ markers so they cannot hide or reorder text.
(function () {
  'use strict';

  // SPEC §7.1: wire key → [label, style]. Labels are fixed.
  var OPTION = {
    approve_once: ['Once', 'primary'],
    approve_session: ['This chat', 'default'],
    approve_always: ['Always here', 'default'],
    approve_everywhere: ['Always anywhere', 'danger'],
    deny: ['Deny', 'danger']
  };

  var HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb\u{e0000}-\u{e0fff}]/gu;

  var state = {
    csrf: null,
    offset: 0,          // server clock minus local clock, ms
    data: new Map(),    // id → request
    cards: new Map(),   // id → element
    order: [],
    selected: null,
    seen: new Set(),
    loaded: false,
    busy: new Set(),
    tab: 'pending',
    source: null,
    // The selected request went away by itself (withdrawn, expired,
    // answered elsewhere): nothing is selected until the human picks one,
    // so a key meant for it cannot answer the card that took its place.
    hold: false,
    // Until then, clicks on option buttons are ignored: cards just moved,
    // and the button under the pointer may belong to another request.
    settleUntil: 0
  };

  // How long option buttons ignore clicks after cards moved by themselves.
  var SETTLE_MS = 1000;

  function $(id) { return document.getElementById(id); }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  // A fragment showing `s` as text, hidden characters made visible.
  function visible(s) {
    var f = document.createDocumentFragment();
    var text = s === undefined || s === null ? '' : String(s);
    var last = 0;
    var m;
    HIDDEN.lastIndex = 0;
    while ((m = HIDDEN.exec(text)) !== null) {
      if (m.index > last) { f.appendChild(document.createTextNode(text.slice(last, m.index))); }
      var cp = m[0].codePointAt(0).toString(16).toUpperCase();
      while (cp.length < 4) { cp = '0' + cp; }
      f.appendChild(el('span', 'ctl', '\u27e8U+' + cp + '\u27e9'));
      last = m.index + m[0].length;
    }
    if (last < text.length) { f.appendChild(document.createTextNode(text.slice(last))); }
    return f;
  }

  function put(node, s) {
    node.textContent = '';
    node.appendChild(visible(s));
    return node;
  }

  function plain(s, max) {
    var t = String(s === undefined || s === null ? '' : s).replace(HIDDEN, '?');
    return t.length > max ? t.slice(0, max - 1) + '\u2026' : t;
  }

  function toast(msg, kind) {
    var t = $('toast');
    t.textContent = '';
    t.appendChild(visible(msg));
    t.className = 'toast' + (kind ? ' toast-' + kind : '');
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(function () { t.hidden = true; }, 5000);
  }

  function setStatus(text, cls) {
    var s = $('status');
    s.textContent = text;
    s.className = 'status' + (cls ? ' ' + cls : '');
  }

  function duration(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) { return s + 's'; }
    var m = Math.floor(s / 60);
    s = s % 60;
    if (m < 60) { return m + 'm ' + (s < 10 ? '0' : '') + s + 's'; }
    return Math.floor(m / 60) + 'h ' + (m % 60) + 'm';
  }

  function serverNow() { return Date.now() + state.offset; }

  // ----- API ----------------------------------------------------------------

  // The page session's token. The cookie alone opens nothing: a browser
  // sends it to every port of 127.0.0.1, so any local server the human
  // visits gets it. The token comes only in the login redirect's fragment
  // (never sent to a server) and is kept in this origin's storage, which
  // other ports cannot read.
  var KEY = 'shellgate.csrf';

  function takeKey() {
    var m = /^#csrf=([0-9a-f]{32})$/.exec(location.hash || '');
    if (!m) { return; }
    state.csrf = m[1];
    try { localStorage.setItem(KEY, m[1]); } catch (e) { /* this tab only */ }
    // Out of the address bar and the history entry.
    history.replaceState(null, '', location.pathname + location.search);
  }

  function key() {
    try {
      var k = localStorage.getItem(KEY);
      if (k) { return k; }
    } catch (e) { /* storage disabled */ }
    return state.csrf || '';
  }

  function call(method, path, body) {
    var opts = { method: method, credentials: 'same-origin', headers: {} };
    opts.headers['X-Shellgate-CSRF'] = key();
    if (method !== 'GET') {
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body || {});
    }
    return fetch(path, opts).then(function (resp) {
      return resp.json().catch(function () { return {}; }).then(function (data) {
        if (resp.status === 401) { loggedOut(); }
        return { ok: resp.ok, status: resp.status, data: data };
      });
    });
  }

  function loggedOut() {
    if (state.source) { state.source.close(); state.source = null; }
    applyPending([], Date.now());
    setStatus('logged out — open a new login link from shellgate serve', 'bad');
  }

  // ----- pending requests ---------------------------------------------------

  function metaRow(dl, name, value, cls) {
    dl.appendChild(el('dt', null, name));
    var dd = el('dd', cls);
    put(dd, value);
    dl.appendChild(dd);
    return dd;
  }

  function card(r) {
    var c = el('article', 'card');
    c.dataset.id = r.id;
    c.tabIndex = 0;
    c.appendChild(put(el('h2', 'header'), r.header));
    if (r.bullets && r.bullets.length) {
      var ul = el('ul', 'bullets');
      r.bullets.forEach(function (b) { ul.appendChild(put(el('li'), b)); });
      c.appendChild(ul);
    }
    if (r.hint) { c.appendChild(put(el('p', 'hint'), r.hint)); }
    var pre = el('pre', 'command');
    pre.dir = 'ltr';
    pre.appendChild(visible(r.display));
    c.appendChild(pre);
    if (r.command !== r.display) {
      var det = el('details', 'exact');
      det.appendChild(el('summary', null, 'Exact command'));
      var raw = el('pre', 'command raw');
      raw.dir = 'ltr';
      raw.appendChild(visible(r.command));
      det.appendChild(raw);
      c.appendChild(det);
    }
    var dl = el('dl', 'meta');
    metaRow(dl, 'Directory', r.cwd || '(no working directory)');
    metaRow(dl, 'Session', r.session || '(none)');
    metaRow(dl, 'Host', r.host);
    metaRow(dl, 'Project', r.project_dir || '(none)');
    if (r.tool && r.tool !== 'shell_execute') { metaRow(dl, 'Tool', r.tool); }
    metaRow(dl, 'Asked', '', 'age');
    metaRow(dl, 'Expires in', '', 'countdown');
    c.appendChild(dl);
    var opts = el('div', 'options');
    (r.options || []).forEach(function (key, i) {
      var o = OPTION[key];
      if (!o) { return; }
      var b = el('button', 'opt opt-' + o[1]);
      b.type = 'button';
      b.dataset.option = key;
      b.appendChild(el('kbd', null, String.fromCharCode(97 + i)));
      b.appendChild(document.createTextNode(' ' + o[0]));
      b.addEventListener('click', function (ev) {
        ev.stopPropagation();
        if (Date.now() < state.settleUntil) {
          toast('The list just changed: check the request, then answer again', 'deny');
          return;
        }
        answer(r.id, key);
      });
      opts.appendChild(b);
    });
    c.appendChild(opts);
    c.addEventListener('click', function () { choose(r.id); });
    c.addEventListener('focus', function () { choose(r.id); });
    return c;
  }

  // The human picks a request (click, focus, j/k, a notification).
  function choose(id) {
    state.hold = false;
    select(id);
  }

  function select(id) {
    state.selected = id;
    state.cards.forEach(function (c, cid) { c.classList.toggle('selected', cid === id); });
  }

  function move(step) {
    if (!state.order.length) { return; }
    var i = state.order.indexOf(state.selected);
    i = Math.min(state.order.length - 1, Math.max(0, (i < 0 ? 0 : i + step)));
    choose(state.order[i]);
    var c = state.cards.get(state.order[i]);
    if (c && c.scrollIntoView) { c.scrollIntoView({ block: 'nearest' }); }
  }

  function removeCard(id) {
    var c = state.cards.get(id);
    if (c) { c.remove(); }
    state.cards.delete(id);
    state.data.delete(id);
    state.order = state.order.filter(function (x) { return x !== id; });
    afterChange();
  }

  function afterChange() {
    if (state.selected && !state.cards.has(state.selected)) { state.selected = null; }
    if (!state.selected && !state.hold) {
      state.selected = state.order.length ? state.order[0] : null;
    }
    select(state.selected);
    var n = state.order.length;
    $('pending-count').textContent = String(n);
    $('pending-empty').hidden = n > 0;
    document.title = (n ? '(' + n + ') ' : '') + 'shellgate \u2014 approvals';
    tick();
  }

  function applyPending(list, now) {
    state.offset = (typeof now === 'number' ? now : Date.now()) - Date.now();
    var ids = new Set(list.map(function (r) { return r.id; }));
    var moved = false;
    Array.from(state.cards.keys()).forEach(function (id) {
      if (!ids.has(id)) {
        // Gone by itself (not this page's answer in flight): the cards
        // below move up, and the one the human was reading may have been
        // replaced under the pointer or the selection.
        if (!state.busy.has(id)) {
          moved = true;
          if (id === state.selected) {
            state.hold = true;
            toast('The request you had selected is gone (withdrawn, expired or answered elsewhere). Select a request before answering.', 'deny');
          }
        }
        state.cards.get(id).remove();
        state.cards.delete(id);
        state.data.delete(id);
      }
    });
    var host = $('pending-list');
    list.forEach(function (r) {
      if (!state.cards.has(r.id)) {
        var c = card(r);
        state.cards.set(r.id, c);
        state.data.set(r.id, r);
        host.appendChild(c);
        if (state.loaded && !state.seen.has(r.id)) { notify(r); }
      }
      state.seen.add(r.id);
    });
    state.order = list.map(function (r) { return r.id; });
    if (moved) { state.settleUntil = Date.now() + SETTLE_MS; }
    state.loaded = true;
    afterChange();
  }

  function tick() {
    var now = serverNow();
    state.cards.forEach(function (c, id) {
      var r = state.data.get(id);
      if (!r) { return; }
      var age = c.querySelector('.age');
      var left = c.querySelector('.countdown');
      if (age) { age.textContent = duration(now - r.created_ms) + ' ago'; }
      if (left) {
        var ms = r.deadline_ms - now;
        left.textContent = ms > 0 ? duration(ms) : 'expiring\u2026';
        left.classList.toggle('soon', ms < 30000);
      }
    });
  }

  function answer(id, option) {
    if (state.busy.has(id) || !state.cards.has(id)) { return; }
    state.busy.add(id);
    var c = state.cards.get(id);
    c.classList.add('busy');
    c.querySelectorAll('button').forEach(function (b) { b.disabled = true; });
    call('POST', '/api/answer', { id: id, option: option }).then(function (x) {
      if (x.ok) {
        toast(x.data.resolution || 'Answered', x.data.decision);
        removeCard(id);
      } else {
        toast((x.data && x.data.message) || ('Error ' + x.status), 'deny');
        if (x.status === 404 || x.status === 409 || x.status === 410) {
          removeCard(id);
        } else if (state.cards.has(id)) {
          c.classList.remove('busy');
          c.querySelectorAll('button').forEach(function (b) { b.disabled = false; });
        }
      }
    }, function () {
      toast('The approval service did not answer', 'deny');
      c.classList.remove('busy');
      c.querySelectorAll('button').forEach(function (b) { b.disabled = false; });
    }).then(function () { state.busy.delete(id); });
  }

  // ----- notifications ------------------------------------------------------

  function setupNotify() {
    var btn = $('notify');
    if (!('Notification' in window)) { return; }
    function refresh() { btn.hidden = Notification.permission !== 'default'; }
    btn.addEventListener('click', function () {
      Notification.requestPermission().then(refresh, refresh);
    });
    refresh();
    try {
      if (Notification.permission === 'default' && !localStorage.getItem('shellgate.notify.asked')) {
        localStorage.setItem('shellgate.notify.asked', '1');
        Notification.requestPermission().then(refresh, refresh);
      }
    } catch (e) { /* storage disabled: the button stays */ }
  }

  function notify(r) {
    if (!('Notification' in window) || Notification.permission !== 'granted') { return; }
    try {
      var n = new Notification('shellgate: approval needed', {
        body: plain(r.header, 200) + '\n' + plain(r.display, 200),
        tag: r.id
      });
      n.onclick = function () { window.focus(); showTab('pending'); choose(r.id); n.close(); };
    } catch (e) { /* not allowed here */ }
  }

  // ----- live updates -------------------------------------------------------

  function connect() {
    var es = new EventSource('/api/events?csrf=' + encodeURIComponent(key()));
    state.source = es;
    es.addEventListener('pending', function (ev) {
      var d;
      try { d = JSON.parse(ev.data); } catch (e) { return; }
      setStatus('live', 'ok');
      applyPending(d.pending || [], d.now_ms);
    });
    es.onerror = function () {
      // While disconnected nothing shown could still be answered.
      applyPending([], Date.now());
      if (es.readyState === EventSource.CLOSED) {
        call('GET', '/api/state').then(function (x) {
          if (x.ok) { state.csrf = x.data.csrf; setTimeout(connect, 2000); }
        }, function () { setStatus('service unreachable', 'bad'); });
      } else {
        setStatus('reconnecting\u2026', 'bad');
      }
    };
  }

  // ----- history, grants, sessions ------------------------------------------

  function cell(tr, text, cls) {
    var td = el('td', cls);
    put(td, text);
    tr.appendChild(td);
    return td;
  }

  function loadHistory() {
    var form = $('history-filter');
    var q = new URLSearchParams();
    ['session', 'decision', 'verb'].forEach(function (k) {
      var v = (form.elements[k].value || '').trim();
      if (v) { q.set(k, v); }
    });
    call('GET', '/api/history?' + q.toString()).then(function (x) {
      var body = $('history-rows');
      body.textContent = '';
      if (!x.ok) { toast((x.data && x.data.message) || 'Cannot load history', 'deny'); return; }
      if (!x.data.length) {
        var tr = el('tr');
        var td = cell(tr, 'No decisions match.', 'empty');
        td.colSpan = 7;
        body.appendChild(tr);
        return;
      }
      x.data.forEach(function (h) {
        var tr = el('tr');
        cell(tr, h.time);
        cell(tr, h.decision, ['allow', 'ask', 'deny'].indexOf(h.decision) >= 0 ? 'd-' + h.decision : '');
        cell(tr, h.reason);
        var td = cell(tr, h.command, 'mono');
        td.dir = 'ltr';
        cell(tr, (h.verbs || []).join(', '));
        cell(tr, h.session || '');
        cell(tr, h.source);
        body.appendChild(tr);
      });
    }, function () { toast('Cannot load history', 'deny'); });
  }

  function loadGrants() {
    call('GET', '/api/grants').then(function (x) {
      var body = $('grant-rows');
      body.textContent = '';
      if (!x.ok) { toast((x.data && x.data.message) || 'Cannot load grants', 'deny'); return; }
      if (!x.data.length) {
        var tr = el('tr');
        var td = cell(tr, 'No persistent approvals.', 'empty');
        td.colSpan = 4;
        body.appendChild(tr);
        return;
      }
      x.data.forEach(function (g) {
        var tr = el('tr');
        cell(tr, g.audience + ' / ' + g.tool);
        cell(tr, g.label, 'mono');
        cell(tr, g.created_at || '');
        var td = el('td');
        var b = el('button', 'small revoke', 'Revoke');
        b.type = 'button';
        b.addEventListener('click', function () {
          if (!b.classList.contains('armed')) {
            b.classList.add('armed');
            b.textContent = 'Confirm revoke';
            setTimeout(function () { b.classList.remove('armed'); b.textContent = 'Revoke'; }, 5000);
            return;
          }
          b.disabled = true;
          call('POST', '/api/revoke', {
            audience: g.audience, tool: g.tool, verb: g.verb, directory: g.directory
          }).then(function (r) {
            toast((r.data && r.data.message) || (r.ok ? 'Revoked' : 'Error ' + r.status), r.ok ? 'allow' : 'deny');
            loadGrants();
          }, function () { toast('Cannot revoke', 'deny'); b.disabled = false; });
        });
        td.appendChild(b);
        tr.appendChild(td);
        body.appendChild(tr);
      });
    }, function () { toast('Cannot load grants', 'deny'); });
  }

  function loadSessions() {
    call('GET', '/api/sessions').then(function (x) {
      var host = $('session-list');
      host.textContent = '';
      if (!x.ok) { toast((x.data && x.data.message) || 'Cannot load sessions', 'deny'); return; }
      if (!x.data.length) { host.appendChild(el('p', 'empty', 'No active sessions.')); return; }
      x.data.forEach(function (s) {
        var box = el('section', 'session');
        box.appendChild(put(el('h3', 'mono'), s.id));
        var meta = el('p', 'session-meta');
        put(meta, s.audience + ' \u00b7 ' + s.channel +
          (s.parent ? ' \u00b7 parent ' + s.parent : '') +
          ' \u00b7 project ' + (s.project_dir || '(none)') + ' \u00b7 since ' + s.created_at);
        box.appendChild(meta);
        if (!s.grants || !s.grants.length) {
          box.appendChild(el('p', 'empty', 'No \u201cThis chat\u201d grants.'));
        } else {
          var ul = el('ul', 'grants');
          s.grants.forEach(function (g) {
            var label = g.verb + (g.directory ? ' in ' + g.directory : ' anywhere');
            ul.appendChild(put(el('li', 'mono'), label + '  (' + g.audience + ' / ' + g.tool + ')'));
          });
          box.appendChild(ul);
        }
        host.appendChild(box);
      });
    }, function () { toast('Cannot load sessions', 'deny'); });
  }

  function showTab(name) {
    state.tab = name;
    document.querySelectorAll('#tabs .tab').forEach(function (b) {
      b.classList.toggle('active', b.dataset.tab === name);
    });
    ['pending', 'history', 'grants', 'sessions'].forEach(function (v) {
      $('view-' + v).hidden = v !== name;
    });
    if (name === 'history') { loadHistory(); }
    if (name === 'grants') { loadGrants(); }
    if (name === 'sessions') { loadSessions(); }
  }

  // ----- keyboard -----------------------------------------------------------

  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) { return; }
    var t = e.target;
    if (t && /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName)) { return; }
    if (state.tab !== 'pending') { return; }
    var k = e.key;
    if (k === 'j' || k === 'ArrowDown') { e.preventDefault(); move(1); return; }
    if (k === 'k' || k === 'ArrowUp') { e.preventDefault(); move(-1); return; }
    var idx = -1;
    if (/^[a-e]$/.test(k)) { idx = k.charCodeAt(0) - 97; } else if (/^[1-5]$/.test(k)) { idx = Number(k) - 1; }
    if (idx < 0) { return; }
    if (!state.selected) {
      toast('Select a request first (j/k or a click)', 'deny');
      return;
    }
    var r = state.data.get(state.selected);
    if (!r) { return; }
    var opt = r.options[idx];
    if (!opt || !OPTION[opt]) { toast('No option \u2018' + k + '\u2019 for this request', 'deny'); return; }
    e.preventDefault();
    answer(r.id, opt);
  }

  // ----- start --------------------------------------------------------------

  function init() {
    takeKey();
    document.querySelectorAll('#tabs .tab').forEach(function (b) {
      b.addEventListener('click', function () { showTab(b.dataset.tab); });
    });
    $('history-filter').addEventListener('submit', function (e) { e.preventDefault(); loadHistory(); });
    document.addEventListener('keydown', onKey);
    setInterval(tick, 1000);
    setupNotify();
    call('GET', '/api/state').then(function (x) {
      if (!x.ok) { return; }
      state.csrf = x.data.csrf;
      applyPending(x.data.pending || [], x.data.now_ms);
      setStatus('live', 'ok');
      connect();
    }, function () { setStatus('service unreachable', 'bad'); });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
}());
