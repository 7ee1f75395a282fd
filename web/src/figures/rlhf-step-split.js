// The time of one RLHF step, split into generation (decode-bound, from the `decode` model's
// roofline at the mean context) and the training passes (policy and value forward and
// backward, reference and reward forward), for PPO, GRPO (a group of G responses per prompt)
// and DPO (no generation), with PPO's experience-making forwards (policy log-probabilities and
// values) before it trains. Three `rlhf-step` calls (a calculator beyond API.md).
import { formatSI, formatFixed } from '../runtime/format.js';
import { chart, category, linear, colours, series } from './shared/chart-config.js';

export const METHODS = [['ppo', 'PPO'], ['grpo', 'GRPO'], ['dpo', 'DPO']];
export const H100_BYTES = 80e9;  // one H100's memory, as the lesson's memory figure draws it
const PHASES = [
  ['generation', 'Generation (decode)'],
  ['policy_logprobs', 'Policy forward (old log-probabilities)'],
  ['value_estimates', 'Value forward (values for the advantages)'],
  ['policy', 'Policy forward + backward'],
  ['value', 'Value forward + backward'],
  ['reference', 'Reference forward'],
  ['reward', 'Reward scoring'],
];

export default {
  id: 'rlhf-step-split',
  title: 'Where an RLHF step\u2019s time goes: generation against training',
  caption:
    'One step of 512 prompts on 8 H100s: a 7B policy shaped like Mistral 7B (grouped-query attention, 8 KV heads), 7B reward and value models, 512-token prompts and responses, 64 sequences decoded at a time per GPU, training at 40% of peak. PPO generates in about 3.6 s at the bandwidth bound, 13% of its step, then scores its samples with the policy and value model before training. GRPO samples 8 responses per prompt, 8 times the tokens; DPO generates nothing. Shrink the decode batch to 8: eight rounds, each barely cheaper, and generation grows about fivefold. Multi-head attention (32 KV heads, as Llama 2 7B) reads four times the KV cache per step.',
  params: [
    { key: 'group', label: 'GRPO group size G', type: 'integer', min: 2, max: 64, default: 8 },
    { key: 'response_tokens', label: 'Response tokens', type: 'integer', min: 64, max: 8192, default: 512, scale: 'log' },
    { key: 'gen_batch', label: 'Decode batch (sequences each GPU decodes at once)', type: 'integer', min: 1, max: 512, default: 64, scale: 'log' },
    { key: 'mfu', label: 'Training MFU', type: 'number', min: 0.1, max: 0.7, default: 0.4 },
    { key: 'kv_heads', label: 'Attention (KV cache)', type: 'select', default: '8', options: [
      { value: '8', label: 'Grouped-query, 8 KV heads' }, { value: '32', label: 'Multi-head, 32 KV heads' }] },
  ],

  data(engine, p) {
    const runs = METHODS.map(([method]) => engine.calc('rlhf-step', {
      method, group: Number(p.group), response_tokens: Number(p.response_tokens), gen_batch: Number(p.gen_batch),
      mfu: Number(p.mfu), kv_heads: Number(p.kv_heads ?? 8),
    }));
    const sec = (r, phase) => r.phases.find((x) => x.phase === phase)?.seconds ?? 0;
    const bars = runs.map((r) => Object.fromEntries(PHASES.map(([ph]) => [ph, sec(r, ph)])));
    const table = {
      columns: ['Method', ...PHASES.map(([, l]) => `${l} (s)`), 'Step (s)', 'Generation share',
        'Weights + KV cache per GPU (GB)'],
      rows: runs.map((r, i) => [METHODS[i][1], ...PHASES.map(([ph]) => bars[i][ph]), r.step_s, r.generation_fraction,
        r.generation_bytes / 1e9]),
    };
    return { runs, bars, table };
  },

  draw(data, theme) {
    const pick = colours(theme);
    // A round whose weights and KV cache exceed one H100's 80 GB cannot run as drawn: say so under its bar.
    const labels = data.runs.map((r, i) => (r.generation_bytes > H100_BYTES
      ? [METHODS[i][1], `does not fit: ${formatFixed(r.generation_bytes / 1e9, 0)} GB > 80 GB`] : METHODS[i][1]));
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
