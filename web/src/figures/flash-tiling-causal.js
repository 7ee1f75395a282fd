// The tiling loop of FlashAttention's Algorithm 1 as a map of the N×N score matrix: each
// tile is one (Q block, K/V block) pair, drawn as a floating bar over its keys at its queries.
// The outer loop walks K/V blocks (columns), the inner loop Q blocks (rows); with a causal
// mask the tiles above the diagonal are skipped. One call to calc('flash-attention'), which
// executes the kernel at these sizes and returns every tile in loop order.
import { EngineError } from '../runtime/engine-api.js';
import { formatSI } from '../runtime/format.js';

// Block indices as text: "3–15" for a run, "none" for an empty list.
function span(ids) {
  if (ids.length === 0) return 'none';
  const run = ids.every((x, k) => k === 0 || x === ids[k - 1] + 1);
  if (!run) return ids.join(', ');
  return ids.length === 1 ? String(ids[0]) : `${ids[0]}–${ids[ids.length - 1]}`;
}

export default {
  id: 'flash-tiling-causal',
  simulation: true, // executes kernels: redraw budget 50 ms
  title: 'The tiling loop and causal block skipping',
  caption:
    'The N×N score matrix cut into tiles: FlashAttention loads one K/V block (a column of tiles) and then visits every Q block (down the column), keeping the tile on chip. Drag the loop progress to watch the order; turn the causal mask on and off and count the skipped tiles above the diagonal; raise the SRAM and the tiles grow, so Q and O are streamed fewer times.',
  params: [
    { key: 'progress', label: 'Loop progress', type: 'integer', unit: '%', min: 0, max: 100, default: 40 },
    { key: 'causal', label: 'Causal mask', from: ['flash-attention', 'causal'], default: true },
    { key: 'seq', label: 'Sequence length N', type: 'integer', min: 16, max: 1024, default: 256, scale: 'log' },
    { key: 'sram_bytes', label: 'On-chip SRAM M', type: 'integer', unit: 'B', min: 1024, max: 262144, default: 4096, scale: 'log' },
    { key: 'head_dim', label: 'Head dimension d', type: 'select', default: 32,
      options: [8, 16, 32, 64].map((v) => ({ value: v, label: String(v) })) },
  ],

  data(engine, p) {
    const r = engine.calc('flash-attention', {
      tiles: true, seq: p.seq, head_dim: p.head_dim, sram_bytes: p.sram_bytes, dtype: 'bf16', causal: p.causal,
    });
    if (!r.tiles) {
      throw new EngineError('sram_bytes', `These settings make ${r.row_blocks * r.col_blocks} tiles, more than the 4,096 this map draws; raise the SRAM or shorten the sequence.`);
    }
    const computed = r.tiles_computed;
    const done = Math.round((p.progress / 100) * computed);
    const tiles = r.tiles.map((t) => ({
      ...t,
      state: t.status === 'skipped' ? 'skipped' : t.order < done - 1 ? 'done' : t.order === done - 1 ? 'current' : 'pending',
    }));
    const current = tiles.find((t) => t.state === 'current') ?? null;
    // The tiles of each K/V block (a column of the map, one pass of the outer loop), computed
    // (in loop order) or skipped, for the chart's datasets and the table's rows.
    const columns = Array.from({ length: r.col_blocks }, () => ({ computed: [], skipped: [] }));
    for (const t of tiles) columns[t.j][t.state === 'skipped' ? 'skipped' : 'computed'].push(t);
    const qs = (list) => span(list.map((t) => t.i));
    const table = {
      columns: ['K/V block j', 'Keys', 'Q blocks computed', 'Of them on the diagonal (partly masked)',
        'Q blocks skipped', 'Loop order of its tiles', 'Tiles done at this progress', 'Current tile'],
      rows: columns.map(({ computed: visited, skipped }, j) => {
        const first = visited[0] ?? skipped[0];
        const here = visited.find((t) => t.state === 'current');
        return [j, `${first.col0}–${first.col0 + first.cols - 1}`, qs(visited),
          qs(visited.filter((t) => t.status === 'diagonal')), qs(skipped),
          span(visited.map((t) => t.order + 1)), visited.filter((t) => t.state === 'done' || t.state === 'current').length,
          here ? `Q block ${here.i}` : ''];
      }),
    };
    return {
      seq: p.seq, causal: p.causal, tiles, columns, current, done, computed, skipped: r.tiles_skipped,
      block_rows: r.block_rows, block_cols: r.block_cols, row_blocks: r.row_blocks, col_blocks: r.col_blocks,
      flash_bytes: r.flash_hbm_bytes, executed: r.executed, error: r.max_abs_error ?? null, table,
    };
  },

  draw(data, theme) {
    // One bar dataset per K/V block (column of tiles), one bar per computed tile in it; the fill
    // says done (solid), current (thick border) or pending (outline); skipped tiles are empty.
    const fill = { done: theme.palette[0], current: theme.compute, pending: theme.grid };
    const border = { done: theme.palette[0], current: theme.text, pending: theme.palette[0] };
    const width = { done: 1, current: 3, pending: 1 };
    const datasets = [];
    data.columns.forEach(({ computed: column }, j) => {
      datasets.push({
        type: 'bar', label: `K/V block ${j}`, legend: false, grouped: false,
        data: column.map((t) => ({ x: [t.col0, t.col0 + t.cols], y: t.row0 + t.rows / 2, t })),
        backgroundColor: column.map((t) => fill[t.state]), borderColor: column.map((t) => border[t.state]),
        borderWidth: column.map((t) => width[t.state]), borderSkipped: false,
        barPercentage: 0.92, categoryPercentage: 1,
      });
    });
    const key = (label, color, edge, w) => ({
      type: 'bar', label, legend: true, data: [], backgroundColor: color, borderColor: edge, borderWidth: w,
    });
    const c = data.current;
    datasets.push(
      key(`Computed (${data.done} of ${data.computed} tiles)`, fill.done, border.done, 1),
      key(c ? `Now: K/V block ${c.j}, Q block ${c.i}` : 'Not started', fill.current, border.current, 3),
      key('Still to compute', fill.pending, border.pending, 1),
      { type: 'scatter', label: data.causal ? `Diagonal: ${data.skipped} tiles above it skipped (left empty)` : 'Diagonal (no mask: every tile computed)',
        legend: true, data: [{ x: 0, y: 0 }, { x: data.seq, y: data.seq }], showLine: true, pointRadius: 0,
        borderColor: theme.text, backgroundColor: theme.text, borderDash: data.causal ? [] : [4, 4], borderWidth: 1.5 },
    );
    const axis = (title, extra = {}) => ({
      type: 'linear', min: 0, max: data.seq, title: { display: true, text: title, color: theme.text },
      ticks: { color: theme.muted, maxRotation: 0 }, grid: { color: theme.grid }, ...extra,
    });
    const blocks = `${data.row_blocks} × ${data.col_blocks} tiles of ${data.block_rows} × ${data.block_cols}`;
    return {
      type: 'bar',
      data: { datasets },
      options: {
        indexAxis: 'y', responsive: true, maintainAspectRatio: false, animation: false,
        scales: {
          x: axis(`Key index (${blocks}; ${formatSI(data.flash_bytes, 'B')} moved)`, { position: 'top' }),
          y: axis('Query index (token)', { reverse: true }),
        },
        plugins: {
          legend: { labels: { color: theme.text, filter: (item, chart) => chart.datasets[item.datasetIndex].legend !== false } },
          tooltip: {
            filter: (ctx) => Boolean(ctx.raw && ctx.raw.t),
            callbacks: {
              label: (ctx) => {
                const t = ctx.raw.t;
                return `tile ${t.order + 1}: K/V block ${t.j} (keys ${t.col0}–${t.col0 + t.cols - 1}), ` +
                  `Q block ${t.i} (queries ${t.row0}–${t.row0 + t.rows - 1}), ${t.status}, ${t.state}`;
              },
            },
          },
        },
      },
    };
  },
};
