// Calculators `roofline` and `matmul` (shared/API.md).
#include <optional>

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
               MLSYS_OUT(time_no_overlap_s, "s", "No-overlap upper bound: compute_time_s + memory_time_s"),
               MLSYS_OUT(no_overlap_ratio, "", "time_no_overlap_s / time_s, between 1 and 2"));

MLSYS_DESCRIBE(MatmulCost, MLSYS_OUT(flops, "FLOP", "2·m·n·k"),
               MLSYS_OUT(bytes, "B", "(m·k + k·n + m·n) · element size: each matrix moved once"),
               MLSYS_OUT(intensity, "FLOP/B", "flops / bytes"));

namespace {

// The roofline of the matmul, given hardware or explicit peaks (its intensity is the cost's).
struct MatmulTime {
  double time_s, compute_time_s, memory_time_s, ridge_intensity, attainable_flops;
  std::string bound;
  // The m (tokens of a weight matmul) where the matmul turns compute-bound with n and k fixed:
  // exact, 1/m* = 2/(s·I*) − 1/n − 1/k (null when n and k are too narrow for any m), and the
  // approximation m* ≈ s·I*/2 that ignores the activations.
  std::optional<double> crossover_m;
  double crossover_m_approx;
  std::optional<double> crossover_m_excess;  // crossover_m / crossover_m_approx − 1
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
               MLSYS_OUT(bound, "", "compute or memory"),
               MLSYS_OUT_NULLABLE(crossover_m, "", "Exact m where it turns compute-bound (n, k fixed); null: never"),
               MLSYS_OUT(crossover_m_approx, "", "s · ridge / 2: the crossover ignoring activation bytes"),
               MLSYS_OUT_NULLABLE(crossover_m_excess, "", "crossover_m / crossover_m_approx - 1; null: never"));
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
              const double s = dtype_bytes(dtype);
              const double inverse = 2 / (s * t.ridge_intensity) - 1.0 / static_cast<double>(in.integer("n")) -
                                     1.0 / static_cast<double>(in.integer("k"));
              const double approx = s * t.ridge_intensity / 2;
              const std::optional<double> exact = inverse > 0 ? std::optional<double>(1 / inverse) : std::nullopt;
              r.time = MatmulTime{t.time_s, t.compute_time_s, t.memory_time_s, t.ridge_intensity, t.attainable_flops,
                                  t.bound, exact, approx,
                                  exact ? std::optional<double>(*exact / approx - 1) : std::nullopt};
            }
            return r;
          });
}

}  // namespace mlsys::api
