// The online softmax, one block of scores at a time: the scores read so far, the running
// maximum after each block, and the weights e^(x − m) that the running sum l adds up, before
// and after this step's rescale by e^(m_old − m_new). One call to calc('online-softmax').
import { chart, linear, category, colours, series } from './shared/chart-config.js';

const sci = (x) => (x === 0 ? '0' : x.toExponential(1));
// ln of the largest fp32, 3.4028235e38: e^x is infinite in fp32 above it.
const FP32_EXP_MAX = Math.log(3.4028235e38);
const fmt = (x, digits = 4) => (x === null || x === undefined ? '−∞' : Number(x.toPrecision(digits)).toString());

export default {
  id: 'online-softmax-stepper',
  simulation: true, // executes kernels: redraw budget 50 ms
  title: 'Online softmax, block by block',
  caption:
    'Scores arrive in blocks; the running maximum m, the running sum l of e^(x − m) and the running output o are updated after each block, and whenever the maximum grows the weights already summed shrink by e^(m_old − m_new). Step through the blocks; switch the pattern to rising (the maximum grows at every block) and falling (it never grows after the first), and raise the scale to 1000, where the textbook e^x would overflow.',
  params: [
    { key: 'step', label: 'Step (blocks read)', type: 'integer', min: 1, max: 64, default: 3 },
    { key: 'block', label: 'Block size', type: 'integer', min: 1, max: 64, default: 8 },
    { key: 'pattern', label: 'Score pattern', from: ['online-softmax', 'pattern'] },
    { key: 'length', label: 'Scores in the row', type: 'integer', min: 2, max: 256, default: 32 },
    { key: 'scale', label: 'Score scale', type: 'number', min: 0.1, max: 1000, default: 4, scale: 'log' },
  ],

  data(engine, p) {
    const r = engine.calc('online-softmax', {
      length: p.length, block: p.block, pattern: p.pattern, scale: p.scale, step: p.step,
    });
    const k = r.step; // clamped by the engine to the number of blocks
    const cur = r.steps[k - 1];
    const keys = r.scores.map((x, i) => ({
      index: i + 1, score: x, value: r.values[i],
      state: i < cur.begin ? 'read' : i < cur.end ? 'current' : 'unread',
      weight: i < cur.end ? r.step_weights[i] : null,
      before: i < cur.begin ? r.step_weights_before[i] : null,
    }));
    const table = {
      columns: ['Step', 'Keys', 'Block max', 'm before', 'm after', 'Rescale e^(m_old − m_new)', 'Running sum l',
        'Running output o', 'o / l', 'Exact over keys read (fp64)', '|Error|'],
      rows: r.steps.map((s) => [s.block + 1, `${s.begin + 1}–${s.end}`, s.block_max, s.m_old ?? '−∞', s.m_new, s.rescale,
        s.l, s.o, s.estimate, s.exact_prefix, s.error]),
    };
    return {
      step: k, blocks: r.blocks, current: cur, steps: r.steps.slice(0, k), keys, output: r.output,
      exact_output: r.exact_output, output_error: r.output_error, max_prob_error: r.max_prob_error,
      naive_out_of_range: r.naive_out_of_range, naive_overflows: Math.max(...r.scores) > FP32_EXP_MAX,
      rescales: r.rescales, table,
    };
  },

  draw(data, theme) {
    const labels = data.keys.map((q) => String(q.index));
    const scores = (state) => data.keys.map((q) => (q.state === state ? q.score : null));
    // The running max after each block read, drawn over that block's keys: a staircase.
    const stair = data.keys.map((q) => {
      const s = data.steps.find((t) => q.index > t.begin && q.index <= t.end);
      return s ? s.m_new : null;
    });
    const c = data.current;
    const grew = c.m_old !== null && c.m_new > c.m_old;
    const pick = colours(theme);
    const marks = (label, values, colour, style, radius, extra = {}) => series(colour, {
      type: 'line', label, data: values, yAxisID: 'y', showLine: false, pointStyle: style, pointRadius: radius, order: 0, ...extra,
    });
    const weights = { type: 'bar', yAxisID: 'y1', order: 1, barPercentage: 0.9, categoryPercentage: 0.9 };
    const datasets = [
      marks('Scores read', scores('read'), pick(), 'circle', 3),
      marks(`Block ${data.step} (now)`, scores('current'), pick('compute'), 'triangle', 6),
      marks('Not yet read', scores('unread'), pick('muted'), 'crossRot', 4, { borderWidth: 1 }),
      marks(`Running max (m = ${fmt(c.m_new)})`, stair, pick('text'), 'line', 0,
        { showLine: true, stepped: 'middle', borderWidth: 2, spanGaps: false }),
      series(theme.grid, { ...weights, label: `Weights before the rescale${grew ? '' : ' (m unchanged)'}`,
        data: data.keys.map((q) => q.before), borderColor: theme.muted, borderWidth: 1.5 }),
      series(pick(), { ...weights, label: `Weights e^(x − m) now (sum l = ${fmt(c.l)})`, data: data.keys.map((q) => q.weight), borderWidth: 1 }),
    ];
    const rescale = c.m_old === null ? 'first block' : `l, o × ${fmt(c.rescale, 3)}`;
    const xTitle = `Key (step ${data.step}/${data.blocks}: ${rescale}; o/l = ${fmt(c.estimate, 5)}, error ${sci(c.error)})`;
    // The whole row, whatever the step: the online pass's final error, and what the textbook
    // e^x / Σ e^x does in fp32 on the same scores.
    const naive = !data.naive_out_of_range ? 'textbook e^x stays in fp32 range'
      : data.naive_overflows ? `textbook e^x overflows fp32 (a score above ${fmt(FP32_EXP_MAX, 3)} gives ∞)`
        : 'textbook e^x underflows fp32 (every e^x is 0)';
    const final = `All ${data.blocks} blocks: online o/l = ${fmt(data.output, 6)}, error ${sci(data.output_error)} vs fp64`;
    return chart(theme, {
      type: 'bar', labels, datasets,
      scales: {
        x: category({ title: [xTitle, final, naive], ticks: { color: theme.muted, autoSkip: true, maxRotation: 0 }, grid: { display: false } }),
        y: linear('Score x (logit)', { position: 'left' }),
        y1: linear('Weight e^(x − m) (0 to 1)', { position: 'right', range: [0, 1], grid: { drawOnChartArea: false } }),
      },
      tooltip: {
        filter: (ctx) => ctx.raw !== null,
        callbacks: {
          label: (ctx) => {
            const q = data.keys[ctx.dataIndex];
            if (ctx.dataset.type === 'bar') return `${ctx.dataset.label.split(' (')[0]}: ${fmt(ctx.raw)}`;
            return `key ${q.index}: score ${fmt(q.score)}, value ${fmt(q.value)} (${q.state})`;
          },
        },
      },
    });
  },
};
