// A collective executed step by step on simulated ranks: which rank holds which chunk after
// each step, and how many ranks' inputs each chunk already contains. One call of
// calc('collective-execute') returns every step's messages and holdings; the slider replays it.
import { formatSI } from '../runtime/format.js';
import { chart, linear, colours, series } from './shared/chart-config.js';

const OPS = [
  { value: 'allreduce', label: 'All-reduce' }, { value: 'reducescatter', label: 'Reduce-scatter' },
  { value: 'allgather', label: 'All-gather' }, { value: 'broadcast', label: 'Broadcast' },
  { value: 'reduce', label: 'Reduce' }, { value: 'alltoall', label: 'All-to-all' },
];
const REDUCING = new Set(['allreduce', 'reducescatter', 'reduce']);

const popcount = (m) => { let c = 0; for (let x = m; x > 0; x = Math.floor(x / 2)) c += x % 2; return c; };
const hasBit = (m, r) => Math.floor(m / 2 ** r) % 2 === 1;

// The state of one cell (rank r, chunk c) from its contributor mask.
function state(op, mask, r, ranks) {
  if (mask === 0) return 'empty';
  const n = popcount(mask);
  if (REDUCING.has(op)) {
    if (n === ranks) return 'complete';
    return n === 1 && hasBit(mask, r) ? 'own' : 'partial';
  }
  return n === 1 && hasBit(mask, r) ? 'own' : 'received';
}

// One tick per rank or chunk (the axis runs from −0.5 so that the markers sit between lines).
const integerTicks = (n) => (axis) => { axis.ticks = Array.from({ length: n }, (_, i) => ({ value: i })); };

// In a reduction, each marker's count of contributing ranks, drawn on it (text colour with a halo of the
// background, readable on any fill): the figure's point, visible without a hover.
const cellCounts = {
  id: 'cellCounts',
  afterDatasetsDraw(chart) {
    const { ctx } = chart;
    const { color: text, haloColor: halo, size, digitsInSeries } = chart.options.plugins.cellCounts ?? {};
    if (!text || !(size > 0)) return;
    ctx.save();
    ctx.font = `600 ${size}px ${chart.options.font?.family ?? 'sans-serif'}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.lineJoin = 'round';
    ctx.lineWidth = 3;
    chart.data.datasets.forEach((ds, di) => {
      if (!ds.countLabels || !chart.isDatasetVisible(di)) return;
      chart.getDatasetMeta(di).data.forEach((el, i) => {
        const c = ds.data[i]?.c;
        if (!c || c.inputs === 0) return;
        ctx.strokeStyle = halo;
        ctx.strokeText(String(c.inputs), el.x, el.y);
        ctx.fillStyle = digitsInSeries ? ds.backgroundColor : text;
        ctx.fillText(String(c.inputs), el.x, el.y);
      });
    });
    ctx.restore();
  },
};

const LABELS = {
  own: 'Own input only', partial: 'Partial sum (some inputs)', complete: 'Fully reduced (all inputs)',
  received: 'Received from another rank', empty: 'Empty (no valid data)',
};

export default {
  id: 'collective-steps',
  title: 'Collectives step by step on simulated ranks',
  simulation: true,
  caption:
    'Each row is a rank, each column a chunk of its buffer; the marker shows what the rank holds after the chosen step (in a reduction, the number on it counts the ranks whose inputs the chunk already contains), and a frame marks each chunk written in that step. Drag the step slider through a ring all-reduce: partial sums travel round the ring for p − 1 steps, then the finished chunks are copied round for p − 1 more. Switch to tree or recursive doubling and count the steps, or to all-to-all to see each rank\'s blocks scatter.',
  params: [
    { key: 'op', label: 'Collective', type: 'select', options: OPS, default: 'allreduce' },
    { key: 'algorithm', label: 'Algorithm', type: 'select', default: 'ring',
      options: [{ value: 'ring', label: 'Ring (chain for broadcast/reduce)' }, { value: 'tree', label: 'Binomial tree' },
        { value: 'recursive-doubling', label: 'Recursive doubling / halving' }, { value: 'halving-doubling', label: 'Halving-doubling (all-reduce)' },
        { value: 'hierarchical', label: 'Hierarchical (nodes of up to 4)' }] },
    { key: 'ranks', label: 'Ranks p', from: ['collective-execute', 'ranks'], default: 8 },
    { key: 'step', label: 'After step', type: 'integer', min: 0, max: 40, default: 3 },
  ],

  data(engine, p) {
    const input = { op: p.op, algorithm: p.algorithm, ranks: p.ranks };
    // Hierarchical: nodes of 4 GPUs, or of the largest of 3, 2, 1 that divides the rank count.
    if (p.algorithm === 'hierarchical') input.gpus_per_node = [4, 3, 2, 1].find((g) => p.ranks % g === 0);
    const run = engine.calc('collective-execute', input);
    const step = Math.min(p.step, run.steps);
    const snap = run.snapshots[step];
    const written = new Set(snap.messages.flatMap((m) => m.chunks.map((c) => `${m.dst}:${c}`)));
    const cells = [];
    snap.holds.forEach((row, r) => row.forEach((mask, c) => {
      cells.push({ rank: r, chunk: c, state: state(p.op, mask, r, p.ranks), inputs: popcount(mask), written: written.has(`${r}:${c}`) });
    }));
    const sentSoFar = Array(p.ranks).fill(0);
    for (const s of run.snapshots.slice(1, step + 1)) for (const m of s.messages) sentSoFar[m.src] += m.bytes;
    const table = {
      columns: ['Rank', 'Sends in this step', 'Chunks final (count)', 'Bytes sent so far (B)', 'Bytes sent in total (B)'],
      rows: snap.holds.map((row, r) => {
        const out = snap.messages.filter((m) => m.src === r).map((m) => `${m.reduce ? 'adds' : 'copies'} chunk${m.chunks.length > 1 ? 's' : ''} ${m.chunks.join(',')} to rank ${m.dst}`);
        const done = row.filter((mask) => (REDUCING.has(p.op) ? state(p.op, mask, r, p.ranks) === 'complete' : mask !== 0)).length;
        return [r, out.join('; ') || '—', done, sentSoFar[r], run.bytes_sent_by_rank[r]];
      }),
    };
    return {
      op: p.op, algorithm: p.algorithm, ranks: p.ranks, step, steps: run.steps, chunks: run.chunks,
      elements: run.elements, bytes: run.bytes, cells, messages: snap.messages,
      equals_direct: run.equals_direct, bytes_sent_per_rank: run.bytes_sent_per_rank, model: run.model, table,
    };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const styles = { own: ['rect', pick()], partial: ['triangle', pick()], complete: ['rectRot', pick()], received: ['circle', pick()], empty: ['rect', pick('grid')] };
    // Markers as large as a cell allows (the chart box's size; axes take about 70 by 60 px),
    // so that the count of contributions fits on them.
    const cell = Math.min(((theme.width ?? 640) - 70) / data.chunks, ((theme.height ?? 400) - 60) / data.ranks);
    const size = Math.max(4, Math.min(14, cell * 0.34));
    const reducing = REDUCING.has(data.op);
    // Too small a marker to carry a number (16 ranks on a phone): the number replaces the
    // marker, written in its series' colour (the hover still finds it).
    const digitsOnly = reducing && size < 6.5;
    const fontPx = Math.round(Math.max(digitsOnly ? 9 : 8, Math.min(13, size * 1.05)));
    const frame = digitsOnly ? Math.max(size * 1.5, fontPx * 0.95) : size * 1.5; // encloses a two-digit count
    const datasets = Object.entries(styles).map(([key, [shape, colour]]) => series(colour, {
      label: key === 'partial' ? `${LABELS[key]}; number = ranks summed in` : LABELS[key],
      data: data.cells.filter((c) => c.state === key).map((c) => ({ x: c.chunk, y: c.rank, c })),
      pointStyle: shape, pointRadius: key === 'empty' ? size * 0.6 : (digitsOnly ? 0 : size), pointHoverRadius: size + 2,
      pointHitRadius: size + 2,
      // Counts only where they vary: in a gather or all-to-all every block has one source.
      countLabels: key !== 'empty' && reducing,
    })).filter((d) => d.data.length > 0);
    // Chunks written in this step: a frame round the cell in the text colour, filled with the
    // page colour and drawn under the marker (Chart.js paints the last dataset first), so that
    // it hides neither the marker nor its number, as a cross over them did.
    const written = pick('text');
    const paper = theme.background ?? theme.grid;
    datasets.push(series(written, {
      label: `Written in step ${data.step} (framed)`, data: data.cells.filter((c) => c.written).map((c) => ({ x: c.chunk, y: c.rank, c })),
      pointStyle: 'rect', pointRadius: frame, pointHoverRadius: frame, borderWidth: digitsOnly ? 1.5 : 2.5, backgroundColor: paper,
    }));
    const check = data.equals_direct ? 'final buffers equal the result computed directly' : 'final buffers differ from the result computed directly';
    // One tick per chunk and rank; the grid lines fall between the markers.
    const grid = (n) => ({ range: [-0.5, n - 0.5], afterBuildTicks: integerTicks(n), ticks: { autoSkip: false } });
    const config = chart(theme, {
      datasets,
      plugins: { cellCounts: { color: written, haloColor: paper, size: fontPx, digitsInSeries: digitsOnly } },
      scales: {
        x: linear([`Chunk (each ${formatSI(data.bytes / data.chunks, 'B')}) · step ${data.step} of ${data.steps}`, check], grid(data.chunks)),
        y: linear('Rank (one per GPU)', { ...grid(data.ranks), reverse: true }),
      },
      tooltip: (ctx) => {
        const c = ctx.raw.c;
        return `rank ${c.rank}, chunk ${c.chunk}: ${LABELS[c.state].toLowerCase()}, ${c.inputs} rank input${c.inputs === 1 ? '' : 's'}${c.written ? ', written in this step' : ''}`;
      },
    });
    config.plugins = [cellCounts];
    return config;
  },
};
