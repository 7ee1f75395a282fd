// The bandwidth ladder: every link of the engine's table (calc 'interconnect') as one bar per
// GPU, on a log axis, coloured by kind (scale-up, PCIe, scale-out), per direction or with both
// directions summed as vendors print them.
import { formatSI } from '../runtime/format.js';
import { chart, log, category, colours, series } from './shared/chart-config.js';

export const KINDS = [
  { kind: 'scale-up', label: 'Scale-up (NVLink, TPU ICI): inside a node or pod' },
  { kind: 'pcie', label: 'PCIe x16 slot: GPU to host, NIC or another GPU' },
  { kind: 'scale-out', label: 'Scale-out (InfiniBand, Ethernet): one NIC port per GPU' },
];

// Short tick names (the full names are in the tooltip and Show data).
const SHORT = { nvlink3: 'NVLink 3 (A100)', nvlink4: 'NVLink 4 (H100)', nvlink5: 'NVLink 5 (B200)', 'pcie4-x16': 'PCIe 4.0 x16',
  'pcie5-x16': 'PCIe 5.0 x16', 'ib-hdr': 'IB HDR', 'ib-ndr': 'IB NDR', 'ib-xdr': 'IB XDR', 'roce-400g': 'RoCE 400G', 'tpu-v5p-ici': 'TPU v5p ICI' };

export default {
  id: 'interconnect-ladder',
  title: 'The bandwidth ladder: what one GPU can send over each kind of link',
  caption:
    'Each bar is one GPU\u2019s bandwidth over one kind of link, on a log axis, one direction at a time (the defaults). NVLink 4 on an H100 gives 450 GB/s each way, nine times one 400 Gb/s InfiniBand NDR port (50 GB/s) and about seven times a PCIe 5.0 x16 slot (63 GB/s). Switch to "both directions summed" to see the figures vendors print (900 GB/s for NVLink 4): every bar doubles and the ratios stay the same. The rungs are a factor of ten apart, which is why a collective is planned around the slowest link it crosses.',
  params: [
    { key: 'direction', label: 'Bandwidth shown', type: 'select', default: 'one',
      options: [{ value: 'one', label: 'Per direction (what one transfer gets)' }, { value: 'both', label: 'Both directions summed (as printed)' }] },
  ],

  data(engine, p) {
    const links = engine.calc('interconnect', {}).links;
    const both = p.direction === 'both';
    const rows = links.map((l) => ({ id: l.id, name: l.name, kind: l.kind, value: both ? l.bidirectional_Bps : l.bandwidth_Bps,
      per_direction: l.bandwidth_Bps, quoted_as: l.quoted_as }));
    // The axis spans both settings, so that switching moves the bars, not the axis.
    const lo = Math.min(...links.map((l) => l.bandwidth_Bps)), hi = Math.max(...links.map((l) => l.bidirectional_Bps));
    const table = {
      columns: ['Link', 'Kind', 'Per direction (B/s)', 'Both directions (B/s)', 'Vendor figure quoted as', 'Source'],
      rows: links.map((l) => [l.name, l.kind, l.bandwidth_Bps, l.bidirectional_Bps, l.quoted_as, l.source]),
    };
    return { direction: p.direction, rows, range: [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi * 1.5))], table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const both = data.direction === 'both';
    const datasets = KINDS.map(({ kind, label }) => series(pick(), {
      label, grouped: false,
      data: data.rows.map((r) => (r.kind === kind ? r.value : null)),
    }));
    return chart(theme, {
      type: 'bar', indexAxis: 'y',
      labels: data.rows.map((r) => [SHORT[r.id] ?? r.name, formatSI(r.value, 'B/s')]),
      datasets,
      scales: {
        y: category({ title: 'Link' }),
        x: log(both ? 'Bandwidth per GPU, both directions summed (B/s)' : 'Bandwidth per GPU, one direction (B/s)', { unit: 'B/s', range: data.range }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => `${data.rows[ctx.dataIndex].name}: ${formatSI(ctx.raw, 'B/s')} ${both ? 'both directions' : 'per direction'}`,
    });
  },
};
