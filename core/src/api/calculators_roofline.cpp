// Calculators `roofline` and `matmul` (shared/API.md).
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/gpu/roofline.hpp"
#include "mlsys/kernels/matmul_cost.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

json roofline_json(const RooflineResult& r) {
  return {{"intensity", r.intensity},
          {"ridge_intensity", r.ridge_intensity},
          {"compute_time_s", r.compute_time_s},
          {"memory_time_s", r.memory_time_s},
          {"time_s", r.time_s},
          {"bound", r.bound},
          {"attainable_flops", r.attainable_flops}};
}

std::vector<Field> with_machine(std::vector<Field> fields) {
  for (auto& f : machine_override_fields()) fields.push_back(std::move(f));
  return fields;
}

}  // namespace

void add_roofline_calculators(std::vector<Calculator>& out) {
  out.push_back({"roofline",
                 "Roofline bound of a kernel: time >= max(FLOPs / peak, bytes / bandwidth).",
                 with_machine({hardware_field(true), dtype_field("bf16"),
                               number_field("flops", "FLOP", "Floating-point operations of the kernel", json(), 0.0,
                                            1e30),
                               number_field("bytes", "B", "Bytes moved to and from memory", json(), 0.0, 1e30,
                                            true)}),
                 [](const Inputs& in) -> json {
                   const auto m = machine_from(in, in.str("dtype"));
                   return roofline_json(roofline(in.num("flops"), in.num("bytes"), m.peak_flops, m.bandwidth_Bps));
                 }});

  constexpr long long kMaxDim = 1LL << 24;
  out.push_back({"matmul",
                 "FLOPs, minimum bytes and arithmetic intensity of C[m,n] = A[m,k]·B[k,n]; with hardware, its "
                 "roofline time.",
                 with_machine({integer_field("m", "", "Rows of A and C", json(), 1, kMaxDim),
                               integer_field("n", "", "Columns of B and C", json(), 1, kMaxDim),
                               integer_field("k", "", "Inner dimension", json(), 1, kMaxDim), dtype_field("bf16"),
                               hardware_field(false)}),
                 [](const Inputs& in) -> json {
                   const std::string dtype = in.str("dtype");
                   const auto c = matmul_cost(static_cast<double>(in.integer("m")), static_cast<double>(in.integer("n")),
                                              static_cast<double>(in.integer("k")), dtype_bytes(dtype));
                   json result = {{"flops", c.flops}, {"bytes", c.bytes}, {"intensity", c.intensity}};
                   if (in.has("hardware") || in.has("peak_flops") || in.has("bandwidth_Bps")) {
                     const auto m = machine_from(in, dtype);
                     const auto r = roofline(c.flops, c.bytes, m.peak_flops, m.bandwidth_Bps);
                     result["time_s"] = r.time_s;
                     result["bound"] = r.bound;
                     result["compute_time_s"] = r.compute_time_s;
                     result["memory_time_s"] = r.memory_time_s;
                     result["ridge_intensity"] = r.ridge_intensity;
                     result["attainable_flops"] = r.attainable_flops;
                   }
                   return result;
                 }});
}

}  // namespace mlsys::api
