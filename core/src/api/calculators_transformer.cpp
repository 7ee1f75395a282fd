// Calculator `transformer-ops`: every op of one transformer block on the roofline.
#include <algorithm>

#include "mlsys/foundations/dtype.hpp"
#include "mlsys/gpu/roofline.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/transformer/block_ops.hpp"
#include "registry.hpp"

namespace mlsys::api {

void add_transformer_calculators(Calculators& out) {
  std::vector<Field> fields = {
      integer_field("hidden", "", "Model width h", 4096, 64, 65536),
      integer_field("heads", "", "Attention heads (head_dim = hidden / heads)", 32, 1, 1024),
      integer_field("ffn_hidden", "", "MLP inner width; default 4·hidden", json(), 1, 262144),
      integer_field("seq", "tokens", "Prefill: tokens per sequence; decode: cached context", 2048, 1, 1048576),
      integer_field("batch", "", "Sequences in the batch", 1, 1, 65536),
      string_field("phase", "prefill (all tokens at once) or decode (one new token per sequence)", "prefill",
                   {"prefill", "decode"}),
      dtype_field("bf16"),
      hardware_field(true)};
  fields[2].required = false;
  for (auto& f : machine_override_fields()) fields.push_back(std::move(f));

  out.push_back(
      {"transformer-ops",
       "FLOPs, bytes, roofline time and share of time of every op of one unfused transformer block. Matmuls run "
       "at the dtype's tensor-core peak, elementwise ops at the fp32 vector peak.",
       fields, [](const Inputs& in) -> json {
         const long long hidden = in.integer("hidden"), heads = in.integer("heads");
         if (hidden % heads != 0) throw InputError("heads", "'hidden' must be divisible by 'heads'.");
         const std::string dtype = in.str("dtype");
         const auto machine = machine_from(in, dtype);
         // Elementwise ops run on the vector units: the fp32 (non-tensor) rate where the table has one.
         double vector_peak = machine.peak_flops;
         if (!in.has("peak_flops") && in.has("hardware"))
           if (auto p = find_accelerator(in.str("hardware"))->peak_for("fp32")) vector_peak = std::min(*p, vector_peak);

         BlockShape shape{static_cast<double>(hidden),
                          static_cast<double>(heads),
                          static_cast<double>(in.has("ffn_hidden") ? in.integer("ffn_hidden") : 4 * hidden),
                          static_cast<double>(in.integer("seq")),
                          static_cast<double>(in.integer("batch")),
                          in.str("phase") == "decode",
                          dtype_bytes(dtype)};
         json ops = json::array();
         double total_time = 0, total_flops = 0, total_bytes = 0;
         for (const auto& op : block_ops(shape)) {
           const double peak = op.matmul ? machine.peak_flops : vector_peak;
           const auto r = roofline(op.flops, op.bytes, peak, machine.bandwidth_Bps);
           ops.push_back({{"name", op.name},
                          {"kind", op.matmul ? "matmul" : "elementwise"},
                          {"flops", op.flops},
                          {"bytes", op.bytes},
                          {"intensity", r.intensity},
                          {"peak_flops", peak},
                          {"time_s", r.time_s},
                          {"bound", r.bound}});
           total_time += r.time_s;
           total_flops += op.flops;
           total_bytes += op.bytes;
         }
         for (auto& op : ops) op["share"] = op["time_s"].get<double>() / total_time;
         return {{"ops", ops},
                 {"total_time_s", total_time},
                 {"total_flops", total_flops},
                 {"total_bytes", total_bytes},
                 {"ridge_intensity", machine.peak_flops / machine.bandwidth_Bps},
                 {"bandwidth_Bps", machine.bandwidth_Bps}};
       }});
}

}  // namespace mlsys::api
