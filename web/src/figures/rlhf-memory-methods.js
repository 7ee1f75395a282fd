// The model memory of a preference trainer per GPU: PPO holds a trained policy and value model
// and a frozen reference and reward model; GRPO drops the value model; DPO drops the reward
// model too (the reward and value models have their own sizes: PPO always keeps a
// critic, a rule-based reward has no network). Trained models cost weights + gradients in bf16 + Adam's 12 bytes per parameter,
// frozen ones their bf16 weights. Three `rlhf-memory` calls.
import { formatSI, formatFixed } from '../runtime/format.js';
import { chart, category, linear, colours, series } from './shared/chart-config.js';

export const METHODS = [['ppo', 'PPO'], ['grpo', 'GRPO'], ['dpo', 'DPO']];
const ROLES = [
  ['policy', 'Policy (trained, 16 B/param)'],
  ['value', 'Value model (trained, 16 B/param)'],
  ['reference', 'Reference (frozen, 2 B/param)'],
  ['reward', 'Reward model (frozen, 2 B/param)'],
];

export default {
  id: 'rlhf-memory-methods',
  title: 'What PPO, GRPO and DPO hold in memory',
  caption:
    'Model memory per GPU (weights, gradients and Adam states; activations and the generation KV cache left out). At the defaults, a 7B policy with 7B reward and value models over 8 GPUs, PPO needs 31.5 GB per GPU, twice DPO\u2019s 15.75 GB: the value model is a second trained network, and GRPO drops it (17.5 GB). Set the reward model to 0 (a rule-based reward) and GRPO holds what DPO holds; PPO keeps its critic, so its slider starts at 0.5B. At 70B on 8 GPUs nothing fits under the dashed 80 GB line, not even DPO (157.5 GB); on 16 GPUs DPO just fits (78.75 GB) and PPO does not.',
  params: [
    { key: 'policy_b', label: 'Policy parameters (billions)', type: 'number', min: 0.5, max: 70, default: 7, scale: 'log' },
    { key: 'reward_b', label: 'Reward model (billions; 0: rule-based)', type: 'number', min: 0, max: 70, default: 7 },
    { key: 'value_b', label: 'Value model, PPO only (billions)', type: 'number', min: 0.5, max: 70, default: 7 },
    { key: 'gpus', label: 'GPUs sharing the models', type: 'integer', min: 1, max: 64, default: 8 },
  ],

  data(engine, p) {
    const runs = METHODS.map(([method]) => engine.calc('rlhf-memory', {
      method, policy_params: Number(p.policy_b) * 1e9, reward_params: Number(p.reward_b) * 1e9,
      value_params: Number(p.value_b) * 1e9, gpus: Number(p.gpus),
    }));
    const gpus = Number(p.gpus);
    const gb = (r, role) => {
      const m = r.models.find((x) => x.role === role);
      return m ? m.bytes / gpus / 1e9 : 0;
    };
    const bars = runs.map((r) => Object.fromEntries(ROLES.map(([role]) => [role, gb(r, role)])));
    const table = {
      columns: ['Method', ...ROLES.map(([, l]) => `${l} (GB per GPU)`), 'Total (GB per GPU)'],
      rows: runs.map((r, i) => [METHODS[i][1], ...ROLES.map(([role]) => bars[i][role]), r.per_gpu_bytes / 1e9]),
    };
    return { runs, bars, gpus, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const labels = METHODS.map(([, l]) => l);
    const datasets = ROLES.map(([role, label]) => series(pick(), {
      type: 'bar', label, data: data.bars.map((b) => b[role]), stack: 'memory', borderColor: theme.text, borderWidth: 1,
      order: 2,
    }));
    datasets.push(series(pick('muted'), {
      type: 'line', label: '80 GB: one H100\u2019s memory', data: labels.map(() => 80), borderDash: [6, 4], borderWidth: 2,
      pointRadius: 0, pointStyle: 'line', order: 1,  // drawn over the bars, not hidden behind them
    }));
    const top = Math.max(100, ...data.runs.map((r) => r.per_gpu_bytes / 1e9));
    return chart(theme, {
      type: 'bar', labels, datasets,
      scales: {
        x: category({ title: 'Method', stacked: true }),
        y: linear('Model memory per GPU (GB)', { stacked: true, min: 0, suggestedMax: top * 1.05 }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatFixed(ctx.parsed.y, 2)} GB (${formatSI(ctx.parsed.y * 1e9, 'B')})`,
    });
  },
};
