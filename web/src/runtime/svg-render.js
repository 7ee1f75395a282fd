// Draws an SVG scene (web/src/figures/shared/svg-scene.js) as inline SVG in a figure's chart
// box, and redraws it in place: when the new scene has the same nodes (a control change, the
// light/dark switch), only the attributes that changed are written, so a 4,096-tile map
// redraws without new elements. Tooltips show on hover and touch; a scene with a grid is one
// tab stop whose cells the arrow keys walk (Home/End: the row's ends, PageUp/PageDown: the
// column's), the focused cell outlined, its tooltip shown (Escape hides it) and announced in a
// live region.
import { h, uid } from './dom.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const TAG = { rect: 'rect', line: 'line', polyline: 'polyline', polygon: 'polygon', text: 'text' };
const r2 = (v) => String(Math.round(v * 100) / 100);
const pts = (list) => list.map(([x, y]) => `${r2(x)},${r2(y)}`).join(' ');

// A node's SVG attributes (null: absent).
function attrsOf(n) {
  const common = { stroke: n.stroke ?? null, 'stroke-width': n.strokeWidth !== undefined ? r2(n.strokeWidth) : null,
    'stroke-dasharray': n.dash ? n.dash.join(' ') : null };
  switch (n.kind) {
    case 'rect': return { x: r2(n.x), y: r2(n.y), width: r2(n.w), height: r2(n.h), rx: n.rx ? r2(n.rx) : null,
      fill: n.fill, 'fill-opacity': n.opacity !== undefined ? r2(n.opacity) : null, ...common };
    case 'line': return { x1: r2(n.x1), y1: r2(n.y1), x2: r2(n.x2), y2: r2(n.y2), ...common };
    case 'polyline': return { points: pts(n.points), fill: 'none', ...common };
    case 'polygon': return { points: pts(n.points), fill: n.fill };
    case 'text': return { x: r2(n.x), y: r2(n.y), 'font-size': r2(n.size), fill: n.color, 'text-anchor': n.anchor ?? null,
      'font-weight': n.weight ?? null, transform: n.rotate ? `rotate(${n.rotate} ${r2(n.x)} ${r2(n.y)})` : null };
    default: throw new Error(`SVG scene: unknown node kind "${n.kind}"`);
  }
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null) el.removeAttribute(k);
    else if (el.getAttribute(k) !== v) el.setAttribute(k, v);
  }
}

function element(n) {
  const el = document.createElementNS(SVG_NS, TAG[n.kind] ?? 'g');
  if (n.kind === 'text') el.setAttribute('font-family', 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif');
  return el;
}

export class SvgView {
  constructor(figureTitle) {
    this.svg = document.createElementNS(SVG_NS, 'svg');
    this.svg.setAttribute('role', 'img');
    this.svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
    // The focused cell's outline: a ring in the text colour around a thin one in the grid colour,
    // visible on any tile (dark on light tiles, light on dark ones).
    this.ring = document.createElementNS(SVG_NS, 'g');
    this.ring.setAttribute('class', 'fig-ring');
    this.ring.setAttribute('fill', 'none');
    this.ring.setAttribute('pointer-events', 'none');
    this.ringOuter = document.createElementNS(SVG_NS, 'rect');
    this.ringOuter.setAttribute('stroke-width', '2.5');
    this.ringInner = document.createElementNS(SVG_NS, 'rect');
    this.ringInner.setAttribute('stroke-width', '1');
    this.ring.append(this.ringOuter, this.ringInner);
    this.tip = h('div', { class: 'fig-tip', hidden: true });
    this.live = h('p', { class: 'sr-only', 'aria-live': 'polite' });
    this.hint = h('p', { class: 'sr-only', id: uid('svg-hint') });
    this.root = h('div', { class: 'fig-svg' }, this.svg, this.tip, this.live, this.hint);
    this.figureTitle = figureTitle;
    this.els = [];
    this.kinds = '';
    this.active = null; // [row, col] of the focused cell
    this.dismissed = false; // the focused cell's tooltip hidden by Escape
    this.svg.addEventListener('pointermove', (e) => this.hover(e));
    this.svg.addEventListener('pointerdown', (e) => this.hover(e));
    this.svg.addEventListener('pointerleave', () => { if (!this.focused) this.hideTip(); });
    this.root.addEventListener('keydown', (e) => this.key(e));
    this.root.addEventListener('focus', () => { this.focused = true; this.focusCell(this.active ?? this.firstCell()); });
    this.root.addEventListener('blur', () => { this.focused = false; this.ring.remove(); this.hideTip(); });
  }

  render(scene) {
    this.scene = scene;
    this.svg.setAttribute('viewBox', `0 0 ${r2(scene.width)} ${r2(scene.height)}`);
    this.svg.setAttribute('aria-label', `${this.figureTitle}: ${scene.label}. The data table gives the values.`);
    const kinds = scene.nodes.map((n) => n.kind).join();
    if (kinds !== this.kinds) {
      this.ring.remove();
      this.els = scene.nodes.map(element);
      this.svg.replaceChildren(...this.els);
      this.kinds = kinds;
    }
    this.cells = new Map();
    scene.nodes.forEach((n, k) => {
      const el = this.els[k];
      setAttrs(el, attrsOf(n));
      if (n.kind === 'text' && el.textContent !== n.text) el.textContent = n.text;
      // Only what has a tooltip takes the pointer (a line over the tiles must not hide theirs).
      setAttrs(el, n.tip ? { 'data-k': String(k), 'pointer-events': null } : { 'data-k': null, 'pointer-events': 'none' });
      if (n.cell) this.cells.set(`${n.cell[0]},${n.cell[1]}`, k);
    });
    this.setupGrid(scene.grid);
    if (this.focused) this.focusCell(this.active, { redraw: true });
  }

  // A scene with a grid: the box is one tab stop, described by a hint.
  setupGrid(grid) {
    if (!grid) {
      ['tabindex', 'role', 'aria-label', 'aria-describedby'].forEach((a) => this.root.removeAttribute(a));
      return;
    }
    this.hint.textContent = `Arrow keys move between the ${grid.rows} × ${grid.cols} cells; each cell's details are read out.`;
    setAttrs(this.root, { tabindex: '0', role: 'group', 'aria-label': grid.label, 'aria-describedby': this.hint.id });
    this.ringOuter.setAttribute('stroke', grid.stroke);
    this.ringInner.setAttribute('stroke', grid.color);
  }

  // The top-left cell that exists (the scene may list its cells in any order).
  firstCell() {
    let best = null;
    for (const k of this.cells.values()) {
      const cell = this.scene.nodes[k].cell;
      if (!best || cell[0] < best[0] || (cell[0] === best[0] && cell[1] < best[1])) best = cell;
    }
    return best;
  }

  // The first cell that exists from (r, c) on, stepping by (dr, dc), inside the grid; or null.
  scan(r, c, dr, dc) {
    const { rows, cols } = this.scene.grid;
    for (; r >= 0 && c >= 0 && r < rows && c < cols; r += dr, c += dc) if (this.cells.has(`${r},${c}`)) return [r, c];
    return null;
  }

  key(e) {
    if (e.key === 'Escape') {
      this.dismissed = true; // until the next move: a redraw meanwhile keeps it hidden
      this.hideTip();
      return;
    }
    if (!this.scene?.grid) return;
    const { rows, cols } = this.scene.grid;
    const [r, c] = this.active ?? this.firstCell() ?? [0, 0];
    const targets = {
      ArrowUp: () => this.scan(r - 1, c, -1, 0), ArrowDown: () => this.scan(r + 1, c, 1, 0),
      ArrowLeft: () => this.scan(r, c - 1, 0, -1), ArrowRight: () => this.scan(r, c + 1, 0, 1),
      Home: () => this.scan(r, 0, 0, 1), End: () => this.scan(r, cols - 1, 0, -1),
      PageUp: () => this.scan(0, c, 1, 0), PageDown: () => this.scan(rows - 1, c, -1, 0),
    };
    if (!targets[e.key]) return;
    e.preventDefault();
    const next = targets[e.key]();
    if (next) this.focusCell(next);
  }

  focusCell(cell, { redraw = false } = {}) {
    if (!cell) return;
    let k = this.cells.get(cell.join(','));
    if (k === undefined) {
      const first = this.firstCell();
      if (!first) return;
      cell = first;
      k = this.cells.get(first.join(','));
    }
    this.active = cell;
    const n = this.scene.nodes[k];
    setAttrs(this.ringOuter, { x: r2(n.x - 1), y: r2(n.y - 1), width: r2(n.w + 2), height: r2(n.h + 2) });
    setAttrs(this.ringInner, { x: r2(n.x + 1), y: r2(n.y + 1), width: r2(Math.max(0.5, n.w - 2)), height: r2(Math.max(0.5, n.h - 2)) });
    this.svg.append(this.ring);
    if (!redraw) this.dismissed = false;
    if (!this.dismissed) this.showTip(this.els[k], n.tip ?? '');
    if (this.live.textContent !== n.tip) this.live.textContent = n.tip ?? '';
  }

  hover(e) {
    const k = e.target?.dataset?.k;
    if (k === undefined) {
      if (!this.focused) this.hideTip();
      return;
    }
    const n = this.scene.nodes[Number(k)];
    // A press (click, tap) on a cell makes it the focused one: the focus that follows keeps it.
    if (e.type === 'pointerdown' && n.cell) this.active = n.cell;
    this.dismissed = false;
    this.showTip(e.target, n.tip);
  }

  // The tooltip beside the element, kept inside the box.
  showTip(el, tip) {
    if (!tip) {
      this.hideTip();
      return;
    }
    this.tip.textContent = tip;
    this.tip.hidden = false;
    const box = this.root.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    const w = this.tip.offsetWidth;
    const left = Math.min(Math.max(0, r.left - box.left + r.width / 2 - w / 2), Math.max(0, box.width - w));
    const below = r.bottom - box.top + 6;
    const top = below + this.tip.offsetHeight > box.height ? Math.max(0, r.top - box.top - this.tip.offsetHeight - 6) : below;
    this.tip.style.left = `${Math.round(left)}px`;
    this.tip.style.top = `${Math.round(top)}px`;
  }

  hideTip() {
    this.tip.hidden = true;
  }
}
