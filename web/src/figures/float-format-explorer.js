// The six floating-point formats side by side: each one's subnormal and normal range as
// floating bars on a log axis, the number the reader types marked across them, and the
// chosen format's rounding of it (value, bits, error, ulp). calc('float') does the rounding.
import { chart, log, category, colours, series } from './shared/chart-config.js';
const FORMATS = ['fp32', 'tf32', 'bf16', 'fp16', 'fp8-e4m3', 'fp8-e5m2'];

const show = (x) => (x === null ? '–' : Number(x.toPrecision(8)).toString());
const rounding = (r) =>
  r.special === 'none' ? show(r.rounded) : `${r.special === 'inf' ? `${r.sign}inf` : 'NaN'} (overflow)`;

export default {
  id: 'float-format-explorer',
  title: 'Floating-point formats: range, precision and rounding',
  caption:
    'Each bar is one format’s range of positive values on a log axis: the thin left part is the subnormal range, the thick part the normal range; the vertical marker is the number you type. The legend gives its rounding in the chosen format, with the bit fields, and the table rounds it in every format. Type 70000 and watch fp16 overflow to infinity while bf16 keeps it; type 0.1 and compare the error of bf16 with fp16; type 460 and 470 in fp8-e4m3 to see the tie to 448 and the NaN beyond.',
  params: [
    { key: 'format', label: 'Format', from: ['float', 'format'] },
    { key: 'value', label: 'Value', type: 'number', min: -1e300, max: 1e300, default: 0.1 },
    { key: 'saturate', label: 'Saturate on overflow', from: ['float', 'saturate'] },
  ],

  data(engine, p) {
    // The chosen format first, so a bad format or value is reported on its own field.
    const chosen = engine.calc('float', { format: p.format, value: p.value, saturate: p.saturate });
    const all = FORMATS.map((format) => (format === p.format ? chosen : engine.calc('float', { format, value: p.value, saturate: p.saturate })));
    const rows = all.map((r) => [
      r.format === p.format ? `${r.format} (chosen)` : r.format, rounding(r), r.bits, r.rel_error === null ? '–' : r.rel_error, r.ulp === null ? '–' : r.ulp,
      r.max, r.min_normal, r.min_subnormal, r.epsilon,
    ]);
    return {
      value: p.value,
      format: p.format,
      chosen,
      ranges: all.map((r) => ({ format: r.format, min_subnormal: r.min_subnormal, min_normal: r.min_normal, max: r.max })),
      table: {
        columns: ['Format', 'Rounded value', 'Bits (sign exponent mantissa)', 'Relative error', 'ulp at the value',
          'Max', 'Min normal', 'Min subnormal', 'Machine epsilon'],
        rows,
      },
    };
  },

  draw(data, theme) {
    const labels = data.ranges.map((r) => (r.format === data.format ? `${r.format} (chosen)` : r.format));
    const v = Math.abs(data.value);
    const c = data.chosen;
    const marker = v > 0 && v >= 1e-46 && v <= 1e40;
    const pick = colours(theme);
    const range = { borderWidth: 1, grouped: false };
    const datasets = [
      series(pick(), { ...range, label: 'Subnormal range', data: data.ranges.map((r) => [r.min_subnormal, r.min_normal]), barPercentage: 0.35, order: 2 }),
      series(pick(), { ...range, label: 'Normal range (min normal to max)', data: data.ranges.map((r) => [r.min_normal, r.max]),
        borderColor: theme.text, barPercentage: 0.8, order: 3 }),
      series(pick('text'), { ...range, label: marker ? `|value| = ${show(v)}` : `|value| = ${show(v)} (off the axis)`,
        data: marker ? data.ranges.map(() => [v / 2.5, v * 2.5]) : [], barPercentage: 1, order: 0 }),
      series(pick('muted'), { label: `${c.format}: ${rounding(c)} = ${c.bits}${c.rel_error !== null ? `, rel. error ${Number(c.rel_error.toPrecision(3))}` : ''}${c.subnormal ? ', subnormal' : ''}${c.underflow ? ', underflow to 0' : ''}`,
        data: [] }),
    ];
    return chart(theme, {
      type: 'bar', labels, datasets, indexAxis: 'y',
      scales: {
        x: log('Magnitude (dimensionless, log scale)', { range: [1e-46, 1e40],
          afterBuildTicks: (axis) => { axis.ticks = [-40, -30, -20, -10, 0, 10, 20, 30, 40].map((e) => ({ value: 10 ** e })); },
          ticks: { callback: (t) => `1e${Math.round(Math.log10(t))}` } }),
        y: category(),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => {
        const [a, b] = ctx.raw;
        return `${ctx.dataset.label}: ${a.toPrecision(4)} to ${b.toPrecision(4)}`;
      },
    });
  },
};
