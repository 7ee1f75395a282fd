// The "phases" view of smoothquant-migration: the roofline time of one decode step and of one
// prefill (or training) step of an 8B-parameter model's linear layers under each scheme, as a
// speedup over bf16, with the bound of each bar named on the chart. One call to
// calc('quantization-speedup').
import { formatSI } from '../../runtime/format.js';
import { chart, linear, category, colours, series } from './chart-config.js';

const fmt = (x) => String(Number(x.toPrecision(3)));
const SCHEME_LABEL = {
  bf16: 'bf16 (baseline)', w8a16: 'W8A16 int8 weights', w4a16: 'W4A16 int4 weights (g128)',
  'w8a8-int8': 'W8A8 int8', 'w8a8-fp8': 'W8A8 fp8',
};
// Speedups of every chip, scheme and batch in the table stay below 4 (int4 weights at decode
// batch 1: 16 / 4.125 = 3.88): a fixed axis, so that switching chips moves the bars.
const SPEEDUP_MAX = 4;

export function phasesData(engine, p) {
  const sp = engine.calc('quantization-speedup', { hardware: p.hardware, decode_batch: p.decode_batch, params: 8e9, prefill_tokens: 4096 });
  const schemes = sp.schemes.map((s) => ({
    scheme: s.scheme, label: SCHEME_LABEL[s.scheme] ?? s.scheme, available: s.available, bits: s.bits_per_weight,
    decode: s.available ? s.decode_speedup : 0, prefill: s.available ? s.prefill_speedup : 0,
    decode_time_s: s.available ? s.decode_time_s : 0, prefill_time_s: s.available ? s.prefill_time_s : 0,
    decode_bound: s.available ? s.decode_bound : 'unavailable', prefill_bound: s.available ? s.prefill_bound : 'unavailable',
  }));
  return {
    hardware: sp.hardware, decode_batch: p.decode_batch, schemes,
    table: {
      columns: ['Scheme', 'Bits per weight (bit)', 'Decode speedup (×)', 'Decode bound', 'Prefill speedup (×)', 'Prefill bound'],
      rows: schemes.map((s) => [s.label, s.bits, s.decode, s.decode_bound, s.prefill, s.prefill_bound]),
    },
  };
}

export function phasesDraw(data, theme) {
  const pick = colours(theme);
  const s = data.schemes;
  // Each bar is named by its bound only (the speedup is on the fixed axis and in the table):
  // two numbers per bar did not fit beside ten bars on a phone.
  const tag = (_v, bound) => (bound === 'unavailable' ? 'n/a' : bound === 'memory' ? 'mem' : 'comp');
  const bars = (colour, label, key, boundKey, extra) => series(colour, {
    label, borderWidth: 1, ...extra,
    data: s.map((x, i) => ({ x: i, y: x[key], label: tag(x[key], x[boundKey]) })),
    pointLabels: true,
  });
  return chart(theme, {
    type: 'bar',
    labels: s.map((x) => (x.available ? x.label : `${x.label} (not on this chip)`)),
    // Decode in the memory colour and prefill in the compute colour: the bound each phase
    // has at small batch and long prompts.
    datasets: [
      bars(pick('memory'), `Decode, batch ${data.decode_batch} (speedup ×)`, 'decode', 'decode_bound'),
      bars(pick('compute'), 'Prefill, 4096 tokens (speedup ×)', 'prefill', 'prefill_bound', { borderDash: [4, 2] }),
    ],
    scales: {
      x: category({ ticks: { autoSkip: false, maxRotation: 40 } }),
      y: linear('Speedup over bf16 (×, roofline bound)', { range: [0, Math.max(SPEEDUP_MAX, ...s.flatMap((x) => [x.decode, x.prefill]))] }),
    },
    tooltip: (ctx) => {
      const x = data.schemes[ctx.dataIndex];
      if (!x.available) return `${x.label}: no published peak for this format on this chip`;
      const decode = ctx.datasetIndex === 0;
      const t = decode ? x.decode_time_s : x.prefill_time_s;
      return `${decode ? 'Decode' : 'Prefill'}: ${formatSI(t, 's')} per step (${decode ? x.decode_bound : x.prefill_bound}-bound), ×${fmt(decode ? x.decode : x.prefill)}`;
    },
  });
}
