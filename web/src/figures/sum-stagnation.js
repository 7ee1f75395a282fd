// A running sum kept in a low-precision accumulator stops growing: naive summation in bf16
// or fp16 against fp32 accumulation, Kahan's compensated sum and pairwise summation in the
// same low format, all executed with rounding after every addition by calc('summation').
export default {
  id: 'sum-stagnation',
  title: 'A low-precision sum that stops growing',
  caption:
    'The running sum of the addends as each method computes it, every operation rounded to the accumulator’s format. Adding 1 in bf16, the naive sum sticks at 256 while the exact sum keeps climbing; fp32 accumulation, Kahan summation and pairwise summation stay on the exact line. Switch to fp16 and the stall moves to 2048; choose uniform addends to see the naive sum drift rather than stop.',
  simulation: true,
  params: [
    { key: 'format', label: 'Accumulator format', from: ['summation', 'format'], options: ['bf16', 'fp16', 'fp8-e4m3', 'fp8-e5m2', 'tf32'] },
    { key: 'value', label: 'Addend (or its mean)', from: ['summation', 'value'], scale: 'log', min: 0.001, max: 100 },
    { key: 'count', label: 'Number of addends', from: ['summation', 'count'], scale: 'log' },
    { key: 'distribution', label: 'Addends', from: ['summation', 'distribution'] },
  ],

  data(engine, p) {
    const r = engine.calc('summation', { format: p.format, value: p.value, count: p.count, distribution: p.distribution, seed: 1 });
    const cell = (x) => (x === null ? 'overflow' : x);
    return {
      format: r.format, addend: r.addend, count: r.count, stall_count: r.stall_count, stall_sum: r.stall_sum,
      final: { exact: r.exact, naive: r.naive, fp32: r.fp32, kahan: r.kahan, pairwise: r.pairwise },
      overflow: r.overflow,
      series: r.series,
      table: {
        columns: ['Additions', 'Exact sum', `Naive (${r.format})`, 'fp32 accumulator', `Kahan (${r.format})`, `Pairwise (${r.format})`],
        rows: r.series.map((s) => [s.step, s.exact, cell(s.naive), cell(s.fp32), cell(s.kahan), cell(s.pairwise)]),
      },
    };
  },

  draw(data, theme) {
    const pts = (key) => data.series.filter((s) => s[key] !== null).map((s) => ({ x: s.step, y: s[key] }));
    const f = data.format;
    const stall = data.stall_count !== null ? `, stuck at ${data.stall_sum} after ${data.stall_count} additions` : '';
    const line = (label, key, colour, style, dash = []) => ({
      label, data: pts(key), showLine: true, pointStyle: style, pointRadius: 2, borderWidth: 2, borderDash: dash,
      borderColor: colour, backgroundColor: colour,
    });
    return {
      type: 'scatter',
      data: { datasets: [
        line('Exact sum', 'exact', theme.text, 'line', [6, 4]),
        line(`Naive in ${f}${stall}`, 'naive', theme.memory, 'circle'),
        line('fp32 accumulator', 'fp32', theme.compute, 'triangle'),
        line(`Kahan in ${f}`, 'kahan', theme.palette[2], 'rect', [2, 2]),
        line(`Pairwise in ${f}`, 'pairwise', theme.palette[3], 'rectRot', [8, 3]),
      ] },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: {
          x: { type: 'logarithmic', title: { display: true, text: 'Additions done (count)', color: theme.text },
            ticks: { color: theme.muted, maxRotation: 0 }, grid: { color: theme.grid } },
          y: { type: 'logarithmic', title: { display: true, text: 'Running sum (dimensionless)', color: theme.text },
            ticks: { color: theme.muted }, grid: { color: theme.grid } },
        },
        plugins: {
          legend: { labels: { color: theme.text, usePointStyle: true } },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label.split(',')[0]}: ${ctx.raw.y} after ${ctx.raw.x} additions` } },
        },
      },
    };
  },
};
