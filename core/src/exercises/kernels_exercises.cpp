// Exercises of the kernels lesson: effective bandwidth of a strided warp access, global-memory
// traffic of a tiled matmul, time saved by fusing an elementwise chain, the share of time lost
// to launch overhead, and the largest square tile whose operands fit shared memory and whose
// accumulators fit the registers. Hardware numbers come
// from the table and are shown rounded; answers are computed from the numbers shown.
#include <algorithm>
#include <cmath>
#include <string>

#include "generators.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/kernels/coalescing.hpp"
#include "mlsys/kernels/fusion.hpp"
#include "mlsys/kernels/tile_limits.hpp"
#include "mlsys/kernels/tiled_matmul.hpp"

namespace mlsys::exercises {

namespace {

const std::string kMicro = "\xC2\xB5s";  // µs

const std::vector<std::string>& gpu_ids() {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x"};
  return ids;
}

// HBM bandwidth in TB/s, as shown (4 significant digits).
double shown_tbps(const Accelerator* hw) { return round_sig(hw->hbm_bandwidth_Bps / 1e12, 4); }

std::string dtype_of_size(int e) {
  switch (e) {
    case 1: return "1-byte (int8 or fp8)";
    case 2: return "2-byte (bf16)";
    case 4: return "4-byte (fp32)";
    default: return "8-byte (fp64)";
  }
}

Exercise coalescing_bandwidth(Rng& rng) {
  // NVIDIA GPUs only: the 32-lane warp and 32-byte sectors are NVIDIA's (AMD runs 64-lane wavefronts).
  static const std::vector<std::string> nvidia = {"a100-sxm-80gb", "h100-sxm", "h100-pcie", "h200-sxm", "b200"};
  const Accelerator* hw = find_accelerator(rng.pick(nvidia));
  const int e = rng.pick(std::vector<int>{1, 2, 4, 4, 8});
  const int stride = rng.pick(std::vector<int>{1, 2, 3, 4, 5, 6, 8, 12, 16, 32});
  const int offset = rng.pick(std::vector<int>{0, 0, 0, 1, 2, 3});
  const double tbps = shown_tbps(hw);
  const WarpRequest r = warp_request(e, stride, offset);
  Exercise ex;
  ex.title = "Effective bandwidth of a strided load";
  ex.params = {{"element_bytes", e}, {"stride", stride}, {"offset", offset}, {"bandwidth_Bps", tbps * 1e12}};
  ex.prompt = "The " + hw->name + " moves " + format_number(tbps, 4) +
              " TB/s from HBM, always in whole 32-byte sectors. In a kernel, the 32 threads of each warp load one " +
              dtype_of_size(e) + " element each: thread t reads element " +
              (offset ? std::to_string(offset) + " + " : std::string()) +
              (stride == 1 ? std::string("t") : std::to_string(stride) + "·t") +
              " of an array whose start is aligned to 256 bytes. If no sector is reused by another request, what "
              "effective bandwidth (bytes the threads asked for, per second) does the kernel reach, in GB/s?";
  ex.unit = "GB/s";
  ex.answer = tbps * 1e3 * r.efficiency;
  ex.hint = "Write down the byte address of each thread's element, (index) × element size, and count the distinct "
            "32-byte sectors (address ÷ 32, rounded down) they fall in. The useful fraction is 32 × element size "
            "divided by 32 bytes × sectors.";
  const double last = (offset + 31.0 * stride) * e;
  ex.solution = "Thread 0 reads bytes from " + format_int(offset * e) + " and thread 31 from " + format_int(last) +
                ". The 32 elements fall in " + std::to_string(r.sectors) + " distinct sectors, so the request moves " +
                format_int(r.bytes_moved) + " B to deliver " + format_int(r.bytes_used) + " useful bytes: " +
                format_number(100 * r.efficiency, 4) + "% efficiency (the ideal is " +
                std::to_string(r.min_sectors) + " sector" + (r.min_sectors == 1 ? "" : "s") + "). Effective bandwidth = " +
                format_number(tbps, 4) + " TB/s × " + format_number(r.efficiency, 4) + " = " +
                format_number(ex.answer, 4) + " GB/s.";
  require(ex, r.sectors >= r.min_sectors && r.sectors <= 32 && r.efficiency > 0 && r.efficiency <= 1,
          "the warp touches between the ideal " + std::to_string(r.min_sectors) + " and 32 sectors");
  require_from_table(ex, tbps * 1e12, hw->hbm_bandwidth_Bps, "the HBM bandwidth shown");
  reject_mistake_where_distinct(ex, tbps * 1e3 / stride, "divided by the stride, ignoring the 32-byte sectors");
  return ex;
}

Exercise tiled_matmul_traffic(Rng& rng) {
  const int m = rng.pick(std::vector<int>{1000, 1024, 2048, 3000, 4096, 6144});
  const int n = rng.pick(std::vector<int>{1024, 2048, 2500, 4096, 8192});
  const int k = rng.pick(std::vector<int>{1024, 2048, 4096, 5000});
  const int bm = rng.pick(std::vector<int>{32, 64, 128});
  const int bn = rng.pick(std::vector<int>{32, 64, 128, 256});
  const std::string dtype = rng.pick(std::vector<std::string>{"bf16", "fp32"});
  const double s = dtype_bytes(dtype);
  const MatmulTraffic t = mlsys::tiled_traffic(m, n, k, bm, bn);
  const double a_passes = std::ceil(static_cast<double>(n) / bn), b_passes = std::ceil(static_cast<double>(m) / bm);
  const double bytes = (t.global_reads + t.global_writes) * s;
  Exercise ex;
  ex.title = "Global-memory traffic of a tiled matmul";
  ex.params = {{"m", m}, {"n", n}, {"k", k}, {"bm", bm}, {"bn", bn}, {"bk", 32}, {"dtype", dtype}};
  ex.prompt = "A tiled kernel computes C = A·B with A of shape " + format_int(m) + "×" + format_int(k) + " and B of " +
              format_int(k) + "×" + format_int(n) + ", all in " + dtype + " (" + format_number(s, 2) +
              " bytes per element). Each thread block owns " + article(std::to_string(bm)) + std::to_string(bm) + "×" + std::to_string(bn) +
              " tile of C and streams the matching rows of A and columns of B through shared memory; edge tiles "
              "load only the elements inside the matrices. Without any help from caches, how many megabytes "
              "(MB, 10⁶ B) does the kernel read from and write to global memory? Give at least 4 significant "
              "figures, or the nearest MB: the write of C adds little to the total.";
  ex.unit = "MB";
  ex.answer = bytes / 1e6;
  // The write of C is 0.3 % of the total at the most-read draws (K = 5,000, 32×32 tiles): the
  // default 1 % would accept an answer that forgets it. Rounding to the nearest MB widens the
  // tolerance by 0.5 MB; forgetting C still fails, as C (at least 2 MB, and 0.3 % of the total)
  // exceeds 0.1 % of the total plus 0.5 MB.
  ex.rel_tolerance = 1e-3;
  ex.asked_decimals = 0;
  ex.hint = "Every column of blocks reads all of A, and there are ceil(N / BN) such columns; every row of blocks "
            "reads all of B, ceil(M / BM) times. Add one write of C.";
  ex.solution = "A is read ceil(" + format_int(n) + "/" + std::to_string(bn) + ") = " + format_int(a_passes) +
                " times: " + format_int(t.a_reads) + " elements; B is read ceil(" + format_int(m) + "/" +
                std::to_string(bm) + ") = " + format_int(b_passes) + " times: " + format_int(t.b_reads) +
                " elements; C is written once: " + format_int(t.global_writes) + " elements. Total " +
                format_int(t.global_reads + t.global_writes) + " × " + format_number(s, 2) + " B = " +
                format_number(ex.answer, 5) + " MB.";
  require(ex, bm <= m && bn <= n, "a tile is no larger than C");
  require_fits(ex, (1.0 * m * k + 1.0 * k * n + 1.0 * m * n) * s, find_accelerator("h100-sxm")->hbm_bytes,
               "A, B and C in one H100 SXM");
  reject_mistake_where_distinct(ex, (1.0 * m * k + 1.0 * k * n + 1.0 * m * n) * s / 1e6,
                                "counted each matrix once (the compulsory traffic), not once per pass");
  reject_mistake_where_distinct(ex, t.global_reads * s / 1e6, "left out the write of C");
  return ex;
}

Exercise fusion_saving(Rng& rng) {
  const Accelerator* hw = find_accelerator(rng.pick(gpu_ids()));
  const double tbps = shown_tbps(hw);
  // n = tokens × features from lists whose products rarely coincide (powers of two alone made
  // many draws share one n·s and so one answer).
  const int tokens = rng.pick(std::vector<int>{384, 640, 1000, 1536, 2304, 3000, 4800, 7000});
  const int features = rng.pick(std::vector<int>{2560, 3584, 4096, 5120, 7168, 8192});
  const double n = static_cast<double>(tokens) * features;
  const int ops = rng.integer(2, 8);
  const int binary = rng.integer(0, std::min(ops, 2));
  const std::string dtype = rng.pick(std::vector<std::string>{"bf16", "fp32"});
  const double s = dtype_bytes(dtype);
  const ElementwiseChain c = elementwise_chain(n, ops, binary, 1, s);
  const double bytes_us = (c.unfused_bytes - c.fused_bytes) / (tbps * 1e12) * 1e6;
  // Fusing also removes L − 1 launches; at these sizes their fixed cost is comparable to the bytes.
  const double launch_us = rng.pick(std::vector<double>{2, 3, 4, 5, 8});
  const double launches_us = (ops - 1) * launch_us;
  const double saved_us = bytes_us + launches_us;
  Exercise ex;
  ex.title = "What does fusing an elementwise chain save?";
  // The vector peak shown to the calculator keeps every kernel memory-bound, as the prompt assumes.
  const double vector_peak = hw->peak_for("fp32").value_or(1e14);
  ex.params = {{"n", n},           {"ops", ops},          {"binary_ops", binary}, {"flops_per_element", 1},
               {"dtype", dtype},   {"peak_flops", vector_peak}, {"bandwidth_Bps", tbps * 1e12},
               {"launch_overhead_s", launch_us * 1e-6}};
  ex.prompt = "On the " + hw->name + ", whose HBM moves " + format_number(tbps, 4) + " TB/s, a chain of " +
              std::to_string(ops) + " elementwise ops is applied to " + article(format_int(tokens)) + format_int(tokens) + " × " +
              format_int(features) + " activation tensor (" + format_int(n) + " " + dtype + " elements)" +
              (binary == 1   ? std::string(", and one of the ops also reads a second tensor of the same size")
               : binary > 1 ? ", and " + std::to_string(binary) + " of the ops also read a second tensor of the same size"
                            : std::string()) +
              ". Unfused, each op is its own kernel that reads its inputs from HBM and writes its result back; fused, "
              "one kernel reads the inputs once and writes the final result once. Every kernel is memory-bound, and "
              "each launch adds a fixed " + format_number(launch_us, 2) + " " + kMicro +
              " during which the GPU does no useful work. How much time does fusion save, in " + kMicro + "?";
  ex.unit = kMicro;
  ex.answer = saved_us;
  ex.hint = "Unfused bytes: each unary op moves 2·n elements and each binary op 3·n. Fused bytes: the chain's input, "
            "each extra operand and the output, once each. Divide the difference by the bandwidth, then add the "
            "launches fusion removes: L kernels become one.";
  ex.solution = "Unfused: (2·" + std::to_string(ops) + " + " + std::to_string(binary) + ") × " + format_int(n) + " × " +
                format_number(s, 2) + " B = " + format_number(c.unfused_bytes / 1e6, 5) + " MB. Fused: (2 + " +
                std::to_string(binary) + ") × " + format_int(n) + " × " + format_number(s, 2) + " B = " +
                format_number(c.fused_bytes / 1e6, 5) + " MB. Saved " +
                format_number((c.unfused_bytes - c.fused_bytes) / 1e6, 5) + " MB = 2·(L − 1)·n·s, whatever the binary ops; at " + format_number(tbps, 4) + " TB/s that is " +
                format_number(bytes_us, 4) + " " + kMicro + ". Fusion also removes " + std::to_string(ops - 1) +
                " launches × " + format_number(launch_us, 2) + " " + kMicro + " = " + format_number(launches_us, 3) +
                " " + kMicro + ". Saved in all: " + format_number(saved_us, 4) + " " + kMicro + ".";
  require_fits(ex, (2.0 + binary) * n * s, hw->hbm_bytes, "the chain's tensors in the " + hw->name);
  require(ex, c.fused_bytes < c.unfused_bytes, "fusion moves fewer bytes");
  reject_mistake(ex, c.unfused_bytes / (tbps * 1e12) * 1e6 + ops * launch_us, "gave the unfused time, not the saving");
  reject_mistake_where_distinct(ex, bytes_us, "left out the launches fusion removes");
  reject_mistake_where_distinct(ex, bytes_us + ops * launch_us, "counted L launches saved, not L − 1");
  reject_mistake_where_distinct(ex, 2.0 * ops * n * s / (tbps * 1e12) * 1e6 - c.fused_bytes / (tbps * 1e12) * 1e6 + launches_us,
                                "left out the second operands' reads from the unfused chain");
  return ex;
}

Exercise launch_fraction(Rng& rng) {
  const Accelerator* hw = find_accelerator(rng.pick(gpu_ids()));
  const double tbps = shown_tbps(hw);
  const int kernels = rng.pick(std::vector<int>{20, 50, 100, 200, 500});
  const double bytes = rng.pick(std::vector<double>{1e6, 2e6, 4e6, 1e7, 3e7, 1e8});
  const double overhead_us = rng.pick(std::vector<double>{3, 4, 5, 8, 10});
  const double work_us = bytes / (tbps * 1e12) * 1e6;
  const double lost = overhead_us / (overhead_us + work_us);
  Exercise ex;
  ex.title = "How much time do kernel launches cost?";
  ex.params = {{"kernels", kernels},
               {"bytes_per_kernel", bytes},
               {"launch_overhead_s", overhead_us * 1e-6},
               {"graph_node_s", 0},  // the prompt's fixed cost is the whole per-kernel overhead
               {"peak_flops", hw->peak_for("bf16").value_or(1e15)},
               {"bandwidth_Bps", tbps * 1e12}};
  ex.prompt = "A model step runs " + std::to_string(kernels) + " small memory-bound kernels one after another on the " +
              hw->name + ", whose HBM moves " + format_number(tbps, 4) + " TB/s. Each kernel moves " + format_number(bytes / 1e6, 3) +
              " MB, and each launch adds a fixed " + format_number(overhead_us, 3) + " " + kMicro +
              " during which the GPU does no useful work. What percentage of the step's time is lost to launch "
              "overhead? Answer in percent (a number such as 42.5).";
  ex.unit = "%";
  ex.answer = 100 * lost;
  ex.rel_tolerance = 0.01;
  ex.abs_tolerance = 0.2;
  ex.hint = "Each kernel costs overhead + bytes ÷ bandwidth. The number of kernels cancels in the fraction.";
  ex.solution = "Work per kernel = " + format_int(bytes) + " B ÷ " + format_number(tbps, 4) + "e12 B/s = " +
                format_number(work_us, 4) + " " + kMicro + "; the whole step takes " +
                format_number(kernels * (overhead_us + work_us), 4) + " " + kMicro + ". Lost fraction = " +
                format_number(overhead_us, 3) + " ÷ (" + format_number(overhead_us, 3) + " + " +
                format_number(work_us, 4) + ") = " + format_number(ex.answer, 4) + "%.";
  require(ex, ex.answer > 0 && ex.answer < 100, "the lost share lies between 0 and 100%");
  require_between(ex, work_us, 0.1, 1e4, "one kernel's memory time in \u00B5s");
  reject_mistake_where_distinct(ex, 100 * overhead_us / work_us, "divided the overhead by the work, not by the whole");
  return ex;
}

Exercise smem_tile(Rng& rng) {
  // NVIDIA GPUs from the table with per-block shared memory and register limits. Up to Hopper
  // (compute capability 9.x) the tensor-core accumulators live in registers; the B200's tcgen05
  // MMAs keep them in Tensor Memory instead, 256 KiB per SM (PTX ISA, "Tensor Memory"; NVIDIA
  // CUTLASS, tcgen05 MMA programming guide), and the thread count no longer matters.
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h100-pcie", "h200-sxm", "l4", "b200"};
  const Accelerator* hw = find_accelerator(rng.pick(ids));
  const auto row = [&](const char* key) { return hw->json().at(key).get<double>(); };
  const double smem = row("max_smem_per_block_bytes");
  const bool tmem = hw->json().at("tensor_memory_per_sm_bytes").is_number();
  const double tmem_bytes = tmem ? row("tensor_memory_per_sm_bytes") : 0;
  RegisterBudget b;
  b.threads_per_block = rng.pick(std::vector<long long>{128, 256, 384, 512});
  b.register_overhead = rng.pick(std::vector<long long>{24, 32, 40, 56});
  b.max_registers_per_thread = static_cast<long long>(row("max_registers_per_thread"));
  b.max_registers_per_block = static_cast<long long>(row("max_registers_per_block"));
  const int bk = rng.pick(std::vector<int>{32, 64});
  // Blackwell GEMMs pipeline deeper (the registers no longer hold the accumulators): 4 to 6 stages there.
  const int stages = tmem ? rng.integer(4, 6) : rng.integer(2, 4);
  const std::string dtype = rng.pick(std::vector<std::string>{"bf16", "fp32"});
  const double s = dtype_bytes(dtype);
  const double per_t = stages * 2.0 * bk * s;  // bytes of shared memory per unit of T
  const long long t_smem = max_square_tile_smem(smem, bk, stages, s);
  std::string which;
  const long long t_reg = max_square_tile_registers(b, 1, &which);
  const long long t_tmem = tmem ? max_square_tile_tensor_memory(tmem_bytes, 1) : 0;
  const long long t_acc = tmem ? t_tmem : t_reg;
  const long long share = std::min(b.max_registers_per_thread, b.max_registers_per_block / b.threads_per_block);
  const long long acc = share - b.register_overhead;
  Exercise ex;
  ex.title = "The largest tile a thread block can hold";
  ex.params = {{"bk", bk}, {"stages", stages}, {"dtype", dtype}, {"hardware", hw->id},
               {"threads_per_block", b.threads_per_block}, {"register_overhead", b.register_overhead}};
  const std::string smem_text = "Shared memory: for each of " + std::to_string(stages) + " pipeline stages it keeps a T×" +
              std::to_string(bk) + " tile of A and " + article(std::to_string(bk)) + std::to_string(bk) + "×T tile of B, in " + dtype + " (" +
              format_number(s, 2) + " bytes per element), and one block may use " + format_int(smem) + " bytes. ";
  const std::string acc_text = tmem
      ? "Accumulators: the T² fp32 accumulators live in the SM's Tensor Memory, " + format_int(tmem_bytes) +
            " bytes, 4 bytes each; each thread keeps only " + format_int(static_cast<double>(b.register_overhead)) +
            " registers for addresses and loop counters, well within its limit of " +
            format_int(static_cast<double>(b.max_registers_per_thread)) + ". "
      : "Registers: the T² fp32 accumulators are shared equally by the threads, one 32-bit register each, and "
        "every thread needs " + format_int(static_cast<double>(b.register_overhead)) +
            " more registers for operands and addresses; a thread may use at most " +
            format_int(static_cast<double>(b.max_registers_per_thread)) + " registers and a block at most " +
            format_int(static_cast<double>(b.max_registers_per_block)) + ". ";
  ex.prompt = "A square-tiled matmul kernel on the " + hw->name + " computes a T×T tile of C per block of " +
              format_int(static_cast<double>(b.threads_per_block)) + " threads. " + smem_text + acc_text +
              "What is the largest whole T for which both fit?";
  ex.unit = "";
  ex.answer = static_cast<double>(std::min(t_smem, t_acc));
  ex.integer = true;
  ex.hint = tmem ? "Shared memory: stages × 2 × T × BK × bytes per element ≤ the limit. Tensor Memory: T² × 4 bytes ≤ "
                   "its size, whatever the number of threads. Take the smaller T."
                 : "Shared memory: stages × 2 × T × BK × bytes per element ≤ the limit. Registers: each thread holds "
                   "ceil(T² / threads) accumulators plus the overhead, at most the per-thread limit and at most its "
                   "share of the block's registers (per-block limit ÷ threads). Take the smaller T.";
  const std::string smem_solution = "Shared memory: " + std::to_string(stages) + " × 2 × " + std::to_string(bk) + " × " +
                format_number(s, 2) + " = " + format_int(per_t) + " bytes per unit of T, so T ≤ " + format_int(smem) +
                " ÷ " + format_int(per_t) + ", T ≤ " + format_int(static_cast<double>(t_smem)) + ". ";
  const std::string acc_solution = tmem
      ? "Tensor Memory: T² × 4 ≤ " + format_int(tmem_bytes) + ", T² ≤ " + format_int(tmem_bytes / 4) + ", T ≤ " +
            format_int(static_cast<double>(t_tmem)) + "; the threads share no accumulators, so their number does "
            "not enter. "
      : "Registers: a thread may hold min(" + format_int(static_cast<double>(b.max_registers_per_thread)) +
            ", " + format_int(static_cast<double>(b.max_registers_per_block)) + " ÷ " +
            format_int(static_cast<double>(b.threads_per_block)) + ") = " + format_int(static_cast<double>(share)) +
            " registers, " + format_int(static_cast<double>(acc)) + " of them accumulators, so T² ≤ " +
            format_int(static_cast<double>(b.threads_per_block)) + " × " + format_int(static_cast<double>(acc)) +
            " = " + format_int(static_cast<double>(b.threads_per_block * acc)) + " and T ≤ " +
            format_int(static_cast<double>(t_reg)) + ". ";
  ex.solution = smem_solution + acc_solution +
                (t_acc <= t_smem ? (tmem ? "Tensor Memory binds" : "Registers bind") : "Shared memory binds") +
                ": T = " + format_int(ex.answer) + ".";
  const std::string cc = hw->json().at("compute_capability").get<std::string>();
  require(ex, tmem == (std::stod(cc) >= 10),
          hw->name + " (compute capability " + cc + ") accumulates in " + (tmem ? "Tensor Memory" : "registers"));
  const auto fits = [&](double t) {
    if (per_t * t > smem) return false;
    if (tmem) return t * t * 4 <= tmem_bytes && b.register_overhead <= share;
    const double per_thread = std::ceil(t * t / static_cast<double>(b.threads_per_block)) + b.register_overhead;
    return per_thread <= static_cast<double>(share);
  };
  require(ex, fits(ex.answer) && !fits(ex.answer + 1), "T fits both budgets and T + 1 does not");
  reject_mistake_where_distinct(ex, static_cast<double>(t_smem), "checked shared memory only");
  if (tmem) reject_mistake_where_distinct(ex, static_cast<double>(std::min(t_smem, t_reg)),
                                          "kept the accumulators in registers, as before Blackwell");
  else reject_mistake_where_distinct(ex, static_cast<double>(t_reg), "checked the registers only");
  return ex;
}

}  // namespace

void add_kernels_exercises(std::vector<Generator>& out) {
  out.push_back({"kernels-coalescing-bandwidth", coalescing_bandwidth});
  out.push_back({"kernels-tiled-traffic", tiled_matmul_traffic});
  out.push_back({"kernels-fusion-saving", fusion_saving});
  out.push_back({"kernels-launch-fraction", launch_fraction});
  out.push_back({"kernels-smem-tile", smem_tile});
}

}  // namespace mlsys::exercises
