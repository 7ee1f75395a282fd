// The time of one RLHF step, split into generation (decode-bound, from the `decode` model's
// roofline at the mean context) and the training passes (policy and value forward and
// backward, reference and reward forward), for PPO, GRPO (a group of G responses per prompt)
// and DPO (no generation). Three `rlhf-step` calls (a calculator beyond API.md).
import { formatSI } from '../runtime/format.js';
import { chart, category, linear, colours, series } from './shared/chart-config.js';

export const METHODS = [['ppo', 'PPO'], ['grpo', 'GRPO'], ['dpo', 'DPO']];
const PHASES = [
  ['generation', 'Generation (decode)'],
  ['policy', 'Policy forward + backward'],
  ['value', 'Value forward + backward'],
  ['reference', 'Reference forward'],
  ['reward', 'Reward scoring'],
];

export default {
  id: 'rlhf-step-split',
  title: 'Where an RLHF step\u2019s time goes: generation against training',
  caption:
    'One step of 512 prompts on 8 H100s with a 7B policy, reward and value model, 512-token prompts and responses, each GPU decoding 64 sequences at a time, training at 40% of peak. PPO\u2019s one response per prompt is generated in about 3.6 s at the memory-bandwidth bound, a sixth of its step; GRPO samples a group of 8 per prompt, so it generates and trains on 8 times the tokens. DPO generates nothing and trains on a chosen and a rejected response. Shrink the decode batch to 8 and generation takes eight rounds instead of one, each decode step barely cheaper, so it grows about fivefold while training does not change: a decode step is bound by reading the weights and KV cache, not by arithmetic.',
  params: [
    { key: 'group', label: 'GRPO group size G', type: 'integer', min: 2, max: 64, default: 8 },
    { key: 'response_tokens', label: 'Response tokens', type: 'integer', min: 64, max: 8192, default: 512, scale: 'log' },
    { key: 'gen_batch', label: 'Decode batch (sequences each GPU decodes at once)', type: 'integer', min: 1, max: 512, default: 64, scale: 'log' },
    { key: 'mfu', label: 'Training MFU', type: 'number', min: 0.1, max: 0.7, default: 0.4 },
  ],

  data(engine, p) {
    const runs = METHODS.map(([method]) => engine.calc('rlhf-step', {
      method, group: Number(p.group), response_tokens: Number(p.response_tokens), gen_batch: Number(p.gen_batch),
      mfu: Number(p.mfu),
    }));
    const sec = (r, phase) => r.phases.find((x) => x.phase === phase)?.seconds ?? 0;
    const bars = runs.map((r) => Object.fromEntries(PHASES.map(([ph]) => [ph, sec(r, ph)])));
    const table = {
      columns: ['Method', ...PHASES.map(([, l]) => `${l} (s)`), 'Step (s)', 'Generation share'],
      rows: runs.map((r, i) => [METHODS[i][1], ...PHASES.map(([ph]) => bars[i][ph]), r.step_s, r.generation_fraction]),
    };
    return { runs, bars, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    const labels = METHODS.map(([, l]) => l);
    const datasets = PHASES.map(([ph, label], i) => series(i === 0 ? pick('compute') : pick(), {
      type: 'bar', label, data: data.bars.map((b) => b[ph]), stack: 'step', borderColor: theme.text, borderWidth: 1,
    }));
    const top = Math.max(...data.runs.map((r) => r.step_s));
    return chart(theme, {
      type: 'bar', labels, datasets,
      scales: {
        x: category({ title: 'Method', stacked: true }),
        y: linear('Time of one step (s)', { stacked: true, min: 0, suggestedMax: top * 1.05 }),
      },
      tooltip: (ctx) => `${ctx.dataset.label}: ${formatSI(ctx.parsed.y, 's')}`,
    });
  },
};
