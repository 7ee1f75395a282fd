// Layout search over tensor × pipeline × data parallel degrees (see parallel/layout_search.hpp).
#include "mlsys/parallel/layout_search.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/parallel/pipeline_schedule.hpp"

namespace mlsys {

namespace {

// Ranks of one data-parallel group on one node (layout_search.hpp, Placement).
int dp_ranks_per_node(int tp, int dp, int gpus_per_node) {
  return tp * dp <= gpus_per_node ? dp : gpus_per_node / tp;
}

// Whether the groups of (tp, dp) tile the nodes: always inside one node, else tp | g and
// tp·dp | g or g | tp·dp.
bool placement_tiles_nodes(int gpus, int gpus_per_node, int tp, int dp) {
  if (gpus <= gpus_per_node) return true;
  const int block = tp * dp;
  return gpus_per_node % tp == 0 && (gpus_per_node % block == 0 || block % gpus_per_node == 0);
}

}  // namespace

Layout evaluate_layout(const LayoutProblem& pr, int tp, int pp, int dp) {
  const ModelConfig& mc = pr.model;
  const ModelCounts counts = model_counts(mc);
  Layout L{};
  L.tp = tp;
  L.pp = pp;
  L.dp = dp;
  L.microbatches = static_cast<int>(std::llround(pr.global_batch / (dp * pr.micro_batch)));

  TrainingSetup st;
  st.micro_batch = pr.micro_batch;
  st.zero_stage = pr.zero_stage;
  st.dp = dp;
  st.tp = tp;
  st.pp = pp;
  st.sequence_parallel = pr.sequence_parallel;
  st.recompute = pr.recompute;
  const TrainingMemory mem = training_memory(mc, 0, st);
  L.memory_per_gpu_bytes = mem.total_bytes;
  L.model_states_bytes = mem.states.total_bytes;
  L.activations_bytes = mem.activations_bytes;
  L.fits = L.memory_per_gpu_bytes <= pr.hbm_bytes;

  // Compute of one micro-batch through one stage on one GPU. Training FLOPs per token: PaLM's
  // 6N + 12·L·a·d·s, N with the output head (6·V·h); recomputation adds the attention core's
  // forward (selective, 4·L·a·d·s) or the whole forward (full), done in the backward pass.
  const double tokens = pr.micro_batch * mc.seq;
  const double attention_fwd = 4 * mc.layers * mc.heads * mc.head_dim * mc.seq;
  const double train = counts.flops_per_token_training;
  const double recompute = pr.recompute == Recompute::Full        ? train / 3
                           : pr.recompute == Recompute::Selective ? attention_fwd
                                                                  : 0;
  const double rate = pr.peak_flops * pr.matmul_efficiency;
  const double per_gpu = tokens / (static_cast<double>(pp) * tp * rate);
  const double fwd_compute = train / 3 * per_gpu;
  const double bwd_compute = (2 * train / 3 + recompute) * per_gpu;

  // Tensor parallelism: two all-reduces of s·b·h bf16 activations forward and two backward per
  // layer (with sequence parallelism a reduce-scatter and an all-gather, the same time);
  // full recomputation repeats the forward pair. Inside a node (tp | gpus_per_node).
  const double layers_per_stage = std::ceil(mc.layers / pp);
  const double act_bytes = 2 * tokens * mc.hidden;
  const double one =
      group_collective_cost(Collective::AllReduce, tp, pr.gpus_per_node, act_bytes, pr.intra, pr.inter).time_s;
  const double tp_fwd = layers_per_stage * 2 * one;
  const double tp_bwd = layers_per_stage * (pr.recompute == Recompute::Full ? 4 : 2) * one;
  L.forward_s = fwd_compute + tp_fwd;
  L.backward_s = bwd_compute + tp_bwd;
  L.compute_s = L.microbatches * (fwd_compute + bwd_compute);
  L.tp_comm_s = L.microbatches * (tp_fwd + tp_bwd);

  // Neighbouring stages are tp·dp ranks apart (layout_search.hpp, Placement). A step runs at
  // the pace of its slowest stage boundary: inside a node only if all GPUs are.
  const bool pp_in_node = pr.gpus <= pr.gpus_per_node;
  // Each tensor-parallel rank sends its 1/t share of the activation (Narayanan et al. 2021, 4.1).
  L.p2p_s = pp > 1 ? p2p_time(act_bytes / tp, pp_in_node ? pr.intra : pr.inter) : 0;

  PipelineConfig pc;
  pc.schedule = PipelineSchedule::OneFOneB;
  pc.stages = pp;
  pc.microbatches = L.microbatches;
  pc.forward_s = L.forward_s;
  pc.backward_s = L.backward_s;
  pc.p2p_s = L.p2p_s;
  const PipelineResult pipe = simulate_pipeline(pc, 8192);  // no timeline is returned: a larger cap
  L.pipeline_s = pipe.step_time_s;
  L.bubble_fraction = pipe.bubble_fraction;
  L.pipeline_executed = pipe.executed;
  L.pipeline_method = pipe.method;

  // Gradients (bf16) of the GPU's parameters: reduce-scatter + all-gather under ZeRO-1/2, the
  // same volume and time as an all-reduce; not overlapped with the backward pass. The group's
  // ranks on each node share NVLink, those on different nodes each use their own NIC.
  L.dp_ranks_per_node = dp_ranks_per_node(tp, dp, pr.gpus_per_node);
  L.dp_comm_s = dp > 1 ? group_collective_cost(Collective::AllReduce, dp, L.dp_ranks_per_node, 2 * mem.params_per_gpu,
                                               pr.intra, pr.inter)
                             .time_s
                       : 0;
  if (pr.zero_stage == 3 && dp > 1)  // weights gathered again for the backward pass: 1.5× volume
    L.dp_comm_s *= 1.5;
  L.step_time_s = L.pipeline_s + L.dp_comm_s;
  L.tokens_per_s = pr.global_batch * mc.seq / L.step_time_s;
  L.mfu = L.tokens_per_s * counts.flops_per_token_training / (pr.gpus * pr.peak_flops);
  return L;
}

std::vector<Layout> search_layouts(const LayoutProblem& pr, int* skipped) {
  std::vector<Layout> out;
  int rejected = 0;
  const long long heads = std::llround(pr.model.heads), kv = std::llround(pr.model.kv_heads);
  const long long layers = std::llround(pr.model.layers);
  const long long batch = std::llround(pr.global_batch), micro = std::llround(pr.micro_batch);
  for (int tp = 1; tp <= pr.gpus; ++tp) {
    if (pr.gpus % tp != 0) continue;
    for (int pp = 1; pp <= pr.gpus / tp; ++pp) {
      if ((pr.gpus / tp) % pp != 0) continue;
      const int dp = pr.gpus / (tp * pp);
      if ((pr.only_tp > 0 && tp != pr.only_tp) || (pr.only_pp > 0 && pp != pr.only_pp)) continue;
      const bool ok = tp <= pr.gpus_per_node && heads % tp == 0 && kv % tp == 0 && layers % pp == 0 &&
                      batch % (static_cast<long long>(dp) * micro) == 0 &&
                      placement_tiles_nodes(pr.gpus, pr.gpus_per_node, tp, dp);
      if (!ok) {
        ++rejected;
        continue;
      }
      out.push_back(evaluate_layout(pr, tp, pp, dp));
    }
  }
  std::sort(out.begin(), out.end(), [](const Layout& a, const Layout& b) {
    if (a.fits != b.fits) return a.fits;
    if (a.step_time_s != b.step_time_s) return a.step_time_s < b.step_time_s;
    return a.memory_per_gpu_bytes < b.memory_per_gpu_bytes;
  });
  if (skipped) *skipped = rejected;
  return out;
}

LayoutSearch layout_search(const LayoutProblem& pr) {
  int skipped = 0;
  std::vector<Layout> layouts = search_layouts(pr, &skipped);
  if (layouts.empty() && (pr.only_tp > 0 || pr.only_pp > 0))
    throw InputError(pr.only_tp > 0 ? "tp" : "pp", "No valid layout of " + std::to_string(pr.gpus) +
                                                      " GPUs has the requested tp / pp (tp ≤ gpus_per_node and divides "
                                                      "heads and kv_heads, pp divides layers, tp·pp divides gpus, the "
                                                      "groups on whole nodes).");
  if (layouts.empty())
    throw InputError("gpus", "No TP × PP × DP layout of " + std::to_string(pr.gpus) +
                                 " GPUs satisfies the constraints (tp ≤ gpus_per_node and divides heads and kv_heads, pp "
                                 "divides layers, dp · micro_batch divides global_batch, across nodes tp dividing "
                                 "gpus_per_node and tp · dp dividing it or a multiple of it).");
  const auto fitting = std::count_if(layouts.begin(), layouts.end(), [](const Layout& L) { return L.fits; });
  const int valid = static_cast<int>(layouts.size());
  return {std::move(layouts),
          pr.hbm_bytes,
          model_counts(pr.model).params,
          valid,
          static_cast<int>(fitting),
          skipped,
          pr.intra.bandwidth_Bps,
          "bf16 mixed-precision Adam, ZeRO stage as given over dp, memory of the first pipeline stage under 1F1B "
          "(training-memory), matmuls at matmul_efficiency × the bf16 peak, TP all-reduces and PP messages not "
          "overlapped with compute, the data-parallel gradient exchange after the backward pass, collectives as a ring "
          "inside a node and the hierarchical algorithm across nodes with every GPU on its own NIC (ranks tensor-fastest, "
          "then data, then pipeline)"};
}

}  // namespace mlsys
