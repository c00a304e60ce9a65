(function () {
  'use strict';
  // Progressive enhancement only: the page is complete without this script.
  var doc = document.documentElement;
  doc.classList.add('js');
  var bar = document.getElementById('filters');
  var fixtures = Array.prototype.slice.call(document.querySelectorAll('details.fx'));
  if (!bar) { return; }
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
    count.textContent = 'showing ' + shown + ' of ' + fixtures.length + ' fixtures';
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
  view.addEventListener('change', function () {
    var cls = view.value === 'inline' ? '.v-inline' : '.v-split';
    document.querySelectorAll('.diffview > ' + cls).forEach(function (radio) { radio.checked = true; });
  });
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
    if (!el) { return; }
    if (el.matches('details.fx') && el.hidden) { reset(); }
    for (var d = el; d; d = d.parentElement) {
      if (d.tagName === 'DETAILS') { d.open = true; }
    }
    el.scrollIntoView();
  }
  window.addEventListener('hashchange', reveal);

  apply();
  reveal();
}());
