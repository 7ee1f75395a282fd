// PagedAttention's block allocator against contiguous max-length reservation on one
// simulated backlog: the share of held KV memory wasted against block size, and where the
// pool goes under each allocator. One call to calc('kv-paging-sim').
import { formatFixed } from '../runtime/format.js';
import { chart, linear, log, category, colours, series, line } from './shared/chart-config.js';

const PARTS = [
  ['used_fraction', 'Holding KV'], ['reserved_fraction', 'Reserved for later tokens'],
  ['internal_fraction', 'Internal fragmentation'], ['external_fraction', 'External fragmentation'], ['free_fraction', 'Free'],
];

export default {
  id: 'paged-kv-waste',
  title: 'Paged KV blocks against contiguous reservation',
  caption:
    'A backlog of 200 requests served from one KV pool, simulated step by step; a preempted sequence resumes where it stopped, with no recompute or swap step charged. "Waste against block size" shows the share of held slots not holding KV for paged blocks of each size against the contiguous allocator, with sequences running at once on the right axis. Switch to "Where the pool goes" to compare the pool breakdown at one block size, then raise the max output length.',
  simulation: true,
  params: [
    { key: 'view', label: 'View', type: 'select', default: 'waste', options: [{ value: 'waste', label: 'Waste against block size' }, { value: 'breakdown', label: 'Where the pool goes' }] },
    { key: 'max_output', label: 'Max output length (reserved)', type: 'select', default: 512, options: [256, 512, 1024, 2048].map((v) => ({ value: v, label: `${v} tokens` })) },
    { key: 'output_mean', label: 'Mean output length', type: 'integer', min: 8, max: 128, default: 128, scale: 'log' },
    { key: 'prompt_mean', label: 'Mean prompt length', type: 'integer', min: 16, max: 2048, default: 256, scale: 'log' },
    { key: 'pool_tokens', label: 'KV pool (token slots)', type: 'select', default: 16384, options: [8192, 16384, 32768, 65536].map((v) => ({ value: v, label: formatFixed(v, 0) })) },
    { key: 'block_size', label: 'Block size (breakdown)', from: ['kv-paging-sim', 'block_size'], type: 'select', when: { view: ['breakdown'] }, options: [1, 2, 4, 8, 16, 32, 64, 128, 256].map((v) => ({ value: v, label: `${v} tokens` })) },
  ],

  data(engine, p) {
    const r = engine.calc('kv-paging-sim', { requests: 200, max_output: Number(p.max_output), output_mean: p.output_mean, prompt_mean: p.prompt_mean, pool_tokens: Number(p.pool_tokens), block_size: Number(p.block_size), seed: 1 });
    const table = p.view === 'waste'
      ? {
          columns: ['Block size (tokens)', 'Paged waste (fraction)', 'Contiguous waste (fraction)', 'Paged sequences at once', 'Contiguous sequences at once', 'Paged preemptions'],
          rows: r.series.map((s) => [s.block_size, s.waste_fraction, r.contiguous.waste_fraction, s.mean_batch, r.contiguous.mean_batch, s.preemptions]),
        }
      : {
          columns: ['Allocator', ...PARTS.map(([, name]) => `${name} (fraction)`), 'Sequences at once', 'Steps'],
          rows: [['Contiguous', r.contiguous], [`Paged, ${p.block_size}-token blocks`, r.paged]].map(([name, x]) => [name, ...PARTS.map(([k]) => x[k]), x.mean_batch, x.steps]),
        };
    return { view: p.view, block_size: Number(p.block_size), contiguous: r.contiguous, paged: r.paged, series: r.series, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    if (data.view === 'breakdown') {
      const fills = [pick(), pick(), pick(), pick(), pick('grid')]; // free space in the grid's colour
      // A swatch for every part, each its own shape too (free space's too, so its fill shows).
      const styles = ['rect', 'triangle', 'circle', 'rectRot', 'rectRounded'];
      return chart(theme, {
        type: 'bar', indexAxis: 'y',
        labels: ['Contiguous reservation', `Paged (${data.block_size}-token blocks)`],
        datasets: PARTS.map(([k, name], i) => series(fills[i], {
          label: name, data: [data.contiguous[k] * 100, data.paged[k] * 100], borderColor: theme.text, borderWidth: 1, pointStyle: styles[i], stack: 'pool',
        })),
        scales: {
          x: linear('Share of the KV pool, averaged over steps (%)', { stacked: true, range: [0, 100] }),
          y: category({ stacked: true }),
        },
        tooltip: (ctx) => `${ctx.dataset.label}: ${ctx.parsed.x.toFixed(1)}%`,
      });
    }
    const xs = data.series.map((s) => s.block_size);
    const flat = (y) => [{ x: xs[0], y }, { x: xs[xs.length - 1], y }];
    const datasets = [
      series(pick(), { label: 'Paged: waste', data: data.series.map((s) => ({ x: s.block_size, y: s.waste_fraction * 100 })), yAxisID: 'y', showLine: true,
        pointStyle: 'circle', pointRadius: 3, borderWidth: 2 }),
      line(pick(), { label: `Contiguous: waste ${(data.contiguous.waste_fraction * 100).toFixed(0)}%`, data: flat(data.contiguous.waste_fraction * 100), yAxisID: 'y',
        borderDash: [8, 4] }),
      series(pick(), { label: 'Paged: sequences at once (right axis)', data: data.series.map((s) => ({ x: s.block_size, y: s.mean_batch })), yAxisID: 'y1', showLine: true,
        pointStyle: 'triangle', pointRadius: 3, borderWidth: 2, borderDash: [4, 3] }),
      line(pick('muted'), { label: `Contiguous: ${data.contiguous.mean_batch.toFixed(1)} sequences at once (right axis)`, data: flat(data.contiguous.mean_batch), yAxisID: 'y1',
        borderWidth: 1, borderDash: [2, 3] }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        // Ticks at the powers of two only (a log axis puts them at 1–9 × 10^k, and a phone
        // skipped vLLM's 16).
        x: log('Block size (tokens)', { range: [1, 256],
          afterBuildTicks: (axis) => { axis.ticks = [1, 2, 4, 8, 16, 32, 64, 128, 256].map((value) => ({ value })); },
          ticks: { autoSkip: false, maxRotation: 0, callback: (v) => String(v) } }),
        // A share, on its whole 0–100% range: raising the max output moves the lines, not the axis.
        y: linear('Held slots not holding KV (%)', { range: [0, 100], position: 'left' }),
        y1: linear('Sequences running at once (count)', { min: 0, position: 'right', grid: { drawOnChartArea: false } }),
      },
      tooltip: (ctx) => `${ctx.dataset.label.replace(' (right axis)', '')} at ${ctx.parsed.x}-token blocks: ${ctx.parsed.y.toFixed(1)}`,
    });
  },
};
