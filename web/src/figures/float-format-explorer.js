// The six floating-point formats side by side: each one's subnormal and normal range as
// floating bars on a log axis, the number the reader types marked across them, and the
// chosen format's rounding of it (value, bits, error, ulp). Range is the bars; precision is
// the label on each format's marker (the rounded value and the spacing there, the ulp) and
// the legend's neighbours of the value in the chosen format. calc('float') does the rounding.
import { chart, log, category, colours, series } from './shared/chart-config.js';
// OCP FP8 (NVIDIA Hopper/Blackwell, AMD MI350) and the FNUZ variants of AMD's MI300.
const FORMATS = ['fp32', 'tf32', 'bf16', 'fp16', 'fp8-e4m3', 'fp8-e5m2', 'fp8-e4m3-fnuz', 'fp8-e5m2-fnuz'];

const show = (x) => (x === null ? '–' : Number(x.toPrecision(8)).toString());
const rounding = (r) =>
  r.special === 'none' ? show(r.rounded) : `${r.special === 'inf' ? `${r.sign}inf` : 'NaN'} (overflow)`;
// The ulp is a power of two: 2^k reads at every magnitude, where a decimal would need e-notation.
const pow2 = (x) => `2^${Math.round(Math.log2(x))}`;
const percent = (x) => `${Number((100 * x).toPrecision(3))} %`;
// What the marker of one format says: its rounding of the value and the spacing there.
const precision = (r) => {
  if (r.special !== 'none') return rounding(r);
  if (r.underflow) return '0 (underflow)';
  return `${show(r.rounded)}, ulp ${pow2(r.ulp)}${r.subnormal ? ' (subnormal)' : ''}`;
};

// The exponents ticked on the magnitude axis of a chart `width` px wide.
export const decadeTicks = (width) => (width < 480 ? [-40, -20, 0, 20, 40] : [-40, -30, -20, -10, 0, 10, 20, 30, 40]);

export default {
  id: 'float-format-explorer',
  title: 'Floating-point formats: range, precision and rounding',
  caption:
    'Each bar is one format’s range of positive values on a log axis: the thin left part is the subnormal range, the thick part the normal range; the vertical marker is the number you type. Beside the marker, each format’s rounding of it and the spacing of its values there (the ulp): the range is the bar, the precision is the ulp. The legend gives the chosen format’s bits, relative error and the two neighbouring values; “Show data” rounds it in every format. Type 70000 and watch fp16 overflow to infinity while bf16 keeps it, on a coarse grid; type 0.1 and compare the ulp of bf16 with fp16; type 464 and 470 in fp8-e4m3: 464, halfway between 448 and the NaN code above it, ties to the even 448, and 470 becomes NaN; then 250 in fp8-e4m3-fnuz, the MI300 variant, whose largest value is 240.',
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
      r.next_down ?? '–', r.next_up ?? '–', r.rel_ulp ?? '–',
    ]);
    return {
      value: p.value,
      format: p.format,
      chosen,
      ranges: all.map((r) => ({ format: r.format, min_subnormal: r.min_subnormal, min_normal: r.min_normal, max: r.max,
        precision: precision(r) })),
      table: {
        columns: ['Format', 'Rounded value', 'Bits (sign exponent mantissa)', 'Relative error', 'ulp at the value',
          'Max', 'Min normal', 'Min subnormal', 'Machine epsilon', 'Next value below', 'Next value above',
          'Relative spacing (ulp / value)'],
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
    // The ranges are the backdrop of each row's value marker: its label may lie over them.
    const range = { borderWidth: 1, grouped: false, labelBackdrop: true };
    const datasets = [
      series(pick(), { ...range, label: 'Subnormal range', data: data.ranges.map((r) => [r.min_subnormal, r.min_normal]), barPercentage: 0.35, order: 2 }),
      series(pick(), { ...range, label: 'Normal range (min normal to max)', data: data.ranges.map((r) => [r.min_normal, r.max]),
        borderColor: theme.text, barPercentage: 0.8, order: 3 }),
      series(pick('text'), { ...range, label: marker ? `|value| = ${show(v)}` : `|value| = ${show(v)} (off the axis)`,
        data: marker ? data.ranges.map(() => [v / 2.5, v * 2.5]) : [], barPercentage: 1, order: 0,
        pointLabels: (_raw, i) => data.ranges[i].precision }),
      series(pick('muted'), { label: `${c.format}: ${rounding(c)} = ${c.bits}${c.rel_error !== null ? `, rel. error ${percent(c.rel_error)}` : ''}${c.subnormal ? ', subnormal' : ''}${c.underflow ? ', underflow to 0' : ''}`,
        data: [], group: 'chosen' }),
      // The precision at the value: the two neighbours in the chosen format and their spacing.
      // Two short lines rather than one, so that the legend fits a phone's width.
      series(theme.muted, { label: c.special === 'none'
        ? `neighbours ${show(c.next_down)} and ${c.next_up === null ? 'none (max)' : show(c.next_up)}`
        : `no neighbours: ${rounding(c)}`, data: [], group: 'chosen' }),
      ...(c.special === 'none' ? [series(theme.muted, {
        label: `ulp ${pow2(c.ulp)}${c.rel_ulp === null ? '' : ` = ${percent(c.rel_ulp)} of the value`}`, data: [], group: 'chosen' })] : []),
    ];
    return chart(theme, {
      type: 'bar', labels, datasets, indexAxis: 'y',
      scales: {
        x: log('Magnitude (dimensionless, log scale)', { range: [1e-46, 1e40],
          // Every 10 decades; every 20 on a phone, where nine labels such as 1e-40 run together.
          afterBuildTicks: (axis) => { axis.ticks = decadeTicks(axis.chart.width).map((e) => ({ value: 10 ** e })); },
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
