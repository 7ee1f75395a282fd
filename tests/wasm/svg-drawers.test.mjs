// The SVG drawers (web/src/figures/shared/): each returns a plain-data scene that keeps to the
// scene subset (theme colours, finite numbers, readable text, axis titles with units), with
// the shapes, tooltips and layout asked for; bad input is a clear error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEME, assertSceneSubset, colours, close } from './figure-harness.mjs';
import { tileGrid } from '../../web/src/figures/shared/tile-grid.js';
import { heatMap, opacityAt, valueText } from '../../web/src/figures/shared/heat-map.js';
import { graphScene, layoutGraph, wrap } from '../../web/src/figures/shared/graph.js';
import { blockDiagram } from '../../web/src/figures/shared/block-diagram.js';
import { legendNodes, tickIndices } from '../../web/src/figures/shared/svg-scene.js';

const cells = (scene) => scene.nodes.filter((n) => n.cell);
const texts = (scene) => scene.nodes.filter((n) => n.kind === 'text').map((n) => n.text);
const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

test('tile grid: one rect per tile in its state, lines in data units, axes and legend', () => {
  const states = { on: { fill: THEME.palette[0] }, off: { fill: 'none', stroke: THEME.muted } };
  const tiles = [];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) tiles.push({ row: r, col: c, state: (r + c) % 2 ? 'off' : 'on', tip: `r${r} c${c}` });
  const scene = tileGrid(THEME, {
    label: 'A test grid', rows: 3, cols: 4, tiles, states, xTitle: 'Column (tiles)', yTitle: 'Row (tiles)',
    lines: [{ from: [0, 0], to: [3, 3], stroke: THEME.text }], legend: [{ label: 'On', fill: THEME.palette[0] }],
  });
  assertSceneSubset('tile grid', scene);
  assert.deepEqual([scene.grid.rows, scene.grid.cols], [3, 4]);
  const rects = cells(scene);
  assert.equal(rects.length, 12);
  assert.deepEqual(rects.map((n) => n.tip), tiles.map((t) => t.tip));
  assert.deepEqual(rects.map((n) => n.fill), tiles.map((t) => states[t.state].fill));
  // Square tiles on a regular pitch, none overlapping.
  const [a, b] = [rects[0], rects[1]];
  close(a.w, a.h);
  close(b.x - a.x, a.w + 1);
  for (let i = 0; i < rects.length; i++) for (let j = i + 1; j < rects.length; j++) assert.ok(!overlap(rects[i], rects[j]));
  // The line from (0, 0) to (3, 3) in data units ends at the bottom of the fourth column... of row 3.
  const line = scene.nodes.find((n) => n.kind === 'line' && n.stroke === THEME.text);
  close(line.x1, a.x - 0.5);
  close(line.y2 - line.y1, 3 * (a.h + 1));
  assert.ok(texts(scene).includes('Column (tiles)') && texts(scene).includes('Row (tiles)') && texts(scene).includes('On'));
  // Numbers at the edges: 0..4 across, 0..3 down.
  for (const s of ['0', '1', '2', '3', '4']) assert.ok(texts(scene).includes(s), `tick ${s}`);
});

test('tile grid: bad input is a clear error, not a broken scene', () => {
  const spec = { label: 'x', rows: 2, cols: 2, tiles: [{ row: 0, col: 0, state: 'on', tip: 't' }], states: { on: { fill: THEME.text } }, xTitle: 'a (b)', yTitle: 'c (d)' };
  assert.throws(() => tileGrid(THEME, { ...spec, rows: 0 }), /at least one row/);
  assert.throws(() => tileGrid(THEME, { ...spec, tiles: [{ row: 2, col: 0, state: 'on' }] }), /outside 2 × 2/);
  assert.throws(() => tileGrid(THEME, { ...spec, tiles: [{ row: 0, col: 0, state: 'lost' }] }), /no look for state "lost"/);
  assert.throws(() => tileGrid(THEME, { ...spec, rowEdges: [0, 2, 1] }), /edges must increase/);
  assert.throws(() => tileGrid(THEME, { ...spec, colEdges: [0, 1] }), /needs 3 edges/);
});

test('tile grid: text stays at 11 px in a phone-sized box, tick labels thin out but keep both ends', () => {
  const tiles = Array.from({ length: 64 * 64 }, (_, k) => ({ row: Math.floor(k / 64), col: k % 64, fill: THEME.palette[0], tip: String(k) }));
  const spec = { label: 'Big', rows: 64, cols: 64, tiles, xTitle: 'Key (tokens)', yTitle: 'Query (tokens)',
    rowEdges: Array.from({ length: 65 }, (_, k) => 16 * k), colEdges: Array.from({ length: 65 }, (_, k) => 16 * k) };
  const phone = tileGrid({ ...THEME, width: 360, height: 384 }, spec);
  assertSceneSubset('phone grid', phone);
  assert.equal(phone.minFont, 11);
  assert.equal(phone.width, 360);
  assert.ok(texts(phone).includes('0') && texts(phone).includes('1024'));
  // Column ticks never touch: at 11 px "1024" is about 25 px wide.
  const ticks = phone.nodes.filter((n) => n.kind === 'text' && n.color === THEME.muted && n.anchor === 'middle');
  for (let k = 1; k < ticks.length; k++) assert.ok(ticks[k].x - ticks[k - 1].x > 25, `ticks ${ticks[k - 1].text}, ${ticks[k].text} touch`);
  assert.equal(cells(phone).length, 4096);
  // The map fits in the box.
  for (const n of cells(phone)) assert.ok(n.x >= 0 && n.y >= 0 && n.x + n.w <= 360 && n.y + n.h <= 384);
  // The step is the least distance two labels need: a last tick closer than that to n gives way.
  assert.deepEqual(tickIndices(10, 4), [0, 4, 10]); // 8 would sit half a step from 10
  assert.deepEqual(tickIndices(10, 5), [0, 3, 6, 10]); // 9 would sit next to 10
  assert.deepEqual(tickIndices(23, 12), [0, 3, 6, 9, 12, 15, 18, 23]); // not 21 two columns from 23
  assert.deepEqual(tickIndices(12, 4), [0, 4, 8, 12]);
  assert.deepEqual(tickIndices(3, 10), [0, 1, 2, 3]);
});

test('legend: entries wrap to a new row when the width runs out', () => {
  const legend = [{ label: 'A fairly long first entry', fill: THEME.text }, { label: 'And a second one', stroke: THEME.muted }];
  const wide = legendNodes(legend, 0, 0, 600, 12, THEME.text);
  const narrow = legendNodes(legend, 0, 0, 200, 12, THEME.text);
  assert.ok(narrow.height > wide.height);
  assert.deepEqual(wide.nodes.map((n) => n.kind), ['rect', 'text', 'line', 'text']);
  assert.ok(wide.nodes.every((n) => !Object.values(n).includes(undefined)), 'no undefined keys');
});

test('heat map: opacity grows with the value, a colour bar with ticks and unit, tooltips name row, column and value', () => {
  const values = [[0, 0.25], [0.5, 1]];
  const scene = heatMap(THEME, { label: 'Weights', values, quantity: 'Attention weight', unit: 'probability',
    rowLabels: ['q0', 'q1'], colLabels: ['k0', 'k1'], xTitle: 'Key (token)', yTitle: 'Query (token)' });
  assertSceneSubset('heat map', scene);
  const rects = cells(scene);
  assert.deepEqual(rects.map((n) => n.opacity), [0, 0.25, 0.5, 1].map(opacityAt));
  assert.ok(rects.every((n) => n.fill === THEME.palette[0]));
  assert.deepEqual(rects.map((n) => n.tip), ['Query q0, Key k0: 0 probability', 'Query q0, Key k1: 0.25 probability',
    'Query q1, Key k0: 0.5 probability', 'Query q1, Key k1: 1 probability']);
  assert.ok(texts(scene).includes('Attention weight (probability)'));
  for (const t of ['0', '0.25', '0.5', '0.75', '1']) assert.ok(texts(scene).includes(t), `colour bar tick ${t}`);
  // The colour bar's steps get darker from left to right.
  const steps = scene.nodes.filter((n) => n.kind === 'rect' && !n.cell && n.h === 10 && n.fill === THEME.palette[0]);
  assert.equal(steps.length, 24);
  for (let k = 1; k < steps.length; k++) assert.ok(steps[k].opacity > steps[k - 1].opacity && steps[k].x > steps[k - 1].x);
  assert.deepEqual(scene.scale, { min: 0, max: 1, fill: THEME.palette[0], title: 'Attention weight (probability)' });
  // A constant matrix draws (full colour), a ragged or non-finite one is refused.
  assert.ok(cells(heatMap(THEME, { label: 'c', values: [[2, 2]], quantity: 'x', xTitle: 'a (b)', yTitle: 'c (d)' })).every((n) => n.opacity === 1));
  assert.throws(() => heatMap(THEME, { label: 'r', values: [[1, 2], [3]], quantity: 'x', xTitle: 'a (b)', yTitle: 'c (d)' }), /rectangular/);
  assert.throws(() => heatMap(THEME, { label: 'n', values: [[1, NaN]], quantity: 'x', xTitle: 'a (b)', yTitle: 'c (d)' }), /finite/);
  assert.equal(valueText(1234567), '1.23e+6');
  assert.equal(valueText(1234.5), '1,235');
  assert.equal(valueText(0.012345), '0.01235');
});

// A small tree and a graph with a cross edge.
const TREE = {
  label: 'A transformer block',
  nodes: [
    { id: 'in', label: 'Input' }, { id: 'norm', label: 'RMSNorm' }, { id: 'attn', label: 'Self-attention with grouped queries', tip: 'Q, K, V projections' },
    { id: 'mlp', label: 'Gated MLP' }, { id: 'add', label: 'Residual add' }, { id: 'out', label: 'Output' },
  ],
  edges: [{ from: 'in', to: 'norm' }, { from: 'norm', to: 'attn' }, { from: 'norm', to: 'mlp' }, { from: 'attn', to: 'add' },
    { from: 'mlp', to: 'add' }, { from: 'in', to: 'add' }, { from: 'add', to: 'out' }],
};

test('graph: dagre lays the nodes out without overlaps, edges run from node to node with an arrowhead', () => {
  const lay = layoutGraph(TREE, 12);
  const boxes = [...lay.nodes.values()];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) assert.ok(!overlap(boxes[i], boxes[j]), `nodes ${i} and ${j} overlap`);
  // Top to bottom: each edge goes down, starting on its source's outline and ending on its target's.
  const onOutline = ([x, y], b) => x >= b.x - 1 && x <= b.x + b.w + 1 && y >= b.y - 1 && y <= b.y + b.h + 1 &&
    (Math.abs(x - b.x) < 1 || Math.abs(x - b.x - b.w) < 1 || Math.abs(y - b.y) < 1 || Math.abs(y - b.y - b.h) < 1);
  for (const e of lay.edges) {
    const [s, t] = [lay.nodes.get(e.from), lay.nodes.get(e.to)];
    assert.ok(t.y > s.y, `${e.from} -> ${e.to} goes down`);
    assert.ok(onOutline(e.points[0], s), `${e.from} -> ${e.to} leaves its source`);
    assert.ok(onOutline(e.points.at(-1), t), `${e.from} -> ${e.to} reaches its target`);
  }
  assert.deepEqual(lay.nodes.get('attn').lines, ['Self-attention', 'with grouped', 'queries']); // at most 18 characters
  const scene = graphScene(THEME, { ...TREE, legend: [{ label: 'Data flow', stroke: THEME.muted }] });
  assertSceneSubset('graph', scene);
  assert.equal(scene.nodes.filter((n) => n.kind === 'polyline').length, 7);
  assert.equal(scene.nodes.filter((n) => n.kind === 'polygon').length, 7);
  assert.equal(scene.nodes.find((n) => n.tip).tip, 'Q, K, V projections');
  assert.ok(texts(scene).includes('with grouped') && texts(scene).includes('Data flow'));
  // Left to right: edges go right.
  const lr = layoutGraph({ ...TREE, rankdir: 'LR' }, 12);
  for (const e of lr.edges) assert.ok(lr.nodes.get(e.to).x > lr.nodes.get(e.from).x);
  assert.deepEqual(wrap('a bb ccc', 4), ['a bb', 'ccc']);
  assert.throws(() => layoutGraph({ nodes: [{ id: 'a', label: 'A' }], edges: [{ from: 'a', to: 'b' }] }, 12), /unknown node "b"/);
  assert.throws(() => layoutGraph({ nodes: [{ id: 'a', label: 'A' }, { id: 'a', label: 'B' }], edges: [] }, 12), /unique/);
});

test('block diagram: groups frame their boxes, arrows between boxes, pale theme fills', () => {
  const spec = {
    label: 'Two GPUs, two stages',
    groups: [
      { id: 'gpu0', label: 'GPU 0', boxes: [{ id: 'l1', label: 'Layers 1–16', fill: THEME.palette[0] }, { id: 'o1', label: 'Optimizer state' }] },
      { id: 'gpu1', label: 'GPU 1', boxes: [{ id: 'l2', label: 'Layers 17–32', fill: THEME.palette[1] }] },
    ],
    boxes: [{ id: 'host', label: 'Host memory' }],
    arrows: [{ from: 'l1', to: 'l2' }, { from: 'l1', to: 'o1' }, { from: 'host', to: 'l1', dash: [4, 3] }],
  };
  const scene = blockDiagram(THEME, spec);
  assertSceneSubset('block diagram', scene);
  const rect = (label) => {
    const t = scene.nodes.find((n) => n.kind === 'text' && n.text === label);
    return scene.nodes.filter((n) => n.kind === 'rect' && n.x <= t.x && t.x <= n.x + n.w && n.y <= t.y && t.y <= n.y + n.h);
  };
  // Each group's frame (dashed) holds its boxes; boxes do not overlap.
  const frames = scene.nodes.filter((n) => n.kind === 'rect' && n.dash);
  assert.equal(frames.length, 2);
  const apart = (a, b) => Math.max(b.x - (a.x + a.w), a.x - (b.x + b.w), b.y - (a.y + a.h), a.y - (b.y + b.h));
  assert.ok(apart(frames[0], frames[1]) >= 8, `the group frames (with their label strips) are ${apart(frames[0], frames[1])} px apart`);
  const boxes = scene.nodes.filter((n) => n.kind === 'rect' && !n.dash && n.stroke === THEME.text);
  assert.equal(boxes.length, 4);
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) assert.ok(!overlap(boxes[i], boxes[j]));
  const inside = (b, f) => b.x >= f.x && b.y >= f.y && b.x + b.w <= f.x + f.w && b.y + b.h <= f.y + f.h;
  const [l1] = rect('Layers 1–16').filter((n) => !n.dash);
  const [host] = rect('Host memory');
  assert.ok(frames.some((f) => inside(l1, f)));
  assert.ok(!frames.some((f) => inside(host, f)), 'a box outside any group has no frame');
  assert.equal(l1.fill, THEME.palette[0]);
  assert.ok(l1.opacity < 0.5);
  assert.ok(texts(scene).includes('GPU 0') && texts(scene).includes('GPU 1'));
  assert.equal(scene.nodes.filter((n) => n.kind === 'polygon').length, 3);
  assert.ok(scene.nodes.some((n) => n.kind === 'polyline' && n.dash));
  // On a phone the left-to-right diagram is too wide: it flows top to bottom and fits the box.
  const phone = blockDiagram({ ...THEME, width: 360, height: 384 }, spec);
  assertSceneSubset('phone block diagram', phone);
  assert.equal(phone.width, 360);
});

test('scene subset: a stray colour, a NaN, a tiny font or an axis without units is caught', () => {
  const good = tileGrid(THEME, { label: 'g', rows: 1, cols: 1, tiles: [{ row: 0, col: 0, fill: THEME.text, tip: 't' }], xTitle: 'a (b)', yTitle: 'c (d)' });
  assertSceneSubset('good', good);
  const bad = (change) => {
    const s = structuredClone(good);
    change(s);
    return s;
  };
  assert.throws(() => assertSceneSubset('c', bad((s) => { s.nodes.at(-1).fill = '#ff0000'; })), /non-theme colour #ff0000/);
  assert.throws(() => assertSceneSubset('n', bad((s) => { s.nodes.at(-1).x = NaN; })), /is NaN/);
  assert.throws(() => assertSceneSubset('f', bad((s) => { s.nodes.find((n) => n.kind === 'text').size = 7; })), /at 7px/);
  assert.throws(() => assertSceneSubset('u', bad((s) => { s.axes.x.title = 'Key index'; })), /title with units/);
  assert.ok(colours({ nodes: [{ fill: '#1', stroke: '#2' }], datasets: [{ fill: 'origin', borderColor: '#3' }] }).join() === '#1,#2,#3');
});
