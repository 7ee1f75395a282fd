// Calculators of the FlashAttention lesson: `online-softmax` (the block-by-block stepper),
// `softmax-merge` (two partials by logsumexp), `flash-attention` (shared/API.md: standard vs
// tiled HBM traffic, executed when small), `attention-backward-memory` (store P vs recompute
// from the logsumexp) and `split-kv` (Flash-Decoding's split and merge, and its latency).
#include <algorithm>
#include <cmath>
#include <limits>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/kernels/attention_backward.hpp"
#include "mlsys/kernels/attention_naive.hpp"
#include "mlsys/kernels/flash_attention.hpp"
#include "mlsys/kernels/online_softmax.hpp"
#include "mlsys/kernels/split_kv.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

// Execution caps: one calculator call stays well under 100 ms in WebAssembly.
// Work is counted as N²·(d + 8): the two matmuls per kernel plus the exponentials.
constexpr long long kFlashMaxSeq = 1024;        // executed forward: N <= 1024
constexpr long long kFlashMaxHeadDim = 128;     // and d <= 128
constexpr double kFlashMaxWork = 2097152;       // and N²·(d + 8) <= 2^21
constexpr long long kBackwardMaxSeq = 512;      // executed backward: N <= 512
constexpr double kBackwardMaxWork = 524288;     // and N²·(d + 8) <= 2^19
constexpr double kSplitMaxWork = 1048576;       // executed split-KV: N·d <= 2^20
constexpr long long kSplitMaxContext = 65536;   // and N <= 65,536
constexpr long long kMaxBlocks = 256;           // online-softmax: at most 256 blocks (steps)
constexpr long long kMaxTiles = 4096;           // the tile list is returned up to T_r·T_c = 4096
constexpr long long kDefaultSram = 196608;      // 192 KiB: the A100 SM's on-chip SRAM in Dao et al.

const char* status_name(TileStatus s) {
  switch (s) {
    case TileStatus::Full: return "full";
    case TileStatus::Diagonal: return "diagonal";
    case TileStatus::Skipped: return "skipped";
  }
  return "full";
}

json null_if_inf(float x) { return std::isinf(x) ? json() : json(x); }

// M in elements from sram_bytes and the dtype; it must hold one row each of Q, K, V and O.
long long sram_elements(const Inputs& in, long long head_dim) {
  const double s = dtype_bytes(in.str("dtype"));
  const long long m = static_cast<long long>(std::floor(static_cast<double>(in.integer("sram_bytes")) / s));
  if (m < 4 * head_dim)
    throw InputError("sram_bytes", "'sram_bytes' holds " + std::to_string(m) + " " + in.str("dtype") +
                                       " elements; FlashAttention's blocks need at least 4·head_dim = " +
                                       std::to_string(4 * head_dim) + ".");
  return m;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(static_cast<double>(a[i]) - b[i]));
  return m;
}

// ---------------------------------------------------------------------------------------
json run_online_softmax(const Inputs& in) {
  const int n = static_cast<int>(in.integer("length"));
  const int block = static_cast<int>(std::min<long long>(in.integer("block"), n));
  if ((n + block - 1) / block > kMaxBlocks)
    throw InputError("block", "'length' / 'block' gives " + std::to_string((n + block - 1) / block) +
                                  " blocks; at most " + std::to_string(kMaxBlocks) + " (use a block of at least " +
                                  std::to_string((n + kMaxBlocks - 1) / kMaxBlocks) + ").");
  const auto seed = static_cast<std::uint64_t>(in.integer("seed"));
  const auto scores = make_scores(n, in.str("pattern"), static_cast<float>(in.num("scale")), seed);
  const auto values = make_values(n, seed);
  const auto r = online_softmax(scores, values, block);

  // fp64 reference: the same recurrence in double for each prefix, and the two-pass softmax.
  std::vector<double> x(scores.begin(), scores.end());
  const auto p_exact = softmax_fp64(x);
  double exact_output = 0;
  for (int i = 0; i < n; ++i) exact_output += p_exact[i] * values[i];

  json steps = json::array();
  double m = -std::numeric_limits<double>::infinity(), l = 0, o = 0;
  for (const auto& s : r.steps) {
    const double m_new = std::max(m, static_cast<double>(s.block_max));
    const double a = std::isinf(m) ? 0.0 : exp_det(m - m_new);
    l *= a;
    o *= a;
    for (int i = s.begin; i < s.end; ++i) {
      const double e = exp_det(x[i] - m_new);
      l += e;
      o += e * values[i];
    }
    m = m_new;
    const double estimate = static_cast<double>(s.o) / s.l;
    steps.push_back({{"block", s.block}, {"begin", s.begin}, {"end", s.end}, {"block_max", s.block_max},
                     {"m_old", null_if_inf(s.m_old)}, {"m_new", s.m_new}, {"rescale", s.rescale}, {"l", s.l},
                     {"o", s.o}, {"estimate", estimate}, {"exact_prefix", o / l},
                     {"error", std::fabs(estimate - o / l)}});
  }
  double prob_error = 0;
  for (int i = 0; i < n; ++i) prob_error = std::max(prob_error, std::fabs(r.p[i] - p_exact[i]));
  const auto naive = softmax_unsafe(scores);
  json result = {{"blocks", r.steps.size()},
                 {"block", block},
                 {"scores", scores},
                 {"values", values},
                 {"steps", steps},
                 {"m", r.m},
                 {"l", r.l},
                 {"output", r.output},
                 {"exact_output", exact_output},
                 {"output_error", std::fabs(r.output - exact_output)},
                 {"probabilities", r.p},
                 {"max_prob_error", prob_error},
                 {"rescales", std::count_if(r.steps.begin() + 1, r.steps.end(),
                                            [](const OnlineSoftmaxStep& s) { return s.m_new > s.m_old; })},
                 {"naive_out_of_range", naive.out_of_range}};
  // The weights e^(x − m) of the keys read by the chosen step, relative to the running max after
  // it, and (before the rescale) relative to the max before it: what the stepper draws.
  const int k = static_cast<int>(std::min<long long>(in.integer("step"), static_cast<long long>(r.steps.size())));
  const auto& cur = r.steps[static_cast<std::size_t>(k - 1)];
  std::vector<float> after(static_cast<std::size_t>(cur.end)), before(static_cast<std::size_t>(cur.begin));
  for (int i = 0; i < cur.end; ++i) after[i] = expf_det(scores[i] - cur.m_new);
  for (int i = 0; i < cur.begin; ++i) before[i] = expf_det(scores[i] - cur.m_old);
  result["step"] = k;
  result["step_weights"] = after;
  result["step_weights_before"] = before;
  if (!naive.out_of_range) {
    double e = 0;
    for (int i = 0; i < n; ++i) e = std::max(e, std::fabs(naive.p[i] - p_exact[i]));
    result["naive_max_prob_error"] = e;
  }
  return result;
}

// ---------------------------------------------------------------------------------------
json run_softmax_merge(const Inputs& in) {
  const SoftmaxPartial a{in.num("m_a"), in.num("l_a"), in.num("o_a")};
  const SoftmaxPartial b{in.num("m_b"), in.num("l_b"), in.num("o_b")};
  const auto r = merge_partials(a, b);
  return {{"m", r.merged.m},         {"l", r.merged.l},         {"o", r.merged.o},
          {"lse", r.merged.lse()},   {"lse_a", a.lse()},        {"lse_b", b.lse()},
          {"scale_a", r.scale_a},    {"scale_b", r.scale_b},    {"weight_a", r.weight_a},
          {"weight_b", r.weight_b}};
}

// ---------------------------------------------------------------------------------------
json run_flash_attention(const Inputs& in) {
  const long long n = in.integer("seq"), d = in.integer("head_dim");
  const bool causal = in.boolean("causal");
  const double s = dtype_bytes(in.str("dtype"));
  const long long m = sram_elements(in, d);
  const FlashBlocks blocks = flash_blocks(n, d, m);
  const FlashIo formula = flash_attention_io(n, d, m, causal);
  const HbmCount standard_formula = standard_attention_io(static_cast<double>(n), static_cast<double>(d));
  const double N = static_cast<double>(n), D = static_cast<double>(d);
  const bool executed =
      in.boolean("execute") && n <= kFlashMaxSeq && d <= kFlashMaxHeadDim && N * N * (D + 8) <= kFlashMaxWork;

  FlashIo flash = formula;
  HbmCount standard = standard_formula;
  double standard_flops = 4 * N * N * D;
  json result = json::object();
  std::vector<FlashTile> tiles;
  const bool want_tiles = in.boolean("tiles") &&
                          static_cast<double>(blocks.row_blocks) * static_cast<double>(blocks.col_blocks) <= kMaxTiles;
  if (executed) {
    const auto inputs = make_attention_inputs(static_cast<int>(n), static_cast<int>(d),
                                              static_cast<std::uint64_t>(in.integer("seed")));
    const auto naive = attention_naive(inputs, causal);
    const auto fa = flash_attention_forward(inputs, m, causal, want_tiles);
    flash = fa.counted;
    standard = naive.hbm;
    standard_flops = naive.matmul_flops;
    tiles = fa.tiles;
    result["max_abs_error"] = max_abs_diff(fa.o, naive.o);
  } else if (want_tiles) {
    tiles = flash_tiles(n, d, m, causal);
  }
  const double flash_bytes = flash.hbm.total() * s, standard_bytes = standard.total() * s;
  result.update({{"executed", executed},
                 {"standard_hbm_bytes", standard_bytes},
                 {"flash_hbm_bytes", flash_bytes},
                 {"flops", flash.matmul_flops},
                 {"standard_flops", standard_flops},
                 {"standard_read_bytes", standard.read_elements * s},
                 {"standard_write_bytes", standard.write_elements * s},
                 {"flash_read_bytes", flash.hbm.read_elements * s},
                 {"flash_write_bytes", flash.hbm.write_elements * s},
                 {"formula_standard_hbm_bytes", standard_formula.total() * s},
                 {"formula_flash_hbm_bytes", formula.hbm.total() * s},
                 {"hbm_ratio", standard_bytes / flash_bytes},
                 {"standard_intensity", standard_flops / standard_bytes},
                 {"flash_intensity", flash.matmul_flops / flash_bytes},
                 {"score_matrix_bytes", N * N * s},
                 {"sram_elements", m},
                 {"block_rows", blocks.block_rows},
                 {"block_cols", blocks.block_cols},
                 {"row_blocks", blocks.row_blocks},
                 {"col_blocks", blocks.col_blocks},
                 {"tiles_computed", flash.tiles_computed},
                 {"tiles_skipped", flash.tiles_skipped}});
  if (want_tiles) {
    json list = json::array();
    for (const auto& t : tiles)
      list.push_back({{"i", t.i}, {"j", t.j}, {"row0", t.row0}, {"rows", t.rows}, {"col0", t.col0},
                      {"cols", t.cols}, {"status", status_name(t.status)}, {"order", t.order}});
    result["tiles"] = list;
  }
  return result;
}

// ---------------------------------------------------------------------------------------
json run_backward_memory(const Inputs& in) {
  const long long n = in.integer("seq"), d = in.integer("head_dim");
  const std::string dtype = in.str("dtype");
  const double s = dtype_bytes(dtype);
  const long long m = sram_elements(in, d);
  const double copies = static_cast<double>(in.integer("layers") * in.integer("batch") * in.integer("heads"));
  const auto mem = attention_backward_memory(static_cast<double>(n), static_cast<double>(d),
                                             static_cast<double>(in.integer("heads")),
                                             static_cast<double>(in.integer("batch")),
                                             static_cast<double>(in.integer("layers")), s);
  const HbmCount std_io = standard_backward_io(static_cast<double>(n), static_cast<double>(d));
  const HbmCount flash_io = flash_backward_io(n, d, m);
  json result = {{"store_p_bytes", mem.store_p_bytes},
                 {"logsumexp_bytes", mem.logsumexp_bytes},
                 {"saved_bytes", mem.saved_bytes},
                 {"memory_ratio", mem.memory_ratio},
                 {"qkvo_bytes", mem.qkvo_bytes},
                 {"forward_flops", mem.forward_flops},
                 {"backward_flops_standard", mem.backward_flops_standard},
                 {"backward_flops_recompute", mem.backward_flops_recompute},
                 {"extra_flops", mem.extra_flops},
                 {"extra_fraction", mem.extra_fraction},
                 {"standard_backward_hbm_bytes", std_io.total() * s * copies},
                 {"flash_backward_hbm_bytes", flash_io.total() * s * copies}};
  if (in.has("hardware") || in.has("peak_flops") || in.has("bandwidth_Bps")) {
    const auto machine = machine_from(in, dtype);
    result["recompute_time_s"] = mem.extra_flops / machine.peak_flops;
    result["read_p_time_s"] = mem.store_p_bytes / machine.bandwidth_Bps;
    if (in.has("hardware")) {
      const double hbm = find_accelerator(in.str("hardware"))->hbm_bytes;
      result["hbm_capacity_bytes"] = hbm;
      result["store_p_fraction_of_hbm"] = mem.store_p_bytes / hbm;
    }
  }
  const double N = static_cast<double>(n), D = static_cast<double>(d);
  const bool executed =
      in.boolean("execute") && n <= kBackwardMaxSeq && d <= kFlashMaxHeadDim && N * N * (D + 8) <= kBackwardMaxWork;
  result["executed"] = executed;
  if (executed) {
    const auto seed = static_cast<std::uint64_t>(in.integer("seed"));
    const auto inputs = make_attention_inputs(static_cast<int>(n), static_cast<int>(d), seed);
    const auto d_o = make_output_grad(static_cast<int>(n), static_cast<int>(d), seed);
    const auto naive = attention_naive(inputs, false);
    const auto fa = flash_attention_forward(inputs, m, false, false);
    const auto standard = attention_backward_standard(inputs, naive.p, d_o);
    const auto flash = attention_backward_flash(inputs, fa.o, logsumexp_from(fa.m, fa.l), d_o, m);
    result["grad_max_abs_diff"] = std::max({max_abs_diff(standard.dq, flash.dq), max_abs_diff(standard.dk, flash.dk),
                                            max_abs_diff(standard.dv, flash.dv)});
    result["counted_standard_backward_hbm_bytes_per_head"] = standard.hbm.total() * s;
    result["counted_flash_backward_hbm_bytes_per_head"] = flash.hbm.total() * s;
    result["counted_flash_backward_flops_per_head"] = flash.matmul_flops;
    result["counted_standard_backward_flops_per_head"] = standard.matmul_flops;
  }
  return result;
}

// ---------------------------------------------------------------------------------------
json timing_json(const SplitKvTiming& t) {
  return {{"splits", t.splits}, {"time_s", t.time_s}, {"main_time_s", t.main_time_s},
          {"merge_time_s", t.merge_time_s}, {"blocks", t.blocks}, {"waves", t.waves},
          {"active_sms", t.active_sms}, {"chunk_keys", t.chunk_keys}};
}

json run_split_kv(const Inputs& in) {
  const long long n = in.integer("context"), d = in.integer("head_dim"), splits = in.integer("splits");
  if (splits > n) throw InputError("splits", "'splits' cannot exceed 'context': each split needs at least one key.");
  const std::string dtype = in.str("dtype");
  const double s = dtype_bytes(dtype);
  const Accelerator* hw = find_accelerator(in.str("hardware"));
  double sms = 0;
  if (in.has("sms")) sms = static_cast<double>(in.integer("sms"));
  else if (hw->json().contains("sms") && hw->json()["sms"].is_number()) sms = hw->json()["sms"].get<double>();
  else throw InputError("sms", hw->name + " has no SM count in the hardware table; give 'sms'.");
  const double bandwidth = in.has("bandwidth_Bps") ? in.num("bandwidth_Bps") : hw->hbm_bandwidth_Bps;
  const double heads = static_cast<double>(in.integer("heads")), batch = static_cast<double>(in.integer("batch"));
  const double launch = in.num("launch_s");
  const auto at = [&](double k) {
    return split_kv_time(static_cast<double>(n), static_cast<double>(d), heads, batch, s, k, sms, bandwidth, launch);
  };
  const auto chosen = at(static_cast<double>(splits));
  const auto one = at(1);
  json series = json::array();
  SplitKvTiming best = one;
  const long long max_splits = std::min(in.integer("max_splits"), n);
  for (long long k = 1; k <= max_splits; ++k) {
    const auto t = at(static_cast<double>(k));
    if (t.time_s < best.time_s) best = t;
    series.push_back(timing_json(t));
  }
  json result = timing_json(chosen);
  result.update({{"sms", sms},
                 {"bandwidth_Bps", bandwidth},
                 {"kv_bytes", 2.0 * batch * heads * static_cast<double>(n) * static_cast<double>(d) * s},
                 {"partial_bytes", chosen.partial_bytes},
                 {"ideal_time_s", split_kv_ideal_time(static_cast<double>(n), static_cast<double>(d), heads, batch, s,
                                                      bandwidth)},
                 {"no_split_time_s", one.time_s},
                 {"speedup", one.time_s / chosen.time_s},
                 {"best_splits", best.splits},
                 {"best_time_s", best.time_s},
                 {"series", series}});
  const bool executed =
      in.boolean("execute") && n <= kSplitMaxContext && static_cast<double>(n) * static_cast<double>(d) <= kSplitMaxWork;
  result["executed"] = executed;
  if (executed) {
    const auto inputs = make_attention_inputs(static_cast<int>(n), static_cast<int>(d),
                                              static_cast<std::uint64_t>(in.integer("seed")));
    const std::vector<float> q(inputs.q.begin(), inputs.q.begin() + d);
    const auto r = split_kv_attention(q, inputs.k, inputs.v, static_cast<int>(n), static_cast<int>(d),
                                      static_cast<int>(splits));
    json partials = json::array();
    if (r.partials.size() <= 64)
      for (const auto& p : r.partials)
        partials.push_back({{"begin", p.begin}, {"end", p.end}, {"m", p.m}, {"l", p.l}, {"lse", p.lse}});
    result["partials"] = partials;
    result["merge_max_abs_diff"] = r.max_abs_diff;
    result["merged_error_fp64"] = r.merged_error;
    result["single_error_fp64"] = r.single_error;
  }
  return result;
}

Field sram_field() {
  return integer_field("sram_bytes", "B", "On-chip SRAM M available to one thread block (A100: 192 KiB per SM)",
                       kDefaultSram, 256, 1LL << 30);
}

}  // namespace

void add_attention_calculators(Calculators& out) {
  out.push_back({"online-softmax",
                 "Online softmax (Milakov & Gimelshein 2018) over seeded scores in blocks: running max, sum and "
                 "output at every step, against the fp64 softmax.",
                 {integer_field("length", "", "Number of scores (keys)", 32, 1, 1024),
                  integer_field("block", "", "Scores per block (at most 256 blocks)", 8, 1, 1024),
                  string_field("pattern", "Score pattern: random, rising (max grows every block) or falling",
                               "random", {"random", "rising", "falling"}),
                  number_field("scale", "", "Score magnitude: scores lie in [−scale, scale]", 4.0, 0.0, 1e4, true),
                  integer_field("step", "", "Block whose weights are returned (clamped to the number of blocks)", 256,
                                1, 256),
                  seed_field()},
                 run_online_softmax});

  out.push_back({"softmax-merge",
                 "Merge two softmax partials (max m, sum l of e^(x − m), normalized output o) into the partial of the "
                 "union: the logsumexp merge of FlashAttention and split-KV decoding.",
                 {number_field("m_a", "", "Max of partial a", json(), -1e4, 1e4),
                  number_field("l_a", "", "Sum of e^(x − m_a) of partial a", json(), 0.0, 1e15, true),
                  number_field("o_a", "", "Normalized output of partial a", 0.0, -1e15, 1e15),
                  number_field("m_b", "", "Max of partial b", json(), -1e4, 1e4),
                  number_field("l_b", "", "Sum of e^(x − m_b) of partial b", json(), 0.0, 1e15, true),
                  number_field("o_b", "", "Normalized output of partial b", 0.0, -1e15, 1e15)},
                 run_softmax_merge});

  out.push_back({"flash-attention",
                 "HBM traffic and FLOPs of standard attention (Algorithm 0) and FlashAttention (Algorithm 1 of Dao et "
                 "al. 2022) for one head, counted by executing both kernels when N <= 1024, d <= 128 and N²(d + 8) <= "
                 "2^21, by their closed forms beyond.",
                 {integer_field("seq", "", "Sequence length N", 1024, 1, 1048576),
                  integer_field("head_dim", "", "Head dimension d", 64, 1, 256), sram_field(), dtype_field("bf16"),
                  boolean_field("causal", "Causal mask: skip the tiles above the diagonal", false),
                  boolean_field("execute", "Execute the kernels when the size allows", true), seed_field(),
                  boolean_field("tiles", "Also return the map of tiles (at most 4,096) in loop order", false)},
                 run_flash_attention});

  std::vector<Field> backward = {integer_field("seq", "", "Sequence length N", 8192, 1, 1048576),
                                 integer_field("head_dim", "", "Head dimension d", 128, 1, 256),
                                 integer_field("heads", "", "Attention heads", 32, 1, 1024),
                                 integer_field("batch", "", "Sequences in the batch", 1, 1, 4096),
                                 integer_field("layers", "", "Transformer layers", 1, 1, 1024),
                                 dtype_field("bf16"),
                                 sram_field(),
                                 hardware_field(true),
                                 boolean_field("execute", "Execute both backward passes when the size allows", true),
                                 seed_field()};
  for (auto& f : machine_override_fields()) backward.push_back(std::move(f));
  out.push_back({"attention-backward-memory",
                 "What the backward pass of attention keeps and computes: the stored N×N probabilities P versus the "
                 "logsumexp (N numbers per head) and the extra Q·Kᵀ to recompute P; executed on one head when N <= "
                 "512, d <= 128 and N²(d + 8) <= 2^19.",
                 backward, run_backward_memory});

  std::vector<Field> split = {integer_field("context", "", "Cached tokens N (keys and values)", 8192, 1, 1048576),
                              integer_field("head_dim", "", "Head dimension d", 128, 1, 256),
                              integer_field("heads", "", "KV heads, each a separate block", 8, 1, 1024),
                              integer_field("batch", "", "Sequences decoding together", 1, 1, 1024),
                              dtype_field("bf16"),
                              integer_field("splits", "", "Chunks s of the keys and values", 16, 1, 1024),
                              integer_field("max_splits", "", "Largest split count in the series", 64, 1, 1024),
                              hardware_field(true),
                              integer_field("sms", "", "Streaming multiprocessors; overrides the hardware table",
                                            json(), 1, 100000),
                              number_field("bandwidth_Bps", "B/s", "HBM bandwidth; overrides the hardware table",
                                           json(), 0.0, 1e16, true),
                              number_field("launch_s", "s", "Fixed cost per kernel (launch and tail)", 3e-6, 0.0, 1e-3),
                              boolean_field("execute", "Execute the split and merge when N <= 65,536 and N·d <= 2^20", true),
                              seed_field()};
  split[8].required = false;
  split[9].required = false;
  out.push_back({"split-kv",
                 "Split-KV decoding (Flash-Decoding): one query per head against N cached keys in s chunks merged by "
                 "logsumexp; latency vs s from SM parallelism and the merge, and the executed merge against one pass.",
                 split, run_split_kv});
}

}  // namespace mlsys::api
