// megatriage HTML report: draws the rank timeline from the page's `megatriage-timeline` JSON.
// Ranks run down, grouped by host (a group folds into one row that shows its earliest mark of
// each kind), time runs across in milliseconds from the root. One mark per rank and group: the
// first event of that group on that rank, with a count. An event with no stamp of its own is a
// hatched band over the bounds its stream's stamps give and a hollow point where it is ordered;
// one with no time at all sits in the "no time" column. Every log text reaches the page through
// textContent, never as markup.
//
// Data (render_html.cc writes it): {origin: ISO time of 0 ms or null, root: {title} or null,
// hosts: [name], files: [path], shapes: [text], ranks: [[rank, host]], groups: [{title, rule,
// role, count, ranks, same_as_root, first, last, delay}], marks: [[rank, host, group, count,
// basis, time, after, before, file, line, shape, digits]]}; times in ms from origin, host/file -1
// or an index, group -1 for the root, basis e|b|i|n (explicit, bounded, inherited, none); a
// mark's text is its shape with each U+E000 replaced by the next of its space-separated digit
// runs (textOf).
(function () {
  'use strict';
  var source = document.getElementById('megatriage-timeline');
  var box = document.getElementById('timeline');
  var detail = document.getElementById('tl-detail');
  if (!source || !box) return;
  var T = JSON.parse(source.textContent);

  var BLOCK = 64;        // ranks per row group when the logs name no host
  var OPEN_ALL_UP_TO = 64;  // ranks: above this, only the root's group starts open
  var OPEN_STUB = 0.06;     // width of a band's side with no bound, as a share of the axis
  var PALETTE = {
    symptom: ['#1f77b4', '#7e57c2', '#00897b', '#3949ab', '#00acc1', '#8e24aa', '#5c6bc0', '#26a69a'],
    cause: ['#ef6c00', '#f9a825', '#d84315', '#a1887f'],
    teardown: ['#78909c', '#90a4ae', '#607d8b', '#b0bec5']
  };
  var ROOT_COLOR = '#c62828';

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // ---- marks and groups
  var marks = T.marks.map(function (a, i) {
    return {i: i, rank: a[0], host: a[1], g: a[2], count: a[3], basis: a[4], t: a[5], after: a[6],
            before: a[7], file: a[8], line: a[9], shape: a[10], digits: a[11]};
  });
  // A mark's text: its shape with the digit runs put back in place of each U+E000 (no runs: the
  // shape is the text, even one that holds U+E000 itself).
  function textOf(m) {
    if (m.digits === '') return T.shapes[m.shape];
    var parts = T.shapes[m.shape].split('\ue000'), runs = m.digits.split(' '), out = parts[0];
    for (var k = 1; k < parts.length; k++) out += (runs[k - 1] || '') + parts[k];
    return out;
  }
  var groups = T.groups.map(function (g, i) {
    return {i: i, title: g.title, rule: g.rule, role: g.role, count: g.count, ranks: g.ranks,
            same: g.same_as_root, first: g.first, last: g.last, delay: g.delay};
  });
  var used = {};
  var nextColor = {symptom: 0, cause: 0, teardown: 0};
  groups.forEach(function (g) {
    var list = PALETTE[g.role] || PALETTE.symptom;
    var k = g.role in nextColor ? g.role : 'symptom';
    g.color = list[nextColor[k]++ % list.length];
  });
  marks.forEach(function (m) { used[m.g] = true; });
  function colorOf(g) { return g < 0 ? ROOT_COLOR : groups[g].color; }
  function roleOf(g) { return g < 0 ? 'root' : groups[g].role; }
  function titleOf(g) { return g < 0 ? 'root cause: ' + (T.root ? T.root.title : '') : groups[g].title; }
  function point(m) { return m.t !== null ? m.t : m.before !== null ? m.before : m.after; }

  // ---- time scale
  var lo = Infinity, hi = -Infinity;
  marks.forEach(function (m) {
    [m.t, m.after, m.before].forEach(function (v) {
      if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    });
  });
  var timed = lo <= hi;
  if (timed) {
    if (hi - lo < 2000) { lo -= 1000; hi += 1000; }
    var pad = (hi - lo) * 0.03;
    lo -= pad; hi += pad;
  }
  function x(v) { return ((v - lo) / (hi - lo) * 100).toFixed(3) + '%'; }

  function rel(ms) {
    if (ms === null || ms === undefined) return '';
    var s = Math.abs(ms) / 1000, sign = ms < 0 ? '\u2212' : '+';
    if (s < 0.0005) return '0 s';
    var text;
    if (s < 10) text = s.toFixed(s < 1 ? 3 : 1).replace(/\.?0+$/, '') + ' s';
    else if (s < 120) text = Math.round(s) + ' s';
    else if (s < 7200) text = Math.floor(s / 60) + ' min' + (Math.round(s % 60) ? ' ' + Math.round(s % 60) + ' s' : '');
    else text = Math.floor(s / 3600) + ' h' + (Math.round(s % 3600 / 60) ? ' ' + Math.round(s % 3600 / 60) + ' min' : '');
    return sign + text;
  }
  // The logs' local time, read as if UTC so that it prints back unchanged; microseconds cut to the
  // milliseconds Date keeps.
  var originMs = T.origin ? Date.parse(T.origin.replace(/(\.\d{3})\d*$/, '$1') + 'Z') : NaN;
  function absolute(ms) {
    if (isNaN(originMs) || ms === null) return '';
    return new Date(originMs + ms).toISOString().replace('Z', '').replace(/\.000$/, '');
  }
  function describeTime(m) {
    var from = T.root ? ' from the root' : '';
    switch (m.basis) {
      case 'e': return absolute(m.t) + ' (' + rel(m.t) + from + ')';
      case 'b': return 'no stamp: before ' + absolute(m.before) + ' (' + rel(m.before) + ')' +
                       (m.after !== null ? ', after ' + absolute(m.after) + ' (' + rel(m.after) + ')' : '');
      case 'i': return 'no stamp: after ' + absolute(m.after) + ' (' + rel(m.after) + from + '), last stamp before it';
      default: return 'no time: its stream has no stamp';
    }
  }
  function where(m) { return (m.file >= 0 ? T.files[m.file] : '?') + ':' + m.line; }
  function hostName(h) { return h >= 0 ? T.hosts[h] : ''; }

  // ---- rows: ranks grouped by host
  var byRank = new Map(), unranked = new Map();
  marks.forEach(function (m) {
    if (m.rank >= 0) {
      if (!byRank.has(m.rank)) byRank.set(m.rank, []);
      byRank.get(m.rank).push(m);
    } else {
      var key = m.host >= 0 ? 'h' + m.host : 'none';
      if (!unranked.has(key)) unranked.set(key, []);
      unranked.get(key).push(m);
    }
  });
  var rankHost = new Map();
  T.ranks.forEach(function (r) { rankHost.set(r[0], r[1]); });
  byRank.forEach(function (list, r) {
    if (!rankHost.has(r)) rankHost.set(r, list[0].host);
  });
  var ranks = Array.from(rankHost.keys()).sort(function (a, b) { return a - b; });
  var rootMark = marks.filter(function (m) { return m.g < 0; })[0] || null;

  var rowGroups = new Map();
  function groupFor(key, label) {
    if (!rowGroups.has(key)) rowGroups.set(key, {key: key, label: label, ranks: [], unranked: [], first: Infinity});
    return rowGroups.get(key);
  }
  var hostless = 0;
  ranks.forEach(function (r) {
    var h = rankHost.get(r), grp;
    if (h >= 0) grp = groupFor('h' + h, T.hosts[h]);
    else {
      var b = Math.floor(hostless++ / BLOCK);
      grp = groupFor('b' + b, '');
    }
    grp.ranks.push(r);
    grp.first = Math.min(grp.first, r);
  });
  rowGroups.forEach(function (grp) {
    if (grp.key.charAt(0) === 'b')
      grp.label = 'ranks ' + grp.ranks[0] + '\u2013' + grp.ranks[grp.ranks.length - 1] + ', host unknown';
  });
  unranked.forEach(function (list, key) {
    var grp = key === 'none' ? groupFor('none', 'no rank, no host') : groupFor(key, hostName(list[0].host));
    grp.unranked = list;
  });
  var ordered = Array.from(rowGroups.values()).sort(function (a, b) {
    if (a.key === 'none' || b.key === 'none') return a.key === 'none' ? 1 : -1;
    return a.first - b.first;
  });
  function marksOf(grp) {
    var out = [];
    grp.ranks.forEach(function (r) { (byRank.get(r) || []).forEach(function (m) { out.push(m); }); });
    return out.concat(grp.unranked);
  }
  // A folded group's row: per kind of mark, the earliest of its ranks', with the sums.
  function aggregate(list) {
    var per = new Map();
    list.forEach(function (m) {
      var a = per.get(m.g);
      if (!a) { per.set(m.g, {m: m, count: m.count, ranks: new Set(m.rank >= 0 ? [m.rank] : [])}); return; }
      a.count += m.count;
      if (m.rank >= 0) a.ranks.add(m.rank);
      var p = point(m), q = point(a.m);
      if (p !== null && (q === null || p < q)) a.m = m;
    });
    return Array.from(per.values());
  }

  // ---- drawing
  var aggs = [];  // folded rows' marks, by data-agg
  function drawMark(track, notime, m, agg) {
    var role = roleOf(m.g), p = point(m), mk = el('span', 'mk ' + role);
    mk.style.setProperty('--c', colorOf(m.g));
    mk.dataset.i = m.i;
    mk.dataset.g = m.g;
    if (agg) { mk.dataset.agg = aggs.length; aggs.push(agg); }
    if (m.basis !== 'e') mk.classList.add('uncertain');
    if (p === null || !timed) { notime.appendChild(mk); return; }
    if (m.basis !== 'e') {
      // A missing bound is drawn as a short fading stub, not a band to the edge: "before 07:15"
      // with nothing earlier known says little, and a page-wide stripe would hide the rest.
      var stub = (hi - lo) * OPEN_STUB;
      var from = m.after !== null ? m.after : Math.max(lo, m.before - stub);
      var to = m.before !== null ? m.before : Math.min(hi, m.after + stub);
      var band = el('span', 'band');
      band.style.setProperty('--c', colorOf(m.g));
      band.dataset.g = m.g;
      if (m.after === null) band.classList.add('open-left');
      if (m.before === null) band.classList.add('open-right');
      band.style.left = x(from);
      band.style.width = ((Math.max(to - from, 0)) / (hi - lo) * 100).toFixed(3) + '%';
      track.appendChild(band);
    }
    mk.style.left = x(p);
    track.appendChild(mk);
  }
  function row(cls, label, title) {
    var r = el('div', 'tl-row ' + cls);
    var l = el('div', 'label', label);
    l.title = title || label;
    r.appendChild(l);
    r.appendChild(el('div', 'track'));
    r.appendChild(el('div', 'notime'));
    return r;
  }
  function fillRow(r, list, folded) {
    var track = r.children[1], notime = r.children[2];
    if (folded) aggregate(list).forEach(function (a) { drawMark(track, notime, a.m, a); });
    else list.forEach(function (m) { drawMark(track, notime, m, null); });
    applyHidden(r);
  }
  function rankRows(grp) {
    var frag = document.createDocumentFragment();
    grp.ranks.forEach(function (rank) {
      var isRoot = rootMark && rootMark.rank === rank;
      var r = row('tl-rank' + (isRoot ? ' is-root' : ''), 'rank ' + rank + (isRoot ? '  \u25c6 root' : ''));
      r.dataset.rank = rank;
      fillRow(r, byRank.get(rank) || [], false);
      frag.appendChild(r);
    });
    if (grp.unranked.length) {
      var isRoot = rootMark && rootMark.rank < 0 && grp.unranked.indexOf(rootMark) >= 0;
      var u = row('tl-unranked' + (isRoot ? ' is-root' : ''), grp.key === 'none' ? 'no rank' : 'no rank (host lines)');
      fillRow(u, grp.unranked, false);
      frag.appendChild(u);
    }
    return frag;
  }

  var hidden = {};
  function applyHidden(scope) {
    // Rows built while every kind is shown need no pass (8,192 rows unfolded at once).
    if (scope !== box && !Object.keys(hidden).some(function (g) { return hidden[g]; })) return;
    scope.querySelectorAll('.mk, .band, .wave, .wave-label').forEach(function (e) {
      e.classList.toggle('hidden', !!hidden[e.dataset.g]);
    });
  }

  box.textContent = '';
  var tools = el('div', 'tl-tools');
  var hostCount = ordered.filter(function (g) { return g.key.charAt(0) === 'h'; }).length;
  tools.appendChild(el('span', 'note', ranks.length + ' rank' + (ranks.length === 1 ? '' : 's') +
      (hostCount ? ' on ' + hostCount + ' host' + (hostCount === 1 ? '' : 's') : '') + '; ' + marks.length +
      ' marks (per rank, the first event of each kind; click one for its line)'));
  var expand = el('button', '', 'expand all'), collapse = el('button', '', 'collapse all');
  expand.type = collapse.type = 'button';
  tools.appendChild(expand);
  tools.appendChild(collapse);
  box.appendChild(tools);

  // Legend: one entry per kind drawn, with its delay from the root (the report's figure).
  var legend = el('ul', 'tl-legend');
  function legendItem(g, text, note) {
    var li = el('li'), cb = el('input'), lab = el('label'), sw = el('span', 'sw ' + roleOf(g));
    cb.type = 'checkbox';
    cb.checked = true;
    cb.id = 'tl-g' + (g + 1);
    cb.addEventListener('change', function () {
      hidden[g] = !cb.checked;
      applyHidden(box);
    });
    sw.style.setProperty('--c', colorOf(g));
    lab.htmlFor = cb.id;
    lab.appendChild(sw);
    lab.appendChild(document.createTextNode(' ' + text + ' '));
    lab.appendChild(el('span', 'delay', note));
    li.appendChild(cb);
    li.appendChild(lab);
    li.dataset.g = g;
    legend.appendChild(li);
  }
  if (rootMark) legendItem(-1, titleOf(-1), rootMark.rank >= 0 ? 'rank ' + rootMark.rank : 'rank unknown');
  groups.forEach(function (g) {
    if (!used[g.i]) return;
    var note = g.count + '\u00d7 ' + (g.ranks ? 'on ' + g.ranks + ' rank' + (g.ranks === 1 ? '' : 's') : 'on no named rank');
    if (T.root) note += g.delay !== null ? ', first ' + rel(g.delay) + ' after the root' : ', not ordered against the root';
    if (g.first !== null && g.last !== null && g.last > g.first) note += ', wave lasts ' + rel(g.last - g.first).slice(1);
    legendItem(g.i, g.title + (g.same ? ' (same as the root)' : ''), note);
  });
  box.appendChild(legend);

  var frame = el('div', 'tl-frame');
  var axis = el('div', 'tl-axis');
  axis.appendChild(el('div', 'label', ''));
  var scale = el('div', 'scale');
  axis.appendChild(scale);
  axis.appendChild(el('div', 'notime', 'no time'));
  frame.appendChild(axis);
  var body = el('div', 'tl-body');
  var waves = el('div', 'tl-waves');
  body.appendChild(waves);
  frame.appendChild(body);
  box.appendChild(frame);

  if (timed) {
    var steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5,
                 9e5, 18e5, 36e5, 72e5, 144e5, 288e5, 864e5];
    var step = steps.filter(function (s) { return s >= (hi - lo) / 8; })[0] || 864e5;
    for (var v = Math.ceil(lo / step) * step; v <= hi; v += step) {
      var tick = el('span', 'tick', rel(v));
      tick.style.left = x(v);
      scale.appendChild(tick);
    }
    // Each wave's start, labelled with its delay; labels that would overlap go one line lower.
    var starts = [];
    if (rootMark && point(rootMark) !== null) starts.push({g: -1, at: point(rootMark), label: 'root'});
    // Teardown (SIGTERM, launcher exits) follows every failure: its marks and legend say enough.
    groups.forEach(function (g) {
      if (used[g.i] && g.first !== null && g.role !== 'teardown') starts.push({g: g.i, at: g.first, label: rel(g.delay !== null ? g.delay : g.first)});
    });
    starts.sort(function (a, b) { return a.at - b.at; });
    // Waves that start together (the same label at nearly the same place) share one label whose
    // tooltip names them all; labels still too close go one line lower, or are left to the legend.
    var lastAt = [-Infinity, -Infinity], lastLabel = null;
    starts.forEach(function (s) {
      var line = el('div', 'wave' + (s.g < 0 ? ' root' : ''));
      line.style.setProperty('--c', colorOf(s.g));
      line.style.left = x(s.at);
      line.dataset.g = s.g;
      waves.appendChild(line);
      var pos = (s.at - lo) / (hi - lo);
      if (lastLabel && lastLabel.textContent === s.label && pos - lastLabel.pos < 0.01) {
        lastLabel.title += '\n' + titleOf(s.g);
        return;
      }
      var level = pos - lastAt[0] > 0.07 ? 0 : pos - lastAt[1] > 0.07 ? 1 : -1;
      if (level < 0) return;
      lastAt[level] = pos;
      var lab = el('span', 'wave-label', s.label);
      lab.style.setProperty('--c', colorOf(s.g));
      lab.style.left = x(s.at);
      lab.style.top = (2 + level * 11) + 'px';
      lab.dataset.g = s.g;
      lab.title = titleOf(s.g);
      lab.pos = pos;
      scale.appendChild(lab);
      lastLabel = lab;
    });
  } else {
    scale.appendChild(el('span', 'tick', marks.length ? 'no timestamps: events in the no-time column' : 'nothing to draw'));
  }

  // Host groups: a header row (its ranks folded), the ranks' rows built when first opened.
  var openAll = ranks.length <= OPEN_ALL_UP_TO;
  var headers = [];
  ordered.forEach(function (grp) {
    var n = grp.ranks.length;
    var label = grp.label + (n && grp.key.charAt(0) === 'h' ? ' \u00b7 ' + n + ' rank' + (n === 1 ? '' : 's') : '');
    var head = row('tl-host', label);
    head.dataset.group = grp.key;
    var hasRoot = rootMark && (grp.ranks.indexOf(rootMark.rank) >= 0 || grp.unranked.indexOf(rootMark) >= 0);
    if (hasRoot) head.classList.add('is-root');
    fillRow(head, marksOf(grp), true);
    var kids = el('div', 'tl-kids');
    var built = false;
    function setOpen(open) {
      if (open && !built) { kids.appendChild(rankRows(grp)); built = true; }
      kids.hidden = !open;
      head.classList.toggle('open', open);
      head.firstChild.setAttribute('aria-expanded', open ? 'true' : 'false');
    }
    var toggle = head.firstChild;
    toggle.tabIndex = 0;
    toggle.setAttribute('role', 'button');
    toggle.addEventListener('click', function () { setOpen(!head.classList.contains('open')); });
    toggle.addEventListener('keydown', function (ev) {
      if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); setOpen(!head.classList.contains('open')); }
    });
    body.appendChild(head);
    body.appendChild(kids);
    headers.push(setOpen);
    setOpen(openAll || hasRoot);
  });
  expand.addEventListener('click', function () { headers.forEach(function (f) { f(true); }); });
  collapse.addEventListener('click', function () { headers.forEach(function (f) { f(false); }); });

  // ---- hover and click: the event's line and where it is
  var tip = el('div', 'tl-tip');
  tip.hidden = true;
  document.body.appendChild(tip);
  function describe(target, into, full) {
    var m = marks[+target.dataset.i], agg = target.dataset.agg !== undefined ? aggs[+target.dataset.agg] : null;
    into.textContent = '';
    var head = titleOf(m.g);
    if (agg && agg.ranks.size > 1) head += ' \u2014 ' + agg.ranks.size + ' ranks of this group, ' + agg.count + ' events; the first:';
    into.appendChild(el('div', 'what', head));
    var who = (m.rank >= 0 ? 'rank ' + m.rank : 'no rank') + (m.host >= 0 ? ' on ' + T.hosts[m.host] : '') +
              (m.count > 1 ? ' \u00b7 ' + m.count + ' events here, the first shown' : '');
    into.appendChild(el('div', 'who', who));
    into.appendChild(el('div', 'when', describeTime(m)));
    into.appendChild(el('div', 'where', where(m)));
    into.appendChild(el('pre', 'line', textOf(m)));
    if (full && m.g >= 0) into.appendChild(el('div', 'note', 'rule ' + groups[m.g].rule));
  }
  frame.addEventListener('mouseover', function (ev) {
    var t = ev.target.closest && ev.target.closest('.mk');
    if (!t) return;
    describe(t, tip, false);
    tip.hidden = false;
  });
  frame.addEventListener('mousemove', function (ev) {
    if (tip.hidden) return;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    tip.style.left = Math.max(4, Math.min(ev.clientX + 14, window.innerWidth - w - 8)) + 'px';
    tip.style.top = (ev.clientY + 16 + h > window.innerHeight ? ev.clientY - h - 10 : ev.clientY + 16) + 'px';
  });
  frame.addEventListener('mouseout', function (ev) {
    if (ev.target.closest && ev.target.closest('.mk')) tip.hidden = true;
  });
  frame.addEventListener('click', function (ev) {
    var t = ev.target.closest && ev.target.closest('.mk');
    if (!t || !detail) return;
    describe(t, detail, true);
    detail.hidden = false;
  });
  // The root's own line is shown from the start.
  if (rootMark && detail) {
    var rootEl = box.querySelector('.mk.root');
    if (rootEl) { describe(rootEl, detail, true); detail.hidden = false; }
  }
})();
