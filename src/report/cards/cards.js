// Tool cards: draw the cards waiting in inert blocks as they near the viewport, open what a link
// points at, move between cards with the keyboard, copy accept commands, and keep a live page
// (`view --follow`) reloading. Provider data only ever reaches the page as server-escaped HTML.
(function () {
  'use strict';
  var root = document.documentElement;
  var view = document.body && document.body.getAttribute('data-page') === 'view';
  if (view) { root.classList.add('js'); }

  // Inert blocks of cards: each follows its `.more` sentinel; drawn in order per container.
  function drawChunk(script) {
    if (!script || !script.parentNode) { return false; }
    var more = script.previousElementSibling;
    script.insertAdjacentHTML('beforebegin', script.textContent);
    script.parentNode.removeChild(script);
    if (more && more.classList.contains('more')) {
      if (observer) { observer.unobserve(more); }
      more.parentNode.removeChild(more);
    }
    return true;
  }
  function firstChunk(box) { return box.querySelector(':scope > script.chunk'); }
  var observer = null;
  function watch(box) {
    var s = firstChunk(box);
    if (!s) { return; }
    var more = s.previousElementSibling;
    if (!more || !more.classList.contains('more')) { return; }
    more.hidden = false;
    if (observer) { observer.observe(more); } else { drawChunk(s); watch(box); }
  }
  if ('IntersectionObserver' in window) {
    observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (!e.isIntersecting) { return; }
        observer.unobserve(e.target);
        // Drawn meanwhile (the keyboard or a link drew every block): nothing left here.
        var box = e.target.parentNode;
        if (!box) { return; }
        drawChunk(e.target.nextElementSibling);
        watch(box);
      });
    }, { rootMargin: '1500px 0px' });
  }
  var boxes = document.querySelectorAll('.cards');
  for (var b = 0; b < boxes.length; b += 1) { watch(boxes[b]); }
  // Draw every waiting block (a deep link or the keyboard went past the drawn cards).
  function drawAll(until) {
    var s;
    while ((s = document.querySelector('script.chunk'))) {
      var box = s.parentNode;
      drawChunk(s);
      if (until && until()) { watch(box); return true; }
    }
    return false;
  }

  // A link to a card or its raw lines: draw it if it waits, open it and what holds it.
  function reveal() {
    var id = decodeURIComponent((location.hash || '').slice(1));
    if (!id) { return; }
    var el = document.getElementById(id);
    if (!el && /^(s\d+-|f\d+-[ae]-)?[cr]\d+$/.test(id)) {
      drawAll(function () { return document.getElementById(id); });
      el = document.getElementById(id);
    }
    if (!el || !el.closest('.tc')) { return; }
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === 'DETAILS') { p.open = true; }
    }
    var old = document.querySelectorAll('.tc-raw.target');
    for (var i = 0; i < old.length; i += 1) { old[i].classList.remove('target'); }
    if (el.classList.contains('tc-raw')) { el.classList.add('target'); }
    el.scrollIntoView({ block: 'start' });
  }
  window.addEventListener('hashchange', reveal);
  document.addEventListener('click', function (e) {
    var a = e.target.closest && e.target.closest('a.rawlink');
    if (a && a.getAttribute('href') === location.hash) { reveal(); }
  });

  // Keyboard: j / k (or the arrows on a focused card) move between cards; Enter or Space opens
  // (or closes) a focused card's sections.
  // The cards shown: not those in a closed `<details>` (a preview's unchanged cards, a closed
  // fixture), which cannot take focus until it opens.
  function cards() {
    return Array.prototype.filter.call(document.querySelectorAll('article.tc'), function (c) {
      return !(c.parentElement && c.parentElement.closest('details:not([open])'));
    });
  }
  function visible(list) {
    for (var i = 0; i < list.length; i += 1) {
      if (list[i].getBoundingClientRect().bottom > 60) { return i; }
    }
    return list.length - 1;
  }
  function move(d) {
    var list = cards();
    var i = list.indexOf(document.activeElement);
    var n = i < 0 ? visible(list) : i + d;
    if (n >= list.length && drawAll(function () { return true; })) { list = cards(); }
    if (n < 0 || n >= list.length) { return; }
    list[n].focus({ preventScroll: true });
    list[n].scrollIntoView({ block: 'nearest' });
  }
  function toggle(card) {
    var own = card.querySelectorAll(':scope > .tc-main > .secs > details, :scope > details.tc-raw');
    var open = false;
    for (var i = 0; i < own.length; i += 1) { open = open || !own[i].open; }
    for (var j = 0; j < own.length; j += 1) { own[j].open = open; }
  }
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    var t = e.target;
    if (t && /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(t.tagName)) { return; }
    var onCard = t && t.classList && t.classList.contains('tc');
    if (e.key === 'j' || (e.key === 'ArrowDown' && onCard)) { move(1); e.preventDefault(); }
    else if (e.key === 'k' || (e.key === 'ArrowUp' && onCard)) { move(-1); e.preventDefault(); }
    else if ((e.key === 'Enter' || e.key === ' ') && onCard) { toggle(t); e.preventDefault(); }
  });

  // Copy buttons beside the accept commands.
  var copies = document.querySelectorAll('.accept .copy');
  for (var c = 0; c < copies.length; c += 1) {
    copies[c].hidden = false;
    copies[c].addEventListener('click', function (e) {
      var btn = e.currentTarget;
      var code = btn.parentNode.querySelector('code.cmd');
      var text = code ? code.textContent : '';
      var done = function () { btn.textContent = 'copied'; };
      var select = function () {
        var r = document.createRange();
        r.selectNodeContents(code);
        var sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(r);
        btn.textContent = 'selected: press Ctrl+C';
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, select);
      } else { select(); }
    });
  }

  // A live page: reload while the command rewrites it, keeping the place (or the bottom).
  var follow = parseInt(root.getAttribute('data-follow') || '', 10);
  var KEY = 'toolnorm-view-scroll:' + location.pathname;
  function store(k, v) { try { window.sessionStorage.setItem(k, v); } catch (err) { /* no storage */ } }
  function load(k) { try { return window.sessionStorage.getItem(k); } catch (err) { return null; } }
  var saved = load(KEY);
  if (saved !== null && !location.hash) {
    var at = JSON.parse(saved);
    if (at.bottom) {
      drawAll();
      window.scrollTo(0, document.documentElement.scrollHeight);
    } else {
      drawAll(function () { return document.documentElement.scrollHeight > at.y + window.innerHeight; });
      window.scrollTo(0, at.y);
    }
  }
  if (follow > 0) {
    window.setTimeout(function () {
      var bottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 40;
      store(KEY, JSON.stringify({ y: window.scrollY, bottom: bottom }));
      location.reload();
    }, follow);
  }

  reveal();
  if (view && window.performance && performance.mark) { performance.mark('toolnorm-ready'); }
}());
