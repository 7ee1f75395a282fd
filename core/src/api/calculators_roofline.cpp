// Calculators `roofline` and `matmul` (shared/API.md).
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/gpu/roofline.hpp"
#include "mlsys/kernels/matmul_cost.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(RooflineResult, MLSYS_OUT(intensity, "FLOP/B", "Arithmetic intensity: FLOPs per byte moved"),
               MLSYS_OUT(ridge_intensity, "FLOP/B", "Intensity where the two ceilings meet: peak / bandwidth"),
               MLSYS_OUT(compute_time_s, "s", "FLOPs / peak FLOP/s"),
               MLSYS_OUT(memory_time_s, "s", "Bytes / bandwidth"),
               MLSYS_OUT(time_s, "s", "Roofline time: the larger of the two"),
               MLSYS_OUT(bound, "", "compute or memory: the ceiling that sets the time"),
               MLSYS_OUT(attainable_flops, "FLOP/s", "min(peak, intensity · bandwidth)"),
               MLSYS_OUT(time_no_overlap_s, "s", "No-overlap upper bound: compute_time_s + memory_time_s"));

MLSYS_DESCRIBE(MatmulCost, MLSYS_OUT(flops, "FLOP", "2·m·n·k"),
               MLSYS_OUT(bytes, "B", "(m·k + k·n + m·n) · element size: each matrix moved once"),
               MLSYS_OUT(intensity, "FLOP/B", "flops / bytes"));

namespace {

// The roofline of the matmul, given hardware or explicit peaks (its intensity is the cost's).
struct MatmulTime {
  double time_s, compute_time_s, memory_time_s, ridge_intensity, attainable_flops;
  std::string bound;
};

struct MatmulOut {
  MatmulCost cost;
  std::optional<MatmulTime> time;
};

}  // namespace

MLSYS_DESCRIBE(MatmulTime, MLSYS_OUT(time_s, "s", "Roofline time on the machine"),
               MLSYS_OUT(compute_time_s, "s", "flops / peak FLOP/s"), MLSYS_OUT(memory_time_s, "s", "bytes / bandwidth"),
               MLSYS_OUT(ridge_intensity, "FLOP/B", "peak / bandwidth"),
               MLSYS_OUT(attainable_flops, "FLOP/s", "min(peak, intensity · bandwidth)"),
               MLSYS_OUT(bound, "", "compute or memory"));
MLSYS_DESCRIBE(MatmulOut, MLSYS_FLAT(cost), MLSYS_FLAT(time));

void add_roofline_calculators(Calculators& out) {
  out.add("roofline", "Roofline bound of a kernel: time >= max(FLOPs / peak, bytes / bandwidth).",
          with_machine({hardware_field(true), dtype_field("bf16"),
                        number_field("flops", "FLOP", "Floating-point operations of the kernel", json(), 0.0, 1e30),
                        number_field("bytes", "B", "Bytes moved to and from memory", json(), 0.0, 1e30, true)}),
          [](const Inputs& in) {
            const auto m = machine_from(in, in.str("dtype"));
            return roofline(in.num("flops"), in.num("bytes"), m.peak_flops, m.bandwidth_Bps);
          });

  constexpr long long kMaxDim = 1LL << 24;
  out.add("matmul",
          "FLOPs, minimum bytes and arithmetic intensity of C[m,n] = A[m,k]·B[k,n]; with hardware, its roofline time.",
          with_machine({integer_field("m", "", "Rows of A and C", json(), 1, kMaxDim),
                        integer_field("n", "", "Columns of B and C", json(), 1, kMaxDim),
                        integer_field("k", "", "Inner dimension", json(), 1, kMaxDim), dtype_field("bf16"),
                        hardware_field(false)}),
          [](const Inputs& in) {
            const std::string dtype = in.str("dtype");
            MatmulOut r{matmul_cost(static_cast<double>(in.integer("m")), static_cast<double>(in.integer("n")),
                                    static_cast<double>(in.integer("k")), dtype_bytes(dtype)),
                        std::nullopt};
            if (in.has("hardware") || in.has("peak_flops") || in.has("bandwidth_Bps")) {
              const auto m = machine_from(in, dtype);
              const auto t = roofline(r.cost.flops, r.cost.bytes, m.peak_flops, m.bandwidth_Bps);
              r.time = MatmulTime{t.time_s, t.compute_time_s, t.memory_time_s, t.ridge_intensity, t.attainable_flops,
                                  t.bound};
            }
            return r;
          });
}

}  // namespace mlsys::api
