// Calculators of the kernels lesson: `coalescing` (sectors of one warp request), `tiled-matmul`
// (the executed shared-memory tiled matmul and its naive reference, with counted traffic),
// `fusion` (an elementwise chain, unfused versus fused) and `launch-overhead` (eager launches
// versus a CUDA graph). The models live in core/src/kernels/.
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/hardware/datasheet.hpp"
#include "mlsys/kernels/coalescing.hpp"
#include "mlsys/kernels/fusion.hpp"
#include "mlsys/kernels/launch.hpp"
#include "mlsys/kernels/tiled_matmul.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(WarpRequest, MLSYS_OUT(sectors, "", "Distinct 32-B sectors"),
               MLSYS_OUT(cache_lines, "", "Distinct 128-B lines"),
               MLSYS_OUT(min_sectors, "", "Sectors if contiguous, aligned"),
               MLSYS_OUT(bytes_used, "B", "Distinct bytes asked for"), MLSYS_OUT(bytes_moved, "B", "sectors · 32"),
               MLSYS_OUT(efficiency, "", "bytes_used / bytes_moved"),
               MLSYS_OUT(smem_wavefronts, "", "Shared-memory passes (1: no conflict)"),
               MLSYS_OUT(lane_address_bytes, "B", "Each lane's first byte"),
               MLSYS_OUT(lane_sector, "", "Each lane's sector"));
MLSYS_DESCRIBE(CoalescedLoad, MLSYS_OUT(lanes, "", "Threads per warp"), MLSYS_OUT(sector_bytes, "B", "Sector size"),
               MLSYS_OUT(cache_line_bytes, "B", "Cache line size"), MLSYS_FLAT(r),
               MLSYS_OUT(peak_bandwidth_Bps, "B/s", "Peak memory bandwidth"),
               MLSYS_OUT(effective_bandwidth_Bps, "B/s", "peak · efficiency"));

MLSYS_DESCRIBE(GlobalTrafficBytes, MLSYS_OUT(global_read_bytes, "B", "Global loads (A, B)"),
               MLSYS_OUT(global_write_bytes, "B", "Global stores (C)"), MLSYS_OUT(global_bytes, "B", "Loads + stores"),
               MLSYS_OUT(a_read_bytes, "B", "Global reads of A"), MLSYS_OUT(b_read_bytes, "B", "Global reads of B"));
MLSYS_DESCRIBE(TrafficBytes, MLSYS_FLAT(global), MLSYS_OUT(smem_read_bytes, "B", "Shared-memory reads"),
               MLSYS_OUT(smem_write_bytes, "B", "Shared-memory writes"));
MLSYS_DESCRIBE(TileLimits, MLSYS_OUT(threads_per_block, "", "Threads of one block"),
               MLSYS_OUT(register_overhead, "", "Registers per thread besides accumulators"),
               MLSYS_OUT(accumulator_registers, "", "Registers per accumulator (2 for fp64)"),
               MLSYS_OUT(accumulator_bytes, "B", "BM·BN·accumulator_registers·4"),
               MLSYS_OUT(accumulator_storage, "", "registers, or tensor_memory (Blackwell tcgen05)"),
               MLSYS_OUT(tensor_memory_bytes, "B", "Tensor Memory per SM (0: accumulators in registers)"),
               MLSYS_OUT(registers_per_thread, "", "ceil(BM·BN/threads)·acc + overhead"),
               MLSYS_OUT(registers_per_block, "", "threads · registers_per_thread"),
               MLSYS_OUT(max_registers_per_thread, "", "Per-thread register limit"),
               MLSYS_OUT(max_registers_per_block, "", "Per-block register limit"),
               MLSYS_OUT(register_limit_source, "", "Hardware id or input"),
               MLSYS_OUT(register_file_bytes, "B", "max_registers_per_block · 4"),
               MLSYS_OUT(fits_registers, "", "Both register limits hold"),
               MLSYS_OUT(fits_accumulators, "", "Accumulators fit their storage"),
               MLSYS_OUT(fits, "", "fits_registers, fits_accumulators and fits_smem"),
               MLSYS_OUT(max_tile_smem, "", "Largest square T for shared memory"),
               MLSYS_OUT(max_tile_registers, "", "Largest square T if the accumulators sit in registers"),
               MLSYS_OUT(register_limiter, "", "Register limit that binds"),
               MLSYS_OUT(max_tile_accumulators, "", "Largest square T for the accumulator storage"),
               MLSYS_OUT(max_tile, "", "min(max_tile_smem, max_tile_accumulators)"),
               MLSYS_OUT(limiter, "", "registers, tensor_memory or smem: which sets max_tile"));
MLSYS_DESCRIBE(TiledMatmulReport, MLSYS_OUT(executed, "", "Kernels were run"),
               MLSYS_OUT(executed_max_dim, "", "Largest executed M, N, K"),
               MLSYS_OUT(executed_max_tile_steps, "", "Most executed tile steps"),
               MLSYS_OUT(executed_max_loads, "", "Most executed loads"), MLSYS_OUT(element_bytes, "B", "Size of dtype"),
               MLSYS_OUT(flops, "FLOP", "2·M·N·K"), MLSYS_OUT(blocks, "", "ceil(M/BM) · ceil(N/BN)"),
               MLSYS_OUT(tile_steps, "", "blocks · ceil(K/BK)"), MLSYS_OUT(a_passes, "", "Times A is read: ceil(N/BN)"),
               MLSYS_OUT(b_passes, "", "Times B is read: ceil(M/BM)"),
               MLSYS_OUT(compulsory_bytes, "B", "Each matrix moved once"),
               MLSYS_OUT(smem_per_block_bytes, "B", "stages·(BM·BK + BK·BN)·size"),
               MLSYS_OUT(smem_limit_bytes, "B", "Per-block shared memory"),
               MLSYS_OUT(smem_limit_source, "", "Input or table column it comes from"),
               MLSYS_OUT(fits_smem, "", "smem_per_block_bytes <= smem_limit_bytes"), MLSYS_FLAT(limits),
               MLSYS_OUT(formula, "", "Tiled closed form"), MLSYS_OUT(naive_formula, "", "Naive closed form"),
               MLSYS_OUT(c_sum, "", "Sum of C"), MLSYS_OUT(c_first, "", "C[0,0] (executed)"),
               MLSYS_OUT(c_last, "", "C[M−1,N−1] (executed)"),
               MLSYS_OUT(counts_match_formula, "", "Tiled counts = formula"),
               MLSYS_OUT(max_abs_error, "", "max |naive − tiled|"), MLSYS_OUT(tolerance, "", "K · 2^-23"),
               MLSYS_OUT(matches_reference, "", "max_abs_error <= tolerance (with reference)"),
               MLSYS_OUT(naive_counts_match_formula, "", "Naive counts = formula"), MLSYS_FLAT(tiled),
               MLSYS_OUT(naive_global_read_bytes, "B", "Naive loads"),
               MLSYS_OUT(naive_global_write_bytes, "B", "Naive stores"),
               MLSYS_OUT(naive_global_bytes, "B", "Naive traffic"),
               MLSYS_OUT(traffic_reduction, "", "naive / tiled bytes"),
               MLSYS_OUT(tiled_intensity, "FLOP/B", "flops / global_bytes"),
               MLSYS_OUT(naive_intensity, "FLOP/B", "flops / naive_global_bytes"),
               MLSYS_OUT(compulsory_intensity, "FLOP/B", "flops / compulsory_bytes"),
               MLSYS_OUT(peak_flops, "FLOP/s", "Peak of the dtype (hardware)"),
               MLSYS_OUT(l2_bandwidth_Bps, "B/s", "L2 bandwidth (hardware)"),
               MLSYS_OUT(l2_bound_flops, "FLOP/s", "tiled_intensity · L2 bandwidth: every tile load from L2"),
               MLSYS_OUT(thread_tile, "", "Each thread's sub-tile of C: thread_tile × thread_tile"),
               MLSYS_OUT(smem_bound_flops, "FLOP/s",
                         "fp32 FMA rate shared memory can feed: SMs · clock · passes per clock · 32 · thread_tile"),
               MLSYS_OUT(cuda_core_fp32_flops, "FLOP/s", "fp32 CUDA-core peak (hardware)"));

MLSYS_DESCRIBE(ElementwiseChain, MLSYS_OUT(flops, "FLOP", "ops · flops_per_element · n"),
               MLSYS_OUT(unfused_bytes, "B", "(2·L + b)·n·size"), MLSYS_OUT(fused_bytes, "B", "(2 + b)·n·size"),
               MLSYS_OUT(unfused_kernels, "", "Launches unfused (L)"),
               MLSYS_OUT(fused_kernels, "", "Launches fused (1)"));
MLSYS_DESCRIBE(FusionTimes, MLSYS_FLAT(chain), MLSYS_OUT(bytes_saved, "B", "unfused_bytes − fused_bytes"),
               MLSYS_OUT(traffic_ratio, "", "unfused_bytes / fused_bytes"),
               MLSYS_OUT(unfused_time_s, "s", "L kernels' roofline time"),
               MLSYS_OUT(fused_time_s, "s", "Fused roofline time"),
               MLSYS_OUT(time_saved_s, "s", "unfused_time_s − fused_time_s"),
               MLSYS_OUT(speedup, "", "unfused_time_s / fused_time_s"),
               MLSYS_OUT(unfused_intensity, "FLOP/B", "flops / unfused_bytes"),
               MLSYS_OUT(fused_intensity, "FLOP/B", "flops / fused_bytes"),
               MLSYS_OUT(unfused_bound, "", "compute if any unfused kernel is compute bound"),
               MLSYS_OUT(fused_bound, "", "compute or memory"),
               MLSYS_OUT(vector_peak_flops, "FLOP/s", "Vector (non-tensor) peak"),
               MLSYS_OUT(bandwidth_Bps, "B/s", "Memory bandwidth"),
               MLSYS_OUT(ridge_intensity, "FLOP/B", "vector_peak_flops / bandwidth_Bps"),
               MLSYS_OUT(launch_time_saved_s, "s", "(L − 1) · launch_overhead_s: the launches fusion removes"),
               MLSYS_OUT(total_time_saved_s, "s", "time_saved_s + launch_time_saved_s"));

MLSYS_DESCRIBE(LaunchTimes, MLSYS_OUT(work_s, "s", "GPU busy time"),
               MLSYS_OUT_AS("serial_time_s", serial_s, "s", "kernels · (launch + gap + work)"),
               MLSYS_OUT_AS("pipelined_time_s", pipelined_s, "s", "CPU queues launches ahead"),
               MLSYS_OUT_AS("graph_time_s", graph_s, "s", "One CUDA graph"),
               MLSYS_OUT_AS("serial_overhead_fraction", serial_lost, "", "1 − work_s / serial_time_s"),
               MLSYS_OUT_AS("pipelined_overhead_fraction", pipelined_lost, "", "1 − work_s / pipelined_time_s"),
               MLSYS_OUT_AS("graph_overhead_fraction", graph_lost, "", "1 − work_s / graph_time_s"));
MLSYS_DESCRIBE(LaunchOverhead, MLSYS_OUT(work_per_kernel_s, "s", "One kernel's roofline time"),
               MLSYS_OUT(work_bound, "", "compute or memory"), MLSYS_FLAT(t),
               MLSYS_OUT(graph_speedup, "", "serial_time_s / graph_time_s"),
               MLSYS_OUT(achieved_bandwidth_Bps, "B/s", "Bytes / serial time"),
               MLSYS_OUT(graph_achieved_bandwidth_Bps, "B/s", "Bytes / graph time"),
               MLSYS_OUT(breakeven_bytes, "B", "(launch overhead + gap) · bandwidth"),
               MLSYS_OUT(bandwidth_Bps, "B/s", "Memory bandwidth"),
               MLSYS_OUT(vector_peak_flops, "FLOP/s", "Vector (non-tensor) peak"));

namespace {

constexpr long long kMaxDim = 1LL << 16;  // closed forms stay exact in a double (2·M·N·K < 2^53)

const Accelerator* hardware_of(const Inputs& in) {
  return in.has("hardware") ? find_accelerator(in.str("hardware")) : nullptr;
}

// Peak and bandwidth of the machine, the peak at the vector units (fusion.hpp: vector_peak).
Machine vector_machine(const Inputs& in) {
  const Machine m = machine_from(in, in.str("dtype"));
  return {vector_peak(hardware_of(in), in.has("peak_flops"), m.peak_flops), m.bandwidth_Bps};
}

RegisterInputs registers_of(const Inputs& in) {
  RegisterInputs r;
  r.threads_per_block = in.integer("threads_per_block");
  r.register_overhead = in.integer("register_overhead");
  if (in.has("max_registers_per_thread")) r.max_registers_per_thread = static_cast<double>(in.integer("max_registers_per_thread"));
  if (in.has("max_registers_per_block")) r.max_registers_per_block = static_cast<double>(in.integer("max_registers_per_block"));
  return r;
}

}  // namespace

void add_kernels_calculators(Calculators& out) {
  out.add("coalescing",
          "One warp's load: 32 lanes access elements at a stride; the 32 addresses are enumerated and the distinct "
          "32-byte sectors and 128-byte lines counted, giving bytes moved versus used and the effective bandwidth "
          "(peak × used / moved). Also the shared-memory bank conflicts of the same pattern.",
          {integer_field("element_bytes", "B", "Bytes per element (1, 2, 4, 8 or 16)", 4, 1, 16),
           integer_field("stride", "elements", "Distance between neighbouring lanes' elements", 1, 1, 1LL << 20),
           integer_field("offset", "elements", "Index of lane 0's element (misalignment from the aligned base)", 0, 0,
                         1LL << 20),
           hardware_field(true),
           optional(number_field("bandwidth_Bps", "B/s", "Peak memory bandwidth; overrides the hardware table", json(),
                                 0.0, 1e16, true))},
          [](const Inputs& in) {
            return coalesced_load(in.integer("element_bytes"), in.integer("stride"), in.integer("offset"),
                                  hardware_of(in), in.num_if("bandwidth_Bps"));
          });

  out.add("tiled-matmul",
          "C = A·B executed with BM×BN block tiles and a K-step BK through a simulated shared-memory buffer, beside "
          "the naive kernel; counts global and shared-memory traffic as it runs and checks it against the closed "
          "form. Executed when M, N, K <= 256, with at most 65,536 tile steps and 2^23 loaded elements; beyond "
          "that the closed form (\"executed\": false). Also the tile's two on-chip budgets: operand tiles in shared "
          "memory and fp32 accumulators in registers (ceil(BM·BN/threads) per thread plus an overhead, at most the "
          "per-thread and per-block register limits; on Blackwell, whose tcgen05 MMAs accumulate in Tensor Memory, "
          "the accumulators must fit its 256 KiB per SM instead), with the largest square tile each allows and "
          "which binds.",
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
           optional(number_field("smem_limit_bytes", "B",
                                 "Shared memory one block may use; overrides the table's per-block maximum (or per-SM "
                                 "size)",
                                 json(), 0.0, 1e9, true)),
           integer_field("threads_per_block", "", "Threads of one block; they share the BM×BN accumulators", 256, 1,
                         1024),
           integer_field("register_overhead", "",
                         "Registers per thread besides the accumulators (operand fragments, addresses, indices)", 32, 0,
                         255),
           optional(integer_field("max_registers_per_thread", "", "Overrides the table's per-thread register limit",
                                  json(), 1, 1LL << 16)),
           optional(integer_field("max_registers_per_block", "", "Overrides the table's per-block register limit",
                                  json(), 1, 1LL << 24)),
           integer_field("thread_tile", "",
                         "Each thread's sub-tile of C is thread_tile × thread_tile (1: one thread per output), for "
                         "the shared-memory bound",
                         1, 1, 32),
           seed_field(), boolean_field("reference", "Also run the naive kernel and compare values and traffic", true)},
          [](const Inputs& in) {
            const TiledMatmulShape shape{in.integer("m"),  in.integer("n"),  in.integer("k"),     in.integer("bm"),
                                         in.integer("bn"), in.integer("bk"), in.integer("stages")};
            const Accelerator* hw = hardware_of(in);
            TiledMatmulReport r = tiled_matmul_report(shape, dtype_bytes(in.str("dtype")), hw,
                                                      in.num_if("smem_limit_bytes"),
                                                      static_cast<std::uint64_t>(in.integer("seed")),
                                                      in.boolean("reference"), registers_of(in));
            r.thread_tile = in.integer("thread_tile");
            if (hw) {
              const AcceleratorEntry& row = accelerator_entry(*hw);
              r.peak_flops = hw->peak_for(in.str("dtype"));
              if (row.l2_bandwidth_Bps) {
                r.l2_bandwidth_Bps = row.l2_bandwidth_Bps;
                r.l2_bound_flops = r.tiled_intensity * *row.l2_bandwidth_Bps;
              }
              if (row.boost_clock_hz && row.smem_bytes_per_clock_per_sm)
                r.smem_bound_flops = smem_bound_flops(static_cast<double>(row.sms), *row.boost_clock_hz,
                                                      static_cast<double>(*row.smem_bytes_per_clock_per_sm),
                                                      r.thread_tile);
              if (row.cuda_core_flops && row.cuda_core_flops->count("fp32"))
                r.cuda_core_fp32_flops = row.cuda_core_flops->at("fp32");
            }
            return r;
          });

  out.add("fusion",
          "A chain of elementwise ops on n elements: HBM bytes and roofline time unfused (one kernel per op) and "
          "fused (one kernel). Runs at the vector (fp32, non-tensor) peak.",
          with_machine({integer_field("n", "", "Elements of each tensor", 16000000, 1, 1000000000000LL),
                        integer_field("ops", "", "Elementwise ops in the chain (L)", 4, 1, 64),
                        integer_field("binary_ops", "", "How many of them read a second tensor (bias, residual)", 0, 0, 64),
                        number_field("flops_per_element", "FLOP", "FLOPs each op does per element", 1, 0.0, 1e4),
                        number_field("launch_overhead_s", "s",
                                     "Fixed cost of each kernel launch, for the launches fusion removes (default 0: "
                                     "bytes only)",
                                     0, 0.0, 1e-2),
                        dtype_field("bf16"), hardware_field(true)}),
          [](const Inputs& in) {
            check_chain(in.integer("ops"), in.integer("binary_ops"));  // before the machine's errors
            const Machine m = vector_machine(in);
            FusionTimes r = fusion_times(static_cast<double>(in.integer("n")), in.integer("ops"),
                                         in.integer("binary_ops"), in.num("flops_per_element"),
                                         dtype_bytes(in.str("dtype")), m.peak_flops, m.bandwidth_Bps);
            r.launch_time_saved_s = static_cast<double>(in.integer("ops") - 1) * in.num("launch_overhead_s");
            r.total_time_saved_s = r.time_saved_s + r.launch_time_saved_s;
            return r;
          });

  out.add("launch-overhead",
          "A sequence of dependent kernels, each with a fixed launch overhead (a parameter, not a datasheet value): "
          "serial and pipelined eager launches versus one CUDA graph; time and the fraction of it lost. Every kernel "
          "also costs the GPU a gap (graph_node_s) eager or in a graph, so a graph is never slower than eager launches.",
          with_machine({integer_field("kernels", "", "Kernels launched one after another", 100, 1, 10000000),
                        number_field("bytes_per_kernel", "B", "HBM bytes each kernel moves", 1e6, 0.0, 1e13, true),
                        number_field("flops_per_kernel", "FLOP", "FLOPs each kernel performs", 0, 0.0, 1e18),
                        number_field("launch_overhead_s", "s",
                                     "Fixed cost of one launch (default 5 µs: the low end of the 5-20 µs CPU launch "
                                     "times reported by Meta's Holistic Trace Analysis)",
                                     5e-6, 0.0, 1e-2),
                        number_field("graph_node_s", "s",
                                     "GPU gap per kernel, eager or in a replayed CUDA graph (default 1 µs, a parameter)", 1e-6,
                                     0.0, 1e-2),
                        dtype_field("bf16"), hardware_field(true)}),
          [](const Inputs& in) {
            const Machine m = vector_machine(in);
            return launch_overhead(static_cast<double>(in.integer("kernels")), in.num("bytes_per_kernel"),
                                   in.num("flops_per_kernel"), in.num("launch_overhead_s"), in.num("graph_node_s"),
                                   m.peak_flops, m.bandwidth_Bps);
          });
}

}  // namespace mlsys::api
