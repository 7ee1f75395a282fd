// The gpu-architecture models on one row of the hardware table (gpu/gpu_table.hpp).
#include "mlsys/gpu/gpu_table.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys {

namespace {

bool has_number(const Accelerator& a, const char* key) { return a.json().contains(key) && a.json().at(key).is_number(); }

double number_of(const Accelerator& a, const char* key) { return a.json().at(key).get<double>(); }

std::optional<double> number_if(const Accelerator& a, const char* key) {
  return has_number(a, key) ? std::optional<double>(number_of(a, key)) : std::nullopt;
}

}  // namespace

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

OccupancyOn occupancy_on(const Accelerator& a, const KernelResources& k) {
  const SmLimits sm = sm_limits_of(a);
  check_resources(a, sm, k);
  const Occupancy o = occupancy(sm, k);
  if (!o.launch_error.empty())
    throw InputError(o.limiter == "registers" ? "registers_per_thread"
                     : o.limiter == "smem"    ? "smem_per_block_bytes"
                                              : "threads_per_block",
                     o.launch_error);
  return {o,
          o.blocks_per_sm * k.threads_per_block,
          sm.max_warps_per_sm,
          o.warps_per_block * sm.warp_size - k.threads_per_block,
          o.blocks_per_sm * o.registers_per_block,
          sm.registers_per_sm,
          o.blocks_per_sm * o.smem_per_block_bytes,
          sm.smem_per_sm_bytes,
          {o.blocks_by_threads, o.blocks_by_registers, o.blocks_by_smem, o.blocks_by_blocks}};
}

OccupancyCurve occupancy_curve_on(const Accelerator& a, const KernelResources& base, const std::string& vary) {
  const SmLimits sm = sm_limits_of(a);
  check_resources(a, sm, base);
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
  OccupancyCurve c{vary, {}, {}, sm.max_warps_per_sm};
  for (long long x : xs) {
    KernelResources k = base;
    if (vary == "registers_per_thread") k.registers_per_thread = static_cast<int>(x);
    else if (vary == "threads_per_block") k.threads_per_block = static_cast<int>(x);
    else k.smem_per_block_bytes = x;
    const Occupancy o = occupancy(sm, k);
    c.points.push_back({x, o.blocks_per_sm, o.active_warps, o.occupancy, o.limiter, o.launch_error.empty()});
    if (x == current) c.current = c.points.back();
  }
  return c;
}

WavesOn waves_on(const Accelerator& a, long long blocks, long long per_sm, std::optional<long long> sms_given,
                 long long iters_per_tile, double fixup_iters) {
  long long sms = 0;
  if (sms_given) {
    sms = *sms_given;
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
  std::vector<WavePoint> curve = wave_curve(sms, per_sm, curve_waves);
  const long long workers = sms * per_sm;
  for (auto& q : curve) {
    const StreamK s = stream_k(q.blocks, workers, iters_per_tile, fixup_iters);
    q.data_parallel_tiles = s.data_parallel_tiles;
    q.stream_k_tiles = s.stream_k_tiles;
  }
  return {sms,         per_sm,
          r,           1.0 - r.utilization,
          std::move(curve), curve_waves,
          r.waves > curve_waves, stream_k(blocks, workers, iters_per_tile, fixup_iters)};
}

LatencyHidingOn latency_hiding_on(const Accelerator& a, double warps, double per_warp,
                                  std::optional<double> latency_given, std::optional<double> bandwidth_given,
                                  std::optional<double> sms_given) {
  if (!has_number(a, "max_warps_per_sm") || !has_number(a, "sms"))
    throw InputError("hardware", a.name + " does not run CUDA warps (the table has no warp limits for it); "
                                          "choose an NVIDIA GPU.");
  const double max_warps = number_of(a, "max_warps_per_sm");
  if (warps > max_warps)
    throw InputError("warps_per_sm", "An SM of the " + a.name + " holds at most " + format_int(max_warps) +
                                         " warps.");
  double latency = 0;
  if (latency_given) latency = *latency_given;
  else if (has_number(a, "hbm_latency_s")) latency = number_of(a, "hbm_latency_s");
  else
    throw InputError("hardware", "The hardware table has no measured memory latency for the " + a.name +
                                     "; give 'latency_s' or choose an A100, H100 or H200.");
  const double bandwidth = bandwidth_given ? *bandwidth_given : a.hbm_bandwidth_Bps;
  const double sms = sms_given ? *sms_given : number_of(a, "sms");
  const LatencyHiding r = latency_hiding(bandwidth, latency, sms, warps, per_warp);
  std::vector<LatencyPoint> curve;
  for (int w = 1; w <= static_cast<int>(max_warps); ++w) {
    const LatencyHiding c = latency_hiding(bandwidth, latency, sms, w, per_warp);
    curve.push_back({w, c.achieved_bandwidth_Bps, c.fraction_of_peak});
  }
  const double needed = std::ceil(r.warps_needed_per_sm - 1e-9);
  return {bandwidth, latency, sms, per_warp, r, needed, max_warps, needed <= max_warps, std::move(curve),
          h200_latency_probe()};
}

GpuMemorySpec gpu_memory_spec_of(const Accelerator& a) {
  for (const char* key : {"sms", "registers_per_sm", "l1_smem_per_sm_bytes", "smem_bytes_per_clock_per_sm",
                          "boost_clock_hz", "l1_latency_s", "l2_bytes", "l2_bandwidth_Bps", "l2_latency_s",
                          "hbm_latency_s"}) {
    if (!has_number(a, key))
      throw InputError("hardware", "The hardware table has no '" + std::string(key) + "' for the " + a.name +
                                       ", so its memory hierarchy cannot be drawn; choose an A100, H100 or H200.");
  }
  const auto fp32 = a.peak_for("fp32");
  if (!fp32) throw InputError("hardware", a.name + " has no FP32 CUDA-core rate in the hardware table.");
  return {number_of(a, "sms"),
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
}

MemoryHierarchyOn memory_hierarchy_on(const Accelerator& a, double bytes) {
  const GpuMemorySpec g = gpu_memory_spec_of(a);
  MemoryHierarchyOn h{{}, g.sms, g.boost_clock_hz, bytes};
  const nlohmann::json none = nlohmann::json::object();
  const nlohmann::json& sources = a.json().contains("hierarchy_sources") ? a.json().at("hierarchy_sources") : none;
  const auto source = [&](const std::string& key) { return sources.value(key, std::string()); };
  for (const auto& l : memory_hierarchy(g))
    h.levels.push_back({l, l.latency_s ? std::optional<double>(*l.latency_s * g.boost_clock_hz) : std::nullopt,
                        source(l.id + "_capacity"), source(l.id + "_bandwidth"), source(l.id + "_latency"),
                        bytes / l.bandwidth_Bps, l.bandwidth_Bps / g.hbm_bandwidth_Bps, bytes <= l.capacity_bytes});
  return h;
}

ComputeUnitsOn compute_units_on(const Accelerator& a, const std::string& from, const std::string& to, double t,
                                double f) {
  if (!a.json().contains("cuda_core_flops") || !a.json().at("cuda_core_flops").is_object())
    throw InputError("hardware", "The hardware table separates tensor-core and CUDA-core rates only for NVIDIA "
                                 "GPUs; the " + a.name + " has no CUDA-core rates in it.");
  std::map<std::string, double> cuda;
  for (const auto& item : a.json().at("cuda_core_flops").items()) cuda[item.key()] = item.value().get<double>();
  ComputeUnitsOn r;
  r.formats = compute_units(cuda, a.peak_flops);
  const auto from_rate = cuda.find(from);
  if (from_rate == cuda.end())
    throw InputError("cuda_format", "The hardware table has no CUDA-core " + from + " rate for the " + a.name + ".");
  const auto to_rate = a.peak_flops.find(to);
  if (to_rate == a.peak_flops.end() || to == "fp32")
    throw InputError("tensor_format", "The hardware table has no tensor-core " + to + " rate for the " + a.name + ".");
  const double unit_speedup = to_rate->second / from_rate->second;
  const double after = t * (1 - f) + t * f / unit_speedup;
  r.change = {from_rate->second, to_rate->second, unit_speedup, t, after, t / after};
  r.sms = number_if(a, "sms");
  r.fp32_cores_per_sm = number_if(a, "fp32_cores_per_sm");
  r.tensor_cores_per_sm = number_if(a, "tensor_cores_per_sm");
  r.boost_clock_hz = number_if(a, "boost_clock_hz");
  return r;
}

}  // namespace mlsys
