// Calculators of the gpu-architecture lesson: `occupancy` (shared/API.md) and `occupancy-curve`
// (CUDA occupancy rules), `waves` (wave quantization of a grid), `latency-hiding` (Little's law
// for the memory system), `memory-hierarchy` (capacity, bandwidth and latency per level) and
// `compute-units` (tensor cores against CUDA cores per format). The models live in
// core/src/gpu/; this file maps the hardware table onto them and validates.
#include <algorithm>
#include <cmath>
#include <map>

#include "mlsys/foundations/units.hpp"
#include "mlsys/gpu/compute_units.hpp"
#include "mlsys/gpu/latency_hiding.hpp"
#include "mlsys/gpu/memory_hierarchy.hpp"
#include "mlsys/gpu/occupancy.hpp"
#include "mlsys/gpu/waves.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

constexpr long long kMaxGridBlocks = 2147483647LL;  // CUDA's gridDim.x limit, 2^31 − 1
constexpr long long kMaxCurveWaves = 512;           // the utilization curve covers at most this many waves

const Accelerator& accelerator_of(const Inputs& in) { return *find_accelerator(in.str("hardware")); }

bool has_number(const Accelerator& a, const char* key) { return a.json().contains(key) && a.json().at(key).is_number(); }

double number_of(const Accelerator& a, const char* key) { return a.json().at(key).get<double>(); }

// The row's CUDA occupancy limits, or an error on `hardware` saying why there are none.
SmLimits sm_limits_of(const Accelerator& a) {
  for (const char* key : {"sms", "warp_size", "max_warps_per_sm", "max_blocks_per_sm", "registers_per_sm",
                          "max_registers_per_block", "max_registers_per_thread", "register_alloc_unit",
                          "sm_sub_partitions", "smem_per_sm_bytes", "max_smem_per_block_bytes",
                          "smem_alloc_unit_bytes", "smem_reserved_per_block_bytes", "max_threads_per_block"}) {
    if (!has_number(a, key))
      throw InputError("hardware", a.name + " has no CUDA occupancy limits in the hardware table (no '" + key +
                                       "'): warps, blocks and SM registers describe NVIDIA GPUs; choose one of them.");
  }
  SmLimits s;
  s.warp_size = static_cast<int>(number_of(a, "warp_size"));
  s.max_threads_per_block = static_cast<int>(number_of(a, "max_threads_per_block"));
  s.max_warps_per_sm = static_cast<int>(number_of(a, "max_warps_per_sm"));
  s.max_blocks_per_sm = static_cast<int>(number_of(a, "max_blocks_per_sm"));
  s.registers_per_sm = static_cast<int>(number_of(a, "registers_per_sm"));
  s.max_registers_per_block = static_cast<int>(number_of(a, "max_registers_per_block"));
  s.max_registers_per_thread = static_cast<int>(number_of(a, "max_registers_per_thread"));
  s.register_alloc_unit = static_cast<int>(number_of(a, "register_alloc_unit"));
  s.sub_partitions = static_cast<int>(number_of(a, "sm_sub_partitions"));
  s.smem_per_sm_bytes = static_cast<long long>(number_of(a, "smem_per_sm_bytes"));
  s.max_smem_per_block_bytes = static_cast<long long>(number_of(a, "max_smem_per_block_bytes"));
  s.smem_alloc_unit_bytes = static_cast<long long>(number_of(a, "smem_alloc_unit_bytes"));
  s.smem_reserved_per_block_bytes = static_cast<long long>(number_of(a, "smem_reserved_per_block_bytes"));
  return s;
}

Field optional_integer(std::string name, std::string unit, std::string description, long long min, long long max) {
  Field f = integer_field(std::move(name), std::move(unit), std::move(description), json(), min, max);
  f.required = false;
  return f;
}

Field optional_number(std::string name, std::string unit, std::string description, double min, double max) {
  Field f = number_field(std::move(name), std::move(unit), std::move(description), json(), min, max, true);
  f.required = false;
  return f;
}

// ---- occupancy ----------------------------------------------------------------------------

std::vector<Field> occupancy_fields() {
  return {hardware_field(true),
          integer_field("threads_per_block", "", "Threads per block (need not be a multiple of the 32-thread warp)",
                        256, 1, 1024),
          integer_field("registers_per_thread", "", "32-bit registers each thread uses (as reported by the compiler)",
                        32, 1, 255),
          integer_field("smem_per_block_bytes", "B", "Shared memory per block, static plus dynamic", 0, 0, 1 << 20)};
}

KernelResources resources_of(const Inputs& in) {
  return {static_cast<int>(in.integer("threads_per_block")), static_cast<int>(in.integer("registers_per_thread")),
          in.integer("smem_per_block_bytes")};
}

// Per-hardware limits that the schema cannot know.
void check_resources(const Accelerator& a, const SmLimits& sm, const KernelResources& k) {
  if (k.threads_per_block > sm.max_threads_per_block)
    throw InputError("threads_per_block", "A block holds at most " + format_int(sm.max_threads_per_block) +
                                              " threads on the " + a.name + ".");
  if (k.registers_per_thread > sm.max_registers_per_thread)
    throw InputError("registers_per_thread", "A thread may use at most " + format_int(sm.max_registers_per_thread) +
                                                 " registers on the " + a.name + ".");
  if (k.smem_per_block_bytes > sm.max_smem_per_block_bytes)
    throw InputError("smem_per_block_bytes",
                     "One block may use at most " + format_int(static_cast<double>(sm.max_smem_per_block_bytes)) +
                         " bytes (" + format_number(sm.max_smem_per_block_bytes / 1024.0, 4) +
                         " KiB) of shared memory on the " + a.name + ".");
}

json occupancy_json(const SmLimits& sm, const KernelResources& k, const Occupancy& o) {
  return {{"blocks_per_sm", o.blocks_per_sm},
          {"active_warps", o.active_warps},
          {"occupancy", o.occupancy},
          {"limiter", o.limiter},
          {"limiters", o.limiters},
          {"active_threads", o.blocks_per_sm * k.threads_per_block},
          {"max_warps_per_sm", sm.max_warps_per_sm},
          {"warps_per_block", o.warps_per_block},
          {"idle_threads_per_block", o.warps_per_block * sm.warp_size - k.threads_per_block},
          {"registers_per_warp", o.registers_per_warp},
          {"registers_per_block", o.registers_per_block},
          {"registers_used_per_sm", o.blocks_per_sm * o.registers_per_block},
          {"registers_per_sm", sm.registers_per_sm},
          {"smem_per_block_allocated_bytes", o.smem_per_block_bytes},
          {"smem_used_per_sm_bytes", o.blocks_per_sm * o.smem_per_block_bytes},
          {"smem_per_sm_bytes", sm.smem_per_sm_bytes},
          {"blocks_by", {{"threads", o.blocks_by_threads},
                         {"registers", o.blocks_by_registers},
                         {"smem", o.blocks_by_smem},
                         {"blocks", o.blocks_by_blocks}}}};
}

void add_occupancy(Calculators& out) {
  out.push_back(
      {"occupancy",
       "Blocks and warps of one kernel resident per SM, and the limiting resource, by the CUDA occupancy rules: warps "
       "per block = ceil(threads / 32); registers allocated per warp in 256-register units within 4 SM "
       "sub-partitions; shared memory plus a 1 KiB per-block reserve in 128-byte units; at most 32 blocks.",
       occupancy_fields(), [](const Inputs& in) -> json {
         const Accelerator& a = accelerator_of(in);
         const SmLimits sm = sm_limits_of(a);
         const KernelResources k = resources_of(in);
         check_resources(a, sm, k);
         const Occupancy o = occupancy(sm, k);
         if (!o.launch_error.empty()) throw InputError(o.limiter == "registers" ? "registers_per_thread" :
                                                       o.limiter == "smem" ? "smem_per_block_bytes" : "threads_per_block",
                                                       o.launch_error);
         return occupancy_json(sm, k, o);
       }});

  std::vector<Field> curve_fields = occupancy_fields();
  curve_fields.push_back(string_field("vary", "The input swept along the curve; the other two stay fixed",
                                      "registers_per_thread",
                                      {"registers_per_thread", "threads_per_block", "smem_per_block_bytes"}));
  out.push_back(
      {"occupancy-curve",
       "Occupancy of one kernel as one input sweeps its range (registers per thread 1-255, threads per block in "
       "steps of 32, shared memory in steps of 1 KiB) with the other two fixed. Configurations that cannot launch "
       "have 0 blocks and launchable = false.",
       curve_fields, [](const Inputs& in) -> json {
         const Accelerator& a = accelerator_of(in);
         const SmLimits sm = sm_limits_of(a);
         const KernelResources base = resources_of(in);
         check_resources(a, sm, base);
         const std::string vary = in.str("vary");
         std::vector<long long> xs;
         if (vary == "registers_per_thread") {
           for (int r = 1; r <= sm.max_registers_per_thread; ++r) xs.push_back(r);
         } else if (vary == "threads_per_block") {
           for (int t = sm.warp_size; t <= sm.max_threads_per_block; t += sm.warp_size) xs.push_back(t);
         } else {
           for (long long b = 0; b <= sm.max_smem_per_block_bytes; b += 1024) xs.push_back(b);
         }
         const long long current = vary == "registers_per_thread" ? base.registers_per_thread
                                   : vary == "threads_per_block"  ? base.threads_per_block
                                                                  : base.smem_per_block_bytes;
         if (std::find(xs.begin(), xs.end(), current) == xs.end()) {
           xs.push_back(current);
           std::sort(xs.begin(), xs.end());
         }
         json points = json::array();
         json at_current;
         for (long long x : xs) {
           KernelResources k = base;
           if (vary == "registers_per_thread") k.registers_per_thread = static_cast<int>(x);
           else if (vary == "threads_per_block") k.threads_per_block = static_cast<int>(x);
           else k.smem_per_block_bytes = x;
           const Occupancy o = occupancy(sm, k);
           json p = {{"x", x},
                     {"blocks_per_sm", o.blocks_per_sm},
                     {"active_warps", o.active_warps},
                     {"occupancy", o.occupancy},
                     {"limiter", o.limiter},
                     {"launchable", o.launch_error.empty()}};
           if (x == current) at_current = p;
           points.push_back(std::move(p));
         }
         return {{"vary", vary}, {"points", points}, {"current", at_current}, {"max_warps_per_sm", sm.max_warps_per_sm}};
       }});
}

// ---- waves --------------------------------------------------------------------------------

void add_waves(Calculators& out) {
  out.push_back(
      {"waves",
       "Wave quantization of a grid of equal blocks: slots = SMs × blocks per SM, waves = ceil(blocks / slots), "
       "last-wave and overall utilization, the last wave's placement on the SMs, and utilization against grid size.",
       {hardware_field(true), integer_field("blocks", "", "Blocks in the grid", 264, 1, kMaxGridBlocks),
        integer_field("blocks_per_sm", "", "Blocks each SM holds at once (from the occupancy calculator)", 1, 1, 64),
        optional_integer("sms", "", "Number of SMs; overrides the hardware table", 1, 4096)},
       [](const Inputs& in) -> json {
         const Accelerator& a = accelerator_of(in);
         const long long blocks = in.integer("blocks"), per_sm = in.integer("blocks_per_sm");
         long long sms = 0;
         if (in.has("sms")) {
           sms = in.integer("sms");
         } else if (!has_number(a, "sms") || !has_number(a, "max_blocks_per_sm")) {
           throw InputError("hardware", a.name + " does not schedule CUDA thread blocks on SMs (the table has no block "
                                                 "limit for it); choose an NVIDIA GPU or give 'sms'.");
         } else {
           sms = static_cast<long long>(number_of(a, "sms"));
         }
         if (has_number(a, "max_blocks_per_sm") && per_sm > number_of(a, "max_blocks_per_sm"))
           throw InputError("blocks_per_sm", "An SM of the " + a.name + " holds at most " +
                                                 format_int(number_of(a, "max_blocks_per_sm")) + " blocks at once.");
         const WaveResult r = waves(blocks, sms, per_sm);
         const long long curve_waves = std::min(std::max(r.waves + 1, 4LL), kMaxCurveWaves);
         json curve = json::array();
         for (const auto& p : wave_curve(sms, per_sm, curve_waves))
           curve.push_back({{"blocks", p.blocks}, {"waves", p.waves}, {"utilization", p.utilization}});
         return {{"sms", sms},
                 {"blocks_per_sm", per_sm},
                 {"slots", r.slots},
                 {"waves", r.waves},
                 {"full_waves", r.full_waves},
                 {"last_wave_blocks", r.last_wave_blocks},
                 {"last_wave_utilization", r.last_wave_utilization},
                 {"utilization", r.utilization},
                 {"idle_fraction", 1.0 - r.utilization},
                 {"blocks_high", r.blocks_high},
                 {"sms_high", r.sms_high},
                 {"sms_busy_last_wave", r.sms_busy_last_wave},
                 {"curve", curve},
                 {"curve_waves", curve_waves},
                 {"curve_truncated", r.waves > curve_waves}};
       }});
}

// ---- latency-hiding ---------------------------------------------------------------------

void add_latency_hiding(Calculators& out) {
  out.push_back(
      {"latency-hiding",
       "Little's law for the memory system: bytes in flight needed = bandwidth × latency; achieved bandwidth = "
       "min(bandwidth, SMs × resident warps × bytes in flight per warp / latency), and its curve against warps per SM.",
       {hardware_field(true),
        integer_field("warps_per_sm", "", "Resident warps per SM, each with loads in flight", 32, 1, 64),
        number_field("bytes_per_warp", "B",
                     "Bytes one warp keeps in flight: 32 threads × bytes per load × independent loads per thread", 512.0,
                     32.0, 65536.0),
        optional_number("latency_s", "s", "Memory latency; overrides the table's measured HBM latency", 0.0, 1e-3),
        optional_number("bandwidth_Bps", "B/s", "Memory bandwidth; overrides the table's HBM bandwidth", 0.0, 1e16),
        optional_integer("sms", "", "Number of SMs; overrides the hardware table", 1, 4096)},
       [](const Inputs& in) -> json {
         const Accelerator& a = accelerator_of(in);
         if (!has_number(a, "max_warps_per_sm") || !has_number(a, "sms"))
           throw InputError("hardware", a.name + " does not run CUDA warps (the table has no warp limits for it); "
                                                 "choose an NVIDIA GPU.");
         const double max_warps = number_of(a, "max_warps_per_sm");
         const double warps = static_cast<double>(in.integer("warps_per_sm"));
         if (warps > max_warps)
           throw InputError("warps_per_sm", "An SM of the " + a.name + " holds at most " + format_int(max_warps) +
                                                " warps.");
         double latency = 0;
         if (in.has("latency_s")) latency = in.num("latency_s");
         else if (has_number(a, "hbm_latency_s")) latency = number_of(a, "hbm_latency_s");
         else
           throw InputError("hardware", "The hardware table has no measured memory latency for the " + a.name +
                                            "; give 'latency_s' or choose an A100, H100 or H200.");
         const double bandwidth = in.has("bandwidth_Bps") ? in.num("bandwidth_Bps") : a.hbm_bandwidth_Bps;
         const double sms = in.has("sms") ? static_cast<double>(in.integer("sms")) : number_of(a, "sms");
         const double per_warp = in.num("bytes_per_warp");
         const LatencyHiding r = latency_hiding(bandwidth, latency, sms, warps, per_warp);
         json curve = json::array();
         for (int w = 1; w <= static_cast<int>(max_warps); ++w) {
           const LatencyHiding c = latency_hiding(bandwidth, latency, sms, w, per_warp);
           curve.push_back({{"warps_per_sm", w},
                            {"achieved_bandwidth_Bps", c.achieved_bandwidth_Bps},
                            {"fraction_of_peak", c.fraction_of_peak}});
         }
         const double needed = std::ceil(r.warps_needed_per_sm - 1e-9);
         return {{"bandwidth_Bps", bandwidth},
                 {"latency_s", latency},
                 {"sms", sms},
                 {"bytes_per_warp", per_warp},
                 {"needed_bytes_in_flight", r.bytes_in_flight_needed},
                 {"needed_bytes_in_flight_per_sm", r.bytes_in_flight_needed_per_sm},
                 {"warps_needed_per_sm_exact", r.warps_needed_per_sm},
                 {"warps_needed_per_sm", needed},
                 {"max_warps_per_sm", max_warps},
                 {"feasible", needed <= max_warps},
                 {"bytes_in_flight_per_sm", r.bytes_in_flight_per_sm},
                 {"achieved_bandwidth_Bps", r.achieved_bandwidth_Bps},
                 {"fraction_of_peak", r.fraction_of_peak},
                 {"curve", curve}};
       }});
}

// ---- memory-hierarchy and compute-units ---------------------------------------------------

void add_hierarchy(Calculators& out) {
  out.push_back(
      {"memory-hierarchy",
       "Capacity, bandwidth and latency of each memory level of an NVIDIA GPU: registers, L1 / shared memory, L2, "
       "HBM. Latencies and L2 bandwidth are microbenchmark measurements; see the hardware table's notes.",
       {hardware_field(true)}, [](const Inputs& in) -> json {
         const Accelerator& a = accelerator_of(in);
         for (const char* key : {"sms", "registers_per_sm", "l1_smem_per_sm_bytes", "smem_bytes_per_clock_per_sm",
                                 "boost_clock_hz", "l1_latency_s", "l2_bytes", "l2_bandwidth_Bps", "l2_latency_s",
                                 "hbm_latency_s"}) {
           if (!has_number(a, key))
             throw InputError("hardware", "The hardware table has no '" + std::string(key) + "' for the " + a.name +
                                              ", so its memory hierarchy cannot be drawn; choose an A100, H100 or H200.");
         }
         const auto fp32 = a.peak_for("fp32");
         if (!fp32) throw InputError("hardware", a.name + " has no FP32 CUDA-core rate in the hardware table.");
         GpuMemorySpec g{number_of(a, "sms"),
                         number_of(a, "registers_per_sm"),
                         *fp32,
                         number_of(a, "l1_smem_per_sm_bytes"),
                         number_of(a, "smem_bytes_per_clock_per_sm"),
                         number_of(a, "boost_clock_hz"),
                         number_of(a, "l1_latency_s"),
                         number_of(a, "l2_bytes"),
                         number_of(a, "l2_bandwidth_Bps"),
                         number_of(a, "l2_latency_s"),
                         a.hbm_bytes,
                         a.hbm_bandwidth_Bps,
                         number_of(a, "hbm_latency_s")};
         json levels = json::array();
         for (const auto& l : memory_hierarchy(g)) {
           levels.push_back({{"id", l.id},
                             {"name", l.name},
                             {"per_sm", l.per_sm},
                             {"capacity_bytes", l.capacity_bytes},
                             {"capacity_per_sm_bytes", l.capacity_per_sm_bytes},
                             {"bandwidth_Bps", l.bandwidth_Bps},
                             {"latency_s", l.latency_s ? json(*l.latency_s) : json()},
                             {"latency_cycles", l.latency_s ? json(*l.latency_s * g.boost_clock_hz) : json()},
                             {"basis", l.basis}});
         }
         return {{"levels", levels}, {"sms", g.sms}, {"boost_clock_hz", g.boost_clock_hz}};
       }});

  out.push_back(
      {"compute-units",
       "Dense peak of the tensor cores and of the CUDA cores for each number format, the tensor-core speed-up (fp32 "
       "inputs reach tensor cores as tf32), and what moving a step's matmuls from one to the other does to the step "
       "time (Amdahl's law: the rest of the step is unchanged).",
       {hardware_field(true),
        string_field("cuda_format", "Format of the matmuls on the CUDA cores before the switch", "fp32",
                     {"fp64", "fp32", "fp16", "bf16"}),
        string_field("tensor_format", "Format of the matmuls on the tensor cores after the switch", "bf16",
                     {"fp64", "tf32", "fp16", "bf16", "fp8", "int8"}),
        number_field("step_time_s", "s", "Time of one step before the switch", 1.0, 0.0, 1e6, true),
        number_field("matmul_fraction", "", "Share of the step spent in matmuls at the CUDA-core peak", 0.8, 0.0, 1.0)},
       [](const Inputs& in) -> json {
         const Accelerator& a = accelerator_of(in);
         if (!a.json().contains("cuda_core_flops") || !a.json().at("cuda_core_flops").is_object())
           throw InputError("hardware", "The hardware table separates tensor-core and CUDA-core rates only for NVIDIA "
                                            "GPUs; the " + a.name + " has no CUDA-core rates in it.");
         std::map<std::string, double> cuda;
         for (const auto& item : a.json().at("cuda_core_flops").items()) cuda[item.key()] = item.value().get<double>();
         json formats = json::array();
         for (const auto& r : compute_units(cuda, a.peak_flops)) {
           formats.push_back({{"format", r.format},
                              {"tensor_format", r.tensor_format},
                              {"cuda_core_flops", r.cuda_core_flops ? json(*r.cuda_core_flops) : json()},
                              {"tensor_core_flops", r.tensor_core_flops ? json(*r.tensor_core_flops) : json()},
                              {"tensor_speedup", r.tensor_speedup ? json(*r.tensor_speedup) : json()}});
         }
         const std::string from = in.str("cuda_format"), to = in.str("tensor_format");
         const auto from_rate = cuda.find(from);
         if (from_rate == cuda.end())
           throw InputError("cuda_format", "The hardware table has no CUDA-core " + from + " rate for the " + a.name + ".");
         const auto to_rate = a.peak_flops.find(to);
         if (to_rate == a.peak_flops.end() || to == "fp32")
           throw InputError("tensor_format", "The hardware table has no tensor-core " + to + " rate for the " + a.name + ".");
         const double t = in.num("step_time_s"), f = in.num("matmul_fraction");
         const double unit_speedup = to_rate->second / from_rate->second;
         const double after = t * (1 - f) + t * f / unit_speedup;
         json result = {{"formats", formats},
                        {"switch", {{"cuda_core_flops", from_rate->second},
                                    {"tensor_core_flops", to_rate->second},
                                    {"matmul_speedup", unit_speedup},
                                    {"step_time_s", t},
                                    {"new_step_time_s", after},
                                    {"overall_speedup", t / after}}}};
         for (const char* key : {"sms", "fp32_cores_per_sm", "tensor_cores_per_sm", "boost_clock_hz"})
           result[key] = has_number(a, key) ? json(number_of(a, key)) : json();
         return result;
       }});
}

}  // namespace

void add_gpu_calculators(Calculators& out) {
  add_occupancy(out);
  add_waves(out);
  add_latency_hiding(out);
  add_hierarchy(out);
}

}  // namespace mlsys::api
