// Calculators of the FlashAttention lesson: `online-softmax` (the block-by-block stepper),
// `softmax-merge` (two partials by logsumexp), `flash-attention` (shared/API.md: standard vs
// tiled HBM traffic, executed when small), `attention-backward-memory` (store P vs recompute
// from the logsumexp) and `split-kv` (Flash-Decoding's split and merge, and its latency).
// Models in core/src/kernels/.
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/kernels/attention_backward.hpp"
#include "mlsys/kernels/flash_attention.hpp"
#include "mlsys/kernels/online_softmax.hpp"
#include "mlsys/kernels/split_kv.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

struct SoftmaxMergeOut {
  MergedPartial r;
  double lse, lse_a, lse_b;
};
}  // namespace

MLSYS_DESCRIBE(SoftmaxStepReport, MLSYS_OUT(block, "", "0-based block index"),
               MLSYS_OUT(begin, "", "First score of the block"), MLSYS_OUT(end, "", "One past its last score"),
               MLSYS_OUT(block_max, "", "Max of the block's scores"),
               MLSYS_OUT_NULLABLE(m_old, "", "Running max before the block (null before the first)"),
               MLSYS_OUT(m_new, "", "Running max after the block"),
               MLSYS_OUT(rescale, "", "e^(m_old − m_new): factor applied to l and o (0 at the first block)"),
               MLSYS_OUT(l, "", "Running sum Σ e^(x − m_new) over the scores so far"),
               MLSYS_OUT(o, "", "Running output Σ e^(x − m_new)·v, not yet divided by l"),
               MLSYS_OUT(estimate, "", "o / l: the output over the scores so far"),
               MLSYS_OUT(exact_prefix, "", "The same output from the recurrence in fp64"),
               MLSYS_OUT(error, "", "|estimate − exact_prefix|"));
MLSYS_DESCRIBE(OnlineSoftmaxStepper, MLSYS_OUT(blocks, "", "Blocks (steps) of the pass"),
               MLSYS_OUT(block, "", "Scores per block, at most length"),
               MLSYS_OUT(scores, "", "The seeded scores"), MLSYS_OUT(values, "", "The seeded value of each score"),
               MLSYS_OUT(steps, "", "Running max, sum and output after each block"),
               MLSYS_OUT(m, "", "Final running max"), MLSYS_OUT(l, "", "Final running sum"),
               MLSYS_OUT(output, "", "Σ p·v from the online pass (float)"),
               MLSYS_OUT(exact_output, "", "Σ p·v from the fp64 softmax"),
               MLSYS_OUT(output_error, "", "|output − exact_output|"),
               MLSYS_OUT(probabilities, "", "e^(x − m) / l from the final m and l"),
               MLSYS_OUT(max_prob_error, "", "Largest |p − p_fp64| over the scores"),
               MLSYS_OUT(rescales, "", "Blocks after the first whose maximum grew"),
               MLSYS_OUT(naive_out_of_range, "", "The textbook e^x / Σ e^x overflows or underflows in float"),
               MLSYS_OUT(step, "", "Block whose weights are returned (1-based)"),
               MLSYS_OUT(step_weights, "", "e^(x − m_new) of the keys read up to that step"),
               MLSYS_OUT(step_weights_before, "", "e^(x − m_old) of the keys read before it"),
               MLSYS_OUT(naive_max_prob_error, "", "Largest |p − p_fp64| of the textbook form, when in range"));
MLSYS_DESCRIBE(SoftmaxPartial, MLSYS_OUT(m, "", "Max of the union"),
               MLSYS_OUT(l, "", "Sum of e^(x − m) of the union"), MLSYS_OUT(o, "", "Normalized output of the union"));
MLSYS_DESCRIBE(MergedPartial, MLSYS_FLAT(merged), MLSYS_OUT(scale_a, "", "e^(m_a − m)"),
               MLSYS_OUT(scale_b, "", "e^(m_b − m)"), MLSYS_OUT(weight_a, "", "l_a·scale_a / l: share of partial a"),
               MLSYS_OUT(weight_b, "", "l_b·scale_b / l: share of partial b"));
MLSYS_DESCRIBE(SoftmaxMergeOut, MLSYS_FLAT(r), MLSYS_OUT(lse, "", "Logsumexp of the union: m + ln l"),
               MLSYS_OUT(lse_a, "", "Logsumexp of partial a"), MLSYS_OUT(lse_b, "", "Logsumexp of partial b"));

MLSYS_DESCRIBE(FlashTileRow, MLSYS_OUT(i, "", "Q block"), MLSYS_OUT(j, "", "K/V block"),
               MLSYS_OUT(row0, "", "First query"), MLSYS_OUT(rows, "", "Queries of the tile"),
               MLSYS_OUT(col0, "", "First key"), MLSYS_OUT(cols, "", "Keys of the tile"),
               MLSYS_OUT(status, "", "full, diagonal (partly masked) or skipped (all masked)"),
               MLSYS_OUT(order, "", "Position among computed tiles (−1 when skipped)"));
MLSYS_DESCRIBE(FlashAttentionReport, MLSYS_OUT(executed, "", "Both kernels were executed (else closed forms)"),
               MLSYS_OUT(max_abs_error, "", "Executed: max |O_flash − O_standard|"),
               MLSYS_OUT(output_max_abs, "", "Executed: max |O_standard|, the scale of the error"),
               MLSYS_OUT(standard_hbm_bytes, "B", "HBM traffic of standard attention (Algorithm 0)"),
               MLSYS_OUT(flash_hbm_bytes, "B", "HBM traffic of FlashAttention (Algorithm 1)"),
               MLSYS_OUT(flops, "FLOP", "Matmul FLOPs of FlashAttention (skipped tiles excluded)"),
               MLSYS_OUT(standard_flops, "FLOP", "Matmul FLOPs of standard attention"),
               MLSYS_OUT(standard_read_bytes, "B", "Bytes standard attention reads from HBM"),
               MLSYS_OUT(standard_write_bytes, "B", "Bytes standard attention writes to HBM"),
               MLSYS_OUT(flash_read_bytes, "B", "Bytes FlashAttention reads from HBM"),
               MLSYS_OUT(flash_write_bytes, "B", "Bytes FlashAttention writes to HBM"),
               MLSYS_OUT(formula_standard_hbm_bytes, "B", "Closed form of standard attention's traffic"),
               MLSYS_OUT(formula_flash_hbm_bytes, "B", "Closed form of FlashAttention's traffic"),
               MLSYS_OUT(hbm_ratio, "", "standard_hbm_bytes / flash_hbm_bytes"),
               MLSYS_OUT(fa2_hbm_bytes, "B", "FlashAttention-2's loop order (queries outer), closed form"),
               MLSYS_OUT(fa2_ratio, "", "flash_hbm_bytes / fa2_hbm_bytes"),
               MLSYS_OUT(fa2_row_blocks, "", "⌈N/⌈M/(4d)⌉⌉: FlashAttention-2's passes over K and V"),
               MLSYS_OUT(standard_intensity, "FLOP/B", "standard_flops / standard_hbm_bytes"),
               MLSYS_OUT(flash_intensity, "FLOP/B", "flops / flash_hbm_bytes"),
               MLSYS_OUT(score_matrix_bytes, "B", "One N×N score matrix in the dtype"),
               MLSYS_OUT(sram_elements, "", "M: SRAM in elements of the dtype"),
               MLSYS_OUT(block_rows, "", "B_r = min(⌈M/(4d)⌉, d): queries per tile"),
               MLSYS_OUT(block_cols, "", "B_c = ⌈M/(4d)⌉: keys per tile"),
               MLSYS_OUT(row_blocks, "", "T_r = ⌈N/B_r⌉"), MLSYS_OUT(col_blocks, "", "T_c = ⌈N/B_c⌉"),
               MLSYS_OUT(tiles_computed, "", "Tiles computed"),
               MLSYS_OUT(tiles_skipped, "", "Tiles skipped by the causal mask"),
               MLSYS_OUT(tiles, "", "With tiles: every tile in loop order (K/V block outer)"));

MLSYS_DESCRIBE(BackwardMemory, MLSYS_OUT(store_p_bytes, "B", "P kept for the backward pass: layers·batch·heads·N²·s"),
               MLSYS_OUT(logsumexp_bytes, "B", "Logsumexp kept instead, in fp32: layers·batch·heads·N·4"),
               MLSYS_OUT(saved_bytes, "B", "store_p_bytes − logsumexp_bytes"),
               MLSYS_OUT(memory_ratio, "", "store_p_bytes / logsumexp_bytes = N·s/4"),
               MLSYS_OUT(qkvo_bytes, "B", "Q, K, V, O kept by both: layers·batch·heads·4·N·d·s"),
               MLSYS_OUT(forward_flops, "FLOP", "Forward matmuls: 4·N²·d per head and layer"),
               MLSYS_OUT(backward_flops_standard, "FLOP", "Backward from the stored P: 8·N²·d per head and layer"),
               MLSYS_OUT(backward_flops_recompute, "FLOP", "Backward recomputing P: 10·N²·d per head and layer"),
               MLSYS_OUT(extra_flops, "FLOP", "Recomputation: 2·N²·d per head and layer"),
               MLSYS_OUT(extra_fraction, "", "extra / (forward + standard backward) = 1/6"));
MLSYS_DESCRIBE(BackwardExecuted, MLSYS_OUT(grad_max_abs_diff, "", "Max |standard − flash| over dQ, dK and dV"),
               MLSYS_OUT(grad_max_abs, "", "Max |dQ|, |dK|, |dV| of the standard pass: the scale of the difference"),
               MLSYS_OUT(counted_standard_backward_hbm_bytes_per_head, "B", "Counted traffic of the standard pass"),
               MLSYS_OUT(counted_flash_backward_hbm_bytes_per_head, "B", "Counted traffic of FlashAttention's pass"),
               MLSYS_OUT(counted_flash_backward_flops_per_head, "FLOP", "Counted matmul FLOPs of FlashAttention's pass"),
               MLSYS_OUT(counted_standard_backward_flops_per_head, "FLOP", "Counted matmul FLOPs of the standard pass"));
MLSYS_DESCRIBE(BackwardReport, MLSYS_FLAT(memory),
               MLSYS_OUT(standard_backward_hbm_bytes, "B", "HBM traffic of the standard backward, all heads and layers"),
               MLSYS_OUT(flash_backward_hbm_bytes, "B", "HBM traffic of FlashAttention's backward, all heads and layers"),
               MLSYS_OUT(recompute_time_s, "s", "With a machine: extra_flops / peak FLOP/s"),
               MLSYS_OUT(read_p_time_s, "s", "With a machine: store_p_bytes / bandwidth"),
               MLSYS_OUT(hbm_capacity_bytes, "B", "With hardware: its HBM capacity"),
               MLSYS_OUT(store_p_fraction_of_hbm, "", "With hardware: store_p_bytes / HBM capacity"),
               MLSYS_OUT(executed, "", "Both backward passes were executed on one head"), MLSYS_FLAT(run));

MLSYS_DESCRIBE(SplitKvTiming, MLSYS_OUT(splits, "", "Chunks s of the keys and values"),
               MLSYS_OUT(time_s, "s", "Latency: main kernel plus merge"),
               MLSYS_OUT(main_time_s, "s", "Launch + Σ over waves of its bytes / min(B, resident blocks · in flight / L)"),
               MLSYS_OUT(merge_time_s, "s", "Merge kernel (0 for one split)"),
               MLSYS_OUT(blocks, "", "Thread blocks: batch·heads·splits"),
               MLSYS_OUT(waves, "", "⌈blocks / (SMs · resident blocks per SM)⌉"),
               MLSYS_OUT(active_sms, "", "min(blocks, SMs): SMs with work in the first wave"),
               MLSYS_OUT(resident_blocks, "", "min(blocks, SMs · blocks per SM): blocks of the first wave"),
               MLSYS_OUT(bytes_in_flight_per_block, "B", "One tile of K or V: min(tile_keys, chunk_keys)·d·bytes"),
               MLSYS_OUT(wave_bandwidth_Bps, "B/s", "First wave's HBM bandwidth: min(B, resident · in flight / L)"),
               MLSYS_OUT(fraction_of_peak, "", "wave_bandwidth_Bps / HBM bandwidth"),
               MLSYS_OUT(chunk_keys, "", "⌈N / s⌉: keys per chunk"));
MLSYS_DESCRIBE(SplitPartialResult, MLSYS_OUT(begin, "", "First key of the chunk"),
               MLSYS_OUT(end, "", "One past its last key"), MLSYS_OUT(m, "", "Max score of the chunk"),
               MLSYS_OUT(l, "", "Σ e^(x − m) over the chunk"), MLSYS_OUT(lse, "", "m + ln l"));
MLSYS_DESCRIBE(SplitKvExecuted, MLSYS_OUT(partials, "", "Each chunk's partial (empty beyond 64 splits)"),
               MLSYS_OUT(merge_max_abs_diff, "", "Max |merged − one pass| over the outputs"),
               MLSYS_OUT(merged_error_fp64, "", "Max |merged − fp64 reference|"),
               MLSYS_OUT(single_error_fp64, "", "Max |one pass − fp64 reference|"));
MLSYS_DESCRIBE(SplitKvReport, MLSYS_FLAT(chosen), MLSYS_OUT(sms, "", "Streaming multiprocessors used"),
               MLSYS_OUT(bandwidth_Bps, "B/s", "HBM bandwidth B used"),
               MLSYS_OUT(latency_s, "s", "HBM latency L used by Little's law"),
               MLSYS_OUT(blocks_per_sm, "", "Resident blocks per SM (occupancy of one block)"),
               MLSYS_OUT(smem_per_block_bytes, "B", "(query_rows + 2·tile_keys)·d·bytes"),
               MLSYS_OUT(occupancy_limiter, "", "What caps blocks_per_sm: threads, registers, smem or blocks"),
               MLSYS_OUT(saturating_blocks, "", "⌈B·L / (tile_keys·d·bytes)⌉: resident blocks that saturate HBM"),
               MLSYS_OUT(saturating_splits, "", "⌈saturating_blocks / (batch·heads)⌉: fewest splits that saturate HBM"),
               MLSYS_OUT(kv_bytes, "B", "K and V of every sequence and head: 2·batch·heads·N·d·s"),
               MLSYS_OUT(partial_bytes, "B", "Partials written and read back by the merge"),
               MLSYS_OUT(ideal_time_s, "s", "Every K and V byte once at full bandwidth"),
               MLSYS_OUT(no_split_time_s, "s", "Latency with one split"),
               MLSYS_OUT(speedup, "", "no_split_time_s / time_s"),
               MLSYS_OUT(best_splits, "", "Split count of the lowest latency in the series"),
               MLSYS_OUT(best_time_s, "s", "That latency"),
               MLSYS_OUT(best_speedup, "", "no_split_time_s / best_time_s"),
               MLSYS_OUT(series, "", "Latency for 1..min(max_splits, context) splits"),
               MLSYS_OUT(executed, "", "The split and merge were executed on one head"), MLSYS_FLAT(run));

namespace {
Field sram_field() {
  return integer_field("sram_bytes", "B", "On-chip SRAM M available to one thread block (A100: 192 KiB per SM)",
                       196608, 256, 1LL << 30);  // 192 KiB: the A100 SM's on-chip SRAM in Dao et al.
}
}  // namespace

void add_attention_calculators(Calculators& out) {
  out.add("online-softmax",
          "Online softmax (Milakov & Gimelshein 2018) over seeded scores in blocks: running max, sum and output at "
          "every step, against the fp64 softmax.",
          {integer_field("length", "", "Number of scores (keys)", 32, 1, 1024),
           integer_field("block", "", "Scores per block (at most 256 blocks)", 8, 1, 1024),
           string_field("pattern", "Score pattern: random, rising (max grows every block) or falling", "random",
                        {"random", "rising", "falling"}),
           number_field("scale", "", "Score magnitude: scores lie in [−scale, scale]", 4.0, 0.0, 1e4, true),
           integer_field("step", "", "Block whose weights are returned (clamped to the number of blocks)", 256, 1, 256),
           seed_field()},
          [](const Inputs& in) {
            return online_softmax_stepper(static_cast<int>(in.integer("length")), in.integer("block"),
                                          in.str("pattern"), static_cast<float>(in.num("scale")),
                                          static_cast<std::uint64_t>(in.integer("seed")), in.integer("step"));
          });

  out.add("softmax-merge",
          "Merge two softmax partials (max m, sum l of e^(x − m), normalized output o) into the partial of the union: "
          "the logsumexp merge of FlashAttention and split-KV decoding.",
          {number_field("m_a", "", "Max of partial a", json(), -1e4, 1e4),
           number_field("l_a", "", "Sum of e^(x − m_a) of partial a", json(), 0.0, 1e15, true),
           number_field("o_a", "", "Normalized output of partial a", 0.0, -1e15, 1e15),
           number_field("m_b", "", "Max of partial b", json(), -1e4, 1e4),
           number_field("l_b", "", "Sum of e^(x − m_b) of partial b", json(), 0.0, 1e15, true),
           number_field("o_b", "", "Normalized output of partial b", 0.0, -1e15, 1e15)},
          [](const Inputs& in) {
            const SoftmaxPartial a{in.num("m_a"), in.num("l_a"), in.num("o_a")};
            const SoftmaxPartial b{in.num("m_b"), in.num("l_b"), in.num("o_b")};
            const auto r = merge_partials(a, b);
            return SoftmaxMergeOut{r, r.merged.lse(), a.lse(), b.lse()};
          });

  out.add("flash-attention",
          "HBM traffic and FLOPs of standard attention (Algorithm 0) and FlashAttention (Algorithm 1 of Dao et al. "
          "2022) for one head, counted by executing both kernels when N <= 1024, d <= 128 and N²(d + 8) <= 2^21, by "
          "their closed forms beyond.",
          {integer_field("seq", "", "Sequence length N", 1024, 1, 1048576),
           integer_field("head_dim", "", "Head dimension d", 64, 1, 256), sram_field(), dtype_field("bf16"),
           boolean_field("causal", "Causal mask: skip the tiles above the diagonal", false),
           boolean_field("execute", "Execute the kernels when the size allows", true), seed_field(),
           boolean_field("tiles", "Also return the map of tiles (at most 4,096) in loop order", false)},
          [](const Inputs& in) {
            return flash_attention_report({in.integer("seq"), in.integer("head_dim"), in.integer("sram_bytes"),
                                           in.str("dtype"), in.boolean("causal"), in.boolean("execute"),
                                           static_cast<std::uint64_t>(in.integer("seed")), in.boolean("tiles")});
          });

  out.add("attention-backward-memory",
          "What the backward pass of attention keeps and computes: the stored N×N probabilities P versus the "
          "logsumexp (N numbers per head) and the extra Q·Kᵀ to recompute P; executed on one head when N <= 512, d "
          "<= 128 and N²(d + 8) <= 2^19.",
          with_machine({integer_field("seq", "", "Sequence length N", 8192, 1, 1048576),
                        integer_field("head_dim", "", "Head dimension d", 128, 1, 256),
                        integer_field("heads", "", "Attention heads", 32, 1, 1024),
                        integer_field("batch", "", "Sequences in the batch", 1, 1, 4096),
                        integer_field("layers", "", "Transformer layers", 1, 1, 1024), dtype_field("bf16"),
                        sram_field(), hardware_field(true),
                        boolean_field("execute", "Execute both backward passes when the size allows", true),
                        seed_field()}),
          [](const Inputs& in) {
            const std::string dtype = in.str("dtype");
            std::optional<BackwardMachine> machine;
            if (in.has("hardware") || in.has("peak_flops") || in.has("bandwidth_Bps")) {
              const auto m = machine_from(in, dtype);
              machine = BackwardMachine{m.peak_flops, m.bandwidth_Bps, std::nullopt};
              if (in.has("hardware")) machine->hbm_bytes = find_accelerator(in.str("hardware"))->hbm_bytes;
            }
            return attention_backward_report({in.integer("seq"), in.integer("head_dim"), in.integer("heads"),
                                              in.integer("batch"), in.integer("layers"), in.integer("sram_bytes"),
                                              dtype, machine, in.boolean("execute"),
                                              static_cast<std::uint64_t>(in.integer("seed"))});
          });

  out.add("split-kv",
          "Split-KV decoding (Flash-Decoding): one query per head against N cached keys in s chunks merged by "
          "logsumexp; latency vs s from SM parallelism and the merge, and the executed merge against one pass.",
          {integer_field("context", "", "Cached tokens N (keys and values)", 8192, 1, 1048576),
           integer_field("head_dim", "", "Head dimension d", 128, 1, 256),
           integer_field("heads", "", "KV heads, each a separate block", 8, 1, 1024),
           integer_field("batch", "", "Sequences decoding together", 1, 1, 1024), dtype_field("bf16"),
           integer_field("splits", "", "Chunks s of the keys and values", 16, 1, 1024),
           integer_field("max_splits", "", "Largest split count in the series", 64, 1, 1024), hardware_field(true),
           optional(integer_field("sms", "", "Streaming multiprocessors; overrides the hardware table", json(), 1,
                                  100000)),
           optional(number_field("bandwidth_Bps", "B/s", "HBM bandwidth; overrides the hardware table", json(), 0.0,
                                 1e16, true)),
           number_field("launch_s", "s", "Fixed cost per kernel (launch and tail)", 3e-6, 0.0, 1e-3),
           boolean_field("execute", "Execute the split and merge when N <= 65,536 and N·d <= 2^20", true),
           seed_field(),
           optional(number_field("latency_s", "s", "HBM latency; overrides the hardware table", json(), 0.0, 1e-3,
                                 true)),
           integer_field("tile_keys", "", "Keys per K/V tile of a block (FlashAttention-2 at d = 128: 128)", 128, 1,
                         4096),
           integer_field("query_rows", "", "Query rows a block holds in shared memory (FlashAttention-2: 64)", 64, 1,
                         1024),
           integer_field("threads_per_block", "", "Threads per block (FlashAttention-2: 4 warps)", 128, 1, 4096),
           integer_field("registers_per_thread", "", "Registers per thread", 128, 1, 1024)},
          [](const Inputs& in) {
            return split_kv_report(
                {in.integer("context"), in.integer("head_dim"), in.integer("heads"), in.integer("batch"),
                 in.str("dtype"), in.integer("splits"), in.integer("max_splits"), in.str("hardware"),
                 in.has("sms") ? std::optional<double>(static_cast<double>(in.integer("sms"))) : std::nullopt,
                 in.has("bandwidth_Bps") ? std::optional<double>(in.num("bandwidth_Bps")) : std::nullopt,
                 in.num("launch_s"), in.boolean("execute"), static_cast<std::uint64_t>(in.integer("seed")),
                 in.integer("tile_keys"), in.integer("query_rows"), in.integer("threads_per_block"),
                 in.integer("registers_per_thread"),
                 in.has("latency_s") ? std::optional<double>(in.num("latency_s")) : std::nullopt});
          });
}

}  // namespace mlsys::api
