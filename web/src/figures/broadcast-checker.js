// NumPy's broadcasting rule on two shapes the reader types: the shapes aligned from the right,
// one row each, above the result. A dimension an operand is stretched along (size 1, or missing
// in front) is highlighted; on incompatible shapes the engine's error is shown and the two
// dimensions it names are marked. One calc('broadcast'): the result shape, each operand's
// strides over it (0 where stretched) and the stretched dimensions; the error is the engine's.
import { EngineError } from '../runtime/engine-api.js';
import { formatDecimal, formatSI } from '../runtime/format.js';
import { tileGrid } from './shared/tile-grid.js';
import { text, textWidth, legendNodes, fontFor, minFontOf } from './shared/svg-scene.js';
import { wrap } from './tensor-strides.js';

const list = (xs) => `[${xs.join(', ')}]`;

// The dimensions the engine's message names: "a's dimension i (size m) and b's dimension j (size n)".
function named(message) {
  const m = /a's dimension (\d+) \(size \d+\) and b's dimension (\d+)/.exec(message);
  return m ? { a: Number(m[1]), b: Number(m[2]) } : null;
}

export default {
  id: 'broadcast-checker',
  title: 'Broadcasting checker: two shapes, one result',
  caption:
    'Type two shapes as lists of sizes. They are aligned from the right; in each position the sizes must match or one must be 1 (a missing dimension counts as 1), and the result takes the size that is not 1. A size may be 0 (an empty tensor, legal in NumPy and PyTorch): 0 against 1 gives 0. Highlighted tiles are the dimensions an operand is stretched along, without copying (stride 0). Try a = 3 and b = 3, 1: a vector and a column make a 3 × 3 matrix. Then a = 3, b = 4: the engine names the two sizes that clash.',
  params: [
    { key: 'a', label: 'Shape of a', from: ['broadcast', 'a'], samplesLabel: 'Sample shapes of a', samples: [[3], [4, 1], [2, 3, 4]] },
    { key: 'b', label: 'Shape of b', from: ['broadcast', 'b'], samplesLabel: 'Sample shapes of b', samples: [[3, 1], [4], [5], [8, 1, 6, 1]] },
  ],

  data(engine, p) {
    const a = p.a, b = p.b;
    let r = null, error = null;
    try {
      r = engine.calc('broadcast', { a, b });
    } catch (e) {
      // Incompatible shapes are the figure's answer, not a rejected setting: the engine's
      // error (field b, aligned against a) names both dimensions. Any other error (a field out
      // of range, a result over 2^53 elements) is the control's.
      if (!(e instanceof EngineError) || !e.message.startsWith('Shapes do not broadcast')) throw e;
      error = e.message;
    }
    const rank = Math.max(a.length, b.length, 1);
    const table = r
      ? {
        columns: ['Operand', 'Shape', 'Elements', 'Strides over the result (elements; 0 = stretched)', 'Stretched result dimensions'],
        rows: [
          ['a', list(a), r.a_elements, list(r.a_strides_broadcast), list(r.a_broadcast_dims)],
          ['b', list(b), r.b_elements, list(r.b_strides_broadcast), list(r.b_broadcast_dims)],
          ['a + b', list(r.shape), r.elements, '', ''],
        ],
      }
      : { columns: ['Operand', 'Shape', 'Result'], rows: [['a', list(a), error], ['b', list(b), error]] };
    return {
      a, b, rank, error, clash: error ? named(error) : null,
      shape: r?.shape ?? null, elements: r?.elements ?? null, a_elements: r?.a_elements ?? null, b_elements: r?.b_elements ?? null,
      a_strides: r?.a_strides_broadcast ?? null, b_strides: r?.b_strides_broadcast ?? null,
      a_stretched: r?.a_broadcast_dims ?? [], b_stretched: r?.b_broadcast_dims ?? [], table,
    };
  },

  draw(data, theme) {
    const { rank } = data;
    const states = {
      kept: { fill: theme.palette[0], opacity: 0.35 },
      stretched: { fill: theme.compute, opacity: 0.8 },
      missing: { fill: 'none', stroke: theme.compute, strokeWidth: 1.5, dash: [3, 2] },
      result: { fill: theme.palette[1], opacity: 0.45 },
      clash: { fill: theme.memory, opacity: 0.8 },
    };
    const tiles = [];
    const labels = new Map();
    // Operand `name` in grid row `row`: its dimension i sits at column rank − len + i.
    const operand = (name, shape, row, stretched, strides) => {
      const lead = rank - shape.length;
      for (let c = 0; c < rank; c++) {
        const i = c - lead;
        let state, tip, label;
        if (i < 0) {
          state = data.error ? 'missing' : 'missing';
          label = '(1)';
          tip = `${name} has no dimension here: it counts as size 1${data.error ? '' : ` and is repeated along result dimension ${c} (stride 0)`}`;
        } else {
          const clash = data.clash && data.clash[name] === i;
          state = clash ? 'clash' : stretched.includes(c) ? 'stretched' : 'kept';
          label = String(shape[i]);
          tip = clash ? `${name}'s dimension ${i} (size ${shape[i]}): does not match and is not 1`
            : `${name}'s dimension ${i}: size ${shape[i]}${strides ? `, stride ${strides[c]} over the result${stretched.includes(c) ? ' (stretched: every result index reads the same element)' : ''}` : ''}`;
        }
        tiles.push({ row, col: c, state, tip });
        labels.set(`${row},${c}`, label);
      }
    };
    operand('a', data.a, 0, data.a_stretched, data.a_strides);
    operand('b', data.b, 1, data.b_stretched, data.b_strides);
    if (data.shape) {
      for (let c = 0; c < rank; c++) {
        const size = data.shape[c - (rank - data.shape.length)] ?? 1;
        tiles.push({ row: 3, col: c, state: 'result', tip: `Result dimension ${c}: size ${size}` });
        labels.set(`3,${c}`, String(size));
      }
    }
    const lines = data.error
      ? [`a ${list(data.a)} and b ${list(data.b)} do not broadcast.`, `Engine: ${data.error}`]
      : [data.elements === 0
        ? `a ${list(data.a)} + b ${list(data.b)} → ${list(data.shape)}: an empty tensor (a size 0 meets a size 0 or 1), 0 elements.`
        : `a ${list(data.a)} + b ${list(data.b)} → ${list(data.shape)}: ${formatDecimal(data.elements)} elements from ${formatDecimal(data.a_elements)} and ${formatDecimal(data.b_elements)} (${formatSI(data.elements / Math.max(data.a_elements, data.b_elements), '', 3)}× the larger operand).`,
        `Strides over the result (elements): a ${list(data.a_strides)}, b ${list(data.b_strides)}; 0 where stretched.`];
    const legend = [
      { label: 'Size matches the result', fill: states.kept.fill, opacity: 0.35 },
      { label: 'Stretched from 1 (stride 0)', fill: states.stretched.fill },
      { label: 'Missing: counts as 1', fill: 'none', stroke: theme.compute, dash: [3, 2] },
      data.error ? { label: 'The clashing dimensions', fill: states.clash.fill } : { label: 'Result', fill: states.result.fill, opacity: 0.45 },
    ];
    const top = (x, y, width, size) => {
      const nodes = [];
      let h = 0;
      for (const l of lines) {
        for (const w of wrap(l, width, size)) {
          nodes.push(text(x, y + h + size, w, size, theme.text, l.startsWith('Engine') ? { weight: 'bold' } : {}));
          h += size * 1.35;
        }
      }
      const leg = legendNodes(legend, x, y + h + 4, width, size, theme.text);
      nodes.push(...leg.nodes);
      return { nodes, height: h + 4 + leg.height };
    };
    const s = tileGrid(theme, {
      label: data.error ? `a ${list(data.a)} and b ${list(data.b)} do not broadcast: ${data.error}`
        : `a ${list(data.a)} and b ${list(data.b)} broadcast to ${list(data.shape)}`,
      rows: 4, cols: rank, tiles, states, top,
      rowLabels: ['a', 'b', '', data.error ? 'a + b: none' : 'a + b'],
      colLabels: Array.from({ length: rank }, (_, c) => `dim ${c}`),
      xTitle: 'Result dimension (aligned from the right)', yTitle: 'Operand (sizes)',
    });
    const size = fontFor(s.width);
    const extra = [];
    for (const n of s.nodes) {
      if (n.kind !== 'rect' || !n.cell) continue;
      const label = labels.get(`${n.cell[0]},${n.cell[1]}`);
      if (label === undefined || textWidth(label, size) > n.w - 2 || n.h < size + 2) continue;
      extra.push(text(n.x + n.w / 2, n.y + n.h / 2 + size * 0.35, label, size, theme.text, { anchor: 'middle', weight: 'bold' }));
    }
    s.nodes.push(...extra);
    s.minFont = minFontOf(s.nodes);
    return s;
  },
};
