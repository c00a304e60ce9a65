(function () {
  'use strict';
  // Progressive enhancement only: the page is complete without this script.
  var doc = document.documentElement;
  doc.classList.add('js');
  var bar = document.getElementById('filters');
  var fixtures = Array.prototype.slice.call(document.querySelectorAll('details.fx'));
  if (!bar) { return; }
  var passing = compactList();
  bar.hidden = false;
  var text = document.getElementById('f-text');
  var provider = document.getElementById('f-provider');
  var rule = document.getElementById('f-rule');
  var view = document.getElementById('f-view');
  var count = document.getElementById('f-count');
  var boxes = Array.prototype.slice.call(bar.querySelectorAll('input[name=status]'));

  function apply() {
    var q = text.value.trim().toLowerCase();
    var p = provider.value;
    var r = rule.value;
    var on = {};
    boxes.forEach(function (b) { on[b.value] = b.checked; });
    var shown = 0;
    fixtures.forEach(function (d) {
      var ok = on[d.dataset.status] === true &&
        (!p || d.dataset.provider === p) &&
        (!r || (' ' + d.dataset.rules + ' ').indexOf(' ' + r + ' ') >= 0) &&
        (!q || d.dataset.name.toLowerCase().indexOf(q) >= 0);
      d.hidden = !ok;
      if (ok) { shown += 1; }
    });
    var total = fixtures.length;
    if (passing) {
      shown += passing.filter(on.pass === true && !r, p, q);
      total += passing.size;
    }
    count.textContent = 'showing ' + shown + ' of ' + total + ' fixtures';
  }

  function setStatuses(only) {
    boxes.forEach(function (b) { b.checked = !only || only.indexOf(b.value) >= 0; });
  }

  function reset() {
    text.value = '';
    provider.value = '';
    rule.value = '';
    setStatuses(null);
    apply();
  }

  [text, provider, rule].forEach(function (el) { el.addEventListener('input', apply); });
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  function setView(root) {
    var cls = view.value === 'inline' ? '.v-inline' : '.v-split';
    root.querySelectorAll('.diffview > ' + cls).forEach(function (radio) { radio.checked = true; });
  }
  view.addEventListener('change', function () { setView(document); });

  // A large report's diffs wait in templates until their fixture is opened.
  function renderDeferred(d) {
    d.querySelectorAll('template.lazy').forEach(function (t) {
      var body = document.importNode(t.content, true);
      setView(body);
      t.parentNode.replaceChild(body, t);
    });
  }
  document.addEventListener('toggle', function (e) {
    var d = e.target;
    if (d.open && d.matches && d.matches('details.fx')) { renderDeferred(d); }
  }, true);
  fixtures.forEach(function (d) { if (d.open) { renderDeferred(d); } });
  document.getElementById('f-failing').addEventListener('click', function () {
    setStatuses(['fail', 'error', 'xpass']);
    apply();
  });
  document.getElementById('f-expand').addEventListener('click', function () {
    fixtures.forEach(function (d) { if (!d.hidden) { d.open = true; } });
  });
  document.getElementById('f-collapse').addEventListener('click', function () {
    fixtures.forEach(function (d) { d.open = false; });
  });
  document.getElementById('f-reset').addEventListener('click', reset);

  // Total cards filter the fixture list by their status.
  document.querySelectorAll('.totals a.card').forEach(function (card) {
    card.addEventListener('click', function () {
      var st = card.getAttribute('data-status');
      if (card.classList.contains('c-all')) { reset(); }
      else if (st) { setStatuses([st]); provider.value = ''; rule.value = ''; text.value = ''; apply(); }
    });
  });

  // Deep links: open the target fixture (and any enclosing details), even if filtered out.
  function reveal() {
    var id;
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
    if (!id) { return; }
    var el = document.getElementById(id);
    if (!el && passing) {
      var at = passing.find(id);
      if (at < 0) { return; }
      if (!passing.shows(at)) { reset(); }
      passing.reveal(at);
      return;
    }
    if (!el) { return; }
    if (el.matches('details.fx') && el.hidden) { reset(); }
    for (var d = el; d; d = d.parentElement) {
      if (d.tagName === 'DETAILS') { d.open = true; }
    }
    el.scrollIntoView();
  }
  window.addEventListener('hashchange', reveal);

  // The passing fixtures of a large report: rows of the data block, rendered only while on
  // screen (a virtual list of fixed-height rows), filtered like the fixtures above.
  function compactList() {
    var list = document.getElementById('plist');
    var source = document.getElementById('passing-data');
    if (!list || !source) { return null; }
    var data = JSON.parse(source.textContent);
    var rows = data.rows;
    var ROW = 30;
    var shownRows = [];
    var anchors = null;
    var target = -1;
    var drawn = '';

    function anchor(i) {
      var r = rows[i];
      return r[6] || 'fixture-' + data.providers[r[0]] + '-' + r[1];
    }
    function size(n) {
      if (n < 1024) { return n + ' B'; }
      if (n < 1048576) { return (n / 1024).toFixed(1) + ' KiB'; }
      return (n / 1048576).toFixed(1) + ' MiB';
    }
    function time(ms) { return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s'; }
    function el(tag, cls, text) {
      var e = document.createElement(tag);
      if (cls) { e.className = cls; }
      if (text !== undefined) { e.textContent = text; }
      return e;
    }
    function row(i, pos) {
      var r = rows[i];
      var id = anchor(i);
      var div = el('div', 'prow' + (i === target ? ' target' : ''));
      div.setAttribute('role', 'listitem');
      div.id = id;
      div.style.top = (pos * ROW) + 'px';
      div.appendChild(el('span', 'badge st-pass', 'pass'));
      var name = el('span', 'fxname');
      name.appendChild(el('span', 'prov', data.providers[r[0]]));
      name.appendChild(document.createTextNode('/'));
      name.appendChild(el('b', '', r[1]));
      div.appendChild(name);
      var facts = [r[3] + (r[3] === 1 ? ' part' : ' parts'), size(r[4]), time(r[5])];
      if (r[2] >= 0) { facts.unshift(data.dialects[r[2]]); }
      div.appendChild(el('span', 'muted', facts.join(' \u00b7 ')));
      var link = el('a', 'permalink', '#');
      link.setAttribute('href', '#' + id);
      link.setAttribute('title', 'Link to this fixture');
      div.appendChild(link);
      return div;
    }
    function draw(force) {
      var top = -list.getBoundingClientRect().top;
      var first = Math.max(0, Math.floor(top / ROW) - 20);
      var last = Math.min(shownRows.length, Math.ceil((top + window.innerHeight) / ROW) + 20);
      var key = first + ':' + last;
      if (!force && key === drawn) { return; }
      drawn = key;
      var frag = document.createDocumentFragment();
      for (var pos = first; pos < last; pos += 1) { frag.appendChild(row(shownRows[pos], pos)); }
      list.textContent = '';
      list.appendChild(frag);
    }
    var queued = false;
    function schedule() {
      if (queued) { return; }
      queued = true;
      window.requestAnimationFrame(function () { queued = false; draw(false); });
    }
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    var matches = [];
    return {
      size: rows.length,
      // Keep the rows of `provider` whose name holds `text` (none when `on` is false).
      filter: function (on, provider, text) {
        matches = [];
        shownRows = [];
        for (var i = 0; on && i < rows.length; i += 1) {
          var r = rows[i];
          var prov = data.providers[r[0]];
          if (provider && prov !== provider) { continue; }
          if (text && (prov + '/' + r[1]).toLowerCase().indexOf(text) < 0) { continue; }
          shownRows.push(i);
        }
        matches = shownRows;
        list.style.height = (shownRows.length * ROW) + 'px';
        document.getElementById('passing').hidden = shownRows.length === 0;
        draw(true);
        return shownRows.length;
      },
      find: function (id) {
        if (!anchors) {
          anchors = {};
          for (var i = 0; i < rows.length; i += 1) { anchors[anchor(i)] = i; }
        }
        return Object.prototype.hasOwnProperty.call(anchors, id) ? anchors[id] : -1;
      },
      shows: function (i) { return matches.indexOf(i) >= 0; },
      reveal: function (i) {
        target = i;
        var pos = shownRows.indexOf(i);
        if (pos < 0) { return; }
        var y = list.getBoundingClientRect().top + window.scrollY + pos * ROW;
        window.scrollTo(0, Math.max(0, y - window.innerHeight / 3));
        draw(true);
      }
    };
  }

  apply();
  reveal();
  if (window.performance && performance.mark) { performance.mark('toolnorm-ready'); }
}());
