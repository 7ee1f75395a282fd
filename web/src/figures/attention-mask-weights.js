// Attention weights of a toy sequence under a mask, drawn with the SVG heat-map drawer: one
// row per query i, one column per key j. One calc('attention-mask') gives the mask (which
// (i, j) pairs are allowed), seeded scores uniform in [−2, 2) and their softmax over the
// allowed keys of each row (masked keys set to −∞ before the softmax, so their weight is
// exactly 0 and every row sums to 1). Masked cells are drawn as dashed outlines with no fill,
// so they cannot be mistaken for small weights; the colour scale is 0 to 1 whatever the mask, so
// masks compare entry by entry; the count of allowed pairs is written with its closed form
// (n(n + 1)/2 for the causal mask).
import { formatDecimal } from '../runtime/format.js';
import { heatMap, valueText } from './shared/heat-map.js';
import { text, textWidth, sizeOf, fontFor } from './shared/svg-scene.js';

const MASKS = {
  none: 'none (every key)',
  causal: 'causal (j ≤ i)',
  padding: 'padding (last keys are padding)',
  'sliding-window': 'sliding window (|i − j| < w)',
  'causal-sliding-window': 'causal sliding window (0 ≤ i − j < w)',
  document: 'packed documents (causal inside each)',
  'prefix-lm': 'prefix-LM (prefix both ways, then causal)',
  'sink-window': 'causal window with attention sinks',
};
const WINDOWED = ['sliding-window', 'causal-sliding-window', 'sink-window'];
// The controls of each mask beyond n and w, with the engine's input of the same name.
const EXTRA = { document: 'doc', 'prefix-lm': 'prefix', 'sink-window': 'sinks' };

// The closed form of the allowed count, as the engine's schema states it: [symbols, with n, w,
// pad put in].
function closedForm(mask, n, w, pad, e) {
  if (mask === 'none') return ['n²', `${n}²`];
  if (mask === 'causal') return ['n(n + 1)/2', `${n}·${n + 1}/2`];
  if (mask === 'padding') return ['n(n − pad)', `${n}·${n - pad}`];
  if (mask === 'sliding-window') return w >= n ? ['n² (w ≥ n)', `${n}²`] : ['n² − (n − w)(n − w + 1)', `${n}² − ${n - w}·${n - w + 1}`];
  if (mask === 'document') {
    const q = Math.floor(n / e), r = n % e;
    return ['q·D(D + 1)/2 + r(r + 1)/2', `${q}·${e}·${e + 1}/2 + ${r}·${r + 1}/2`];
  }
  if (mask === 'prefix-lm') return ['n(n + 1)/2 + p(p − 1)/2', `${n}·${n + 1}/2 + ${e}·${e - 1}/2`];
  const m = Math.min(w, n);
  if (mask === 'sink-window') {
    // The sinks outside each query's window: min(s, t) for t = 1 .. n − w.
    let extra = 0;
    for (let t = 1; t <= n - w; t += 1) extra += Math.min(e, t);
    return ['m·n − m(m − 1)/2 + Σ min(s, t), t = 1 … n − w', `${m}·${n} − ${m}·${m - 1}/2 + ${extra}`];
  }
  return ['m·n − m(m − 1)/2, m = min(w, n)', `${m}·${n} − ${m}·${m - 1}/2`];
}

export default {
  id: 'attention-mask-weights',
  title: 'Attention weights under a mask',
  caption:
    'Each row is a query token i, each column a key token j; the colour is the weight softmax gives key j in row i, from seeded scores, on one scale from 0 to 1 for every mask. Dashed empty cells are masked: their score was set to −∞ before the softmax, so their weight is exactly 0 and the row’s other weights grow to sum to 1. Start with the causal mask and count the allowed pairs against n(n + 1)/2; switch to padding and see that only key columns are masked (every query row keeps the real keys); try the sliding windows and change the window; choose packed documents and see the causal triangles with nothing between documents, prefix-LM and see the prefix attend both ways, the window with attention sinks and see the first column stay visible in every row; change the seed to draw other scores under the same mask.',
  params: [
    { key: 'mask', label: 'Mask', from: ['attention-mask', 'mask'], default: 'causal',
      options: Object.entries(MASKS).map(([value, label]) => ({ value, label })) },
    { key: 'seq', label: 'Sequence length n', from: ['attention-mask', 'seq'], min: 2, max: 24, default: 8 },
    { key: 'window', label: 'Window w', from: ['attention-mask', 'window'], min: 1, max: 24, default: 3, when: { mask: WINDOWED } },
    { key: 'pad', label: 'Padding tokens at the end', from: ['attention-mask', 'pad'], min: 0, max: 23, default: 3, when: { mask: ['padding'] } },
    { key: 'doc', label: 'Tokens per document D', from: ['attention-mask', 'doc'], min: 1, max: 24, default: 3, when: { mask: ['document'] } },
    { key: 'prefix', label: 'Prefix length p', from: ['attention-mask', 'prefix'], min: 0, max: 24, default: 3, when: { mask: ['prefix-lm'] } },
    { key: 'sinks', label: 'Sink tokens s', from: ['attention-mask', 'sinks'], min: 0, max: 24, default: 1, when: { mask: ['sink-window'] } },
    { key: 'seed', label: 'Seed of the scores', from: ['attention-mask', 'seed'], min: 1, max: 1000, default: 1 },
  ],

  data(engine, p) {
    const input = { seq: p.seq, mask: p.mask, seed: p.seed };
    if (WINDOWED.includes(p.mask)) input.window = p.window;
    if (p.mask === 'padding') input.pad = p.pad;
    if (EXTRA[p.mask]) input[EXTRA[p.mask]] = p[EXTRA[p.mask]];
    const r = engine.calc('attention-mask', input);
    const n = p.seq;
    const rows = r.weights.map((w, i) => {
      const keys = r.allowed[i].filter(Boolean).length;
      return { i, keys, sum: w.reduce((a, b) => a + b, 0), max: Math.max(...w) };
    });
    const extra = EXTRA[p.mask] ? p[EXTRA[p.mask]] : null;
    const formula = closedForm(p.mask, n, p.window, p.pad, extra);
    const table = {
      columns: ['Query i', 'Keys allowed', 'Sum of weights', ...Array.from({ length: n }, (_, j) => `Weight of key ${j}`)],
      rows: r.weights.map((w, i) => [i, rows[i].keys, rows[i].sum, ...w.map((v, j) => (r.allowed[i][j] ? v : 'masked'))]),
    };
    return {
      mask: p.mask, seq: n, window: WINDOWED.includes(p.mask) ? p.window : null, pad: p.mask === 'padding' ? p.pad : null, extra,
      allowed: r.allowed, weights: r.weights, scores: r.scores, allowed_count: r.allowed_count, total_pairs: r.total_pairs,
      allowed_fraction: r.allowed_fraction, formula, rows, table,
    };
  },

  draw(data, theme) {
    const n = data.seq;
    const labels = Array.from({ length: n }, (_, k) => String(k));
    // One colour scale for every mask, seed and length: a weight is a fraction of its row, 0 to 1.
    const max = 1;
    const [symbols, numbers] = data.formula;
    const pairs = `${formatDecimal(data.allowed_count, 0)} of ${formatDecimal(data.total_pairs, 0)} pairs allowed`;
    const count = `${pairs} = ${symbols}`;
    // The key axis title is centred over the grid: the longest wording that fits the width
    // (a phone drops the closed form, which the scene's label and the prose keep).
    const { width: sceneW } = sizeOf(theme);
    const titleSize = fontFor(sceneW);
    const xTitle = [`Key j (token; ${count})`, `Key j (token; ${pairs})`, 'Key j (token)']
      .find((t) => 1.1 * textWidth(t, titleSize) <= sceneW - 2 * (4 + 3 * titleSize)) ?? 'Key j (token)';
    const s = heatMap(theme, {
      label: `Attention weights of ${n} queries over ${n} keys under the ${MASKS[data.mask]} mask: ${count} = ${numbers}`,
      values: data.weights, quantity: 'Attention weight', unit: '',
      rowLabels: labels, colLabels: labels, min: 0, max,
      xTitle, yTitle: 'Query i (token)',
      tip: (i, j, v) => (data.allowed[i][j]
        ? `Query ${i}, key ${j}: weight ${valueText(v)} (score ${valueText(data.scores[i][j])})`
        : `Query ${i}, key ${j}: masked (score set to −∞ before the softmax, weight 0)`),
    });
    // Masked cells: no fill, a dashed outline, so that a weight of 0.001 and a masked pair differ.
    const nodes = s.nodes.map((node) => {
      if (node.kind !== 'rect' || !node.cell) return node;
      const [i, j] = node.cell;
      if (data.allowed[i][j]) return node;
      const { opacity, ...rest } = node;
      return { ...rest, fill: 'none', stroke: theme.muted, strokeWidth: 0.75, dash: [2, 2] };
    });
    // The key of the masked look, to the right of the colour bar.
    const { width } = sizeOf(theme);
    const size = fontFor(width);
    const x = 4 + Math.min(260, (width - 8) * 0.6) + 16;
    const y = 4 + size * 1.5;
    // The longest wording of the key that fits beside the colour bar (a phone gets the short one).
    const room = width - x - 14 - 4;
    const maskedLabel = ['Masked (−∞ before softmax: weight 0)', 'Masked (weight 0)', 'Masked']
      .find((l) => textWidth(l, size) <= room) ?? 'Masked';
    const legend = [{ label: maskedLabel, fill: 'none', stroke: theme.muted, dash: [2, 2] }];
    nodes.push({ kind: 'rect', x, y, w: 10, h: 10, fill: 'none', stroke: theme.muted, strokeWidth: 0.75, dash: [2, 2] });
    nodes.push(text(x + 14, y + 9, maskedLabel, size, theme.text));
    return { ...s, nodes, legend: [...(s.legend ?? []), ...legend] };
  },
};
