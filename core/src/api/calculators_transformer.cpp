// Calculator `transformer-ops`: every op of one transformer block on the roofline.
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/transformer/block_ops.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(BlockOpTime, MLSYS_OUT(name, "", "Op of the block"),
               MLSYS_OUT(kind, "", "matmul (matrix units) or elementwise (vector units)"),
               MLSYS_OUT(flops, "FLOP", "Floating-point operations of the op"),
               MLSYS_OUT(bytes, "B", "HBM bytes read and written by the op"),
               MLSYS_OUT(intensity, "FLOP/B", "flops / bytes"),
               MLSYS_OUT(peak_flops, "FLOP/s", "Peak the op runs at: tensor-core peak or fp32 vector peak"),
               MLSYS_OUT(time_s, "s", "Roofline time of the op"),
               MLSYS_OUT(bound, "", "compute or memory: the ceiling that sets the time"),
               MLSYS_OUT(share, "", "time_s / total_time_s"));
MLSYS_DESCRIBE(BlockRoofline, MLSYS_OUT(ops, "", "Every op of the block, in execution order"),
               MLSYS_OUT(total_time_s, "s", "Sum of the ops' roofline times"),
               MLSYS_OUT(total_flops, "FLOP", "Sum of the ops' FLOPs"),
               MLSYS_OUT(total_bytes, "B", "Sum of the ops' bytes"),
               MLSYS_OUT(ridge_intensity, "FLOP/B", "Tensor-core peak / bandwidth"),
               MLSYS_OUT(bandwidth_Bps, "B/s", "Memory bandwidth used for every op"));

void add_transformer_calculators(Calculators& out) {
  out.add("transformer-ops",
          "FLOPs, bytes, roofline time and share of time of every op of one unfused transformer block. Matmuls run "
          "at the dtype's tensor-core peak, elementwise ops at the fp32 vector peak.",
          with_machine(
              {integer_field("hidden", "", "Model width h", 4096, 64, 65536),
               integer_field("heads", "", "Attention heads (head_dim = hidden / heads)", 32, 1, 1024),
               optional(integer_field("ffn_hidden", "", "MLP inner width; default 4·hidden", json(), 1, 262144)),
               integer_field("seq", "tokens", "Prefill: tokens per sequence; decode: cached context", 2048, 1, 1048576),
               integer_field("batch", "", "Sequences in the batch", 1, 1, 65536),
               string_field("phase", "prefill (all tokens at once) or decode (one new token per sequence)", "prefill",
                            {"prefill", "decode"}),
               dtype_field("bf16"), hardware_field(true)}),
          [](const Inputs& in) {
            const long long hidden = in.integer("hidden"), heads = in.integer("heads");
            if (hidden % heads != 0) throw InputError("heads", "'hidden' must be divisible by 'heads'.");
            const std::string dtype = in.str("dtype");
            const auto machine = machine_from(in, dtype);
            // Elementwise ops run on the vector units: the fp32 (non-tensor) rate where the table has one.
            std::optional<double> vector_peak;
            if (!in.has("peak_flops") && in.has("hardware")) vector_peak = find_accelerator(in.str("hardware"))->peak_for("fp32");
            const BlockShape shape{static_cast<double>(hidden),
                                   static_cast<double>(heads),
                                   static_cast<double>(in.has("ffn_hidden") ? in.integer("ffn_hidden") : 4 * hidden),
                                   static_cast<double>(in.integer("seq")),
                                   static_cast<double>(in.integer("batch")),
                                   in.str("phase") == "decode",
                                   dtype_bytes(dtype)};
            return block_roofline(shape, machine.peak_flops, vector_peak, machine.bandwidth_Bps);
          });
}

}  // namespace mlsys::api
