// The tiling loop of FlashAttention's Algorithm 1 as a map of the N×N score matrix: each
// tile is one (Q block, K/V block) pair, drawn as a tile of the SVG tile grid over its keys
// (columns) at its queries (rows), done / current / pending / skipped.
// The outer loop walks K/V blocks (columns), the inner loop Q blocks (rows); with a causal
// mask the tiles above the diagonal are skipped. One call to calc('flash-attention'), which
// executes the kernel at these sizes and returns every tile in loop order.
import { EngineError } from '../runtime/engine-api.js';
import { formatSI } from '../runtime/format.js';
import { tileGrid } from './shared/tile-grid.js';

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
    // The map is a tile grid: rows are Q blocks, columns K/V blocks, at their token edges.
    const rowEdges = [...Array.from({ length: data.row_blocks }, (_, i) => i * data.block_rows), data.seq];
    const colEdges = [...Array.from({ length: data.col_blocks }, (_, j) => j * data.block_cols), data.seq];
    const states = {
      done: { fill: theme.palette[0] },
      current: { fill: theme.compute, stroke: theme.text, strokeWidth: 2 },
      pending: { fill: theme.palette[0], opacity: 0.18, stroke: theme.palette[0], strokeWidth: 0.5 },
      skipped: { fill: 'none', stroke: theme.muted, strokeWidth: 0.75, dash: [2, 2] },
    };
    const what = { done: 'done', current: 'being computed now', pending: 'still to compute', skipped: 'skipped (above the diagonal: fully masked)' };
    const tiles = data.tiles.map((t) => ({
      row: t.i, col: t.j, state: t.state,
      tip: `${t.order >= 0 ? `Tile ${t.order + 1} of ${data.computed}` : 'Skipped tile'}: K/V block ${t.j} (keys ${t.col0}–${t.col0 + t.cols - 1}), ` +
        `Q block ${t.i} (queries ${t.row0}–${t.row0 + t.rows - 1})${t.status === 'diagonal' ? ', on the diagonal (partly masked)' : ''}; ${what[t.state]}`,
    }));
    const c = data.current;
    const legend = [
      { label: `Computed (${data.done} of ${data.computed} tiles)`, fill: states.done.fill },
      { label: c ? `Now: K/V block ${c.j}, Q block ${c.i}` : 'Not started', fill: states.current.fill, stroke: theme.text, strokeWidth: 2 },
      { label: 'Still to compute', fill: states.pending.fill, opacity: 0.18, stroke: theme.palette[0] },
      ...(data.causal ? [{ label: `Skipped: ${data.skipped} tiles above the diagonal`, fill: 'none', stroke: theme.muted, dash: [2, 2] }] : []),
      { label: data.causal ? 'Diagonal (causal mask)' : 'Diagonal (no mask: every tile computed)', stroke: theme.text, dash: data.causal ? undefined : [4, 4] },
    ];
    const blocks = `${data.row_blocks} × ${data.col_blocks} tiles of ${data.block_rows} × ${data.block_cols}`;
    return tileGrid(theme, {
      label: `Map of the ${data.seq} × ${data.seq} score matrix in ${blocks}: ${data.done} of ${data.computed} tiles computed` +
        `${data.causal ? `, ${data.skipped} skipped above the diagonal` : ''}`,
      rows: data.row_blocks, cols: data.col_blocks, rowEdges, colEdges, tiles, states, legend,
      xTitle: `Key index (tokens; ${formatSI(data.flash_bytes, 'B')} moved)`,
      yTitle: 'Query index (tokens)',
      lines: [{ from: [0, 0], to: [data.seq, data.seq], stroke: theme.text, strokeWidth: 1.5, ...(data.causal ? {} : { dash: [4, 4] }) }],
    });
  },
};
