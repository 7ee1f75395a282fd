// The /calculators/ page's data: every calculator of the engine, grouped by the engine's
// calculator groups (wasm/bindings.cpp engineGroups) in course order, each with its
// description, the lessons whose figures call it (the engine plan's figureCalls) and the
// starting values of the fields the engine requires without a default.
import { readPlan } from './engine-parts.js';

// The engine's groups in the order the course teaches them, with a reader's title.
export const GROUP_TITLES = [
  ['overview', 'Overview: the whole step'],
  ['tensors', 'Tensors and memory layout'],
  ['autograd', 'Gradients and backpropagation'],
  ['optimizers', 'Optimizers and schedules'],
  ['generalization', 'Fitting and generalization'],
  ['tokens', 'Tokens and embeddings'],
  ['masks', 'Attention masks and variants'],
  ['models', 'Models and their sizes'],
  ['transformer', 'Transformer arithmetic'],
  ['scaling', 'Scaling laws'],
  ['input', 'Input pipelines and batches'],
  ['stability', 'Numerical stability'],
  ['failures', 'Failures and checkpoints'],
  ['numerics', 'Numerics and precision'],
  ['memory', 'Training memory'],
  ['hardware', 'Hardware'],
  ['roofline', 'Roofline and arithmetic intensity'],
  ['gpu', 'GPU execution'],
  ['kernels', 'Kernels and tiling'],
  ['attention', 'Attention kernels'],
  ['sequence', 'Long sequences'],
  ['collectives', 'Collectives'],
  ['interconnect', 'Interconnects and topologies'],
  ['sharing', 'Sharing a GPU'],
  ['accelerators', 'Comparing accelerators'],
  ['data_parallel', 'Data parallelism'],
  ['model_parallel', 'Model parallelism'],
  ['profiling', 'Profiling and MFU'],
  ['quantization', 'Quantization'],
  ['serving', 'Serving and inference'],
  ['lora', 'Fine-tuning and LoRA'],
  ['alignment', 'Preference alignment'],
  ['evaluation', 'Evaluation statistics'],
];

// Starting values for the fields the engine requires and gives no default (the form must
// compute on arrival): one typical case each, not a claim of any lesson.
export const STARTING_VALUES = {
  'checkpoint-goodput': { mtbf_s: 86400, checkpoint_s: 60 },
  'checkpoint-interval': { mtbf_s: 86400, checkpoint_s: 60 },
  'cluster-failures': { gpus: 16384, failures: 419, days: 54 },
  chinchilla: { compute_flops: 1e23 },
  'comm-tail': { backward_s: 0.5, allreduce_s: 0.3 },
  matmul: { m: 4096, n: 4096, k: 4096 },
  mfu: { tokens_per_s: 3000 },
  roofline: { flops: 1e12, bytes: 1e9 },
  'scaling-law': { compute_flops: 1e23 },
  'softmax-merge': { m_a: 1, l_a: 2, m_b: 3, l_b: 1.5 },
  'softmax-stability': { max_logit: 12 },
};

// engine: the wrapped full engine; raw: its Embind module; lessons: [{slug, title, figures}].
// Returns [{group, title, calcs: [{name, description, start, lessons: [{slug, title}]}]}].
export function calculatorIndex(engine, raw, lessons) {
  const groups = JSON.parse(raw.engineGroups()).calculators;
  const plan = readPlan();
  const known = new Map(GROUP_TITLES);
  for (const [name, g] of Object.entries(groups)) {
    if (!known.has(g)) throw new Error(`web/scripts/calculators.js: calculator "${name}" is in group "${g}", which GROUP_TITLES lacks`);
  }
  const usedIn = (name) => lessons.filter((l) => l.figures.some((id) => plan.figureCalls[id]?.includes(name)))
    .map((l) => ({ slug: l.slug, title: l.title }));
  return GROUP_TITLES.map(([group, title]) => ({
    group,
    title,
    calcs: engine.list().filter((n) => groups[n] === group).sort().map((name) => ({
      name,
      description: engine.schema(name).description,
      start: STARTING_VALUES[name] ?? {},
      lessons: usedIn(name),
    })),
  })).filter((g) => g.calcs.length);
}
