// MIG partitions drawn as slices: the GPU's 7 compute slices above its 8 memory slices, each
// instance of a chosen layout covering the slices it takes at the placement the engine found
// (calc 'mig': NVIDIA's profile tables and the placement rules). A layout that does not fit is
// drawn packed from slice 0 with what runs past the GPU's slices outlined, beside the reason.
import { sizeOf, fontFor, text, textWidth, legendNodes, scene } from './shared/svg-scene.js';

// Layouts by instance size: 1g (one memory slice), 1g2 (1g with two memory slices), 1gme (1g
// with media extensions), 2g, 3g, 4g, 7g: named for each GPU from its table.
export const LAYOUTS = [
  { value: '4g,3g', label: '4g + 3g (fits)' },
  { value: '3g,3g', label: '3g + 3g (fits)' },
  { value: '4g,2g,1g', label: '4g + 2g + 1g (fits)' },
  { value: '3g,2g,1g,1g', label: '3g + 2g + 1g + 1g (fits)' },
  { value: '2g,2g,2g,1g', label: '2g + 2g + 2g + 1g (fits)' },
  { value: '1g2,1g2,1g2,1g2', label: '4 × 1g with double memory (fits)' },
  { value: '1gme,1g,1g,1g,1g,1g,1g', label: '7 × 1g, one with media extensions (fits)' },
  { value: '7g', label: '7g: the whole GPU (fits)' },
  { value: '3g,3g,1g', label: '3g + 3g + 1g (7 compute slices, does not fit)' },
  { value: '4g,3g,1g', label: '4g + 3g + 1g (8 compute slices)' },
  { value: '4g,4g', label: '4g + 4g (one 4g at most)' },
];

// Bytes in GiB, as the profile names count them (10gb is 10 GiB).
const gib = (b) => `${+(b / 2 ** 30).toFixed(2)} GiB`;

// The profile names of a layout on one GPU's table.
export function layoutNames(profiles, value) {
  const pick = (key) => {
    const compute = Number(key[0]);
    const me = key.endsWith('me');
    const double = key === '1g2';
    const fit = profiles.filter((p) => p.compute_slices === compute && p.media_extensions === me);
    return (double ? fit.find((p) => p.memory_slices === 2) : fit.reduce((a, b) => (b.memory_slices < a.memory_slices ? b : a))).name;
  };
  return value.split(',').map(pick);
}

// Text wrapped to `width` px at `size`.
function wrap(s, width, size) {
  const lines = [];
  let line = '';
  for (const word of s.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size) > width) { lines.push(line); line = word; } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

export default {
  id: 'mig-partitions',
  title: 'MIG: compute slices, memory slices and where instances may start',
  caption:
    'A MIG-capable A100, H100 or H200 has 7 compute slices (top row) and 8 memory slices (bottom row); each instance takes a run of both, starting only where its profile allows (4g at slice 0, 3g at 0 or 4, 2g at 0, 2 or 4). At the defaults, 4g.40gb + 3g.40gb fill the H100 exactly, 64 + 60 = 124 of its 132 SMs. Try 3g + 3g + 1g: the compute slices add up to 7, but the two 3g instances take all 8 memory slices, so the 1g has nowhere to go (outlined past the edge). Try 7 × 1g and count the SMs: seven instances hold 112 of 132 on an H100, 98 of 108 on an A100. Switch the GPU to see the same layout with the H200\u2019s larger memory slices.',
  params: [
    { key: 'hardware', label: 'GPU', from: ['mig', 'hardware'] },
    { key: 'layout', label: 'Layout', type: 'select', default: '4g,3g', options: LAYOUTS },
  ],

  data(engine, p) {
    const table = engine.calc('mig', { hardware: p.hardware });
    const names = layoutNames(table.profiles, p.layout);
    const r = engine.calc('mig', { hardware: p.hardware, layout: names });
    const byName = Object.fromEntries(table.profiles.map((q) => [q.name, q]));
    // Valid: the placement found. Invalid: the instances packed from slice 0, largest first.
    let instances = r.instances;
    if (!r.valid) {
      // Compute slices from the instance's first memory slice, as in a real placement.
      let m = 0;
      instances = names.map((name) => byName[name]).sort((a, b) => b.memory_slices - a.memory_slices).map((q) => {
        const inst = { name: q.name, start: m, sms: q.sms, memory_bytes: q.memory_bytes, compute_slices: q.compute_slices,
          memory_slices: q.memory_slices,
          compute_slice_ids: Array.from({ length: q.compute_slices }, (_, k) => m + k),
          memory_slice_ids: Array.from({ length: q.memory_slices }, (_, k) => m + k) };
        m += q.memory_slices;
        return inst;
      });
    }
    const table_ = {
      columns: ['Instance', 'Compute slices', 'Memory slices', 'SMs', 'Memory (bytes)', 'Start (memory slice)'],
      rows: instances.map((q) => [q.name, q.compute_slice_ids.join(' '), q.memory_slice_ids.join(' '), q.sms, q.memory_bytes, r.valid ? q.start : '']),
    };
    return { gpu: table.name, sms: table.sms, hbm_bytes: table.hbm_bytes, names, valid: r.valid, reason: r.reason,
      compute_used: r.compute_slices_used, memory_used: r.memory_slices_used, sms_used: r.sms_used,
      memory_bytes_used: r.memory_bytes_used, instances, table: table_ };
  },

  draw(data, theme) {
    const { width, height } = sizeOf(theme);
    const size = fontFor(width);
    const pad = 6;
    const nodes = [];
    const colourOf = new Map();
    const legend = [];
    data.instances.forEach((q, k) => {
      const fill = theme.palette[k % theme.palette.length];
      colourOf.set(k, fill);
      legend.push({ label: `${q.name}: ${q.sms} SMs, ${gib(q.memory_bytes)}`, fill });
    });
    const top = legendNodes(legend, pad, pad, width - 2 * pad, size, theme.text);
    nodes.push(...top.nodes);
    let y = pad + top.height + size * 0.6;
    const verdict = data.valid ? `Fits the ${data.gpu}` : `Does not fit the ${data.gpu}`;
    const header = data.valid ? `${verdict}: ${data.reason.replace(/^Fits: /, '')}` : `${verdict}. ${data.reason} Drawn packed from slice 0; dashed: past the GPU's last slice.`;
    for (const l of wrap(header, width - 2 * pad, size)) { nodes.push(text(pad, y + size, l, size, theme.text, data.valid ? {} : { weight: 'bold' })); y += size * 1.4; }
    y += size * 0.4;
    // The slice rows: 10 columns leave room for what overflows an invalid layout.
    const labelW = textWidth('memory slices', size) + 10;
    const cols = 10;
    const cellW = Math.max(16, (width - labelW - 2 * pad) / cols);
    const footer = size * 4.6;
    const rowH = Math.max(28, Math.min(70, (height - y - footer - size * 1.6) / 2));
    const x0 = pad + labelW;
    const rows = [{ label: 'compute slices', n: 7, key: 'compute_slice_ids', y }, { label: 'memory slices', n: 8, key: 'memory_slice_ids', y: y + rowH + size * 1.6 }];
    for (const row of rows) {
      nodes.push(text(pad, row.y + rowH / 2 + size * 0.35, row.label, size, theme.text));
      for (let s = 0; s < row.n; s++) {
        nodes.push({ kind: 'rect', x: x0 + s * cellW + 1, y: row.y, w: cellW - 2, h: rowH, fill: 'none', stroke: theme.grid, strokeWidth: 1,
          tip: `${row.label.replace('slices', 'slice')} ${s}: free` });
      }
      // The GPU's edge.
      nodes.push({ kind: 'line', x1: x0 + row.n * cellW, y1: row.y - 4, x2: x0 + row.n * cellW, y2: row.y + rowH + 4, stroke: theme.text, strokeWidth: 2 });
      data.instances.forEach((q, k) => {
        for (const s of q[row.key]) {
          const over = s >= row.n;
          nodes.push({ kind: 'rect', x: x0 + s * cellW + 1, y: row.y, w: cellW - 2, h: rowH, fill: over ? 'none' : colourOf.get(k),
            opacity: over ? undefined : 0.7, stroke: over ? colourOf.get(k) : theme.background, strokeWidth: over ? 2 : 1, dash: over ? [4, 3] : undefined,
            tip: `${q.name}, ${row.label.replace('slices', 'slice')} ${s}${over ? ': past the GPU\u2019s last slice' : ''}` });
        }
        const ids = q[row.key];
        const mid = x0 + ((ids[0] + ids[ids.length - 1] + 1) / 2) * cellW;
        const label = row.key === 'compute_slice_ids' ? q.name.split('.')[0] : q.name.split('.')[1];
        if (textWidth(label, size) < ids.length * cellW - 4) nodes.push(text(mid, row.y + rowH / 2 + size * 0.35, label, size, theme.text, { anchor: 'middle' }));
      });
      for (let s = 0; s < row.n; s++) nodes.push(text(x0 + (s + 0.5) * cellW, row.y + rowH + size * 1.1, String(s), size, theme.muted, { anchor: 'middle' }));
    }
    let yf = rows[1].y + rowH + size * 2.6;
    const footer_ = data.valid
      ? `The instances hold ${data.sms_used} of the GPU\u2019s ${data.sms} SMs and ${gib(data.memory_bytes_used)} of ${gib(data.hbm_bytes)}, ${data.compute_used} of 7 compute and ${data.memory_used} of 8 memory slices.`
      : `The instances would need ${data.compute_used} of 7 compute and ${data.memory_used} of 8 memory slices.`;
    for (const l of wrap(footer_, width - 2 * pad, size)) { nodes.push(text(pad, yf, l, size, theme.text)); yf += size * 1.4; }
    const clean = nodes.map((n) => Object.fromEntries(Object.entries(n).filter(([, v]) => v !== undefined)));
    return scene({ width, height, label: `MIG layout ${data.names.join(' + ')} on the ${data.gpu}: ${verdict}`, nodes: clean, legend });
  },
};
