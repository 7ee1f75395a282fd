// Calculators of the kernels lesson: `coalescing` (sectors of one warp request), `tiled-matmul`
// (the executed shared-memory tiled matmul and its naive reference, with counted traffic),
// `fusion` (an elementwise chain, unfused versus fused) and `launch-overhead` (eager launches
// versus a CUDA graph).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "mlsys/foundations/dtype.hpp"
#include "mlsys/gpu/roofline.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/kernels/coalescing.hpp"
#include "mlsys/kernels/fusion.hpp"
#include "mlsys/kernels/launch.hpp"
#include "mlsys/kernels/tiled_matmul.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

// Executed sizes: every matrix dimension at most 256, at most 2^16 tile steps (blocks ×
// K-steps) and at most 2^23 elements loaded from global memory by the tiled kernel, so one call
// (with its naive reference) stays under about 50 ms in the browser. Beyond, the calculator
// returns the closed form and says "executed": false.
constexpr long long kExecMaxDim = 256;
constexpr long long kExecMaxTileSteps = 1LL << 16;
constexpr double kExecMaxLoads = 8388608;  // 2^23 elements
constexpr long long kMaxDim = 1LL << 16;  // closed forms stay exact in a double (2·M·N·K < 2^53)

const Accelerator* hardware_of(const Inputs& in) {
  return in.has("hardware") ? find_accelerator(in.str("hardware")) : nullptr;
}

double bandwidth_of(const Inputs& in) {
  if (in.has("bandwidth_Bps")) return in.num("bandwidth_Bps");
  const Accelerator* hw = hardware_of(in);
  if (!hw) throw InputError("hardware", "Give 'hardware' (an accelerator id) or 'bandwidth_Bps'.");
  return hw->hbm_bandwidth_Bps;
}

// Elementwise work runs on the vector units: the fp32 (non-tensor) rate where the table has
// one and it is lower than the dtype's rate, as in `transformer-ops`.
double vector_peak_of(const Inputs& in, double dtype_peak) {
  if (in.has("peak_flops") || !in.has("hardware")) return dtype_peak;
  if (auto p = hardware_of(in)->peak_for("fp32")) return std::min(*p, dtype_peak);
  return dtype_peak;
}

std::vector<Field> with(std::vector<Field> fields, std::vector<Field> more) {
  for (auto& f : more) fields.push_back(std::move(f));
  return fields;
}

Field optional_number(std::string name, std::string unit, std::string description, double min, double max,
                      bool min_exclusive) {
  Field f = number_field(std::move(name), std::move(unit), std::move(description), json(), min, max, min_exclusive);
  f.required = false;
  return f;
}

// ---- coalescing -------------------------------------------------------------------------

json coalescing(const Inputs& in) {
  const long long e = in.integer("element_bytes");
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16)
    throw InputError("element_bytes", "Field 'element_bytes' must be 1, 2, 4, 8 or 16 (a power of two up to a 16-byte vector).");
  const double bandwidth = bandwidth_of(in);
  const WarpRequest r = warp_request(static_cast<int>(e), in.integer("stride"), in.integer("offset"));
  return {{"lanes", kWarpLanes},
          {"sector_bytes", kSectorBytes},
          {"cache_line_bytes", kCacheLineBytes},
          {"sectors", r.sectors},
          {"cache_lines", r.cache_lines},
          {"min_sectors", r.min_sectors},
          {"bytes_used", r.bytes_used},
          {"bytes_moved", r.bytes_moved},
          {"efficiency", r.efficiency},
          {"peak_bandwidth_Bps", bandwidth},
          {"effective_bandwidth_Bps", bandwidth * r.efficiency},
          {"smem_wavefronts", r.smem_wavefronts},
          {"lane_address_bytes", r.lane_address_bytes},
          {"lane_sector", r.lane_sector}};
}

// ---- tiled-matmul -----------------------------------------------------------------------

json traffic_bytes(const MatmulTraffic& t, double s, bool with_smem) {
  json j = {{"global_read_bytes", t.global_reads * s},
            {"global_write_bytes", t.global_writes * s},
            {"global_bytes", (t.global_reads + t.global_writes) * s},
            {"a_read_bytes", t.a_reads * s},
            {"b_read_bytes", t.b_reads * s}};
  if (with_smem) {
    j["smem_read_bytes"] = t.smem_reads * s;
    j["smem_write_bytes"] = t.smem_writes * s;
  }
  return j;
}

bool same_traffic(const MatmulTraffic& a, const MatmulTraffic& b, bool with_smem) {
  return a.global_reads == b.global_reads && a.global_writes == b.global_writes && a.a_reads == b.a_reads &&
         a.b_reads == b.b_reads && (!with_smem || (a.smem_reads == b.smem_reads && a.smem_writes == b.smem_writes));
}

// Shared memory one block may use, and where the number came from: the explicit override,
// the table's per-block maximum (what one block can allocate, e.g. 227 KiB of the H100's 228),
// or, for rows without it, the per-SM size.
std::pair<double, std::string> smem_limit_of(const Inputs& in) {
  if (in.has("smem_limit_bytes")) return {in.num("smem_limit_bytes"), "smem_limit_bytes"};
  const Accelerator* hw = hardware_of(in);
  if (!hw) throw InputError("hardware", "Give 'hardware' (an accelerator id) or 'smem_limit_bytes'.");
  for (const char* key : {"max_smem_per_block_bytes", "smem_per_sm_bytes"})
    if (hw->json().contains(key) && hw->json().at(key).is_number()) return {hw->json().at(key).get<double>(), key};
  throw InputError("hardware", hw->name + " has no shared-memory size in the hardware table; choose a GPU or give "
                                          "'smem_limit_bytes'.");
}

json tiled_matmul_calc(const Inputs& in) {
  const long long m = in.integer("m"), n = in.integer("n"), k = in.integer("k");
  const long long bm = in.integer("bm"), bn = in.integer("bn"), bk = in.integer("bk");
  const long long stages = in.integer("stages");
  const std::string dtype = in.str("dtype");
  const double s = dtype_bytes(dtype);
  const auto [smem_limit, smem_limit_source] = smem_limit_of(in);
  const double smem = tile_smem_bytes(static_cast<double>(bm), static_cast<double>(bn), static_cast<double>(bk), s,
                                      static_cast<double>(stages));
  const double md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
  const auto ceil_div = [](long long a, long long b) { return (a + b - 1) / b; };
  const long long blocks = ceil_div(m, bm) * ceil_div(n, bn);
  const long long tile_steps = blocks * ceil_div(k, bk);

  const MatmulTraffic tiled_formula = tiled_traffic(md, nd, kd, static_cast<double>(bm), static_cast<double>(bn));
  const MatmulTraffic naive_formula = naive_traffic(md, nd, kd);
  const double flops = 2 * md * nd * kd;
  const double compulsory = (md * kd + kd * nd + md * nd) * s;
  const bool executed = m <= kExecMaxDim && n <= kExecMaxDim && k <= kExecMaxDim && tile_steps <= kExecMaxTileSteps &&
                        tiled_formula.global_reads <= kExecMaxLoads;

  json out = {{"executed", executed},
              {"executed_max_dim", kExecMaxDim},
              {"executed_max_tile_steps", kExecMaxTileSteps},
              {"executed_max_loads", kExecMaxLoads},
              {"element_bytes", s},
              {"flops", flops},
              {"blocks", blocks},
              {"tile_steps", tile_steps},
              {"a_passes", ceil_div(n, bn)},
              {"b_passes", ceil_div(m, bm)},
              {"compulsory_bytes", compulsory},
              {"smem_per_block_bytes", smem},
              {"smem_limit_bytes", smem_limit},
              {"smem_limit_source", smem_limit_source},
              {"fits_smem", smem <= smem_limit},
              {"formula", traffic_bytes(tiled_formula, s, true)},
              {"naive_formula", traffic_bytes(naive_formula, s, false)}};
  MatmulTraffic tiled = tiled_formula, naive = naive_formula;
  if (executed) {
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    const std::uint64_t seed = static_cast<std::uint64_t>(in.integer("seed"));
    const auto a = seeded_matrix(mi, ki, 2 * seed), b = seeded_matrix(ki, ni, 2 * seed + 1);
    const MatmulRun run = tiled_matmul(a, b, mi, ni, ki, static_cast<int>(std::min(bm, m)),
                                       static_cast<int>(std::min(bn, n)), static_cast<int>(std::min(bk, k)));
    tiled = run.traffic;
    double checksum = 0;
    for (float x : run.c) checksum += x;
    out["c_sum"] = checksum;
    out["c_first"] = run.c.front();
    out["c_last"] = run.c.back();
    out["counts_match_formula"] = same_traffic(tiled, tiled_formula, true);
    if (in.boolean("reference")) {
      const MatmulRun ref = naive_matmul(a, b, mi, ni, ki);
      naive = ref.traffic;
      double err = 0;
      for (std::size_t i = 0; i < ref.c.size(); ++i)
        err = std::max(err, std::fabs(static_cast<double>(ref.c[i]) - static_cast<double>(run.c[i])));
      // Inputs lie in [-1, 1), so |C| <= K; both kernels sum with k ascending, so they agree
      // to well within K·2^-23 (one unit in the last place per addition).
      const double tolerance = kd * 0x1.0p-23;
      out["max_abs_error"] = err;
      out["tolerance"] = tolerance;
      out["matches_reference"] = err <= tolerance;
      out["naive_counts_match_formula"] = same_traffic(naive, naive_formula, false);
    }
  }
  const json t = traffic_bytes(tiled, s, true), nv = traffic_bytes(naive, s, false);
  for (const auto& [key, value] : t.items()) out[key] = value;
  out["naive_global_read_bytes"] = nv["global_read_bytes"];
  out["naive_global_write_bytes"] = nv["global_write_bytes"];
  out["naive_global_bytes"] = nv["global_bytes"];
  out["traffic_reduction"] = nv["global_bytes"].get<double>() / t["global_bytes"].get<double>();
  out["tiled_intensity"] = flops / t["global_bytes"].get<double>();
  out["naive_intensity"] = flops / nv["global_bytes"].get<double>();
  out["compulsory_intensity"] = flops / compulsory;
  return out;
}

// ---- fusion -----------------------------------------------------------------------------

json fusion_calc(const Inputs& in) {
  const long long ops = in.integer("ops"), binary = in.integer("binary_ops");
  if (binary > ops) throw InputError("binary_ops", "Field 'binary_ops' cannot exceed 'ops' (it counts ops of the chain).");
  const std::string dtype = in.str("dtype");
  const double s = dtype_bytes(dtype);
  const double n = static_cast<double>(in.integer("n")), f = in.num("flops_per_element");
  const auto machine = machine_from(in, dtype);
  const double peak = vector_peak_of(in, machine.peak_flops), bw = machine.bandwidth_Bps;
  const ElementwiseChain c = elementwise_chain(n, static_cast<int>(ops), static_cast<int>(binary), f, s);

  // Unfused: one kernel per op on the roofline; the b binary ops each read one more tensor.
  const RooflineResult unary = roofline(f * n, 2 * n * s, peak, bw);
  const RooflineResult binop = roofline(f * n, 3 * n * s, peak, bw);
  const double unfused_time = static_cast<double>(ops - binary) * unary.time_s + static_cast<double>(binary) * binop.time_s;
  const bool any_unfused_compute = (ops > binary && unary.bound == "compute") || (binary > 0 && binop.bound == "compute");
  const RooflineResult fused = roofline(c.flops, c.fused_bytes, peak, bw);
  return {{"flops", c.flops},
          {"unfused_bytes", c.unfused_bytes},
          {"fused_bytes", c.fused_bytes},
          {"bytes_saved", c.unfused_bytes - c.fused_bytes},
          {"traffic_ratio", c.unfused_bytes / c.fused_bytes},
          {"unfused_kernels", c.unfused_kernels},
          {"fused_kernels", c.fused_kernels},
          {"unfused_time_s", unfused_time},
          {"fused_time_s", fused.time_s},
          {"time_saved_s", unfused_time - fused.time_s},
          {"speedup", unfused_time / fused.time_s},
          {"unfused_intensity", c.flops / c.unfused_bytes},
          {"fused_intensity", fused.intensity},
          {"unfused_bound", any_unfused_compute ? "compute" : "memory"},
          {"fused_bound", fused.bound},
          {"vector_peak_flops", peak},
          {"bandwidth_Bps", bw},
          {"ridge_intensity", peak / bw}};
}

// ---- launch-overhead --------------------------------------------------------------------

json launch_calc(const Inputs& in) {
  const std::string dtype = in.str("dtype");
  const auto machine = machine_from(in, dtype);
  const double peak = vector_peak_of(in, machine.peak_flops), bw = machine.bandwidth_Bps;
  const double bytes = in.num("bytes_per_kernel"), flops = in.num("flops_per_kernel");
  const double kernels = static_cast<double>(in.integer("kernels"));
  const double o = in.num("launch_overhead_s"), g = in.num("graph_node_s");
  const RooflineResult work = roofline(flops, bytes, peak, bw);
  const LaunchTimes t = launch_times(kernels, work.time_s, o, g);
  return {{"work_per_kernel_s", work.time_s},
          {"work_bound", work.bound},
          {"work_s", t.work_s},
          {"serial_time_s", t.serial_s},
          {"pipelined_time_s", t.pipelined_s},
          {"graph_time_s", t.graph_s},
          {"serial_overhead_fraction", t.serial_lost},
          {"pipelined_overhead_fraction", t.pipelined_lost},
          {"graph_overhead_fraction", t.graph_lost},
          {"graph_speedup", t.serial_s / t.graph_s},
          {"achieved_bandwidth_Bps", kernels * bytes / t.serial_s},
          {"graph_achieved_bandwidth_Bps", kernels * bytes / t.graph_s},
          {"breakeven_bytes", o * bw},
          {"bandwidth_Bps", bw},
          {"vector_peak_flops", peak}};
}

}  // namespace

void add_kernels_calculators(Calculators& out) {
  out.push_back(
      {"coalescing",
       "One warp's load: 32 lanes access elements at a stride; the 32 addresses are enumerated and the distinct "
       "32-byte sectors and 128-byte lines counted, giving bytes moved versus used and the effective bandwidth "
       "(peak × used / moved). Also the shared-memory bank conflicts of the same pattern.",
       {integer_field("element_bytes", "B", "Bytes per element (1, 2, 4, 8 or 16)", 4, 1, 16),
        integer_field("stride", "elements", "Distance between neighbouring lanes' elements", 1, 1, 1LL << 20),
        integer_field("offset", "elements", "Index of lane 0's element (misalignment from the aligned base)", 0, 0,
                      1LL << 20),
        hardware_field(true),
        optional_number("bandwidth_Bps", "B/s", "Peak memory bandwidth; overrides the hardware table", 0.0, 1e16,
                        true)},
       coalescing});

  out.push_back(
      {"tiled-matmul",
       "C = A·B executed with BM×BN block tiles and a K-step BK through a simulated shared-memory buffer, beside "
       "the naive kernel; counts global and shared-memory traffic as it runs and checks it against the closed "
       "form. Executed when M, N, K <= 256, with at most 65,536 tile steps and 2^23 loaded elements; beyond "
       "that the closed form (\"executed\": false).",
       {integer_field("m", "", "Rows of A and C", 128, 1, kMaxDim),
        integer_field("n", "", "Columns of B and C", 128, 1, kMaxDim),
        integer_field("k", "", "Inner dimension", 128, 1, kMaxDim),
        integer_field("bm", "", "Block tile rows BM", 32, 1, 4096),
        integer_field("bn", "", "Block tile columns BN", 32, 1, 4096),
        integer_field("bk", "", "K-step BK of the shared-memory tiles", 32, 1, 1024),
        integer_field("stages", "", "Tile buffers per operand (2-4 with pipelined loads)", 1, 1, 8),
        string_field("dtype", "Element type used for byte counts (values are computed in fp32)", "fp32",
                     {"fp64", "fp32", "bf16", "fp16", "fp8-e4m3", "fp8-e5m2", "int8"}),
        hardware_field(true),
        optional_number("smem_limit_bytes", "B", "Shared memory one block may use; overrides the table's per-block "
                        "maximum (or per-SM size)", 0.0, 1e9, true),
        integer_field("seed", "", "Seed of the random inputs", 1, 0, 4294967295LL),
        boolean_field("reference", "Also run the naive kernel and compare values and traffic", true)},
       tiled_matmul_calc});

  out.push_back(
      {"fusion",
       "A chain of elementwise ops on n elements: HBM bytes and roofline time unfused (one kernel per op) and "
       "fused (one kernel). Runs at the vector (fp32, non-tensor) peak.",
       with({integer_field("n", "", "Elements of each tensor", 16000000, 1, 1000000000000LL),
             integer_field("ops", "", "Elementwise ops in the chain (L)", 4, 1, 64),
             integer_field("binary_ops", "", "How many of them read a second tensor (bias, residual)", 0, 0, 64),
             number_field("flops_per_element", "FLOP", "FLOPs each op does per element", 1, 0.0, 1e4),
             dtype_field("bf16"), hardware_field(true)},
            machine_override_fields()),
       fusion_calc});

  out.push_back(
      {"launch-overhead",
       "A sequence of dependent kernels, each with a fixed launch overhead (a parameter, not a datasheet value): "
       "serial and pipelined eager launches versus one CUDA graph; time and the fraction of it lost.",
       with({integer_field("kernels", "", "Kernels launched one after another", 100, 1, 10000000),
             number_field("bytes_per_kernel", "B", "HBM bytes each kernel moves", 1e6, 0.0, 1e13, true),
             number_field("flops_per_kernel", "FLOP", "FLOPs each kernel performs", 0, 0.0, 1e18),
             number_field("launch_overhead_s", "s",
                          "Fixed cost of one launch (default 5 µs: the low end of the 5-20 µs CPU launch times "
                          "reported by Meta's Holistic Trace Analysis)",
                          5e-6, 0.0, 1e-2),
             number_field("graph_node_s", "s",
                          "Per-kernel cost inside a replayed CUDA graph (default 1 µs, a parameter)", 1e-6, 0.0, 1e-2),
             dtype_field("bf16"), hardware_field(true)},
            machine_override_fields()),
       launch_calc});
}

}  // namespace mlsys::api
