// Time to save a checkpoint against the storage system's bandwidth, synchronous against
// asynchronous: `checkpoint-save` at each bandwidth (bytes = params × 14, write bandwidth =
// min(storage, writers × per-writer), async stall = each writer's share over the device-to-host
// copy bandwidth). The model's size comes from the engine's published models.
import { formatSI, formatFixed, formatDecimal } from '../runtime/format.js';
import { modelOptions, publishedModel } from './shared/published-models.js';
import { chart, log, colours, series, line } from './shared/chart-config.js';

export const BANDWIDTHS = Array.from({ length: 31 }, (_, i) => 1e10 * 10 ** (i / 10));  // 10 GB/s … 10 TB/s
export const Y_RANGE = [1e-4, 1e5];
export const TECTONIC_BPS = 2e12;  // Llama 3 paper, section 3.3.1: Tectonic sustains 2 TB/s
const MODELS = ['llama-3-8b', 'llama-3-70b', 'gpt-3-175b', 'llama-3-405b', 'palm-540b'];
// A table cell as text: three significant digits, no padding, separators from 1,000 up.
const digits = (v) => { const r = Number(v.toPrecision(3)); return r >= 1000 ? formatDecimal(r, 0) : String(r); };
const seconds = (s) => (s >= 100 ? `${formatFixed(s, 0)} s` : s >= 1 ? `${formatFixed(s, 1)} s` : `${formatFixed(s * 1000, 0)} ms`);

export default {
  id: 'checkpoint-save-time',
  title: 'Checkpoint save time against storage bandwidth, synchronous and asynchronous',
  caption:
    'A 405B model\u2019s checkpoint at 14 bytes per parameter is about 5.7 TB. Synchronously, training waits for the whole write, which runs at the smaller of the storage bandwidth and the writers\u2019 combined bandwidth: the solid line falls until 128 writers at 2 GB/s each (256 GB/s) become the limit and it goes flat, so at Llama 3\u2019s 2 TB/s storage (triangle) the save still takes 22 s. Asynchronously, training waits only for each writer to copy its share to host memory (dotted), and the write to storage goes on in the background: the dashed line, which runs inside the wide solid one because the copy adds only seconds to the write. Add writers to push the knee right; switch to a smaller model to see every line fall.',
  params: [
    { key: 'model', label: 'Model', type: 'select', default: 'llama-3-405b', options: modelOptions(MODELS) },
    { key: 'writers', label: 'GPUs writing in parallel', type: 'integer', min: 1, max: 16384, default: 128, scale: 'log' },
    { key: 'per_writer', label: 'Write bandwidth per writer', type: 'number', unit: 'GB/s', min: 0.25, max: 20, default: 2, scale: 'log' },
    { key: 'copy', label: 'Device-to-host copy per writer', type: 'number', unit: 'GB/s', min: 5, max: 60, default: 25, scale: 'log' },
  ],

  data(engine, p) {
    const m = publishedModel(engine, p.model);
    const base = { params: m.params, bytes_per_param: 14, writers: Number(p.writers), per_writer_bandwidth_Bps: 1e9 * Number(p.per_writer),
      copy_bandwidth_Bps: 1e9 * Number(p.copy) };
    const at = (bw, async) => engine.calc('checkpoint-save', { ...base, storage_bandwidth_Bps: bw, async });
    const sync = BANDWIDTHS.map((bw) => ({ bw, ...at(bw, false) }));
    const asyn = BANDWIDTHS.map((bw) => ({ bw, ...at(bw, true) }));
    const tectonic = at(TECTONIC_BPS, false);
    const table = {
      columns: ['Storage bandwidth (GB/s)', 'Write bandwidth (GB/s)', 'Bound', 'Synchronous stall (s)', 'Async stall (s)', 'Async, on storage after (s)'],
      rows: BANDWIDTHS.filter((_, i) => i % 3 === 0).map((bw) => {
        const s = at(bw, false), a = at(bw, true);
        return [digits(bw / 1e9), digits(s.write_bandwidth_Bps / 1e9), s.bottleneck, digits(s.stall_s), digits(a.stall_s), digits(a.save_time_s)];
      }),
    };
    return { name: m.name, bytes: sync[0].checkpoint_bytes, sync, asyn, tectonic, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const xy = (rows, k) => rows.map((r) => ({ x: r.bw, y: r[k] }));
    const datasets = [
      line(pick(), { label: 'Synchronous: training waits for the whole save', data: xy(data.sync, 'stall_s'), borderWidth: 7, order: 1 }),
      line(pick(), { label: 'Asynchronous: on storage after copy + write', data: xy(data.asyn, 'save_time_s'), borderDash: [6, 4] }),
      line(pick(), { label: 'Asynchronous: training waits for the copy to host', data: xy(data.asyn, 'stall_s'), borderDash: [2, 3] }),
      series(pick('compute'), { label: 'Llama 3 storage: 2 TB/s sustained', pointStyle: 'triangle', pointRadius: 9, pointLabels: true,
        data: [{ x: TECTONIC_BPS, y: data.tectonic.stall_s, label: `2 TB/s: ${seconds(data.tectonic.stall_s)} (${data.tectonic.bottleneck}-bound)` }] }),
    ];
    return chart(theme, {
      datasets,
      scales: {
        x: log(`Storage bandwidth (log); ${data.name} checkpoint ${formatSI(data.bytes, 'B')}`, { unit: 'B/s', range: [BANDWIDTHS[0], BANDWIDTHS.at(-1)] }),
        y: log('Time (seconds, log)', { unit: '', range: Y_RANGE }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.raw.x, 'B/s')}, ${seconds(ctx.raw.y)}`,
    });
  },
};
