// Exercises of the FlashAttention lesson: the online-softmax running sum after a block, the HBM
// bytes of standard attention, FlashAttention's block size and passes for an SRAM size, the
// memory saved by recomputing P in the backward pass, the logsumexp merge of two partials,
// and the split count that fills a GPU in split-KV decoding. Numbers shown are the numbers
// used; params hold them as calculator inputs (flash-attention, softmax-merge,
// attention-backward-memory, split-kv) so tests can check every answer.
#include <algorithm>
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys::exercises {

namespace {

// A number with two decimals, as shown and as used.
double two_decimals(double x) { return std::round(x * 100.0) / 100.0; }
std::string fixed2(double x) {
  const double r = two_decimals(x);
  std::string s = format_number(std::fabs(r), 6);
  if (s.find('.') == std::string::npos) s += ".00";
  else if (s.size() - s.find('.') == 2) s += "0";
  return (r < 0 ? "−" : "") + s;
}

Exercise online_rescale(Rng& rng) {
  const double m_old = two_decimals(1.0 + 3.0 * rng.uniform());
  const double l_old = round_sig(1.0 + 9.0 * rng.uniform(), 3);
  // Every draw raises the maximum, so the old sum must be rescaled (the step the exercise
  // teaches): the block's top score lies 0.10 to 2.50 above m, at a drawn position, and the other
  // two anywhere from m − 3 up to that top score.
  std::vector<double> block(3);
  const double top = two_decimals(m_old + 0.1 + 2.4 * rng.uniform());
  const int at = rng.integer(0, 2);
  for (int i = 0; i < 3; ++i)
    block[i] = i == at ? top : two_decimals(m_old - 3.0 + (top - m_old + 3.0) * rng.uniform());
  const double block_max = *std::max_element(block.begin(), block.end());
  const double m_new = std::max(m_old, block_max);
  double block_sum = 0;  // Σ e^(x − block_max): the block's own partial
  for (double x : block) block_sum += exp_det(x - block_max);
  double sum_new = 0;
  for (double x : block) sum_new += exp_det(x - m_new);
  const double rescale = exp_det(m_old - m_new);
  Exercise e;
  e.title = "The running sum after one more block";
  e.params = {{"m_a", m_old}, {"l_a", l_old}, {"m_b", block_max}, {"l_b", block_sum}};
  e.prompt = "An online softmax has read part of a row of scores. Its running maximum is m = " + fixed2(m_old) +
             " and its running sum is l = Σ e^(x − m) = " + format_number(l_old, 3) +
             ". The next block holds the scores " + fixed2(block[0]) + ", " + fixed2(block[1]) + " and " +
             fixed2(block[2]) + ". What is the running sum after this block, taken relative to the new maximum?";
  e.unit = "";
  e.answer = l_old * rescale + sum_new;
  e.hint = "First the new maximum: m' = max(m, largest score of the block). Then rescale the old sum by e^(m − m') "
           "and add e^(x − m') for each new score.";
  e.solution = "m' = max(" + fixed2(m_old) + ", " + fixed2(block_max) + ") = " + fixed2(m_new) +
               ": the block raised the maximum. The old sum is rescaled by e^(" + fixed2(m_old) + " − " + fixed2(m_new) + ") = " +
               format_number(rescale, 4) + ", giving " + format_number(l_old * rescale, 4) +
               "; the block adds " + format_number(sum_new, 4) + ". Running sum l' = " + format_number(e.answer, 4) + ".";
  require(e, e.answer >= 1, "the running sum counts the maximum's own e\u2070 = 1 at least");
  require(e, m_new > m_old && rescale < 1, "the block raises the maximum, so the old sum is rescaled");
  reject_mistake_where_distinct(e, l_old + sum_new, "added the block without rescaling the old sum");
  reject_mistake_where_distinct(e, l_old + block_sum, "added the block's sum relative to its own maximum");
  return e;
}

Exercise standard_hbm(Rng& rng) {
  // N a multiple of 1,024 up to 24,576, where the 4Nd terms are still 0.26% of the total at d = 64.
  const int n = 1024 * rng.integer(1, 24);
  const int d = rng.pick(std::vector<int>{64, 80, 96, 128});
  const std::string dtype = rng.pick(std::vector<std::string>{"fp32", "bf16", "fp16"});
  const double s = dtype_bytes(dtype);
  const double elements = 4.0 * n * n + 4.0 * n * d;
  Exercise e;
  e.title = "HBM traffic of standard attention";
  e.params = {{"seq", n}, {"head_dim", d}, {"dtype", dtype}, {"execute", false}};
  e.prompt = "Standard attention for one head with N = " + format_int(n) + " tokens and head dimension d = " +
             std::to_string(d) + " in " + dtype + " runs three kernels: S = QKᵀ (read Q, K; write S), P = "
             "softmax(S) (read S; write P), O = PV (read P, V; write O). How many MB cross HBM in all (1 MB = 10⁶ B)?";
  e.unit = "MB";
  e.answer = elements * s / 1e6;
  // The 4Nd terms are d/(N + d) of the total (0.26% at N = 24,576, d = 64): a 1% tolerance would
  // accept 4N² alone, so the answer must be within 0.1%.
  e.rel_tolerance = 0.001;
  e.hint = "Count elements: Q, K, V, O are N×d each and cross once; S and P are N×N and each is written once and "
           "read once. Multiply by " + format_number(s, 2) + " bytes per element.";
  e.solution = "Elements = 4·N·d + 4·N² = 4 × " + format_int(n) + " × " + std::to_string(d) + " + 4 × " +
               format_int(n) + "² = " + format_int(elements) + ", of which the N² terms from S and P are " +
               format_number(100.0 * 4.0 * n / (4.0 * n + 4.0 * d), 3) + "%; bytes = " + format_int(elements) + " × " +
               format_number(s, 2) + " = " + format_number(e.answer, 4) + " MB.";
  require_fits(e, 2.0 * n * n * s, find_accelerator("h100-sxm")->hbm_bytes, "S and P in one H100 SXM");
  reject_mistake(e, 4.0 * n * n * s / 1e6, "counted S and P and left out Q, K, V and O");
  reject_mistake(e, (2.0 * n * n + 4.0 * n * d) * s / 1e6, "counted S and P once each instead of written and read");
  return e;
}

Exercise flash_passes(Rng& rng) {
  const int kib = rng.pick(std::vector<int>{48, 64, 96, 100, 128, 164, 192, 227});
  const int d = rng.pick(std::vector<int>{64, 128});
  const std::string dtype = rng.pick(std::vector<std::string>{"fp32", "bf16", "fp16"});
  const int n = rng.pick(std::vector<int>{2048, 4096, 8192, 16384, 32768});
  const double s = dtype_bytes(dtype);
  const long long m = static_cast<long long>(kib * 1024 / s);
  const long long bc = (m + 4LL * d - 1) / (4LL * d);
  const long long tc = (n + bc - 1) / bc;
  Exercise e;
  e.title = "FlashAttention's blocks and passes";
  e.params = {{"seq", n}, {"head_dim", d}, {"sram_bytes", kib * 1024}, {"dtype", dtype}, {"execute", false}};
  e.prompt = "FlashAttention (Algorithm 1 of Dao et al.) runs with " + std::to_string(kib) + " KiB of on-chip SRAM per "
             "thread block, elements in " + dtype + ", head dimension d = " + std::to_string(d) + " and N = " +
             format_int(n) + " tokens. It sets B_c = ⌈M/(4d)⌉ keys per K/V tile, with M the SRAM size in elements, "
             "and streams all of Q and O from HBM once per K/V tile. How many such passes, T_c, does it make?";
  e.unit = "";
  e.answer = static_cast<double>(tc);
  e.integer = true;
  e.hint = "M = SRAM bytes ÷ bytes per element. Then B_c = ⌈M/(4d)⌉ and T_c = ⌈N/B_c⌉.";
  e.solution = "M = " + format_int(kib * 1024) + " B ÷ " + format_number(s, 2) + " = " + format_int(m) +
               " elements; B_c = ⌈" + format_int(m) + "/" + std::to_string(4 * d) + "⌉ = " + format_int(bc) +
               " (and B_r = min(B_c, d) = " + format_int(std::min<long long>(bc, d)) + "); T_c = ⌈" + format_int(n) +
               "/" + format_int(bc) + "⌉ = " + format_int(tc) + " passes.";
  double largest_smem = 0;  // the most shared memory one thread block may have on a GPU of the table
  for (const Accelerator& a : accelerators())
    if (a.json().contains("max_smem_per_block_bytes") && a.json()["max_smem_per_block_bytes"].is_number())
      largest_smem = std::max(largest_smem, a.json()["max_smem_per_block_bytes"].get<double>());
  require(e, kib * 1024.0 <= largest_smem, std::to_string(kib) + " KiB is at most the " +
                                               format_int(largest_smem) + " B a block may have on a GPU of the table");
  require(e, bc >= 1 && bc <= n && tc >= 1, "each K/V tile holds between one key and the whole sequence");
  reject_mistake_where_distinct(e, std::ceil(static_cast<double>(n) / std::ceil(kib * 1024.0 / (4.0 * d))),
                                "took M in bytes instead of elements");
  return e;
}

Exercise backward_saving(Rng& rng) {
  // Standard attention must hold P to keep it: draws whose P outgrows one H100 SXM (80 GB)
  // are drawn again.
  int n = 0, heads = 0, batch = 0;
  double p_bytes = 0;
  do {
    n = 1024 * rng.integer(2, 32);
    heads = rng.pick(std::vector<int>{8, 12, 16, 24, 32, 40, 48, 64});
    batch = rng.pick(std::vector<int>{1, 2, 3, 4, 6, 8});
    p_bytes = static_cast<double>(batch) * heads * n * static_cast<double>(n) * 2.0;
  } while (p_bytes > find_accelerator("h100-sxm")->hbm_bytes);
  const double l_bytes = static_cast<double>(batch) * heads * n * 4.0;
  Exercise e;
  e.title = "Memory saved by recomputing P";
  e.params = {{"seq", n}, {"head_dim", 128}, {"heads", heads}, {"batch", batch}, {"layers", 1},
              {"dtype", "bf16"}, {"execute", false}};
  e.prompt = "One attention layer has " + std::to_string(heads) + " heads and processes a batch of " +
             counted(batch, "sequence") + " of N = " + format_int(n) +
             " tokens in bf16. Standard attention keeps the probabilities P (N×N per head, bf16) for the backward "
             "pass; FlashAttention keeps only the logsumexp L (N numbers per head, fp32) and recomputes P. How many "
             "GB does that save in this layer (1 GB = 10⁹ B)?";
  e.unit = "GB";
  e.answer = (p_bytes - l_bytes) / 1e9;
  e.hint = "P takes batch × heads × N² × 2 bytes; L takes batch × heads × N × 4 bytes. Subtract.";
  e.solution = "P: " + std::to_string(batch) + " × " + std::to_string(heads) + " × " + format_int(n) + "² × 2 = " +
               format_number(p_bytes / 1e9, 5) + " GB; L: " + std::to_string(batch) + " × " + std::to_string(heads) +
               " × " + format_int(n) + " × 4 = " + format_number(l_bytes / 1e6, 4) + " MB, a factor N·2/4 = " +
               format_int(n / 2) + " smaller. Saved: " + format_number(e.answer, 4) + " GB.";
  require_fits(e, p_bytes, find_accelerator("h100-sxm")->hbm_bytes, "P, which standard attention keeps, in one H100 SXM");
  reject_mistake(e, 2 * e.answer, "stored P in fp32 (4 bytes) instead of bf16");
  if (batch > 1) reject_mistake(e, e.answer / batch, "left out the batch");
  return e;
}

Exercise lse_merge(Rng& rng) {
  const double lse_a = two_decimals(2.0 + 6.0 * rng.uniform());
  const double lse_b = two_decimals(lse_a - 2.0 + 4.0 * rng.uniform());
  const double o_a = two_decimals(0.1 + 0.8 * rng.uniform());
  const double o_b = two_decimals(0.1 + 0.8 * rng.uniform());
  const double top = std::max(lse_a, lse_b);
  const double wa_raw = exp_det(lse_a - top), wb_raw = exp_det(lse_b - top);
  const double wa = wa_raw / (wa_raw + wb_raw), wb = wb_raw / (wa_raw + wb_raw);
  Exercise e;
  e.title = "Merge two partial softmaxes";
  // A partial with max m = lse and sum l = 1 is the same partial as (m, l) with m + ln l = lse.
  e.params = {{"m_a", lse_a}, {"l_a", 1.0}, {"o_a", o_a}, {"m_b", lse_b}, {"l_b", 1.0}, {"o_b", o_b}};
  e.prompt = "Split-KV decoding cut one query's keys into two chunks. Chunk A returned logsumexp " + fixed2(lse_a) +
             " and normalized output " + fixed2(o_a) + " (one coordinate); chunk B returned logsumexp " +
             fixed2(lse_b) + " and output " + fixed2(o_b) +
             ". What is that coordinate of the attention output over all the keys?";
  e.unit = "";
  e.answer = wa * o_a + wb * o_b;
  e.rel_tolerance = 0.005;
  e.abs_tolerance = 0.002;
  e.hint = "Each chunk's weight is its share of the total e^lse: w_A = e^(lse_A) / (e^(lse_A) + e^(lse_B)). Subtract "
           "the larger lse before exponentiating.";
  e.solution = "w_A = 1 / (1 + e^(" + fixed2(lse_b) + " − " + fixed2(lse_a) + ")) = " + format_number(wa, 4) +
               ", w_B = " + format_number(wb, 4) + "; output = " + format_number(wa, 4) + " × " + fixed2(o_a) + " + " +
               format_number(wb, 4) + " × " + fixed2(o_b) + " = " + format_number(e.answer, 4) + ".";
  require(e, e.answer >= std::min(o_a, o_b) - 1e-12 && e.answer <= std::max(o_a, o_b) + 1e-12,
          "the merged output lies between the two chunks' outputs");
  reject_mistake_where_distinct(e, (o_a + o_b) / 2, "averaged the two outputs, ignoring their weights");
  reject_mistake_where_distinct(e, o_a + o_b, "added the two normalized outputs");
  return e;
}

// Little's law on the decode kernel: B·L bytes must be in flight to saturate HBM, and each
// block keeps one tile of K or V (128 keys · d · 2 bytes) in flight; the smallest s with
// batch·heads·s blocks holding that much is the answer (the split-kv calculator's
// saturating_splits). Only GPUs with a measured HBM latency in the table.
Exercise split_count(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm"};
  const Accelerator* hw = find_accelerator(rng.pick(ids));
  const double latency = hw->json()["hbm_latency_s"].get<double>();
  const double bw = hw->hbm_bandwidth_Bps;
  const int batch = rng.integer(1, 3);
  const int heads = rng.pick(std::vector<int>{1, 2, 4, 8});
  const int d = rng.pick(std::vector<int>{64, 128});
  const int ctx = rng.pick(std::vector<int>{32768, 65536, 131072});
  // FlashAttention-2's split-KV dispatch (run_mha_fwd_splitkv_dispatch): 256 keys per tile up to
  // d = 64, 128 up to d = 128, so a tile of K or V is 32 KiB of bf16 either way.
  const int kTile = d <= 64 ? 256 : 128;
  constexpr int kBytes = 2;
  const double in_flight = static_cast<double>(kTile) * d * kBytes;
  const double needed = bw * latency;  // bytes in flight that saturate HBM
  const double blocks = std::ceil(needed / in_flight - 1e-9);
  const int groups = batch * heads;
  const int s = static_cast<int>(std::ceil(blocks / groups - 1e-9));
  Exercise e;
  e.title = "Splits that saturate HBM";
  e.params = {{"hardware", hw->id}, {"batch", batch}, {"heads", heads}, {"head_dim", d}, {"context", ctx},
              {"splits", s}, {"tile_keys", kTile}, {"dtype", "bf16"}, {"execute", false}};
  e.prompt = "Decoding one token for a batch of " + std::to_string(batch) + " sequence" + (batch > 1 ? "s" : "") +
             " with " + std::to_string(heads) + " KV head" + (heads > 1 ? "s" : "") + " of dimension " +
             std::to_string(d) + " and " + article(format_int(ctx)) + format_int(ctx) + "-token bf16 KV cache on the " + hw->name +
             " (HBM bandwidth " + format_number(bw / 1e12, 3) + " TB/s, latency " +
             format_number(latency * 1e9, 4) + " ns). Each thread block of the split-KV kernel keeps one tile of " +
             std::to_string(kTile) + " keys of K or V in flight. What is the smallest number of KV splits s for "
             "which the blocks keep enough bytes in flight to saturate HBM?";
  e.unit = "";
  e.answer = s;
  e.integer = true;
  e.hint = "Little's law: bandwidth × latency bytes must be in flight. Divide by one block's tile, then by the "
           "batch × heads blocks each split adds.";
  e.solution = "B·L = " + format_number(bw / 1e12, 3) + " TB/s × " + format_number(latency * 1e9, 4) + " ns = " +
               format_number(needed / 1024.0, 4) + " KiB in flight. One tile is " + std::to_string(kTile) + " × " +
               std::to_string(d) + " × 2 B = " + format_number(in_flight / 1024.0, 4) + " KiB, so ⌈" +
               format_number(needed / in_flight, 4) + "⌉ = " + format_int(blocks) + " blocks are needed. Each split "
               "gives " + std::to_string(groups) + " block" + (groups > 1 ? "s" : "") + ", so s = ⌈" +
               format_int(blocks) + " / " + std::to_string(groups) + "⌉ = " + std::to_string(s) +
               ". Fewer splits leave the kernel latency-bound; more only share the same bandwidth.";
  require(e, s * kTile <= ctx, "every split holds at least one tile of the cache");
  if (groups > 1) reject_mistake(e, blocks, "gave the blocks, forgetting that each split adds batch \u00D7 heads of them");
  const double blocks_if_elements = std::ceil(needed / (static_cast<double>(kTile) * d) - 1e-9);
  reject_mistake_where_distinct(e, std::ceil(blocks_if_elements / groups - 1e-9),
                                "counted a tile's elements as its bytes (left out the 2 B of bf16)");
  return e;
}

}  // namespace

void add_attention_exercises(std::vector<Generator>& out) {
  out.push_back({"attention-online-rescale", online_rescale});
  out.push_back({"attention-standard-hbm", standard_hbm});
  out.push_back({"attention-flash-passes", flash_passes});
  out.push_back({"attention-backward-saving", backward_saving});
  out.push_back({"attention-lse-merge", lse_merge});
  out.push_back({"attention-split-count", split_count});
}

}  // namespace mlsys::exercises
