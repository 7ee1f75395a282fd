// The strides/layout explorer: a small contiguous tensor, a view of it (none, a transpose, a
// permutation), drawn as an SVG tile grid. Top row: the storage, one tile per element in memory
// order, numbered with the step at which a row-major walk of the view reads it. Below: the view
// itself, its slices side by side (a 3-D view of shape [d0, d1, d2] is d0 slices of d1 × d2),
// each element numbered with its storage offset. One colour per row of the view, in both, so a
// contiguous view's rows are runs of memory and a non-contiguous view's rows are scattered.
// Every number comes from one calc('tensor-layout'): shape, strides, contiguity, bytes, the
// bytes .contiguous() copies and each element's storage offset.
import { formatSI, formatDecimal } from '../runtime/format.js';
import { tileGrid } from './shared/tile-grid.js';
import { text, textWidth, legendNodes, fontFor, minFontOf } from './shared/svg-scene.js';

const SHAPES = [
  { value: '3,4', label: '3 × 4' },
  { value: '2,5', label: '2 × 5 (PyTorch’s stride example)' },
  { value: '4,6', label: '4 × 6' },
  { value: '2,3,4', label: '2 × 3 × 4' },
  { value: '3,2,4', label: '3 × 2 × 4' },
];
// Each view is calculator input: a transpose [i, j] (negative dims count from the end, so both
// work on 2-D and 3-D tensors alike) or a permutation, which on a 2-D tensor is the transpose
// (1, 0); `call` is the PyTorch call for a tensor of that rank.
const VIEWS = [
  { value: 'none', label: 'none: x itself', input: () => ({}), call: () => 'x itself (no view)' },
  { value: 't-last', label: 'x.transpose(-2, -1)', input: () => ({ transpose: [-2, -1] }), call: () => 'x.transpose(-2, -1)' },
  { value: 't-outer', label: 'x.transpose(0, -1)', input: () => ({ transpose: [0, -1] }), call: () => 'x.transpose(0, -1)' },
  { value: 'p201', label: 'x.permute(2, 0, 1); on 2-D: (1, 0)', input: (r) => ({ permute: r === 3 ? [2, 0, 1] : [1, 0] }),
    call: (r) => (r === 3 ? 'x.permute(2, 0, 1)' : 'x.permute(1, 0)') },
  { value: 'p120', label: 'x.permute(1, 2, 0); on 2-D: (1, 0)', input: (r) => ({ permute: r === 3 ? [1, 2, 0] : [1, 0] }),
    call: (r) => (r === 3 ? 'x.permute(1, 2, 0)' : 'x.permute(1, 0)') },
];

const list = (xs) => `[${xs.join(', ')}]`;

// Text wrapped to `width` px at `size`.
export function wrap(s, width, size) {
  const lines = [];
  let line = '';
  for (const word of s.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

export default {
  id: 'tensor-strides',
  title: 'Strides: where each element of a view lives in memory',
  caption:
    'Top row: the tensor’s storage in memory order, each slot numbered with the step at which a row-major walk of the view reads it. Below: the view, each element numbered with its storage offset, one colour per row. With no view the walk reads memory 0, 1, 2, … in order. Pick x.transpose(-2, -1) and the walk jumps by the old row length: the view is not contiguous, and .contiguous() would copy all of it. The text above the map gives the distance in memory between neighbours along the last dimension: 1 means a GPU warp reading a row reads consecutive bytes (coalesced). On a 3-D shape, try the two permutations.',
  params: [
    { key: 'shape', label: 'Shape of x (contiguous)', type: 'select', default: '3,4', options: SHAPES },
    { key: 'view', label: 'View', type: 'select', default: 't-last', options: VIEWS.map(({ value, label }) => ({ value, label })) },
    { key: 'dtype', label: 'Data type', from: ['tensor-layout', 'dtype'] },
  ],

  data(engine, p) {
    const shape = p.shape.split(',').map(Number);
    const view = VIEWS.find((v) => v.value === p.view);
    const base = engine.calc('tensor-layout', { shape, dtype: p.dtype });
    const r = engine.calc('tensor-layout', { shape, dtype: p.dtype, ...view.input(shape.length) });
    const offsets = r.storage_offsets;
    // The view's index of each element, in row-major order (last index fastest).
    const index = (k) => {
      const idx = [];
      for (let d = r.shape.length - 1; d >= 0; d--) {
        idx.unshift(k % r.shape[d]);
        k = Math.floor(k / r.shape[d]);
      }
      return idx;
    };
    const elements = offsets.map((offset, k) => ({ k, index: index(k), offset }));
    // Step of the walk at which each storage slot is read (a view of a contiguous tensor reads
    // every slot once).
    const visit = new Array(r.storage_elements).fill(-1);
    for (const e of elements) visit[e.offset] = e.k;
    // The walk's jumps: storage distance between consecutive reads.
    const jumps = elements.slice(1).map((e, k) => e.offset - elements[k].offset);
    const table = {
      columns: ['Step of the row-major walk', 'Index in the view', 'Storage offset (elements)', 'Offset = Σ index × stride',
        'Jump from the previous read (elements)'],
      rows: elements.map((e, k) => [e.k, list(e.index), e.offset,
        e.index.map((i, d) => `${i}·${r.strides[d]}`).join(' + '), k === 0 ? '' : jumps[k - 1]]),
    };
    return {
      shape_x: base.shape, strides_x: base.strides, view: p.view, view_label: view.call(shape.length), dtype: p.dtype,
      shape: r.shape, strides: r.strides, contiguous: r.contiguous, contiguous_strides: r.contiguous_strides,
      elements: r.elements, element_bytes: r.element_bytes, bytes: r.bytes, copy_bytes: r.contiguous_copy_bytes,
      storage_elements: r.storage_elements, offsets, visit, cells: elements, jumps,
      inner_stride: r.strides.at(-1), table,
    };
  },

  draw(data, theme) {
    const { shape, elements } = data;
    const rank = shape.length;
    // The view's slices side by side: slice s (first index of a 3-D view) at columns
    // s·(cols + 1) … ; a 2-D view is one slice.
    const slices = rank === 3 ? shape[0] : 1;
    const rowsOf = shape[rank - 2];
    const colsOf = shape[rank - 1];
    const gridCols = Math.max(data.storage_elements, slices * (colsOf + 1) - 1);
    const rows = rowsOf + 2; // storage row, a spacer, the view's rows
    const viewRows = elements / colsOf; // rows of the view, all slices together
    const colour = (row) => theme.palette[row % theme.palette.length];
    const tiles = [];
    const labels = new Map(); // "row,col" -> the number written in the tile
    for (const e of data.cells) {
      const row = Math.floor(e.k / colsOf);
      const slice = rank === 3 ? e.index[0] : 0;
      const r = e.index[rank - 2];
      const c = slice * (colsOf + 1) + e.index[rank - 1];
      tiles.push({ row: r + 2, col: c, fill: colour(row), opacity: 0.55,
        tip: `View element ${list(e.index)}: storage offset ${e.offset} = ${e.index.map((i, d) => `${i}·${data.strides[d]}`).join(' + ')}; read at step ${e.k} of the walk` });
      labels.set(`${r + 2},${c}`, String(e.offset));
      const slot = e.offset;
      tiles.push({ row: 0, col: slot, fill: colour(row), opacity: 0.55,
        tip: `Storage slot ${slot}: element ${list(e.index)} of the view, read at step ${e.k}${e.k > 0 ? ` (a jump of ${data.jumps[e.k - 1]} from the previous read)` : ''}` });
      labels.set(`0,${slot}`, String(e.k));
    }
    // The leading spaces widen the drawer's estimate of the label column (SVG collapses them),
    // keeping the word clear of the turned axis title.
    const rowLabels = ['   memory', '', ...Array.from({ length: rowsOf }, (_, i) => `row ${i}`)];
    const colLabels = Array.from({ length: gridCols }, (_, c) => (c < data.storage_elements ? String(c) : ''));
    const verdict = data.contiguous
      ? `contiguous: .contiguous() returns it as it is, 0 B copied`
      : `not contiguous: .contiguous() copies all ${formatDecimal(elements)} elements, ${formatSI(data.copy_bytes, 'B')}, into strides ${list(data.contiguous_strides)}`;
    const lines = [
      `x: shape ${list(data.shape_x)}, strides ${list(data.strides_x)}; ${data.view_label}: shape ${list(shape)}, strides ${list(data.strides)} (elements), ${verdict}.`,
      `Neighbours along the last dimension are ${data.inner_stride} element${data.inner_stride === 1 ? '' : 's'} (${formatSI(data.inner_stride * data.element_bytes, 'B')} of ${data.dtype}) apart in memory${data.inner_stride === 1 ? ': a warp reading a row reads consecutive bytes (coalesced)' : ': a warp reading a row of the view makes strided accesses'}.`,
    ];
    // One legend entry per colour: the rows of the view drawn in it (colours repeat after
    // the palette's length, so an entry can name two rows).
    const rowName = (row) => (rank === 3 ? `y[${Math.floor(row / rowsOf)}, ${row % rowsOf}, :]` : `y[${row}, :]`);
    const used = Math.min(viewRows, theme.palette.length);
    const legend = Array.from({ length: used }, (_, c) => ({
      label: Array.from({ length: viewRows }, (_, row) => row).filter((row) => row % theme.palette.length === c).map(rowName).join(', '),
      fill: theme.palette[c], opacity: 0.55,
    }));
    lines.push(`Top row: memory in order, numbered with the step of the walk that reads each slot. Below: the view${rank === 3 ? ` as ${slices} slices y[0] … y[${slices - 1}] of ${rowsOf} × ${colsOf}, side by side` : ''}, numbered with storage offsets, one colour per row:`);
    const top = (x, y, width, size) => {
      const nodes = [];
      let h = 0;
      for (const l of lines) {
        for (const w of wrap(l, width, size)) {
          nodes.push(text(x, y + h + size, w, size, theme.text));
          h += size * 1.35;
        }
      }
      const leg = legendNodes(legend, x, y + h + 4, width, size, theme.text);
      nodes.push(...leg.nodes);
      return { nodes, height: h + 4 + leg.height };
    };
    const s = tileGrid(theme, {
      label: `Storage of x (${data.storage_elements} elements) and the view ${data.view_label} of shape ${list(shape)}, strides ${list(data.strides)}: ${data.contiguous ? 'contiguous' : 'not contiguous'}`,
      rows, cols: gridCols, tiles, rowLabels, colLabels, top,
      xTitle: 'Storage offset (elements)',
      yTitle: 'View row (index)',
    });
    // The numbers inside the tiles, where a tile is wide enough to hold them.
    const size = fontFor(s.width);
    const extra = [];
    for (const n of s.nodes) {
      if (n.kind !== 'rect' || !n.cell) continue;
      const label = labels.get(`${n.cell[0]},${n.cell[1]}`);
      if (label === undefined || textWidth(label, size) > n.w - 2 || n.h < size + 2) continue;
      extra.push(text(n.x + n.w / 2, n.y + n.h / 2 + size * 0.35, label, size, theme.text, { anchor: 'middle' }));
    }
    // A 3-D view's slices named in the spacer row above them ("y[0]", "y[1]", …), where the
    // row is tall enough and the slice wide enough for the name.
    if (rank === 3) {
      const cellsOf = (row) => s.nodes.filter((n) => n.kind === 'rect' && n.cell && n.cell[0] === row);
      const memory = cellsOf(0)[0];
      const first = cellsOf(2);
      for (let k = 0; k < slices && memory && first.length; k++) {
        const own = first.filter((n) => n.cell[1] >= k * (colsOf + 1) && n.cell[1] < k * (colsOf + 1) + colsOf);
        if (!own.length) continue;
        const x0 = Math.min(...own.map((n) => n.x));
        const x1 = Math.max(...own.map((n) => n.x + n.w));
        const name = `y[${k}]`;
        const gapTop = memory.y + memory.h;
        const gapH = own[0].y - gapTop;
        if (textWidth(name, size) > x1 - x0 - 2 || gapH < size + 2) continue;
        s.nodes.push(text((x0 + x1) / 2, gapTop + gapH / 2 + size * 0.35, name, size, theme.text, { anchor: 'middle' }));
      }
    }
    s.nodes.push(...extra);
    s.minFont = minFontOf(s.nodes);
    return s;
  },
};
