// Exercises of the gpu-architecture lesson: occupancy and its limiter, the register budget for
// a target occupancy, wave utilization of a tiled matmul, bytes in flight by Little's law, warps
// needed to hide memory latency, and the step-time effect of moving matmuls to tensor cores.
// Hardware numbers come from the table and are shown rounded; answers use the numbers shown.
#include <algorithm>
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/gpu/occupancy.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys::exercises {

namespace {

double field(const Accelerator& a, const char* key) { return a.json().at(key).get<double>(); }

// A limit as the lesson and the occupancy figure name it (the calculator's ids are terse).
std::string limit_name(const std::string& limiter) {
  if (limiter == "threads") return "warp slots";
  if (limiter == "smem") return "shared memory";
  if (limiter == "blocks") return "the block limit";
  return limiter;  // "registers"
}

// The CUDA occupancy limits of a table row (the NVIDIA rows this file draws from have them all).
SmLimits limits_of(const Accelerator& a) {
  SmLimits s;
  s.warp_size = static_cast<int>(field(a, "warp_size"));
  s.max_threads_per_block = static_cast<int>(field(a, "max_threads_per_block"));
  s.max_warps_per_sm = static_cast<int>(field(a, "max_warps_per_sm"));
  s.max_blocks_per_sm = static_cast<int>(field(a, "max_blocks_per_sm"));
  s.registers_per_sm = static_cast<int>(field(a, "registers_per_sm"));
  s.max_registers_per_block = static_cast<int>(field(a, "max_registers_per_block"));
  s.max_registers_per_thread = static_cast<int>(field(a, "max_registers_per_thread"));
  s.register_alloc_unit = static_cast<int>(field(a, "register_alloc_unit"));
  s.sub_partitions = static_cast<int>(field(a, "sm_sub_partitions"));
  s.smem_per_sm_bytes = static_cast<long long>(field(a, "smem_per_sm_bytes"));
  s.max_smem_per_block_bytes = static_cast<long long>(field(a, "max_smem_per_block_bytes"));
  s.smem_alloc_unit_bytes = static_cast<long long>(field(a, "smem_alloc_unit_bytes"));
  s.smem_reserved_per_block_bytes = static_cast<long long>(field(a, "smem_reserved_per_block_bytes"));
  return s;
}

std::string rules_text(const Accelerator& a, const SmLimits& s) {
  return "Each SM of the " + a.name + " holds at most " + format_int(s.max_warps_per_sm) + " warps of " +
         format_int(s.warp_size) + " threads and " + format_int(s.max_blocks_per_sm) + " blocks, and has " +
         format_int(s.registers_per_sm) + " registers and " + format_int(static_cast<double>(s.smem_per_sm_bytes)) +
         " bytes of shared memory. Registers are given to whole warps in units of " +
         format_int(s.register_alloc_unit) + ", and the register file is split between " +
         format_int(s.sub_partitions) + " warp schedulers, so the number of warps it can hold is rounded down to a "
         "multiple of " + format_int(s.sub_partitions) + ". Each block's shared memory gets a " +
         format_int(static_cast<double>(s.smem_reserved_per_block_bytes)) +
         "-byte system reserve added and is rounded up to a multiple of " +
         format_int(static_cast<double>(s.smem_alloc_unit_bytes)) + " bytes.";
}

// An NVIDIA GPU that has measured memory latencies in the table, with its numbers as shown.
struct MemoryChip {
  const Accelerator* hw;
  double bw_tbps;     // HBM bandwidth, TB/s, 4 significant digits
  double latency_ns;  // HBM latency, ns, 3 significant digits
  int sms;
};

MemoryChip pick_memory_chip(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "h100-pcie"};
  const Accelerator* hw = find_accelerator(rng.pick(ids));
  return {hw, round_sig(hw->hbm_bandwidth_Bps / 1e12, 4), round_sig(field(*hw, "hbm_latency_s") * 1e9, 3),
          static_cast<int>(field(*hw, "sms"))};
}

Exercise occupancy_exercise(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm"};
  static const std::vector<int> threads = {64, 96, 128, 160, 192, 256, 384, 512, 640, 768, 1024};
  static const std::vector<int> registers = {16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128, 168, 255};
  static const std::vector<int> smem_kib = {0, 0, 0, 2, 4, 8, 12, 16, 24, 32, 40, 48, 64, 96, 100, 160};
  const Accelerator* hw = find_accelerator(rng.pick(ids));
  const SmLimits s = limits_of(*hw);
  KernelResources k{};
  Occupancy o{};
  for (;;) {  // draw until the block can launch at all
    k = {rng.pick(threads), rng.pick(registers), 1024LL * rng.pick(smem_kib)};
    if (k.smem_per_block_bytes > s.max_smem_per_block_bytes) continue;
    o = occupancy(s, k);
    if (o.launch_error.empty()) break;
  }
  Exercise e;
  e.title = "Occupancy and its limiter";
  e.params = {{"hardware", hw->id}, {"threads_per_block", k.threads_per_block},
              {"registers_per_thread", k.registers_per_thread}, {"smem_per_block_bytes", k.smem_per_block_bytes}};
  e.prompt = rules_text(*hw, s) + " A kernel is launched with " + format_int(k.threads_per_block) +
             " threads per block, " + format_int(k.registers_per_thread) + " registers per thread and " +
             format_int(static_cast<double>(k.smem_per_block_bytes)) +
             " bytes of shared memory per block. What occupancy does it reach: resident warps as a percentage of the " +
             format_int(s.max_warps_per_sm) + " an SM can hold? Answer in percent.";
  e.unit = "%";
  e.answer = 100.0 * o.occupancy;
  e.rel_tolerance = 0.01;
  e.abs_tolerance = 0.1;
  e.hint = "Work out how many blocks each resource allows on its own: warp slots (64 ÷ warps per block), registers "
           "(warps the register file holds ÷ warps per block), shared memory (per-SM bytes ÷ per-block bytes) and the "
           "block limit. The smallest wins; multiply it by the warps per block.";
  const std::string wpb = format_int(o.warps_per_block);
  e.solution = "Warps per block = ceil(" + format_int(k.threads_per_block) + " / 32) = " + wpb +
               ". Warp slots allow " + format_int(s.max_warps_per_sm) + " ÷ " + wpb + " → " +
               format_int(o.blocks_by_threads) + " blocks. Registers: " + format_int(k.registers_per_thread) +
               " × 32 = " + format_int(k.registers_per_thread * 32.0) + " per warp, rounded up to " +
               format_int(o.registers_per_warp) + "; each scheduler's " +
               format_int(s.registers_per_sm / s.sub_partitions) + " registers hold " +
               format_int((s.registers_per_sm / s.sub_partitions) / o.registers_per_warp) + " warps, so the SM holds " +
               format_int((s.registers_per_sm / s.sub_partitions) / o.registers_per_warp * s.sub_partitions) +
               " warps → " + format_int(o.blocks_by_registers) + " blocks. Shared memory: " +
               format_int(static_cast<double>(k.smem_per_block_bytes)) + " + " +
               format_int(static_cast<double>(s.smem_reserved_per_block_bytes)) + " rounded up to " +
               format_int(static_cast<double>(o.smem_per_block_bytes)) + " bytes → " +
               format_int(static_cast<double>(s.smem_per_sm_bytes)) + " ÷ " +
               format_int(static_cast<double>(o.smem_per_block_bytes)) + " → " + format_int(o.blocks_by_smem) +
               " blocks. Block limit: " + format_int(o.blocks_by_blocks) + ". The smallest is " +
               format_int(o.blocks_per_sm) + " (limited by " + limit_name(o.limiter) + "), so " + format_int(o.blocks_per_sm) +
               " × " + wpb + " = " + format_int(o.active_warps) + " warps: occupancy " + format_int(o.active_warps) +
               " / " + format_int(s.max_warps_per_sm) + " = " + format_number(e.answer, 4) + "%.";
  require(e, k.threads_per_block <= s.max_threads_per_block && k.registers_per_thread <= s.max_registers_per_thread &&
                 k.smem_per_block_bytes <= s.max_smem_per_block_bytes && o.blocks_per_sm >= 1,
          "one block fits the SM's per-block limits and launches");
  require(e, o.active_warps <= s.max_warps_per_sm, "the resident warps fit the SM's " + format_int(s.max_warps_per_sm));
  // Without the allocation rules: registers and shared memory divided as if they came byte by
  // byte (no 256-register units, no per-scheduler split, no 1 KiB reserve).
  int naive = std::min({o.blocks_by_threads, o.blocks_by_blocks,
                        s.registers_per_sm / (k.registers_per_thread * k.threads_per_block)});
  if (k.smem_per_block_bytes > 0)
    naive = std::min(naive, static_cast<int>(s.smem_per_sm_bytes / k.smem_per_block_bytes));
  reject_mistake_where_distinct(e, 100.0 * naive * o.warps_per_block / s.max_warps_per_sm,
                                "divided registers and shared memory without the allocation rules");
  return e;
}

Exercise max_registers(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm"};
  static const std::vector<int> threads = {128, 256, 384, 512, 1024};
  const Accelerator* hw = find_accelerator(rng.pick(ids));
  const SmLimits s = limits_of(*hw);
  const int t = rng.pick(threads), wpb = t / s.warp_size;
  const int blocks = rng.integer(1, s.max_warps_per_sm / wpb);
  const int warps = blocks * wpb;                        // target resident warps, a multiple of 4
  const int per_partition = warps / s.sub_partitions;    // warps each scheduler must hold
  const int regs_per_partition = s.registers_per_sm / s.sub_partitions;
  const int units = regs_per_partition / s.register_alloc_unit / per_partition;  // 256-register units per warp
  const int per_thread = std::min(s.max_registers_per_thread, units * s.register_alloc_unit / s.warp_size);
  Exercise e;
  e.title = "A register budget for a target occupancy";
  e.params = {{"hardware", hw->id}, {"threads_per_block", t}, {"registers_per_thread", per_thread},
              {"smem_per_block_bytes", 0}};
  e.prompt = "On the " + hw->name + ", a kernel runs blocks of " + format_int(t) + " threads and needs " +
             format_int(blocks) + (blocks == 1 ? " block" : " blocks") + " resident on every SM (" + format_int(warps) +
             " warps) to hide its memory latency. The SM's " + format_int(s.registers_per_sm) +
             " registers are split evenly between " + format_int(s.sub_partitions) +
             " warp schedulers; each warp lives on one scheduler and gets its registers in units of " +
             format_int(s.register_alloc_unit) + ". A thread may use at most " +
             format_int(s.max_registers_per_thread) +
             " registers. Ignoring shared memory, what is the largest number of registers per thread the compiler may "
             "use (the value you would give __launch_bounds__ or -maxrregcount)?";
  e.unit = "";
  e.answer = per_thread;
  e.integer = true;
  // Budgets come in steps of 8 registers per thread (256 per warp): eleven values in all, and
  // 32 covers every target from 52 to 64 warps, so one answer is common whatever the draw.
  e.small_answer_set = true;
  e.hint = "Spread the warps over the schedulers: each must hold warps ÷ 4 of them within its share of the register "
           "file. Divide that share by the warps to get each warp's budget, round it down to a whole number of "
           "256-register units, then divide by 32 threads.";
  e.solution = format_int(warps) + " warps ÷ " + format_int(s.sub_partitions) + " schedulers = " +
               format_int(per_partition) + " warps each. Each scheduler has " + format_int(regs_per_partition) +
               " registers, so a warp may take " + format_int(regs_per_partition) + " ÷ " + format_int(per_partition) +
               " = " + format_number(static_cast<double>(regs_per_partition) / per_partition, 4) +
               ", rounded down to whole units of " + format_int(s.register_alloc_unit) + ": " +
               format_int(units * s.register_alloc_unit) + " registers per warp, " +
               format_int(units * s.register_alloc_unit / s.warp_size) + " per thread" +
               (units * s.register_alloc_unit / s.warp_size > s.max_registers_per_thread
                    ? ", capped at the per-thread maximum of " + format_int(s.max_registers_per_thread)
                    : std::string()) +
               ". Answer: " + format_int(per_thread) + " registers per thread.";
  require(e, warps <= s.max_warps_per_sm, "the target warps fit the SM's " + format_int(s.max_warps_per_sm));
  require(e, occupancy(s, {t, per_thread, 0}).active_warps >= warps,
          "at " + format_int(per_thread) + " registers per thread the occupancy model keeps " + format_int(warps) + " warps");
  require(e, per_thread == s.max_registers_per_thread ||
                 occupancy(s, {t, per_thread + s.register_alloc_unit / s.warp_size, 0}).active_warps < warps,
          "one more allocation unit per warp would lose the target");
  reject_mistake_where_distinct(e, std::min(s.max_registers_per_thread, s.registers_per_sm / (warps * s.warp_size)),
                                "divided the register file evenly, ignoring the units and the schedulers");
  return e;
}

Exercise wave_utilization(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "b200", "h100-pcie", "l4"};
  static const std::vector<int> dims = {1024, 1536, 2048, 2560, 3072, 4096, 5120, 6144, 8192};
  struct Tile { int m, n; };
  static const std::vector<Tile> tiles = {{128, 128}, {128, 256}, {256, 128}};
  const Accelerator* hw = find_accelerator(rng.pick(ids));
  const int sms = static_cast<int>(field(*hw, "sms"));
  const int m = rng.pick(dims), n = rng.pick(dims);
  const Tile tile = rng.pick(tiles);
  const int per_sm = rng.integer(1, 2);
  const long long bm = (m + tile.m - 1) / tile.m, bn = (n + tile.n - 1) / tile.n, blocks = bm * bn;
  const long long slots = static_cast<long long>(sms) * per_sm, waves = (blocks + slots - 1) / slots;
  Exercise e;
  e.title = "Wave quantization of a tiled matmul";
  e.params = {{"hardware", hw->id}, {"blocks", blocks}, {"blocks_per_sm", per_sm}};
  e.prompt = "A matmul with an output of " + format_int(m) + " × " + format_int(n) + " is split into " +
             format_int(tile.m) + " × " + format_int(tile.n) +
             " tiles, one thread block per tile, and every tile takes the same time. The " + hw->name + " has " +
             format_int(sms) + " SMs, and " + format_int(per_sm) + (per_sm == 1 ? " block fits" : " blocks fit") +
             " on each at once. What share of the SMs' block slots is busy over the whole kernel, in percent?";
  e.unit = "%";
  e.answer = 100.0 * static_cast<double>(blocks) / static_cast<double>(waves * slots);
  e.rel_tolerance = 0.01;
  e.abs_tolerance = 0.1;
  e.hint = "Count the tiles (round each dimension up), the slots (SMs × blocks per SM) and the waves (tiles ÷ slots, "
           "rounded up). Utilization is tiles ÷ (waves × slots).";
  e.solution = "Tiles = ceil(" + format_int(m) + "/" + format_int(tile.m) + ") × ceil(" + format_int(n) + "/" +
               format_int(tile.n) + ") = " + format_int(bm) + " × " + format_int(bn) + " = " + format_int(blocks) +
               ". Slots = " + format_int(sms) + " × " + format_int(per_sm) + " = " + format_int(slots) +
               ", so the grid runs in ceil(" + format_int(blocks) + " / " + format_int(slots) + ") = " +
               format_int(waves) + (waves == 1 ? " wave" : " waves") + ", the last holding " +
               format_int(blocks - (waves - 1) * slots) + " blocks. Utilization = " + format_int(blocks) + " / (" +
               format_int(waves) + " × " + format_int(slots) + ") = " + format_number(e.answer, 4) + "%.";
  require_whole(e, static_cast<double>(waves), "the waves");
  require(e, e.answer > 0 && e.answer <= 100, "the busy share lies in (0, 100]%");
  reject_mistake_where_distinct(e, 100.0 * static_cast<double>(blocks - (waves - 1) * slots) / static_cast<double>(slots),
                                "gave the last wave's fill, not the whole kernel's");
  return e;
}

Exercise bytes_in_flight(Rng& rng) {
  const MemoryChip c = pick_memory_chip(rng);
  static const std::vector<int> percents = {50, 60, 70, 80, 90, 100};
  const int pct = rng.pick(percents);
  const double target_tbps = c.bw_tbps * pct / 100.0;
  const double per_sm_bytes = target_tbps * 1e12 * c.latency_ns * 1e-9 / c.sms;
  Exercise e;
  e.title = "Bytes in flight by Little's law";
  e.params = {{"hardware", c.hw->id}, {"bandwidth_Bps", target_tbps * 1e12}, {"latency_s", c.latency_ns * 1e-9}};
  e.prompt = "The " + c.hw->name + " has " + format_int(c.sms) + " SMs and " + format_number(c.bw_tbps, 4) +
             " TB/s of HBM bandwidth, and a load from HBM takes about " + format_number(c.latency_ns, 3) +
             " ns. A streaming kernel should reach " + std::to_string(pct) +
             "% of that bandwidth. How many bytes of loads must each SM keep in flight at every moment, in KB "
             "(1 KB = 1,000 bytes)?";
  e.unit = "KB";
  e.answer = per_sm_bytes / 1e3;
  e.hint = "Little's law: bytes in flight = bandwidth × latency. Use the target bandwidth, then share the result "
           "among the SMs.";
  e.solution = "Target bandwidth = " + std::to_string(pct) + "% × " + format_number(c.bw_tbps, 4) + " TB/s = " +
               format_number(target_tbps, 4) + " TB/s. In flight over the chip = " + format_number(target_tbps, 4) +
               " TB/s × " + format_number(c.latency_ns, 3) + " ns = " +
               format_number(target_tbps * 1e12 * c.latency_ns * 1e-9, 4) + " B; per SM ÷ " + format_int(c.sms) + " = " +
               format_number(per_sm_bytes, 4) + " B = " + format_number(e.answer, 4) + " KB.";
  const double max_warps = field(*c.hw, "max_warps_per_sm");
  require(e, per_sm_bytes <= max_warps * 32 * 16,
          "a full SM of float4 loads (" + format_int(max_warps * 32 * 16) + " B) can hold the bytes in flight");
  require_from_table(e, c.latency_ns * 1e-9, field(*c.hw, "hbm_latency_s"), "the HBM latency shown");
  reject_mistake(e, e.answer * c.sms, "gave the whole chip's bytes in flight, not one SM's");
  if (pct < 100) reject_mistake(e, e.answer * 100 / pct, "used the full bandwidth, not the target");
  return e;
}

Exercise warps_to_hide(Rng& rng) {
  struct Load { int bytes; const char* type; };
  static const std::vector<Load> loads = {{4, "float"}, {8, "float2"}, {16, "float4"}};
  // Redraw settings that need more warps than an SM holds (an H200 with one float per thread
  // needs 80.4 of 64): no number of resident warps reaches full bandwidth there.
  MemoryChip c{};
  Load load{};
  int ilp = 0;
  double per_warp = 0, per_sm = 0, exact = 0;
  do {
    c = pick_memory_chip(rng);
    load = rng.pick(loads);
    ilp = rng.pick(std::vector<int>{1, 2, 4});
    per_warp = 32.0 * load.bytes * ilp;
    per_sm = c.bw_tbps * 1e12 * c.latency_ns * 1e-9 / c.sms;
    exact = per_sm / per_warp;
  } while (std::ceil(exact - 1e-9) > field(*c.hw, "max_warps_per_sm"));
  Exercise e;
  e.title = "Warps needed to hide memory latency";
  e.params = {{"hardware", c.hw->id}, {"bandwidth_Bps", c.bw_tbps * 1e12}, {"latency_s", c.latency_ns * 1e-9},
              {"bytes_per_warp", per_warp}};
  e.prompt = "The " + c.hw->name + " has " + format_int(c.sms) + " SMs and " + format_number(c.bw_tbps, 4) +
             " TB/s of HBM bandwidth, and a load from HBM takes about " + format_number(c.latency_ns, 3) +
             " ns. In a streaming kernel every thread issues " +
             (ilp == 1 ? "one " + std::string(load.type) + " load (" + std::to_string(load.bytes) + " bytes) and waits for it"
                       : std::to_string(ilp) + " independent " + load.type + " loads (" + std::to_string(load.bytes) +
                             " bytes each) and waits for them") +
             ". At least how many resident warps per SM are needed to run at the full bandwidth?";
  e.unit = "";
  e.answer = std::ceil(exact - 1e-9);
  e.integer = true;
  e.hint = "Little's law gives the bytes each SM must keep in flight: bandwidth × latency ÷ SMs. One warp keeps 32 "
           "threads × bytes per load × loads per thread in flight.";
  e.solution = "Per SM: " + format_number(c.bw_tbps, 4) + " TB/s × " + format_number(c.latency_ns, 3) + " ns ÷ " +
               format_int(c.sms) + " = " + format_number(per_sm, 4) + " bytes in flight. One warp: 32 × " +
               std::to_string(load.bytes) + " × " + std::to_string(ilp) + " = " + format_int(per_warp) +
               " bytes. Warps = " + format_number(per_sm, 4) + " ÷ " + format_int(per_warp) + " = " +
               format_number(exact, 4) + ", within the " + format_int(field(*c.hw, "max_warps_per_sm")) +
               " an SM can hold; rounded up: " + format_int(e.answer) + " warps.";
  require(e, e.answer <= field(*c.hw, "max_warps_per_sm"),
          "the warps needed (" + format_int(e.answer) + ") are at most the " +
              format_int(field(*c.hw, "max_warps_per_sm")) + " an SM holds");
  require_from_table(e, c.latency_ns * 1e-9, field(*c.hw, "hbm_latency_s"), "the HBM latency shown");
  if (ilp > 1) reject_mistake_where_distinct(e, std::ceil(exact * ilp - 1e-9), "counted one load per thread, not " + std::to_string(ilp));
  reject_mistake(e, std::ceil(exact * 32 - 1e-9), "counted the bytes of a thread as those of a warp");
  return e;
}

Exercise tensor_core_speedup(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h100-pcie", "b200"};
  const Accelerator* hw = find_accelerator(rng.pick(ids));
  const double fp32_tf = round_sig(hw->json().at("cuda_core_flops").at("fp32").get<double>() / 1e12, 4);
  const double bf16_tf = round_sig(*hw->peak_for("bf16") / 1e12, 4);
  const int step_ms = rng.pick(std::vector<int>{100, 150, 200, 250, 300, 400, 500});
  const int pct = rng.pick(std::vector<int>{50, 60, 70, 80, 90, 95});
  const double matmul_ms = step_ms * pct / 100.0;
  const double after = (step_ms - matmul_ms) + matmul_ms * fp32_tf / bf16_tf;
  Exercise e;
  e.title = "Moving matmuls to the tensor cores";
  e.params = {{"hardware", hw->id}, {"cuda_format", "fp32"}, {"tensor_format", "bf16"},
              {"step_time_s", step_ms / 1e3}, {"matmul_fraction", pct / 100.0}};
  e.prompt = "On the " + hw->name + ", the CUDA cores peak at " + format_number(fp32_tf, 4) +
             " TFLOP/s in fp32 and the tensor cores at " + format_number(bf16_tf, 4) +
             " TFLOP/s in bf16. A training step takes " + std::to_string(step_ms) + " ms, " + std::to_string(pct) +
             "% of it in fp32 matmuls running at the CUDA-core peak; the rest is memory-bound work. If the matmuls move "
             "to bf16 on the tensor cores and run at their peak, while the rest stays as it is, how long does a step "
             "take, in ms?";
  e.unit = "ms";
  e.answer = after;
  e.hint = "Only the matmul part speeds up, by the ratio of the two peaks; the rest of the step keeps its time "
           "(Amdahl's law).";
  e.solution = "Matmuls: " + format_number(matmul_ms, 4) + " ms × " + format_number(fp32_tf, 4) + " / " +
               format_number(bf16_tf, 4) + " = " + format_number(matmul_ms * fp32_tf / bf16_tf, 4) +
               " ms, " + format_number(bf16_tf / fp32_tf, 3) + "× faster. The rest stays " +
               format_number(step_ms - matmul_ms, 4) + " ms, so the whole step speeds up only " +
               format_number(step_ms / after, 3) + "×. Step = " + format_number(after, 4) + " ms.";
  require(e, bf16_tf > fp32_tf && after < step_ms, "the tensor cores are faster and the step shortens");
  reject_mistake(e, step_ms * fp32_tf / bf16_tf, "sped up the whole step by the ratio of the peaks (Amdahl's law)");
  reject_mistake(e, matmul_ms * fp32_tf / bf16_tf, "gave the matmuls' new time, forgetting the rest of the step");
  return e;
}

}  // namespace

void add_gpu_exercises(std::vector<Generator>& out) {
  out.push_back({"gpu-occupancy", occupancy_exercise});
  out.push_back({"gpu-max-registers", max_registers});
  out.push_back({"gpu-wave-utilization", wave_utilization});
  out.push_back({"gpu-bytes-in-flight", bytes_in_flight});
  out.push_back({"gpu-warps-to-hide-latency", warps_to_hide});
  out.push_back({"gpu-tensor-core-speedup", tensor_core_speedup});
}

}  // namespace mlsys::exercises
