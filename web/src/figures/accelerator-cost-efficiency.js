// Tokens per joule and tokens per dollar of one workload on eight accelerators, from
// calc('accelerator-compare'): the roofline's tokens per second divided by the chip's power
// (the hardware table's power_w: board TDP for GPUs, measured maximum for TPU v4, none for
// TPU v5e and v5p) or by its price per hour. The prices are the reader's: the defaults are
// round, assumed figures, not quotes; a price typed for some chips replaces only theirs.
import { formatSI, formatFixed } from '../runtime/format.js';
import { chart, linear, category, colours, series } from './shared/chart-config.js';
import { modelOptions } from './shared/published-models.js';
import { CHIPS, SHORT } from './accelerator-ridge-points.js';
import { MODELS } from './accelerator-workload-time.js';

// Assumed dollars per chip-hour: placeholders of a plausible order, to be replaced by a quote.
export const ASSUMED_PRICES = { 'a100-sxm-80gb': 2, 'h100-sxm': 3, 'h200-sxm': 3.5, b200: 5, mi300x: 3, 'tpu-v4': 3, 'tpu-v5e': 1.2, 'tpu-v5p': 4 };
const WORKLOADS = [
  { value: 'training-step', label: 'Training step (8 chips of each kind)' },
  { value: 'prefill', label: 'Prefill' },
  { value: 'decode-step', label: 'Decode step' },
];
const METRICS = {
  // A memory-bound decode reaches its roofline speed but draws far below its power figure, so its
  // bars understate; a compute-bound step's roofline assumes the full peak, which real runs fall
  // well short of, so there the same division overstates.
  joule: { label: 'Tokens per joule', field: 'tokens_per_joule', axis: 'Tokens per joule (at full power: lower bounds)',
    computeAxis: 'Tokens per joule (at full peak: optimistic)' },
  dollar: { label: 'Tokens per dollar', field: 'tokens_per_dollar', axis: 'Tokens per dollar (at the prices set)' },
};

// The next round number at or above x > 0 (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of
// ten): the axis top, so that its last tick reads 3,500,000 rather than 3,030,953.4.
export function roundUp(x) {
  const decade = 10 ** Math.floor(Math.log10(x));
  const step = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((f) => f * decade >= x * (1 - 1e-12));
  return Number((step * decade).toPrecision(3));
}

export default {
  id: 'accelerator-cost-efficiency',
  title: 'Tokens per joule and per dollar',
  caption:
    'The roofline’s tokens per second for one workload, divided by each chip’s power or by its price per hour. Per joule, every chip is charged its full power figure, though a memory-bound decode draws far less, so on decode the bars are lower bounds, not a ranking; on a prefill or a training step they assume the full peak, which real runs reach only part of, and flatter every chip instead. On the default decode step the B200 leads and the A100 beats the H100; the TPU v5e and v5p have no bar because Google publishes no power figure, and the TPU v4’s is a measured chip maximum, not a board TDP, which flatters it. Switch to a training step and the order follows FLOP/s per watt. Per dollar, the prices are assumptions, not quotes: type the prices you are offered, as {"h100-sxm": 2.5} (chips you leave out keep theirs), and watch the order change; a chip at half the price and half the speed ties.',
  params: [
    { key: 'metric', label: 'Show', type: 'select', default: 'joule', options: Object.entries(METRICS).map(([value, m]) => ({ value, label: m.label })) },
    { key: 'workload', label: 'Workload', type: 'select', default: 'decode-step', options: WORKLOADS },
    { key: 'model', label: 'Model', type: 'select', default: 'llama-3-8b', options: modelOptions(MODELS) },
    { key: 'batch', label: 'Sequences (batch)', from: ['accelerator-compare', 'batch'], min: 1, max: 1024, default: 8, scale: 'log' },
    { key: 'price_per_hour', label: 'Assumed price per chip-hour ($, by id)', from: ['accelerator-compare', 'price_per_hour'],
      default: ASSUMED_PRICES, when: { metric: ['dollar'] },
      samplesLabel: 'Sample prices',
      samples: [{ label: 'The assumed prices (the default)', value: ASSUMED_PRICES },
        { label: 'The same, with the H100 at $2', value: { ...ASSUMED_PRICES, 'h100-sxm': 2 } },
        { label: 'The TPU v5e at $1.20 and the B200 at $6, the rest assumed', value: { 'tpu-v5e': 1.2, b200: 6 } },
        { label: '{"z9000":1}, rejected: no such chip', value: { z9000: 1 } }] },
  ],

  data(engine, p) {
    const training = p.workload === 'training-step';
    // The prices typed replace the assumed ones of their chips only: {"h100-sxm": 2.5} changes one bar.
    const prices = p.metric === 'dollar' ? { ...ASSUMED_PRICES, ...p.price_per_hour } : {};
    const r = engine.calc('accelerator-compare', { workload: p.workload, model: p.model, batch: p.batch, seq: 4096,
      chips: training ? 8 : 1, ids: CHIPS, price_per_hour: prices });
    const m = METRICS[p.metric];
    const chips = r.rows.map((x) => ({ ...x, short: SHORT[x.id], value: x[m.field] }));
    const values = chips.map((c) => c.value ?? 0);
    const top = Math.max(...values);
    const table = {
      columns: ['Accelerator', 'Tokens/s (all chips)', 'Bound', 'Fits', 'Power per chip (W)', 'Tokens per joule', 'Price per chip-hour ($)', 'Tokens per dollar'],
      rows: chips.map((c) => [c.name, c.tokens_per_s, c.bound, c.fits ? 'yes' : 'no', c.power_w ?? '—', c.tokens_per_joule ?? '—',
        c.price_per_hour ?? '—', c.tokens_per_dollar ?? '—']),
    };
    return { metric: p.metric, workload: p.workload, chipsPer: r.chips, chips, range: [0, top > 0 ? roundUp(top * 1.1) : 1], table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const [fits, nofit] = [pick(), pick('muted')];
    const why = (c) => (c.value == null ? (data.metric === 'joule' ? 'no published power' : 'no price set')
      : `${formatSI(c.value)}${c.fits ? '' : ' (does not fit)'}`);
    return chart(theme, {
      type: 'bar', labels: data.chips.map((c) => [c.short, why(c)]),
      datasets: [
        series(fits, { label: `${METRICS[data.metric].label}: fits in the chip's HBM`, data: data.chips.map((c) => (c.fits ? c.value ?? 0 : 0)) }),
        series(nofit, { label: 'Does not fit in HBM at this setting (shown for reference)', data: data.chips.map((c) => (c.fits ? 0 : c.value ?? 0)) }),
      ],
      scales: {
        x: category({ title: `Accelerator (${data.workload}, ${data.chipsPer} chip${data.chipsPer === 1 ? '' : 's'} of each kind)`, stacked: true }),
        y: linear(data.workload === 'decode-step' ? METRICS[data.metric].axis : METRICS[data.metric].computeAxis ?? METRICS[data.metric].axis,
          { range: data.range, stacked: true }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => `${data.chips[ctx.dataIndex].name}: ${formatFixed(ctx.raw, 3)}`,
    });
  },
};
