// Calculators of the gpu-architecture lesson: `occupancy` (shared/API.md) and `occupancy-curve`
// (CUDA occupancy rules), `waves` (wave quantization of a grid), `latency-hiding` (Little's law
// for the memory system), `memory-hierarchy` (capacity, bandwidth and latency per level) and
// `compute-units` (tensor cores against CUDA cores per format). The models, and their reading
// of the hardware table, live in core/src/gpu/ (gpu_table.cpp).
#include "mlsys/gpu/gpu_table.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(Occupancy, MLSYS_OUT(blocks_per_sm, "", "Blocks resident per SM"),
               MLSYS_OUT(active_warps, "", "Warps resident per SM"),
               MLSYS_OUT(occupancy, "", "active_warps / max_warps_per_sm"),
               MLSYS_OUT(limiter, "", "threads, registers, smem or blocks: the binding limit"),
               MLSYS_OUT(limiters, "", "Every binding limit (ties)"),
               MLSYS_OUT(warps_per_block, "", "ceil(threads_per_block / 32)"),
               MLSYS_OUT(registers_per_warp, "", "Registers allocated per warp"),
               MLSYS_OUT(registers_per_block, "", "registers_per_warp · warps_per_block"),
               MLSYS_OUT_AS("smem_per_block_allocated_bytes", smem_per_block_bytes, "B",
                            "Request + reserve, rounded up"));
MLSYS_DESCRIBE(BlocksBy, MLSYS_OUT(threads, "", "By warp slots"), MLSYS_OUT(registers, "", "By registers"),
               MLSYS_OUT(smem, "", "By shared memory"), MLSYS_OUT(blocks, "", "By block slots"));
MLSYS_DESCRIBE(OccupancyOn, MLSYS_FLAT(o), MLSYS_OUT(active_threads, "", "Threads resident per SM"),
               MLSYS_OUT(max_warps_per_sm, "", "Warp slots of one SM"),
               MLSYS_OUT(idle_threads_per_block, "", "Empty lanes of the last warp"),
               MLSYS_OUT(registers_used_per_sm, "", "Registers held on one SM"),
               MLSYS_OUT(registers_per_sm, "", "Register file of one SM"),
               MLSYS_OUT(smem_used_per_sm_bytes, "B", "Shared memory held on one SM"),
               MLSYS_OUT(smem_per_sm_bytes, "B", "Shared memory of one SM"),
               MLSYS_OUT(blocks_by, "", "Blocks per SM by each limit alone"));
MLSYS_DESCRIBE(OccupancyPoint, MLSYS_OUT(x, "", "Value of the swept input"),
               MLSYS_OUT(blocks_per_sm, "", "Blocks per SM (0: no launch)"),
               MLSYS_OUT(active_warps, "", "Warps resident per SM"),
               MLSYS_OUT(occupancy, "", "active_warps / max_warps_per_sm"), MLSYS_OUT(limiter, "", "The binding limit"),
               MLSYS_OUT(launchable, "", "One block fits the per-block limits"));
MLSYS_DESCRIBE(OccupancyCurve, MLSYS_OUT(vary, "", "The swept input"),
               MLSYS_OUT(points, "", "One point per value of vary"),
               MLSYS_OUT(current, "", "The point at the given value"),
               MLSYS_OUT(max_warps_per_sm, "", "Warp slots of one SM"));

MLSYS_DESCRIBE(WaveResult, MLSYS_OUT(slots, "", "SMs · blocks per SM"), MLSYS_OUT(waves, "", "ceil(blocks / slots)"),
               MLSYS_OUT(full_waves, "", "floor(blocks / slots)"),
               MLSYS_OUT(last_wave_blocks, "", "Blocks of the last wave"),
               MLSYS_OUT(last_wave_utilization, "", "last_wave_blocks / slots"),
               MLSYS_OUT(utilization, "", "blocks / (waves · slots)"),
               MLSYS_OUT(blocks_high, "", "Most blocks on one SM, last wave"),
               MLSYS_OUT(sms_high, "", "SMs with blocks_high; others one less"),
               MLSYS_OUT(sms_busy_last_wave, "", "SMs busy in the last wave"));
MLSYS_DESCRIBE(WavePoint, MLSYS_OUT(blocks, "", "Grid size"), MLSYS_OUT(waves, "", "Waves it needs"),
               MLSYS_OUT(utilization, "", "blocks / (waves · slots)"),
               MLSYS_OUT(data_parallel_tiles, "", "Time in tile-times, one tile per block: waves"),
               MLSYS_OUT(stream_k_tiles, "", "Time in tile-times, Stream-K"));
MLSYS_DESCRIBE(StreamK, MLSYS_OUT(iters_per_tile, "", "MAC iterations per tile (K / tile depth)"),
               MLSYS_OUT(total_iters, "", "blocks · iters_per_tile"),
               MLSYS_OUT(iters_per_worker, "", "ceil(total_iters / slots): the busiest worker"),
               MLSYS_OUT(split, "", "Some tile is split between workers"),
               MLSYS_OUT(fixups, "", "Partial tiles added on the critical path"),
               MLSYS_OUT(fixup_iters, "", "fixups · fix-up cost, in MAC iterations"),
               MLSYS_OUT(data_parallel_tiles, "", "ceil(blocks / slots), in tile-times"),
               MLSYS_OUT(stream_k_tiles, "", "(iters_per_worker + fixup_iters) / iters_per_tile"),
               MLSYS_OUT(ideal_tiles, "", "blocks / slots"),
               MLSYS_OUT(speedup, "", "data_parallel_tiles / stream_k_tiles"),
               MLSYS_OUT(stream_k_utilization, "", "ideal_tiles / stream_k_tiles"));
MLSYS_DESCRIBE(WavesOn, MLSYS_OUT(sms, "", "SMs the grid runs on"),
               MLSYS_OUT(blocks_per_sm, "", "Blocks each SM holds at once"), MLSYS_FLAT(r),
               MLSYS_OUT(idle_fraction, "", "1 − utilization"), MLSYS_OUT(curve, "", "Utilization against grid size"),
               MLSYS_OUT(curve_waves, "", "Waves the curve covers"),
               MLSYS_OUT(curve_truncated, "", "waves > curve_waves"),
               MLSYS_OUT(stream_k, "", "The grid's tiles split evenly by Stream-K, one worker per slot"));

MLSYS_DESCRIBE(LatencyHiding,
               MLSYS_OUT_AS("needed_bytes_in_flight", bytes_in_flight_needed, "B", "bandwidth · latency"),
               MLSYS_OUT_AS("needed_bytes_in_flight_per_sm", bytes_in_flight_needed_per_sm, "B",
                            "needed_bytes_in_flight / SMs"),
               MLSYS_OUT_AS("warps_needed_per_sm_exact", warps_needed_per_sm, "", "Per SM / bytes_per_warp"),
               MLSYS_OUT(bytes_in_flight_per_sm, "B", "warps_per_sm · bytes_per_warp"),
               MLSYS_OUT(achieved_bandwidth_Bps, "B/s", "min(B, SMs · in flight / latency)"),
               MLSYS_OUT(fraction_of_peak, "", "achieved / peak"));
MLSYS_DESCRIBE(LatencyPoint, MLSYS_OUT(warps_per_sm, "", "Resident warps per SM"),
               MLSYS_OUT(achieved_bandwidth_Bps, "B/s", "Bandwidth sustained"),
               MLSYS_OUT(fraction_of_peak, "", "achieved / peak"));
MLSYS_DESCRIBE(LatencyProbePoint, MLSYS_OUT(warps_per_sm, "", "Resident warps per SM"),
               MLSYS_OUT(measured_bandwidth_Bps, "B/s", "Read bandwidth measured"),
               MLSYS_OUT(predicted_bandwidth_Bps, "B/s", "Little's law with the unloaded latency"),
               MLSYS_OUT(effective_latency_s, "s", "SMs · warps · bytes per warp / measured"),
               MLSYS_OUT(extra_latency, "", "effective / unloaded latency − 1"),
               MLSYS_OUT(fraction_of_peak, "", "measured / datasheet peak"));
MLSYS_DESCRIBE(LatencyProbe, MLSYS_OUT(hardware, "", "GPU measured"),
               MLSYS_OUT(bytes_per_warp, "B", "32 threads × one float4"),
               MLSYS_OUT(latency_s, "s", "Unloaded HBM latency, same run"),
               MLSYS_OUT(bandwidth_Bps, "B/s", "Datasheet peak"), MLSYS_OUT(sms, "", "SMs"),
               MLSYS_OUT(points, "", "One per warps-per-SM setting"));
MLSYS_DESCRIBE(LatencyHidingOn, MLSYS_OUT(bandwidth_Bps, "B/s", "Peak memory bandwidth"),
               MLSYS_OUT(latency_s, "s", "Memory latency"), MLSYS_OUT(sms, "", "Number of SMs"),
               MLSYS_OUT(bytes_per_warp, "B", "Bytes in flight per warp"), MLSYS_FLAT(r),
               MLSYS_OUT(warps_needed_per_sm, "", "Whole warps per SM for peak"),
               MLSYS_OUT(max_warps_per_sm, "", "Warp slots of one SM"),
               MLSYS_OUT(feasible, "", "Needed warps fit an SM"), MLSYS_OUT(curve, "", "Against warps per SM"),
               MLSYS_OUT(probe, "", "Measured on an H200 (tools/probes), whatever the hardware"));

MLSYS_DESCRIBE(MemoryLevel, MLSYS_OUT(id, "", "registers, l1, l2 or hbm"), MLSYS_OUT(name, "", "Name of the level"),
               MLSYS_OUT(per_sm, "", "Private to each SM"),
               MLSYS_OUT(capacity_bytes, "B", "Capacity of the whole chip"),
               MLSYS_OUT(capacity_per_sm_bytes, "B", "Per SM if private, else whole"),
               MLSYS_OUT(bandwidth_Bps, "B/s", "Bandwidth of the whole chip"),
               MLSYS_OUT_NULLABLE(latency_s, "s", "Load-to-use; null: registers"),
               MLSYS_OUT(basis, "", "Source of bandwidth and latency"));
MLSYS_DESCRIBE(MemoryLevelOn, MLSYS_FLAT(level),
               MLSYS_OUT_NULLABLE(latency_cycles, "cycles", "latency_s · boost clock; null: registers"),
               MLSYS_OUT(capacity_source, "", "Source of the capacity"),
               MLSYS_OUT(bandwidth_source, "", "Source of the bandwidth, naming the GPU measured"),
               MLSYS_OUT(latency_source, "", "Source of the latency, naming the GPU measured"),
               MLSYS_OUT(read_time_s, "s", "bytes / bandwidth: the given bytes streamed once"),
               MLSYS_OUT(times_hbm, "", "Bandwidth / HBM bandwidth"),
               MLSYS_OUT(holds_bytes, "", "The given bytes fit the level (whole chip)"));
MLSYS_DESCRIBE(MemoryHierarchyOn, MLSYS_OUT(levels, "", "Memory levels, fastest first"),
               MLSYS_OUT(sms, "", "Number of SMs"), MLSYS_OUT(boost_clock_hz, "Hz", "SM boost clock"),
               MLSYS_OUT(bytes, "B", "Bytes streamed through each level"));

MLSYS_DESCRIBE(ComputeRate, MLSYS_OUT(format, "", "Input format"),
               MLSYS_OUT(tensor_format, "", "Tensor-core format (fp32: tf32)"),
               MLSYS_OUT_NULLABLE(cuda_core_flops, "FLOP/s", "CUDA-core peak (int8: op/s)"),
               MLSYS_OUT_NULLABLE(tensor_core_flops, "FLOP/s", "Tensor-core peak (int8: op/s)"),
               MLSYS_OUT_NULLABLE(tensor_speedup, "", "tensor / CUDA-core peak"));
MLSYS_DESCRIBE(ComputeSwitch, MLSYS_OUT(cuda_core_flops, "FLOP/s", "CUDA-core peak of cuda_format"),
               MLSYS_OUT(tensor_core_flops, "FLOP/s", "Tensor-core peak of tensor_format"),
               MLSYS_OUT(matmul_speedup, "", "tensor / CUDA-core peak"),
               MLSYS_OUT(step_time_s, "s", "Step time before the switch"),
               MLSYS_OUT(new_step_time_s, "s", "t·(1 − f) + t·f / speedup"),
               MLSYS_OUT(overall_speedup, "", "step / new step time"));
MLSYS_DESCRIBE(ComputeUnitsOn, MLSYS_OUT(formats, "", "Peaks per format"),
               MLSYS_OUT_AS("switch", change, "", "Matmuls moved to tensor cores"), MLSYS_OUT_NULLABLE(sms, "", "SMs"),
               MLSYS_OUT_NULLABLE(fp32_cores_per_sm, "", "FP32 cores per SM"),
               MLSYS_OUT_NULLABLE(tensor_cores_per_sm, "", "Tensor cores per SM"),
               MLSYS_OUT_NULLABLE(boost_clock_hz, "Hz", "SM boost clock"));

namespace {

const Accelerator& accelerator_of(const Inputs& in) { return *find_accelerator(in.str("hardware")); }

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

Field sms_field() {
  return optional(integer_field("sms", "", "Number of SMs; overrides the hardware table", json(), 1, 4096));
}

}  // namespace

void add_gpu_calculators(Calculators& out) {
  out.add("occupancy",
          "Blocks and warps of one kernel resident per SM, and the limiting resource, by the CUDA occupancy rules: warps "
          "per block = ceil(threads / 32); registers allocated per warp in 256-register units within 4 SM "
          "sub-partitions; shared memory plus a 1 KiB per-block reserve in 128-byte units; at most 32 blocks.",
          occupancy_fields(), [](const Inputs& in) { return occupancy_on(accelerator_of(in), resources_of(in)); });

  std::vector<Field> curve_fields = occupancy_fields();
  curve_fields.push_back(string_field("vary", "The input swept along the curve; the other two stay fixed",
                                      "registers_per_thread",
                                      {"registers_per_thread", "threads_per_block", "smem_per_block_bytes"}));
  out.add("occupancy-curve",
          "Occupancy of one kernel as one input sweeps its range (registers per thread 1-255, threads per block in "
          "steps of 32, shared memory in steps of 1 KiB) with the other two fixed. Configurations that cannot launch "
          "have 0 blocks and launchable = false.",
          curve_fields,
          [](const Inputs& in) { return occupancy_curve_on(accelerator_of(in), resources_of(in), in.str("vary")); });

  out.add("waves",
          "Wave quantization of a grid of equal blocks: slots = SMs × blocks per SM, waves = ceil(blocks / slots), "
          "last-wave and overall utilization, the last wave's placement on the SMs, and utilization against grid size; "
          "and the same blocks as matmul tiles under Stream-K (Osama et al., PPoPP 2023): one persistent worker per "
          "slot, each taking ceil(blocks · iters_per_tile / slots) MAC iterations, plus fixup_iters per partial tile "
          "added on the critical path when a tile is split (an assumed cost).",
          {hardware_field(true), integer_field("blocks", "", "Blocks in the grid", 264, 1, 2147483647LL),  // gridDim.x
           integer_field("blocks_per_sm", "", "Blocks each SM holds at once (from the occupancy calculator)", 1, 1, 64),
           sms_field(),
           integer_field("iters_per_tile", "", "Stream-K: MAC iterations per tile, K / tile depth (4096 / 128 = 32)",
                         32, 1, 1 << 20),
           number_field("fixup_iters", "",
                        "Stream-K: cost of adding one partial tile, in MAC iterations (an assumption)", 1.0, 0.0,
                        1e6)},
          [](const Inputs& in) {
            if (in.integer("blocks") > (1LL << 40) / in.integer("iters_per_tile"))
              throw InputError("iters_per_tile", "blocks × iters_per_tile must stay below 2^40 MAC iterations.");
            return waves_on(accelerator_of(in), in.integer("blocks"), in.integer("blocks_per_sm"),
                            in.integer_if("sms"), in.integer("iters_per_tile"), in.num("fixup_iters"));
          });

  out.add("latency-hiding",
          "Little's law for the memory system: bytes in flight needed = bandwidth × latency; achieved bandwidth = "
          "min(bandwidth, SMs × resident warps × bytes in flight per warp / latency), and its curve against warps per SM.",
          {hardware_field(true),
           integer_field("warps_per_sm", "", "Resident warps per SM, each with loads in flight", 32, 1, 64),
           number_field("bytes_per_warp", "B",
                        "Bytes one warp keeps in flight: 32 threads × bytes per load × independent loads per thread",
                        512.0, 32.0, 65536.0),
           optional(number_field("latency_s", "s", "Memory latency; overrides the table's measured HBM latency", json(),
                                 0.0, 1e-3, true)),
           optional(number_field("bandwidth_Bps", "B/s", "Memory bandwidth; overrides the table's HBM bandwidth", json(),
                                 0.0, 1e16, true)),
           sms_field()},
          [](const Inputs& in) {
            return latency_hiding_on(accelerator_of(in), static_cast<double>(in.integer("warps_per_sm")),
                                     in.num("bytes_per_warp"), in.num_if("latency_s"),
                                     in.num_if("bandwidth_Bps"), in.integer_if("sms"));
          });

  out.add("memory-hierarchy",
          "Capacity, bandwidth and latency of each memory level of an NVIDIA GPU: registers, L1 / shared memory, L2, "
          "HBM. Latencies and L2 bandwidth are microbenchmark measurements; see the hardware table's notes.",
          {hardware_field(true),
           number_field("bytes", "B", "Data streamed once through each level (default: a 4096 × 4096 bf16 matrix)",
                        33554432.0, 1.0, 1e15)},
          [](const Inputs& in) { return memory_hierarchy_on(accelerator_of(in), in.num("bytes")); });

  out.add("compute-units",
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
          [](const Inputs& in) {
            return compute_units_on(accelerator_of(in), in.str("cuda_format"), in.str("tensor_format"),
                                    in.num("step_time_s"), in.num("matmul_fraction"));
          });
}

}  // namespace mlsys::api
