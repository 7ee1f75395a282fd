// The bandwidth ladder: every link of the engine's table (calc 'interconnect') as one bar per
// device, on a log axis, coloured by kind (scale-up, PCIe, scale-out): per direction, what one
// transfer to one peer gets (a TPU torus neighbour: one of six links), or as vendors print it.
import { formatSI } from '../runtime/format.js';
import { chart, log, category, colours, series } from './shared/chart-config.js';

export const KINDS = [
  { kind: 'scale-up', label: 'Scale-up (NVLink, TPU ICI)' },
  { kind: 'pcie', label: 'PCIe x16 slot' },
  { kind: 'scale-out', label: 'Scale-out: one NIC port per GPU' },
];

// Short tick names (the full names are in the tooltip and Show data).
const SHORT = { nvlink3: 'NVLink 3 (A100)', nvlink4: 'NVLink 4 (H100)', nvlink5: 'NVLink 5 (B200)', 'pcie4-x16': 'PCIe 4.0 x16',
  'pcie5-x16': 'PCIe 5.0 x16', 'ib-hdr': 'IB HDR', 'ib-ndr': 'IB NDR', 'ib-xdr': 'IB XDR', 'roce-400g': 'RoCE 400G', 'tpu-v5p-ici': 'TPU v5p ICI' };

// The value one bar shows in each view: per device and per direction; what one transfer to one
// peer gets (a torus neighbour is one link away); the vendor's figure in its own convention
// (scale-up summed over both directions, PCIe slots and network ports per direction).
export const VIEWS = {
  one: { label: 'Per device, one direction', axis: 'Bandwidth per device, one direction (B/s)', value: (l) => l.bandwidth_Bps, note: 'per direction, all links of the device' },
  peer: { label: 'One transfer to one peer, one direction', axis: 'One transfer to one peer, one direction (B/s)', value: (l) => l.peer_bandwidth_Bps, note: 'to one peer, one direction' },
  both: { label: 'As the vendor prints it', axis: 'As the vendor prints it (B/s)',
    value: (l) => (l.quoted_as === 'bidirectional' ? l.bidirectional_Bps : l.bandwidth_Bps), note: 'as printed' },
};

export default {
  id: 'interconnect-ladder',
  title: 'The bandwidth ladder: what one device can send over each kind of link',
  caption:
    'One bar per link, on a log axis. Per device and per direction (the default), NVLink 4 on an H100 gives 450 GB/s, nine times one 400 Gb/s InfiniBand NDR port (50 GB/s) and about seven times a PCIe 5.0 x16 slot (63 GB/s); the TPU v5p\u2019s 600 GB/s is the sum of six torus links. Switch to one transfer to one peer: through NVSwitch one peer still gets all 450 GB/s, while a TPU chip reaches a neighbour over one link, 100 GB/s. "As the vendor prints it" doubles only the scale-up bars (NVLink 4: 900 GB/s): network ports are quoted per direction, and PCIe by its lane rate in GT/s, so its bars stay per direction.',
  params: [
    { key: 'direction', label: 'Bandwidth shown', type: 'select', default: 'one',
      options: Object.entries(VIEWS).map(([value, v]) => ({ value, label: v.label })) },
  ],

  data(engine, p) {
    const links = engine.calc('interconnect', {}).links;
    const view = VIEWS[p.direction];
    const rows = links.map((l) => ({ id: l.id, name: l.name, kind: l.kind, value: view.value(l),
      per_direction: l.bandwidth_Bps, peer: l.peer_bandwidth_Bps, quoted_as: l.quoted_as, topology: l.topology }));
    // The axis spans every view, so that switching moves the bars, not the axis.
    const all = links.flatMap((l) => Object.values(VIEWS).map((v) => v.value(l)));
    const lo = Math.min(...all), hi = Math.max(...all);
    const table = {
      columns: ['Link', 'Kind', 'Per direction (B/s)', 'Both directions (B/s)', 'Links', 'Topology', 'One peer, one direction (B/s)', 'Vendor figure quoted as', 'Source'],
      rows: links.map((l) => [l.name, l.kind, l.bandwidth_Bps, l.bidirectional_Bps, l.link_count, l.topology, l.peer_bandwidth_Bps, l.quoted_as, l.source]),
    };
    return { direction: p.direction, rows, range: [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(hi * 1.5))], table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const view = VIEWS[data.direction];
    const narrow = theme.width !== undefined && theme.width < 560;
    const datasets = KINDS.map(({ kind, label }) => series(pick(), {
      label, grouped: false,
      data: data.rows.map((r) => (r.kind === kind ? r.value : null)),
    }));
    return chart(theme, {
      type: 'bar', indexAxis: 'y',
      // Name and value on one line on a wide chart (ten two-line names overflow its height), on
      // two lines on a phone's narrow and taller one.
      labels: data.rows.map((r) => (narrow ? [SHORT[r.id] ?? r.name, formatSI(r.value, 'B/s')]
        : `${SHORT[r.id] ?? r.name} \u00b7 ${formatSI(r.value, 'B/s')}`)),
      datasets,
      scales: {
        // Every bar named: Chart.js would otherwise skip every other label on a short chart.
        y: category({ title: 'Link', ticks: { autoSkip: false } }),
        x: log(view.axis, { unit: 'B/s', range: data.range }),
      },
      legend: { usePointStyle: false },
      tooltip: (ctx) => `${data.rows[ctx.dataIndex].name}: ${formatSI(ctx.raw, 'B/s')} ${view.note}`,
    });
  },
};
