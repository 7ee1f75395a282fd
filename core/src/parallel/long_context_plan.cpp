// A complete long-context MoE layout, priced (see parallel/long_context_plan.hpp).
#include "mlsys/parallel/long_context_plan.hpp"

#include <cmath>

#include "mlsys/comm/cost_model.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/memory/training_memory.hpp"
#include "mlsys/parallel/expert_parallel.hpp"
#include "mlsys/parallel/ring_attention.hpp"

namespace mlsys {

namespace {

void check(const LongContextPlanConfig& c) {
  if (c.tp < 1 || c.cp < 1 || c.ep < 1 || c.gpus_per_node < 1)
    throw InputError("tp", "Every parallel degree and the GPUs per node must be at least 1.");
  if (c.tp > c.gpus_per_node || c.gpus_per_node % c.tp != 0)
    throw InputError("tp", "Tensor parallelism stays inside a node: tp must divide the " +
                               std::to_string(c.gpus_per_node) + " GPUs of a node.");
  const int gpus = c.tp * c.cp;
  if (gpus > c.gpus_per_node && gpus % c.gpus_per_node != 0)
    throw InputError("cp", "tp·cp = " + std::to_string(gpus) + " GPUs must fill whole nodes of " +
                               std::to_string(c.gpus_per_node) + ".");
  if (std::fmod(c.heads, c.tp) != 0)
    throw InputError("tp", "Tensor parallelism splits the attention heads: tp must divide the query heads.");
  if (std::fmod(c.experts, c.ep) != 0) throw InputError("ep", "ep must divide the experts.");
  if (gpus % c.ep != 0) throw InputError("ep", "ep must divide the tp·cp = " + std::to_string(gpus) + " GPUs.");
  if (c.ep > c.gpus_per_node && c.ep % c.gpus_per_node != 0)
    throw InputError("ep", "An expert-parallel group larger than a node must fill whole nodes.");
}

std::string layout_text(const LongContextPlanConfig& c, int gpus, int nodes) {
  const auto n = [](double v) { return std::to_string(static_cast<long long>(v)); };
  std::string s = n(gpus) + " GPUs on " + n(nodes) + (nodes == 1 ? " node" : " nodes") + ": TP×" + n(c.tp) +
                  " with SP over " + n(c.tp) + " GPUs of a node; ";
  s += c.cp == 1 ? "no context parallelism; "
                 : "CP×" + n(c.cp) + " zig-zag ring over GPUs " + n(c.tp) + " apart" +
                       (gpus > c.gpus_per_node ? " (across nodes, rank k of each node with rank k of the others)"
                                               : " (inside the node)") +
                       "; ";
  s += "EP×" + n(c.ep) + (c.ep <= c.gpus_per_node ? " inside a node" : " across nodes") + ", " + n(c.experts / c.ep) +
       (c.experts / c.ep == 1 ? " expert" : " experts") + " per GPU per layer";
  if (c.ep == c.tp) s += " (the attention's TP group reused for the experts)";
  return s;
}

}  // namespace

LongContextPlanResult long_context_plan(const LongContextPlanConfig& c) {
  check(c);
  LongContextPlanResult r;
  r.gpus = c.tp * c.cp;
  r.nodes = (r.gpus + c.gpus_per_node - 1) / c.gpus_per_node;
  r.layout = layout_text(c, r.gpus, r.nodes);
  const double h = c.hidden, rate = c.peak_flops * c.compute_efficiency;
  const Link intra{c.latency_s, c.intra_Bps}, inter{c.latency_s, c.inter_Bps};

  // Parameters: attention matrices, two norms and the router per layer; embedding and an
  // untied head (vocab-parallel, split over tp); the experts (gated: three matrices).
  const double attn_matmul = 2 * h * c.heads * c.head_dim + 2 * h * c.kv_heads * c.head_dim;
  const double router = h * c.experts;
  r.dense_params = c.layers * (attn_matmul + 2 * h + router) + 2 * c.vocab * h + h;
  r.expert_params = c.layers * c.experts * 3 * h * c.ffn_hidden;
  r.params_per_gpu = r.dense_params / c.tp + r.expert_params / c.ep;
  const double dense_replicas = c.distributed_optimizer ? c.cp : 1;
  const double expert_replicas = c.distributed_optimizer ? static_cast<double>(r.gpus) / c.ep : 1;
  r.states_bytes = r.dense_params / c.tp * (4 + 12 / dense_replicas) + r.expert_params / c.ep * (4 + 12 / expert_replicas);

  // Activations (bytes per token-width h): attention block 11 and the two norms 4, all split
  // by tp·cp with SP; per expert assignment the FC1 input (2) and the gated inner tensors; the
  // MoE output's dropout mask (1) per sequence-parallel token.
  const double shard = c.seq / (c.cp * c.tp);  // tokens per GPU in the sequence-parallel regions
  const double assignments = shard * c.top_k;  // expert assignments per GPU, balanced
  const double m = mlp_activation_units(h, c.ffn_hidden, true);
  r.attention_activation_bytes = c.layers * 15 * shard * h;
  r.moe_activation_bytes = c.layers * (assignments * (2 + m) * h + shard * h);
  r.activation_bytes = r.attention_activation_bytes + r.moe_activation_bytes;
  r.memory_per_gpu_bytes = r.states_bytes + r.activation_bytes;
  r.fits = r.memory_per_gpu_bytes <= c.hbm_bytes;

  // Attention core: the zig-zag ring over cp ranks, each with H/tp heads (K/V heads split,
  // or one repeated where fewer than tp).
  RingAttentionConfig ring;
  ring.seq = c.seq;
  ring.ranks = c.cp;
  ring.heads = c.heads / c.tp;
  ring.kv_heads = c.kv_heads >= c.tp ? c.kv_heads / c.tp : 1;
  ring.head_dim = c.head_dim;
  ring.partition = RingPartition::ZigZag;
  ring.peak_flops = c.peak_flops;
  ring.compute_efficiency = c.compute_efficiency;
  const bool ring_in_node = r.gpus <= c.gpus_per_node;
  ring.link_bandwidth_Bps = ring_in_node ? c.intra_Bps : c.inter_Bps;
  ring.latency_s = c.latency_s;
  const RingAttentionResult ra = ring_attention(ring);
  r.attention_s = c.layers * (ra.time_s + ra.backward_time_s);

  // Dense matmuls: forward 2·tokens·params on this GPU's share, backward twice that.
  const double tokens_cp = c.seq / c.cp;
  const double dense_fwd = 2 * tokens_cp * (c.layers * (attn_matmul + router) + c.vocab * h) / c.tp;
  r.dense_matmul_s = 3 * dense_fwd / rate;

  // Experts and their all-to-alls (dispatch + combine forward, the same backward).
  ExpertParallelConfig e;
  e.tokens = shard;
  e.hidden = h;
  e.ffn_hidden = c.ffn_hidden;
  e.gated = true;
  e.top_k = static_cast<int>(c.top_k);
  e.ep = c.ep;
  e.peak_flops = rate;
  const bool ep_in_node = c.ep <= c.gpus_per_node;
  e.link_bandwidth_Bps = ep_in_node ? c.intra_Bps : c.inter_Bps;
  e.latency_s = c.latency_s;
  const ExpertParallelResult ex = expert_parallel(e);
  r.expert_s = c.layers * 3 * ex.expert_compute_time_s;
  r.all_to_all_s = c.layers * 2 * ex.comm_time_forward_s;

  // TP with SP around attention: an all-gather before QKV and a reduce-scatter after the
  // output projection, mirrored in the backward pass (Korthikanti's extra backward all-gather
  // of the QKV input overlaps the weight-gradient matmuls and is not counted).
  const double act = tokens_cp * h * 2;
  const auto ag = group_collective_cost(Collective::AllGather, c.tp, c.gpus_per_node, act, intra, inter);
  const auto rs = group_collective_cost(Collective::ReduceScatter, c.tp, c.gpus_per_node, act, intra, inter);
  r.tp_comm_s = c.layers * 2 * (ag.time_s + rs.time_s);

  r.step_time_s = r.attention_s + r.dense_matmul_s + r.expert_s + r.tp_comm_s + r.all_to_all_s;
  r.tokens_per_s = c.seq / r.step_time_s;
  return r;
}

}  // namespace mlsys
