/**
 * The style and script of the HTML report, as text. The script is plain browser JavaScript: it reads the
 * report from the page's JSON data block, builds the tree, the detail panel and the filters, and puts
 * every value on the page with `textContent` or `setAttribute`, never as markup. Values are shown with the
 * same escaping as `visible` in `src/escape.ts` (the pattern is that module's own, passed in by source).
 *
 * Neither text holds `</script`, `</style` or `<!--` (a test pins it), so each ends where its tag does;
 * the page's Content-Security-Policy allows exactly these two by hash.
 */
import { HIDDEN_SOURCE } from '../../escape.js';
import type { NodeStatus } from '../schema.js';
import { DEFAULT_FIX, STATUS_GLYPH } from './glyphs.js';
import { NOTE_LABELS } from './notes.js';
import { STATUS_COLORS } from './picture.js';
import { STATUS_ORDER } from './summary.js';

const statusRules = STATUS_ORDER.map((status: NodeStatus) => {
  const c = STATUS_COLORS[status];
  return `.s-${status} .glyph{color:${c.stroke}}.s-${status} .status{color:${c.text}}`;
}).join('\n');

/** The page's style sheet. */
export const PAGE_STYLE = `
:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;font-size:14px;color:#1d1d1f;background:#fafafa}
body{margin:0}
header{padding:12px 20px;background:#fff;border-bottom:1px solid #ddd}
h1{font-size:18px;margin:0 0 6px}
h2{font-size:15px;margin:0 0 8px}
.meta{color:#555;margin:0 0 8px}
.coverage{display:flex;align-items:center;gap:10px;flex-wrap:wrap}
progress{width:220px;height:14px;accent-color:#2e7d32}
.verdict{font-weight:600}
.counts{list-style:none;display:flex;gap:14px;flex-wrap:wrap;padding:0;margin:8px 0 0}
.counts li{white-space:nowrap}
main{display:grid;grid-template-columns:minmax(320px,3fr) minmax(280px,2fr);gap:16px;padding:16px 20px}
.controls{display:flex;gap:10px;align-items:center;margin-bottom:8px;flex-wrap:wrap}
.controls button{font:inherit;padding:4px 10px;border:1px solid #888;border-radius:4px;background:#fff;cursor:pointer}
.controls button[aria-pressed="true"]{background:#1d1d1f;color:#fff}
.controls input{font:inherit;padding:4px 8px;min-width:240px;border:1px solid #888;border-radius:4px}
.shown{color:#555}
#tree{background:#fff;border:1px solid #ddd;border-radius:6px;max-height:70vh;overflow:auto;padding:4px 0}
#tree:focus-within{border-color:#1565c0}
.row{content-visibility:auto;contain-intrinsic-size:auto 20px;display:flex;gap:6px;align-items:baseline;padding:2px 8px;white-space:nowrap;cursor:pointer;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.row[hidden],.module[hidden]{display:none}
.row:hover{background:#f0f0f0}
.row[aria-selected="true"]{background:#e3ecfa;outline:1px solid #1565c0}
.row:focus{outline:2px solid #1565c0;outline-offset:-2px}
.row[data-context]{opacity:.6}
.indent{white-space:pre}
.twisty{width:1em;display:inline-block;color:#777}
.glyph{width:1.2em;display:inline-block;font-weight:700}
.name{font-weight:600}
.kind,.status{color:#555}
.module{padding:6px 8px 2px;font-weight:600;color:#333;border-top:1px solid #eee}
${statusRules}
#detail{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px 16px;align-self:start;position:sticky;top:12px;overflow-wrap:anywhere}
#detail dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0}
#detail dt{color:#555}
#detail dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
#detail dd[data-field="fix"]{color:#0d47a1;font-weight:600}
#detail dd[data-field="warning"]{color:#7a5c00}
#picture{padding:0 20px 20px}
.notes{padding:10px 20px 0}.notes[hidden]{display:none}.notes li{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px;color:#7a5c00}
#picture .frame{background:#fff;border:1px solid #ddd;border-radius:6px;overflow:auto;max-height:80vh}
#picture svg{display:block}
#picture g.node,#picture g.cluster{cursor:pointer}
#picture g.chosen>polygon,#picture g.chosen>path{stroke-width:4}
.hint{color:#666;font-size:12px}
@media (max-width:800px){main{grid-template-columns:1fr}}
`;

const BOOT = {
  hidden: HIDDEN_SOURCE,
  noteLabels: NOTE_LABELS,
  glyph: STATUS_GLYPH,
  fix: DEFAULT_FIX,
};

/** The page's script. */
export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var BOOT = ${JSON.stringify(BOOT).replace(/</g, '\\u003c')};
  var HIDDEN = new RegExp(BOOT.hidden, 'gu');
  var NAMED = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  function hex(code, width) { var s = code.toString(16); while (s.length < width) s = '0' + s; return s; }
  function visible(text) {
    return String(text).replace(HIDDEN, function (c) {
      if (NAMED[c] !== undefined) return NAMED[c];
      var code = c.codePointAt(0);
      if (code < 0x100) return '\\x' + hex(code, 2);
      if (code < 0x10000) return '\\u' + hex(code, 4);
      return '\\u{' + code.toString(16) + '}';
    });
  }
  function visiblePath(path) {
    return path.map(function (s) { return visible(s).split('\u203a').join('\\u203a'); }).join(' \u203a ');
  }
  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  var report = JSON.parse(document.getElementById('gate-audit-report').textContent);
  var nodes = report.nodes;
  var bundle = report.root.kind === 'bundle';

  document.title = 'gate-audit ' + visible(report.mode) + ' \u00b7 ' + visible(report.root.id);
  document.getElementById('root-name').textContent = visible(report.root.id) + ' (' + visible(report.root.kind) + ')';
  if (report.generator) {
    document.getElementById('generator').textContent = 'gate-audit ' + visible(report.generator.version) +
      ' on @strands-agents/sdk ' + visible(report.generator.sdk) + (report.generator.sdkTested ? '' : ' (untested SDK)');
  }

  // What the run did not audit or held against the report (as the text report's notes), and plan refusals.
  var notesList = document.getElementById('notes-list');
  function addNote(text) { notesList.appendChild(el('li', '', text)); }
  (report.notes || []).forEach(function (note) {
    var where = note.path === undefined
      ? visible(note.module + (note.export === undefined ? '' : '#' + note.export))
      : '"' + visiblePath(note.path).split('"').join('\\x22') + '"';
    var label = Object.prototype.hasOwnProperty.call(BOOT.noteLabels, note.kind) ? BOOT.noteLabels[note.kind] : 'note';
    addNote(label + ': ' + where + ': ' + visible(note.message) + (note.fix === undefined ? '' : ' | ' + visible(note.fix)));
  });
  (report.refusals || []).forEach(function (r) {
    addNote('installMultiagent would refuse ' + visiblePath(r.path) + ' (' + visible(r.kind) + '): ' + visible(r.reason) + ' | ' + visible(r.fix));
  });
  if (notesList.children.length > 0) document.getElementById('notes').hidden = false;

  // The tree: a node's parent is the first node at its path minus the last segment.
  var key = function (path) { return JSON.stringify(path); };
  var first = new Map();
  nodes.forEach(function (n, i) { var k = key(n.path); if (!first.has(k)) first.set(k, i); });
  var children = nodes.map(function () { return []; });
  var parentOf = new Array(nodes.length).fill(-1);
  var roots = [];
  nodes.forEach(function (n, i) {
    var p = n.path.length > 1 ? first.get(key(n.path.slice(0, -1))) : undefined;
    if (p === undefined || p === i) roots.push(i); else { children[p].push(i); parentOf[i] = p; }
  });
  function sourceOf(path) {
    var best;
    (report.sources || []).forEach(function (s) {
      if (s.path.length > path.length || (best && s.path.length <= best.path.length)) return;
      for (var j = 0; j < s.path.length; j++) if (s.path[j] !== path[j]) return;
      best = s;
    });
    return best;
  }
  function moduleLabel(s) {
    return visible(s.module) + '#' + visible(s.export) + (s.factory ? ' (factory: a new orchestrator per call)' : '');
  }
  // Groups of roots: one per module in a bundle, one in all for a single orchestrator.
  var groups = [];
  if (bundle) {
    var byLabel = new Map();
    roots.forEach(function (r) {
      var s = sourceOf(nodes[r].path);
      var label = s ? moduleLabel(s) : '(no module)';
      if (!byLabel.has(label)) { byLabel.set(label, { label: label, roots: [] }); groups.push(byLabel.get(label)); }
      byLabel.get(label).roots.push(r);
    });
  } else groups.push({ label: undefined, roots: roots });

  var tree = document.getElementById('tree');
  var order = [];            // report indexes in tree order
  var depth = new Array(nodes.length).fill(0);
  var end = new Array(nodes.length).fill(0);   // position after the node's subtree in order
  var posOf = new Array(nodes.length).fill(-1);
  var rowOf = new Array(nodes.length);
  var filterText = nodes.map(function (n) { return visible(n.path.join('/')).toLowerCase(); });
  var headings = [];
  groups.forEach(function (group) {
    var heading;
    if (group.label !== undefined) {
      heading = el('div', 'module', group.label);
      heading.setAttribute('data-module', '');
      heading.setAttribute('role', 'presentation');
      headings.push({ element: heading, from: order.length, to: 0 });
    }
    var stack = group.roots.slice().reverse().map(function (r) { return { i: r, d: 0, leave: false }; });
    while (stack.length > 0) {
      var f = stack.pop();
      if (f.leave) { end[f.i] = order.length; continue; }
      if (posOf[f.i] !== -1) continue;
      posOf[f.i] = order.length;
      order.push(f.i);
      depth[f.i] = f.d;
      stack.push({ i: f.i, d: f.d, leave: true });
      for (var c = children[f.i].length - 1; c >= 0; c--) stack.push({ i: children[f.i][c], d: f.d + 1, leave: false });
    }
    if (heading) headings[headings.length - 1].to = order.length;
  });
  // Render rows in tree order (module headings before their first row).
  var headingAt = new Map();
  headings.forEach(function (h) { headingAt.set(h.from, h); });
  var rows = document.createDocumentFragment();
  order.forEach(function (i, pos) {
    var h = headingAt.get(pos);
    if (h) rows.appendChild(h.element);
    var n = nodes[i];
    var row = el('div', 'row s-' + n.status);
    row.setAttribute('role', 'treeitem');
    row.setAttribute('data-path', JSON.stringify(n.path));
    row.setAttribute('data-status', n.status);
    row.setAttribute('aria-level', String(depth[i] + 1));
    row.setAttribute('aria-selected', 'false');
    row.setAttribute('tabindex', '-1');
    row.setAttribute('data-index', String(i));
    if (children[i].length > 0) row.setAttribute('aria-expanded', 'true');
    var indent = el('span', 'indent');
    indent.textContent = '  '.repeat(depth[i]);
    row.appendChild(indent);
    row.appendChild(el('span', 'twisty', children[i].length > 0 ? '\u25be' : ''));
    row.appendChild(el('span', 'glyph', BOOT.glyph[n.status] || '?'));
    row.appendChild(el('span', 'name', visible(n.id)));
    row.appendChild(el('span', 'kind', visible(n.kind)));
    row.appendChild(el('span', 'status', visible(n.status)));
    rowOf[i] = row;
    rows.appendChild(row);
  });
  tree.appendChild(rows);

  // Folding and filters.
  var collapsed = new Set();
  var notGated = false;
  var query = '';
  var shownCount = document.getElementById('shown');
  function matches(i) {
    if (notGated && nodes[i].status === 'gated') return false;
    if (query !== '' && filterText[i].indexOf(query) === -1) return false;
    return true;
  }
  function apply() {
    var filtering = notGated || query !== '';
    var keep = new Uint8Array(nodes.length); // 0 out, 1 match, 2 context
    if (filtering) {
      for (var k = order.length - 1; k >= 0; k--) {
        var i = order[k];
        if (matches(i)) keep[i] = 1;
        else if (children[i].some(function (c) { return keep[c] !== 0; })) keep[i] = 2;
      }
    }
    var shown = 0;
    var foldedUntil = -1;
    for (var pos = 0; pos < order.length; pos++) {
      var j = order[pos];
      var show = filtering ? keep[j] !== 0 : pos >= foldedUntil;
      if (!filtering && show && collapsed.has(j)) foldedUntil = Math.max(foldedUntil, end[j]);
      var row = rowOf[j];
      if (row.hidden === show) row.hidden = !show;
      if (filtering && keep[j] === 2) row.setAttribute('data-context', '');
      else if (row.hasAttribute('data-context')) row.removeAttribute('data-context');
      if (children[j].length > 0) {
        var open = String(filtering || !collapsed.has(j));
        if (row.getAttribute('aria-expanded') !== open) {
          row.setAttribute('aria-expanded', open);
          row.children[1].textContent = open === 'true' ? '\u25be' : '\u25b8';
        }
      }
      if (show) shown++;
    }
    headings.forEach(function (h) {
      var any = false;
      for (var q = h.from; q < h.to && !any; q++) any = !rowOf[order[q]].hidden;
      h.element.hidden = !any;
    });
    shownCount.textContent = shown + ' of ' + nodes.length + ' nodes shown';
  }

  // The detail panel.
  var detail = document.getElementById('detail-fields');
  var detailTitle = document.getElementById('detail-title');
  function field(name, label, value) {
    detail.appendChild(el('dt', '', label));
    var dd = el('dd', '', value);
    dd.setAttribute('data-field', name);
    detail.appendChild(dd);
  }
  function gateText(g) {
    return visible(g.name) + ' \u00b7 id ' + visible(g.id) + (g.perProcess ? ' (per-process id)' : '') +
      (g.configured ? ' (configured gate)' : '');
  }
  function showDetail(i) {
    var n = nodes[i];
    detail.textContent = '';
    detailTitle.textContent = (BOOT.glyph[n.status] || '?') + ' ' + visible(n.id);
    detailTitle.className = 's-' + n.status;
    field('path', 'path', visiblePath(n.path));
    if (bundle) { var s = sourceOf(n.path); if (s) field('module', 'module', moduleLabel(s)); }
    field('kind', 'kind', visible(n.kind));
    field('status', 'status', (BOOT.glyph[n.status] || '?') + ' ' + visible(n.status));
    field('reason', 'reason', visible(n.reason));
    field('gate', 'gate', n.gate ? gateText(n.gate) : '(none)');
    var agentLike = n.kind === 'agent' || n.kind === 'agent-tool';
    var tools = n.tools.length > 0 ? n.tools.map(visible).join(', ') : agentLike ? '(none)' : '-';
    field('tools', 'tools', tools + (n.toolsUnknownUntilInit ? ' (+ tools unknown until init)' : ''));
    if (n.warnings.length === 0) field('warnings', 'warnings', '(none)');
    n.warnings.forEach(function (w) { field('warning', 'warning', visible(w)); });
    if (n.sameAs && n.sameAs.length > 0) field('same-as', 'same as', visiblePath(n.sameAs));
    field('fix', 'fix', visible(n.fix !== undefined ? n.fix : BOOT.fix[n.status] || ''));
  }

  var selected = -1;
  var chosenShape = null;
  var shapes = new Map();
  function select(i, focus) {
    if (selected !== -1) { rowOf[selected].setAttribute('aria-selected', 'false'); rowOf[selected].tabIndex = -1; }
    selected = i;
    var row = rowOf[i];
    // Open every folded ancestor so the row can be seen.
    var changed = false;
    for (var p = parentOf[i]; p !== -1; p = parentOf[p]) if (collapsed.delete(p)) changed = true;
    if (changed) apply();
    row.setAttribute('aria-selected', 'true');
    row.tabIndex = 0;
    if (focus) row.focus();
    if (!row.hidden) row.scrollIntoView({ block: 'nearest' });
    showDetail(i);
    if (chosenShape) chosenShape.classList.remove('chosen');
    chosenShape = shapes.get(i) || null;
    if (chosenShape) chosenShape.classList.add('chosen');
  }
  function visibleRows() { return order.filter(function (i) { return !rowOf[i].hidden; }); }
  function move(delta) {
    var shown = visibleRows();
    if (shown.length === 0) return;
    var at = shown.indexOf(selected);
    var next = at === -1 ? 0 : Math.max(0, Math.min(shown.length - 1, at + delta));
    select(shown[next], true);
  }
  function toggle(i, open) {
    if (children[i].length === 0 || notGated || query !== '') return false;
    var isOpen = !collapsed.has(i);
    if (open === isOpen) return false;
    if (open) collapsed.delete(i); else collapsed.add(i);
    apply();
    return true;
  }
  tree.addEventListener('click', function (event) {
    var row = event.target.closest('.row');
    if (!row) return;
    var i = Number(row.getAttribute('data-index'));
    if (event.target.classList.contains('twisty')) toggle(i, collapsed.has(i));
    select(i, true);
  });
  tree.addEventListener('keydown', function (event) {
    var i = selected;
    switch (event.key) {
      case 'ArrowDown': move(1); break;
      case 'ArrowUp': move(-1); break;
      case 'Home': move(-nodes.length); break;
      case 'End': move(nodes.length); break;
      case 'PageDown': move(20); break;
      case 'PageUp': move(-20); break;
      case 'ArrowRight':
        if (i !== -1 && !toggle(i, true) && children[i].length > 0) move(1);
        break;
      case 'ArrowLeft':
        if (i !== -1 && !toggle(i, false) && parentOf[i] !== -1) select(parentOf[i], true);
        break;
      case 'Enter': case ' ':
        if (i !== -1) { toggle(i, collapsed.has(i)); select(i, true); }
        break;
      default: return;
    }
    event.preventDefault();
  });
  tree.addEventListener('focus', function () { if (selected === -1 && order.length > 0) select(visibleRows()[0], true); });

  var notGatedButton = document.querySelector('[data-filter="not-gated"]');
  notGatedButton.addEventListener('click', function () {
    notGated = !notGated;
    notGatedButton.setAttribute('aria-pressed', String(notGated));
    apply();
  });
  var input = document.getElementById('path-filter');
  input.addEventListener('input', function () { query = visible(input.value).toLowerCase(); apply(); });
  input.addEventListener('keydown', function (event) {
    if (event.key === 'Escape') { input.value = ''; query = ''; apply(); }
    if (event.key === 'ArrowDown' || event.key === 'Enter') { event.preventDefault(); move(0); }
  });
  document.addEventListener('keydown', function (event) {
    if (event.target === input || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === '/') { event.preventDefault(); input.focus(); }
    else if (event.key === 'n' && event.target.tagName !== 'BUTTON') { notGatedButton.click(); }
  });

  // The picture: a click on a node (or an orchestrator's box) selects it in the tree.
  var svg = document.querySelector('#picture svg');
  if (svg) {
    svg.querySelectorAll('g.node, g.cluster').forEach(function (g) {
      var title = g.querySelector('title');
      var m = title ? /^(?:cluster_)?n(\d+)$/.exec(title.textContent) : null;
      if (!m) return;
      var i = Number(m[1]);
      if (i >= nodes.length) return;
      g.setAttribute('data-index', String(i));
      if (!shapes.has(i)) shapes.set(i, g);
    });
    svg.addEventListener('click', function (event) {
      var g = event.target.closest('g[data-index]');
      if (g) select(Number(g.getAttribute('data-index')), true);
    });
  }

  apply();
  var firstOpen = nodes.findIndex(function (n) { return n.status !== 'gated' && n.status !== 'attested'; });
  if (order.length > 0) select(firstOpen !== -1 ? firstOpen : order[0], false);
})();
`;
