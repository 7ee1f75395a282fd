// Calculators of the sequence-context-expert lesson: `sequence-parallel-memory` (Megatron
// sequence parallelism, Korthikanti et al. 2022), `ring-attention` (Liu et al. 2023, with
// contiguous or zig-zag causal partitioning), `ulysses` (Jacobs et al. 2023), `moe-routing`
// (a simulated top-k router with capacity and the Switch load-balancing loss) and
// `expert-parallel` (all-to-all bytes and time of expert parallelism).
#include <cmath>

#include "mlsys/foundations/dtype.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/parallel/expert_parallel.hpp"
#include "mlsys/parallel/moe_router.hpp"
#include "mlsys/parallel/ring_attention.hpp"
#include "mlsys/parallel/sequence_parallel.hpp"
#include "mlsys/parallel/ulysses.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

Field optional_number(std::string name, std::string unit, std::string description, double min, double max) {
  Field f = number_field(std::move(name), std::move(unit), std::move(description), json(), min, max, true);
  f.required = false;
  return f;
}

// Compute peak and link of one rank: `hardware` (dense peak of `dtype`; scale-up bandwidth
// halved, since the table sums both directions), overridden by `peak_flops` and
// `link_bandwidth_Bps` (per direction).
struct Rank {
  double peak_flops, link_Bps;
};
Rank rank_from(const Inputs& in, const std::string& dtype) {
  const Accelerator* hw = in.has("hardware") ? find_accelerator(in.str("hardware")) : nullptr;
  Rank r{0, 0};
  if (in.has("peak_flops")) {
    r.peak_flops = in.num("peak_flops");
  } else if (!hw) {
    throw InputError("hardware", "Give 'hardware' (an accelerator id) or 'peak_flops' and 'link_bandwidth_Bps'.");
  } else if (auto peak = hw->peak_for(dtype)) {
    r.peak_flops = *peak;
  } else {
    throw InputError("dtype", hw->name + " has no dense " + dtype + " rate in the hardware table; give 'peak_flops'.");
  }
  if (in.has("link_bandwidth_Bps")) {
    r.link_Bps = in.num("link_bandwidth_Bps");
  } else if (!hw) {
    throw InputError("hardware", "Give 'hardware' (an accelerator id) or 'peak_flops' and 'link_bandwidth_Bps'.");
  } else {
    const json& bw = hw->json()["scaleup_bandwidth_Bps"];
    if (!bw.is_number())
      throw InputError("hardware", hw->name + " has no scale-up bandwidth in the hardware table; give 'link_bandwidth_Bps'.");
    r.link_Bps = bw.get<double>() / 2;  // both directions summed in the table
  }
  return r;
}

std::vector<Field> link_fields() {
  return {optional_number("peak_flops", "FLOP/s", "Peak FLOP/s of one rank; overrides the hardware table", 0.0, 1e21),
          optional_number("link_bandwidth_Bps", "B/s",
                          "Bandwidth per direction between neighbouring ranks; overrides half the table's scale-up "
                          "bandwidth",
                          0.0, 1e15),
          number_field("latency_s", "s", "Latency α of one message", 5e-6, 0.0, 1.0)};
}

std::vector<Field> concat(std::vector<Field> a, std::vector<Field> b) {
  for (auto& f : b) a.push_back(std::move(f));
  return a;
}

Recompute recompute_of(const std::string& s) {
  return s == "full" ? Recompute::Full : s == "selective" ? Recompute::Selective : Recompute::None;
}

}  // namespace

void add_sequence_calculators(Calculators& out) {
  out.push_back(
      {"sequence-parallel-memory",
       "Activation bytes per transformer layer (Korthikanti et al. 2022) for tensor-parallel degrees 1, 2, 4, ... "
       "up to max_tp, with tensor parallelism alone and with Megatron sequence parallelism.",
       {number_field("seq", "", "Sequence length s (tokens)", 4096, 1.0, 1 << 22),
        number_field("micro_batch", "", "Sequences per micro-batch b", 1, 1.0, 4096),
        number_field("hidden", "", "Hidden size h", 12288, 1.0, 1 << 18),
        number_field("heads", "", "Attention heads a", 96, 1.0, 4096),
        number_field("layers", "", "Layers (for the whole-model total)", 96, 1.0, 10000),
        integer_field("tp", "", "Tensor-parallel degree t reported in the scalar fields", 8, 1, 1024),
        integer_field("max_tp", "", "Largest tensor-parallel degree in the series (powers of two)", 64, 1, 1024),
        string_field("recompute", "Activation recomputation: none, selective (attention core) or full (layer input)",
                     "none", {"none", "selective", "full"}),
        boolean_field("flash_attention", "FlashAttention: the s² attention scores are never stored", false)},
       [](const Inputs& in) -> json {
         const double s = in.num("seq"), b = in.num("micro_batch"), h = in.num("hidden"), a = in.num("heads");
         const double t = static_cast<double>(in.integer("tp")), L = in.num("layers");
         const Recompute rc = recompute_of(in.str("recompute"));
         const bool flash = in.boolean("flash_attention");
         const double tp_only = activation_bytes_per_layer(s, b, h, a, t, false, rc, flash);
         const double tp_sp = activation_bytes_per_layer(s, b, h, a, t, true, rc, flash);
         json series = json::array();
         for (const auto& p : sequence_parallel_sweep(s, b, h, a, static_cast<int>(in.integer("max_tp")), rc, flash))
           series.push_back({{"tp", p.tp}, {"tp_only_bytes", p.tp_only_bytes}, {"tp_sp_bytes", p.tp_sp_bytes}});
         return {{"tp_only_bytes_per_layer", tp_only},
                 {"tp_sp_bytes_per_layer", tp_sp},
                 {"tp_only_bytes", tp_only * L},
                 {"tp_sp_bytes", tp_sp * L},
                 {"saving_ratio", tp_only / tp_sp},
                 {"series", series}};
       }});

  out.push_back(
      {"ring-attention",
       "Ring attention over p ranks (forward pass): the block schedule executed over the causal mask gives the "
       "unmasked tiles per rank for contiguous or zig-zag partitioning; the KV transfer per step against the block's "
       "compute gives the overlap condition and the time.",
       concat({number_field("seq", "", "Sequence length s (tokens)", 131072, 1.0, 1 << 24),
               integer_field("ranks", "", "Context-parallel degree p", 8, 1, 256),
               integer_field("heads", "", "Query heads", 32, 1, 1024),
               integer_field("kv_heads", "", "Key/value heads (fewer with grouped-query attention)", 32, 1, 1024),
               integer_field("head_dim", "", "Head dimension d", 128, 1, 1024),
               number_field("micro_batch", "", "Sequences b", 1, 1.0, 1024),
               integer_field("tile", "", "Tile side of the attention kernel (tokens)", 128, 1, 16384),
               boolean_field("causal", "Causal mask (decoder) rather than full attention", true),
               string_field("partition", "contiguous blocks, or zig-zag (chunks i and 2p−1−i on rank i)", "contiguous",
                            {"contiguous", "zigzag"}),
               dtype_field("bf16"), hardware_field(true),
               number_field("compute_efficiency", "", "Fraction of peak the attention kernel reaches", 1.0, 0.0, 1.0,
                            true)},
              link_fields()),
       [](const Inputs& in) -> json {
         RingAttentionConfig c;
         const std::string dtype = in.str("dtype");
         const Rank rk = rank_from(in, dtype);
         c.seq = in.num("seq");
         c.ranks = static_cast<int>(in.integer("ranks"));
         c.heads = static_cast<double>(in.integer("heads"));
         c.kv_heads = static_cast<double>(in.integer("kv_heads"));
         c.head_dim = static_cast<double>(in.integer("head_dim"));
         c.micro_batch = in.num("micro_batch");
         c.tile = static_cast<double>(in.integer("tile"));
         c.causal = in.boolean("causal");
         c.partition = in.str("partition") == "zigzag" ? RingPartition::ZigZag : RingPartition::Contiguous;
         c.dtype_bytes = dtype_bytes(dtype);
         c.peak_flops = rk.peak_flops;
         c.compute_efficiency = in.num("compute_efficiency");
         c.link_bandwidth_Bps = rk.link_Bps;
         c.latency_s = in.num("latency_s");
         if (c.seq != std::floor(c.seq)) throw InputError("seq", "The sequence length must be a whole number of tokens.");
         const auto r = ring_attention(c);
         return {{"block_tokens", r.block_tokens},
                 {"chunk_tokens", r.chunk_tokens},
                 {"tiles_per_rank", r.tiles_per_rank},
                 {"flops_per_rank", r.flops_per_rank},
                 {"step_critical_tiles", r.step_critical_tiles},
                 {"imbalance", r.imbalance},
                 {"contiguous_imbalance_closed_form", r.contiguous_imbalance_closed_form},
                 {"critical_path_tiles", r.critical_path_tiles},
                 {"kv_block_bytes", r.kv_block_bytes},
                 {"kv_bytes_sent_per_rank", r.kv_bytes_sent_per_rank},
                 {"step_compute_s", r.step_compute_s},
                 {"step_comm_s", r.step_comm_s},
                 {"min_block_tokens", r.min_block_tokens},
                 {"min_block_tokens_bandwidth", r.min_block_tokens_bandwidth},
                 {"overlapped", r.overlapped},
                 {"compute_time_s", r.compute_time_s},
                 {"comm_time_s", r.comm_time_s},
                 {"time_s", r.time_s},
                 {"peak_flops", c.peak_flops},
                 {"link_bandwidth_Bps", c.link_bandwidth_Bps},
                 {"method", r.method}};
       }});

  out.push_back(
      {"ulysses",
       "DeepSpeed-Ulysses (forward pass): bytes each rank sends in the four all-to-alls of Q, K, V and the output, "
       "and their time, against ring attention's KV rotation; heads must divide over the ranks.",
       concat({number_field("seq", "", "Sequence length N (tokens)", 131072, 1.0, 1 << 24),
               integer_field("ranks", "", "Sequence-parallel degree P", 8, 2, 1024),
               integer_field("heads", "", "Query heads", 32, 1, 1024),
               integer_field("kv_heads", "", "Key/value heads", 32, 1, 1024),
               integer_field("head_dim", "", "Head dimension d", 128, 1, 1024),
               number_field("micro_batch", "", "Sequences b", 1, 1.0, 1024), dtype_field("bf16"),
               hardware_field(true)},
              link_fields()),
       [](const Inputs& in) -> json {
         UlyssesConfig c;
         const std::string dtype = in.str("dtype");
         const Rank rk = rank_from(in, dtype);
         c.seq = in.num("seq");
         c.ranks = static_cast<int>(in.integer("ranks"));
         c.heads = static_cast<int>(in.integer("heads"));
         c.kv_heads = static_cast<int>(in.integer("kv_heads"));
         c.head_dim = static_cast<double>(in.integer("head_dim"));
         c.micro_batch = in.num("micro_batch");
         c.dtype_bytes = dtype_bytes(dtype);
         c.link_bandwidth_Bps = rk.link_Bps;
         c.latency_s = in.num("latency_s");
         const auto r = ulysses(c);
         return {{"heads_per_rank", r.heads_per_rank},
                 {"kv_heads_per_rank", r.kv_heads_per_rank},
                 {"kv_replicated", r.kv_replicated},
                 {"ulysses_bytes_per_rank", r.ulysses_bytes_per_rank},
                 {"ulysses_time_s", r.ulysses_time_s},
                 {"ring_bytes_per_rank", r.ring_bytes_per_rank},
                 {"ring_comm_time_s", r.ring_comm_time_s},
                 {"ratio_ring_over_ulysses", r.ratio_ring_over_ulysses},
                 {"link_bandwidth_Bps", c.link_bandwidth_Bps}};
       }});

  out.push_back(
      {"moe-routing",
       "A seeded simulated top-k router: tokens per expert, capacity C = floor(capacity_factor·tokens·k/experts), "
       "dropped assignments, and the Switch Transformer load-balancing loss α·E·Σ f_i·P_i.",
       {integer_field("tokens", "", "Tokens routed (tokens × experts ≤ 1,048,576)", 4096, 1, 65536),
        integer_field("experts", "", "Experts E", 8, 1, 256),
        integer_field("top_k", "", "Experts per token k", 2, 1, 8),
        number_field("capacity_factor", "", "Capacity factor", 1.25, 0.0, 64.0, true),
        number_field("skew", "", "Spread of the experts' popularity (std of the expert bias, logits)", 1.0, 0.0, 10.0),
        number_field("balance", "", "Effect of the load-balancing loss: 0 none, 1 bias removed", 0.0, 0.0, 1.0),
        number_field("aux_alpha", "", "Coefficient α of the load-balancing loss", 0.01, 0.0, 10.0),
        integer_field("seed", "", "Seed of the simulated router", 1, 0, 4294967295LL)},
       [](const Inputs& in) -> json {
         MoeRouterConfig c;
         c.tokens = static_cast<int>(in.integer("tokens"));
         c.experts = static_cast<int>(in.integer("experts"));
         c.top_k = static_cast<int>(in.integer("top_k"));
         c.capacity_factor = in.num("capacity_factor");
         c.skew = in.num("skew");
         c.balance = in.num("balance");
         c.aux_alpha = in.num("aux_alpha");
         c.seed = static_cast<std::uint64_t>(in.integer("seed"));
         const auto r = route_tokens(c);
         return {{"capacity", r.capacity},
                 {"routed_per_expert", r.routed_per_expert},
                 {"kept_per_expert", r.kept_per_expert},
                 {"fraction_per_expert", r.fraction_per_expert},
                 {"mean_prob_per_expert", r.mean_prob_per_expert},
                 {"assignments", r.assignments},
                 {"kept", r.kept},
                 {"dropped", r.dropped},
                 {"drop_fraction", r.drop_fraction},
                 {"tokens_fully_dropped", r.tokens_fully_dropped},
                 {"max_over_mean", r.max_over_mean},
                 {"balance_score", r.balance_score},
                 {"aux_loss", r.aux_loss}};
       }});

  out.push_back(
      {"expert-parallel",
       "Expert parallelism: bytes each rank sends in the dispatch and combine all-to-alls of one MoE layer, their "
       "time on the ring all-to-all, and the experts' compute time for comparison.",
       concat({number_field("tokens", "", "Tokens on one rank entering the MoE layer", 8192, 1.0, 1 << 24),
               integer_field("hidden", "", "Hidden size h", 4096, 1, 1 << 17),
               integer_field("ffn_hidden", "", "Expert FFN width", 14336, 1, 1 << 19),
               boolean_field("gated", "Gated (SwiGLU) experts with three matrices", true),
               integer_field("top_k", "", "Experts per token k", 2, 1, 64),
               integer_field("ep", "", "Expert-parallel degree", 8, 1, 1024), dtype_field("bf16"),
               hardware_field(true)},
              link_fields()),
       [](const Inputs& in) -> json {
         ExpertParallelConfig c;
         const std::string dtype = in.str("dtype");
         const Rank rk = rank_from(in, dtype);
         c.tokens = in.num("tokens");
         c.hidden = static_cast<double>(in.integer("hidden"));
         c.ffn_hidden = static_cast<double>(in.integer("ffn_hidden"));
         c.gated = in.boolean("gated");
         c.top_k = static_cast<int>(in.integer("top_k"));
         c.ep = static_cast<int>(in.integer("ep"));
         c.dtype_bytes = dtype_bytes(dtype);
         c.peak_flops = rk.peak_flops;
         c.link_bandwidth_Bps = rk.link_Bps;
         c.latency_s = in.num("latency_s");
         const auto r = expert_parallel(c);
         return {{"dispatch_bytes", r.dispatch_bytes},
                 {"bytes_leaving_per_all_to_all", r.bytes_leaving_per_all_to_all},
                 {"bytes_per_layer_forward", r.bytes_per_layer_forward},
                 {"bytes_per_layer_training", r.bytes_per_layer_training},
                 {"all_to_all_time_s", r.all_to_all_time_s},
                 {"comm_time_forward_s", r.comm_time_forward_s},
                 {"expert_flops_forward", r.expert_flops_forward},
                 {"expert_compute_time_s", r.expert_compute_time_s},
                 {"comm_over_compute", r.comm_over_compute},
                 {"peak_flops", c.peak_flops},
                 {"link_bandwidth_Bps", c.link_bandwidth_Bps}};
       }});
}

}  // namespace mlsys::api
