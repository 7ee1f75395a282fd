// Calculators of the sequence-context-expert lesson: `sequence-parallel-memory` (Megatron
// sequence parallelism, Korthikanti et al. 2022), `ring-attention` (Liu et al. 2023, with
// contiguous or zig-zag causal partitioning), `ulysses` (Jacobs et al. 2023), `moe-routing`
// (a simulated top-k router with capacity and the Switch load-balancing loss) and
// `expert-parallel` (all-to-all bytes and time of expert parallelism); `allgather-context-parallel`
// (Llama 3's all-gather variant) and `long-context-plan` (one complete layout, priced).
#include <cmath>

#include "mlsys/foundations/dtype.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/parallel/allgather_context_parallel.hpp"
#include "mlsys/parallel/expert_parallel.hpp"
#include "mlsys/parallel/long_context_plan.hpp"
#include "mlsys/parallel/moe_router.hpp"
#include "mlsys/parallel/ring_attention.hpp"
#include "mlsys/parallel/sequence_parallel.hpp"
#include "mlsys/parallel/ulysses.hpp"
#include "model_inputs.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(SequenceParallelPoint, MLSYS_OUT(tp, "", "Tensor-parallel degree t"),
               MLSYS_OUT(tp_only_bytes, "B", "Activations per layer, tensor parallelism alone"),
               MLSYS_OUT(tp_sp_bytes, "B", "Activations per layer, tensor + sequence parallelism"));
MLSYS_DESCRIBE(SequenceParallelMemory,
               MLSYS_OUT(tp_only_bytes_per_layer, "B", "Activations per layer at tp, tensor parallelism alone"),
               MLSYS_OUT(tp_sp_bytes_per_layer, "B", "Activations per layer at tp, with sequence parallelism"),
               MLSYS_OUT(tp_only_bytes, "B", "tp_only_bytes_per_layer · layers"),
               MLSYS_OUT(tp_sp_bytes, "B", "tp_sp_bytes_per_layer · layers"),
               MLSYS_OUT(saving_ratio, "", "tp_only / tp_sp"),
               MLSYS_OUT(mlp_units, "", "The MLP's inner tensors per s·b·h: 16 for a 4h GeLU MLP, 6·ffn/h gated"),
               MLSYS_OUT(linear_units, "", "18 + mlp_units: bytes per s·b·h at t = 1 (Korthikanti's 34)"),
               MLSYS_OUT(series, "", "Per-layer activations at tp = 1, 2, 4, ... max_tp"));
MLSYS_DESCRIBE(RingAttentionResult, MLSYS_OUT(block_tokens, "tokens", "s/p tokens of Q (and KV) held by each rank"),
               MLSYS_OUT(chunk_tokens, "tokens", "s/p (contiguous) or s/(2p) (zig-zag)"),
               MLSYS_OUT(tiles_per_rank, "", "Tiles with at least one unmasked score, per rank"),
               MLSYS_OUT(flops_per_rank, "FLOP", "4·tile²·d·heads·b per computed tile, per rank"),
               MLSYS_OUT(step_critical_tiles, "", "Per step, the most tiles any rank computes"),
               MLSYS_OUT(imbalance, "", "max / mean of tiles_per_rank"),
               MLSYS_OUT(contiguous_imbalance_closed_form, "",
                         "(n²(p−1) + n(n+1)/2) / (n²(p−1)/2 + n(n+1)/2), n = tiles per block side"),
               MLSYS_OUT(contiguous_imbalance_limit, "", "Its limit for many tiles per block: 2 − 1/p"),
               MLSYS_OUT(critical_path_tiles, "", "Σ over steps of the step maximum"),
               MLSYS_OUT(kv_block_bytes, "B", "Bytes of one rank's K and V"),
               MLSYS_OUT(kv_bytes_sent_per_rank, "B", "(p−1) · kv_block_bytes"),
               MLSYS_OUT(step_compute_s, "s", "One full block pair s/p × s/p on one rank"),
               MLSYS_OUT(step_comm_s, "s", "α + kv_block_bytes / bandwidth"),
               MLSYS_OUT(min_block_tokens, "tokens", "Smallest s/p with step compute ≥ step comm (α included)"),
               MLSYS_OUT(min_block_tokens_bandwidth, "tokens", "The same ignoring α"),
               MLSYS_OUT(overlapped, "", "block_tokens ≥ min_block_tokens: transfers hide under compute"),
               MLSYS_OUT(compute_time_s, "s", "Critical-path compute alone"),
               MLSYS_OUT(comm_time_s, "s", "(p−1) KV transfers alone"),
               MLSYS_OUT(time_s, "s", "Σ over steps of max(compute, comm)"),
               MLSYS_OUT(method, "", "executed (tiles visited) or closed-form (beyond the cap)"),
               MLSYS_OUT(backward_step_compute_s, "s", "Backward of one full block pair: 2.5 · step_compute_s"),
               MLSYS_OUT(backward_step_comm_s, "s", "K/V and dK/dV on the link together: α + 2·kv_block_bytes / bandwidth"),
               MLSYS_OUT(backward_kv_bytes_sent_per_rank, "B", "(2p−1) · kv_block_bytes: K/V p−1 hops, dK/dV p hops"),
               MLSYS_OUT(backward_min_block_tokens_bandwidth, "tokens", "Backward overlap condition, ignoring α"),
               MLSYS_OUT(backward_compute_time_s, "s", "2.5 · compute_time_s"),
               MLSYS_OUT(backward_time_s, "s", "Σ over steps of max(compute, comm), plus dK/dV's last hop"),
               MLSYS_OUT(backward_over_forward_bytes, "", "(2p−1)/(p−1)"));
MLSYS_DESCRIBE(AllGatherContextParallelResult,
               MLSYS_OUT(kv_gathered_bytes, "B", "The whole sequence's K and V, held by every rank"),
               MLSYS_OUT(ring_kv_buffer_bytes, "B", "Ring attention's two K/V blocks, for comparison"),
               MLSYS_OUT(allgather_bytes_sent_per_rank, "B", "(p−1)/p of kv_gathered_bytes"),
               MLSYS_OUT(allgather_time_s, "s", "Ring all-gather of K and V"),
               MLSYS_OUT(compute_time_s, "s", "The busiest rank's attention at peak · efficiency"),
               MLSYS_OUT(imbalance, "", "max / mean unmasked tiles (load-balanced chunks)"),
               MLSYS_OUT(forward_time_s, "s", "allgather_time_s + compute_time_s"),
               MLSYS_OUT(exposed_comm_fraction, "", "allgather_time_s / forward_time_s"),
               MLSYS_OUT(backward_compute_time_s, "s", "2.5 · compute_time_s"),
               MLSYS_OUT(reduce_scatter_time_s, "s", "Reduce-scatter of dK and dV"),
               MLSYS_OUT(backward_time_s, "s", "backward_compute_time_s + reduce_scatter_time_s"),
               MLSYS_OUT(ring_forward_time_s, "s", "Zig-zag ring attention, same ranks and link"),
               MLSYS_OUT(ring_backward_time_s, "s", "Its backward pass"));
MLSYS_DESCRIBE(LongContextPlanResult, MLSYS_OUT(gpus, "", "tp · cp"), MLSYS_OUT(nodes, "", "Nodes used"),
               MLSYS_OUT(layout, "", "Which dimension spans which GPUs"),
               MLSYS_OUT(dense_params, "", "Attention, norms, router, embedding and head"),
               MLSYS_OUT(expert_params, "", "All experts of all layers"),
               MLSYS_OUT(params_per_gpu, "", "dense / tp + experts / ep"),
               MLSYS_OUT(states_bytes, "B", "Mixed-precision Adam: 4 bytes per parameter + 12 sharded over its replicas (distributed optimizer)"),
               MLSYS_OUT(attention_activation_bytes, "B", "Attention blocks and norms, 15·s·h/(cp·tp) per layer"),
               MLSYS_OUT(moe_activation_bytes, "B", "Expert inputs and inner tensors of the GPU's assignments"),
               MLSYS_OUT(activation_bytes, "B", "One sequence, selective recomputation"),
               MLSYS_OUT(memory_per_gpu_bytes, "B", "states_bytes + activation_bytes"),
               MLSYS_OUT(fits, "", "memory_per_gpu_bytes ≤ the GPU's memory"),
               MLSYS_OUT(attention_s, "s", "Ring attention forward + backward, all layers"),
               MLSYS_OUT(dense_matmul_s, "s", "QKV, output projection, router and head, ×3 for backward"),
               MLSYS_OUT(expert_s, "s", "Experts, ×3 for backward"),
               MLSYS_OUT(tp_comm_s, "s", "All-gathers and reduce-scatters of tensor + sequence parallelism"),
               MLSYS_OUT(all_to_all_s, "s", "Expert dispatch and combine, forward and backward"),
               MLSYS_OUT(step_time_s, "s", "Sum of the above: one sequence, forward + backward"),
               MLSYS_OUT(tokens_per_s, "tokens/s", "seq / step_time_s for the whole tp·cp group"));
MLSYS_DESCRIBE(UlyssesResult, MLSYS_OUT(heads_per_rank, "", "H/P query heads per rank"),
               MLSYS_OUT(kv_heads_per_rank, "", "Key/value heads per rank, after replication when H_kv < P"),
               MLSYS_OUT(kv_replicated, "", "K/V heads repeated so each rank gets one"),
               MLSYS_OUT(ulysses_bytes_per_rank, "B", "Sent per rank in the four all-to-alls (forward)"),
               MLSYS_OUT(ulysses_time_s, "s", "Time of the four all-to-alls"),
               MLSYS_OUT(ring_bytes_per_rank, "B", "Ring attention: (P−1) KV blocks sent per rank"),
               MLSYS_OUT(ring_comm_time_s, "s", "Ring attention's (P−1) KV transfers, not overlapped"),
               MLSYS_OUT(ratio_ring_over_ulysses, "", "ring_bytes_per_rank / ulysses_bytes_per_rank"));
MLSYS_DESCRIBE(MoeRouterResult, MLSYS_OUT(capacity, "tokens", "Capacity C per expert"),
               MLSYS_OUT(routed_per_expert, "", "Assignments that chose each expert"),
               MLSYS_OUT(kept_per_expert, "", "min(routed, C) per expert"),
               MLSYS_OUT(fraction_per_expert, "", "f_i: share of the assignments per expert"),
               MLSYS_OUT(mean_prob_per_expert, "", "P_i: mean router probability per expert"),
               MLSYS_OUT(assignments, "", "tokens · k"), MLSYS_OUT(kept, "", "Assignments within capacity"),
               MLSYS_OUT(dropped, "", "Assignments over capacity"),
               MLSYS_OUT(drop_fraction, "", "dropped / assignments"),
               MLSYS_OUT(tokens_fully_dropped, "tokens", "Tokens that lost every one of their k experts"),
               MLSYS_OUT(max_over_mean, "", "max routed / (assignments / experts)"),
               MLSYS_OUT(balance_score, "", "E·Σ f_i·P_i (1 when perfectly uniform)"),
               MLSYS_OUT(aux_loss, "", "Load-balancing loss α·E·Σ f_i·P_i"));
MLSYS_DESCRIBE(ExpertParallelResult, MLSYS_OUT(dispatch_bytes, "B", "T·k·h·bytes: the rank's all-to-all buffer"),
               MLSYS_OUT(bytes_leaving_per_all_to_all, "B", "(EP−1)/EP of the buffer: bytes leaving the rank"),
               MLSYS_OUT(bytes_per_layer_forward, "B", "Dispatch + combine"),
               MLSYS_OUT(bytes_per_layer_training, "B", "Forward + backward: four all-to-alls"),
               MLSYS_OUT(all_to_all_time_s, "s", "One all-to-all"),
               MLSYS_OUT(comm_time_forward_s, "s", "Dispatch + combine all-to-alls"),
               MLSYS_OUT(expert_flops_forward, "FLOP", "T·k·2·(2 or 3)·h·ffn, balanced load"),
               MLSYS_OUT(expert_compute_time_s, "s", "expert_flops_forward at peak"),
               MLSYS_OUT(comm_over_compute, "", "comm_time_forward_s / expert_compute_time_s"));

namespace {

// A result with the link used (from the table or the overrides), and the rank's peak where
// the model's time needs it.
template <class R>
struct WithLink {
  R result;
  double link_bandwidth_Bps;
};
template <class R>
struct WithRank {
  R result;
  double peak_flops;
  double link_bandwidth_Bps;
};

}  // namespace

template <class R>
struct Described<WithLink<R>> {
  using Self = WithLink<R>;
  static constexpr auto fields = std::make_tuple(
      MLSYS_FLAT(result), MLSYS_OUT(link_bandwidth_Bps, "B/s", "Bandwidth per direction between neighbouring ranks"));
};
template <class R>
struct Described<WithRank<R>> {
  using Self = WithRank<R>;
  static constexpr auto fields =
      std::make_tuple(MLSYS_FLAT(result), MLSYS_OUT(peak_flops, "FLOP/s", "Peak FLOP/s of one rank"),
                      MLSYS_OUT(link_bandwidth_Bps, "B/s", "Bandwidth per direction between neighbouring ranks"));
};

namespace {

// Compute peak and link of one rank: `hardware` (dense peak of `dtype`; scale-up bandwidth
// halved, since the table sums both directions), overridden by `peak_flops` and
// `link_bandwidth_Bps` (per direction).
struct Rank {
  double peak_flops, link_Bps;
};
Rank rank_from(const Inputs& in, const std::string& dtype) {
  const Accelerator* hw = in.has("hardware") ? find_accelerator(in.str("hardware")) : nullptr;
  Rank r{peak_from(in, dtype, "'peak_flops' and 'link_bandwidth_Bps'"), 0};
  if (in.has("link_bandwidth_Bps")) {
    r.link_Bps = in.num("link_bandwidth_Bps");
  } else if (!hw) {
    throw InputError("hardware", "Give 'hardware' (an accelerator id) or 'peak_flops' and 'link_bandwidth_Bps'.");
  } else {
    r.link_Bps = hw->scaleup_per_direction_Bps("link_bandwidth_Bps");
  }
  return r;
}

std::vector<Field> link_fields() {
  return {optional(number_field("peak_flops", "FLOP/s", "Peak FLOP/s of one rank; overrides the hardware table", json(),
                                0.0, 1e21, true)),
          optional(number_field("link_bandwidth_Bps", "B/s",
                                "Bandwidth per direction between neighbouring ranks; overrides half the table's "
                                "scale-up bandwidth",
                                json(), 0.0, 1e15, true)),
          number_field("latency_s", "s", "Latency α of one message", 5e-6, 0.0, 1.0)};
}

// An expert's FFN width: given, or the default while hidden keeps its own; with another
// hidden the caller gives it (experts are sized freely: Mixtral 8x7B's are 3.5·hidden).
double expert_width(const Inputs& in) {
  if (const auto w = following_field(in, "ffn_hidden", {"hidden"})) return *w;
  throw InputError("ffn_hidden",
                   "Give 'ffn_hidden' with 'hidden': an expert's width does not follow from the model's width.");
}

// head_dim given, or the default while hidden and heads keep theirs, else hidden / heads.
double head_dim_of(const Inputs& in, double hidden, double heads) {
  if (const auto d = following_field(in, "head_dim", {"hidden", "heads"})) return *d;
  if (std::fmod(hidden, heads) != 0)
    throw InputError("heads", "'hidden' must be divisible by 'heads' (or give 'head_dim').");
  const double d = hidden / heads;
  if (d > 1024) throw InputError("heads", "hidden / heads is the head size, at most 1,024: use more 'heads'.");
  return d;
}

std::vector<Field> concat(std::vector<Field> a, std::vector<Field> b) {
  for (auto& f : b) a.push_back(std::move(f));
  return a;
}

// The inputs of ring attention (and of the all-gather variant, whose chunks are always the
// load-balanced 2p, so it has no `partition`).
std::vector<Field> ring_fields(bool with_partition) {
  std::vector<Field> f = {number_field("seq", "", "Sequence length s (tokens)", 131072, 1.0, 1 << 24),
                          integer_field("ranks", "", "Context-parallel degree p", 8, 1, 256),
                          integer_field("heads", "", "Query heads", 32, 1, 1024),
                          integer_field("kv_heads", "",
                                        "Key/value heads (fewer with grouped-query attention); default 32 while heads "
                                        "keeps its default, else heads",
                                        32, 1, 1024),
                          integer_field("head_dim", "", "Head dimension d", 128, 1, 1024),
                          number_field("micro_batch", "", "Sequences b", 1, 1.0, 1024),
                          integer_field("tile", "", "Tile side of the attention kernel (tokens)", 128, 1, 16384),
                          boolean_field("causal", "Causal mask (decoder) rather than full attention", true)};
  if (with_partition)
    f.push_back(string_field("partition", "contiguous blocks, or zig-zag (chunks i and 2p−1−i on rank i)", "contiguous",
                             {"contiguous", "zigzag"}));
  f.push_back(dtype_field("bf16"));
  f.push_back(hardware_field(true));
  f.push_back(number_field("compute_efficiency", "", "Fraction of peak the attention kernel reaches", 1.0, 0.0, 1.0, true));
  return concat(std::move(f), link_fields());
}

RingAttentionConfig ring_config_from(const Inputs& in) {
  RingAttentionConfig c;
  const std::string dtype = in.str("dtype");
  const Rank rk = rank_from(in, dtype);
  c.seq = in.num("seq");
  c.ranks = static_cast<int>(in.integer("ranks"));
  c.heads = static_cast<double>(in.integer("heads"));
  c.kv_heads = following_field(in, "kv_heads", {"heads"}).value_or(c.heads);
  c.head_dim = static_cast<double>(in.integer("head_dim"));
  c.micro_batch = in.num("micro_batch");
  c.tile = static_cast<double>(in.integer("tile"));
  c.causal = in.boolean("causal");
  c.partition = in.has("partition") && in.str("partition") == "zigzag" ? RingPartition::ZigZag : RingPartition::Contiguous;
  c.dtype_bytes = dtype_bytes(dtype);
  c.peak_flops = rk.peak_flops;
  c.compute_efficiency = in.num("compute_efficiency");
  c.link_bandwidth_Bps = rk.link_Bps;
  c.latency_s = in.num("latency_s");
  if (c.seq != std::floor(c.seq)) throw InputError("seq", "The sequence length must be a whole number of tokens.");
  return c;
}

}  // namespace

void add_sequence_calculators(Calculators& out) {
  out.add("sequence-parallel-memory",
       "Activation bytes per transformer layer (Korthikanti et al. 2022) for tensor-parallel degrees 1, 2, 4, ... "
       "up to max_tp, with tensor parallelism alone and with Megatron sequence parallelism.",
       {number_field("seq", "", "Sequence length s (tokens)", 4096, 1.0, 1 << 22),
        number_field("micro_batch", "", "Sequences per micro-batch b", 1, 1.0, 4096),
        number_field("hidden", "", "Hidden size h", 12288, 1.0, 1 << 18),
        number_field("heads", "", "Attention heads a", 96, 1.0, 4096),
        number_field("layers", "", "Layers (for the whole-model total)", 96, 1.0, 10000),
        integer_field("tp", "", "Tensor-parallel degree t reported in the scalar fields", 8, 1, 1024),
        integer_field("max_tp", "", "Largest tensor-parallel degree in the series (powers of two)", 64, 1, 1024),
        recompute_field("none"),
        boolean_field("flash_attention", "FlashAttention: the s² attention scores are never stored", false),
        optional(number_field("ffn_hidden", "",
                              "MLP width; without it from hidden: 4·hidden (Korthikanti's GeLU MLP), or with gated "
                              "LLaMA's 2/3 of 4·hidden rounded up to a multiple of 256",
                              json(), 1.0, 1 << 20)),
        boolean_field("gated", "Gated (SwiGLU) MLP: gate and up projections and their product stored", false)},
       [](const Inputs& in) {
         const double h = in.num("hidden");
         const double ffn = in.has("ffn_hidden") ? in.num("ffn_hidden") : default_ffn_hidden(h, in.boolean("gated"));
         return sequence_parallel_memory(in.num("seq"), in.num("micro_batch"), h, in.num("heads"), in.num("layers"),
                                         static_cast<double>(in.integer("tp")),
                                         static_cast<int>(in.integer("max_tp")), recompute_from(in),
                                         in.boolean("flash_attention"), mlp_activation_units(h, ffn, in.boolean("gated")));
       });

  out.add("ring-attention",
       "Ring attention over p ranks, forward and backward: the block schedule executed over the causal mask gives the "
       "unmasked tiles per rank for contiguous or zig-zag partitioning; the KV transfer per step against the block's "
       "compute gives the overlap condition and the time; in the backward pass K/V and their gradients circulate.",
       ring_fields(true),
       [](const Inputs& in) {
         const RingAttentionConfig c = ring_config_from(in);
         return WithRank<RingAttentionResult>{ring_attention(c), c.peak_flops, c.link_bandwidth_Bps};
       });

  out.add("allgather-context-parallel",
       "All-gather context parallelism (Llama 3): 2p load-balanced chunks, K and V of the whole sequence all-gathered "
       "before attention and dK/dV reduce-scattered after its backward pass, nothing overlapped; against the zig-zag "
       "ring on the same ranks.",
       ring_fields(false),
       [](const Inputs& in) {
         const RingAttentionConfig c = ring_config_from(in);
         return WithRank<AllGatherContextParallelResult>{allgather_context_parallel(c), c.peak_flops,
                                                         c.link_bandwidth_Bps};
       });

  out.add("ulysses",
       "DeepSpeed-Ulysses (forward pass): bytes each rank sends in the four all-to-alls of Q, K, V and the output, "
       "and their time, against ring attention's KV rotation; heads must divide over the ranks.",
       concat({number_field("seq", "", "Sequence length N (tokens)", 131072, 1.0, 1 << 24),
               integer_field("ranks", "", "Sequence-parallel degree P", 8, 2, 1024),
               integer_field("heads", "", "Query heads", 32, 1, 1024),
               integer_field("kv_heads", "", "Key/value heads; default 32 while heads keeps its default, else heads",
                             32, 1, 1024),
               integer_field("head_dim", "", "Head dimension d", 128, 1, 1024),
               number_field("micro_batch", "", "Sequences b", 1, 1.0, 1024), dtype_field("bf16"),
               hardware_field(true)},
              link_fields()),
       [](const Inputs& in) {
         UlyssesConfig c;
         const std::string dtype = in.str("dtype");
         const Rank rk = rank_from(in, dtype);
         c.seq = in.num("seq");
         c.ranks = static_cast<int>(in.integer("ranks"));
         c.heads = static_cast<int>(in.integer("heads"));
         c.kv_heads = static_cast<int>(following_field(in, "kv_heads", {"heads"}).value_or(c.heads));
         c.head_dim = static_cast<double>(in.integer("head_dim"));
         c.micro_batch = in.num("micro_batch");
         c.dtype_bytes = dtype_bytes(dtype);
         c.link_bandwidth_Bps = rk.link_Bps;
         c.latency_s = in.num("latency_s");
         return WithLink<UlyssesResult>{ulysses(c), c.link_bandwidth_Bps};
       });

  out.add("moe-routing",
       "A seeded simulated top-k router: tokens per expert, capacity C = floor(capacity_factor·tokens·k/experts), "
       "dropped assignments, and the Switch Transformer load-balancing loss α·E·Σ f_i·P_i.",
       {integer_field("tokens", "", "Tokens routed (tokens × experts ≤ 1,048,576)", 4096, 1, 65536),
        integer_field("experts", "", "Experts E", 8, 1, 256),
        integer_field("top_k", "", "Experts per token k", 2, 1, 8),
        number_field("capacity_factor", "", "Capacity factor", 1.25, 0.0, 64.0, true),
        number_field("skew", "", "Spread of the experts' popularity (std of the expert bias, logits)", 1.0, 0.0, 10.0),
        number_field("balance", "", "Effect of the load-balancing loss: 0 none, 1 bias removed", 0.0, 0.0, 1.0),
        number_field("aux_alpha", "", "Coefficient α of the load-balancing loss", 0.01, 0.0, 10.0),
        seed_field()},
       [](const Inputs& in) {
         MoeRouterConfig c;
         c.tokens = static_cast<int>(in.integer("tokens"));
         c.experts = static_cast<int>(in.integer("experts"));
         c.top_k = static_cast<int>(in.integer("top_k"));
         c.capacity_factor = in.num("capacity_factor");
         c.skew = in.num("skew");
         c.balance = in.num("balance");
         c.aux_alpha = in.num("aux_alpha");
         c.seed = static_cast<std::uint64_t>(in.integer("seed"));
         return route_tokens(c);
       });

  out.add("expert-parallel",
       "Expert parallelism: bytes each rank sends in the dispatch and combine all-to-alls of one MoE layer, their "
       "time on the ring all-to-all, and the experts' compute time for comparison.",
       concat({number_field("tokens", "", "Tokens on one rank entering the MoE layer", 8192, 1.0, 1 << 24),
               integer_field("hidden", "", "Hidden size h", 4096, 1, 1 << 17),
               integer_field("ffn_hidden", "",
                             "Expert FFN width; default 14,336 (Mixtral 8x7B's) while hidden keeps its default: with "
                             "another hidden, give it (an expert's width does not follow from the model's)",
                             14336, 1, 1 << 19),
               boolean_field("gated", "Gated (SwiGLU) experts with three matrices", true),
               integer_field("top_k", "", "Experts per token k", 2, 1, 64),
               integer_field("ep", "", "Expert-parallel degree", 8, 1, 1024), dtype_field("bf16"),
               hardware_field(true)},
              link_fields()),
       [](const Inputs& in) {
         ExpertParallelConfig c;
         const std::string dtype = in.str("dtype");
         const Rank rk = rank_from(in, dtype);
         c.tokens = in.num("tokens");
         c.hidden = static_cast<double>(in.integer("hidden"));
         c.ffn_hidden = expert_width(in);
         c.gated = in.boolean("gated");
         c.top_k = static_cast<int>(in.integer("top_k"));
         c.ep = static_cast<int>(in.integer("ep"));
         c.dtype_bytes = dtype_bytes(dtype);
         c.peak_flops = rk.peak_flops;
         c.link_bandwidth_Bps = rk.link_Bps;
         c.latency_s = in.num("latency_s");
         return WithRank<ExpertParallelResult>{expert_parallel(c), c.peak_flops, c.link_bandwidth_Bps};
       });

  out.add("long-context-plan",
       "One complete layout for a long-context mixture-of-experts run: TP (with SP) inside a node, a zig-zag "
       "context-parallel ring across nodes, EP folded onto the node's GPUs; memory per GPU (model states and one "
       "sequence's activations) and the time of one sequence's forward and backward pass from the lesson's models.",
       {number_field("seq", "", "Sequence length (tokens)", 131072, 1.0, 1 << 24),
        number_field("hidden", "", "Hidden size h", 4096, 1.0, 1 << 17),
        integer_field("heads", "", "Query heads", 32, 1, 1024),
        integer_field("kv_heads", "", "Key/value heads; default 8 while heads keeps its default, else heads", 8, 1,
                      1024),
        integer_field("head_dim", "",
                      "Head dimension d; default 128 while hidden and heads keep their defaults, else hidden / heads",
                      128, 1, 1024),
        integer_field("layers", "", "Layers", 32, 1, 1000),
        integer_field("vocab", "", "Vocabulary (untied embedding and head)", 32000, 1, 1 << 22),
        integer_field("experts", "", "Experts per MoE layer (gated, SwiGLU)", 8, 1, 1024),
        integer_field("ffn_hidden", "",
                      "Expert FFN width; default 14,336 (Mixtral 8x7B's) while hidden keeps its default: with another "
                      "hidden, give it (an expert's width does not follow from the model's)",
                      14336, 1, 1 << 19),
        integer_field("top_k", "", "Experts per token k", 2, 1, 64),
        integer_field("tp", "", "Tensor-parallel degree (inside a node)", 8, 1, 64),
        integer_field("cp", "", "Context-parallel degree (ring)", 4, 1, 256),
        integer_field("ep", "", "Expert-parallel degree", 8, 1, 1024),
        integer_field("gpus_per_node", "", "GPUs per node", 8, 1, 64), hardware_field(true),
        number_field("compute_efficiency", "", "Fraction of peak the kernels reach", 1.0, 0.0, 1.0, true),
        boolean_field("distributed_optimizer", "Shard the fp32 optimizer states over the ranks holding the same weights",
                      true),
        number_field("inter_node_bandwidth_Bps", "B/s", "One GPU's NIC, per direction", 50e9, 0.0, 1e15, true),
        number_field("latency_s", "s", "Latency α of one message", 5e-6, 0.0, 1.0)},
       [](const Inputs& in) {
         LongContextPlanConfig c;
         const Accelerator* hw = find_accelerator(in.str("hardware"));
         if (!hw) throw InputError("hardware", "Unknown accelerator '" + in.str("hardware") + "'.");
         c.seq = in.num("seq");
         c.hidden = in.num("hidden");
         c.heads = static_cast<double>(in.integer("heads"));
         c.kv_heads = following_field(in, "kv_heads", {"heads"}).value_or(c.heads);
         c.head_dim = head_dim_of(in, c.hidden, c.heads);
         c.layers = static_cast<double>(in.integer("layers"));
         c.vocab = static_cast<double>(in.integer("vocab"));
         c.experts = static_cast<double>(in.integer("experts"));
         c.ffn_hidden = expert_width(in);
         c.top_k = static_cast<double>(in.integer("top_k"));
         c.tp = static_cast<int>(in.integer("tp"));
         c.cp = static_cast<int>(in.integer("cp"));
         c.ep = static_cast<int>(in.integer("ep"));
         c.gpus_per_node = static_cast<int>(in.integer("gpus_per_node"));
         c.peak_flops = peak_from(in, "bf16", "'hardware'");
         c.compute_efficiency = in.num("compute_efficiency");
         c.hbm_bytes = hw->hbm_bytes;
         c.intra_Bps = hw->scaleup_per_direction_Bps("hardware");
         c.inter_Bps = in.num("inter_node_bandwidth_Bps");
         c.distributed_optimizer = in.boolean("distributed_optimizer");
         c.latency_s = in.num("latency_s");
         if (c.kv_heads > c.heads || std::fmod(c.heads, c.kv_heads) != 0)
           throw InputError("kv_heads", "The query heads must be a multiple of the key/value heads.");
         return long_context_plan(c);
       });
}

}  // namespace mlsys::api
