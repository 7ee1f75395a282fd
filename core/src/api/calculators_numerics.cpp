// Calculators of the mixed-precision lesson: `float` (shared/API.md), `summation`,
// `loss-scaling`, `dynamic-loss-scale` and `mixed-precision-recipe`. Models in
// core/src/numerics/; this file only declares schemas and outputs.
#include <cmath>

#include "mlsys/numerics/float_format.hpp"
#include "mlsys/numerics/fp8_block_scaling.hpp"
#include "mlsys/numerics/loss_scaling.hpp"
#include "mlsys/numerics/precision_recipe.hpp"
#include "mlsys/numerics/summation.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

Field format_field(const std::string& def, const std::string& what) {
  return string_field("format", what, def, float_format_names());
}
}  // namespace

MLSYS_DESCRIBE(FloatReport, MLSYS_OUT(format, "", "The format"), MLSYS_OUT(value, "", "The number given"),
               MLSYS_OUT_NULLABLE(rounded, "", "The nearest value of the format (null when inf or NaN)"),
               MLSYS_OUT(special, "", "none, inf or nan"), MLSYS_OUT(sign, "", "+ or -"),
               MLSYS_OUT(overflow, "", "|value| rounded past the format's max"),
               MLSYS_OUT(underflow, "", "A nonzero value rounded to zero"),
               MLSYS_OUT(subnormal, "", "The result is subnormal"),
               MLSYS_OUT(bits, "", "Sign, exponent and mantissa fields, separated by spaces"),
               MLSYS_OUT(sign_bits, "", "The sign bit"), MLSYS_OUT(exponent_bits, "", "The stored exponent field"),
               MLSYS_OUT(mantissa_bits, "", "The stored mantissa field"),
               MLSYS_OUT_NULLABLE(exponent, "", "Unbiased exponent of the result (null when inf or NaN)"),
               MLSYS_OUT(exponent_width, "", "Exponent bits of the format"),
               MLSYS_OUT(mantissa_width, "", "Stored mantissa bits of the format"),
               MLSYS_OUT(bias, "", "Exponent bias"), MLSYS_OUT(total_bits, "", "Bits of one value"),
               MLSYS_OUT(has_infinity, "", "The format has infinities (not OCP E4M3 nor the FNUZ formats)"),
               MLSYS_OUT(overflow_mode, "", "What overflow gives"),
               MLSYS_OUT_NULLABLE(abs_error, "", "|rounded − value|"),
               MLSYS_OUT_NULLABLE(rel_error, "", "|rounded − value| / |value| (0 for 0)"),
               MLSYS_OUT_NULLABLE(ulp, "", "Spacing of the format at the result"),
               MLSYS_OUT(neighbours, "", "The 6 representable values below and above, nearest first"),
               MLSYS_OUT(max, "", "Largest finite value"), MLSYS_OUT(min_normal, "", "Smallest normal value"),
               MLSYS_OUT(min_subnormal, "", "Smallest subnormal value"),
               MLSYS_OUT(epsilon, "", "Gap between 1 and the next value"),
               MLSYS_OUT(exp_overflow, "", "ln(max): the largest x whose e^x stays within the format (the textbook softmax's limit)"),
               MLSYS_OUT_NULLABLE(next_down, "", "The nearest value of the format below the result (null when inf, NaN or -max)"),
               MLSYS_OUT_NULLABLE(next_up, "", "The nearest value of the format above the result (null when inf, NaN or max)"),
               MLSYS_OUT_NULLABLE(rel_ulp, "", "ulp / |rounded|: the relative spacing at the value (null for 0, inf, NaN)"),
               MLSYS_OUT(code_count, "", "Bit patterns of the format, 2^total_bits"),
               MLSYS_OUT(nan_codes, "", "Bit patterns that are NaN"),
               MLSYS_OUT(infinity_codes, "", "Bit patterns that are ±inf"),
               MLSYS_OUT(zero_codes, "", "Bit patterns that are zero (2 with a signed zero, 1 in FNUZ)"),
               MLSYS_OUT(binade_codes, "", "Bit patterns sharing one exponent value, both signs: 2^(mantissa bits + 1)"),
               MLSYS_OUT(binades, "", "log2(max / min_subnormal): powers of two spanned by the positive values"));

MLSYS_DESCRIBE(SummationPoint, MLSYS_OUT(step, "", "Additions done"), MLSYS_OUT(exact, "", "Exact sum so far"),
               MLSYS_OUT_NULLABLE(naive, "", "Naive sum in the format (null past its range)"),
               MLSYS_OUT_NULLABLE(fp32, "", "fp32 accumulation"), MLSYS_OUT_NULLABLE(kahan, "", "Kahan sum in the format"),
               MLSYS_OUT_NULLABLE(pairwise, "", "Pairwise sum in the format"));
MLSYS_DESCRIBE(SummationReport, MLSYS_OUT(format, "", "Format of the addends and accumulator"),
               MLSYS_OUT(distribution, "", "constant or uniform"),
               MLSYS_OUT(addend, "", "The first addend, as stored in the format"),
               MLSYS_OUT(count, "", "Number of addends"), MLSYS_OUT(exact, "", "Exact sum"),
               MLSYS_OUT_NULLABLE(naive, "", "Naive running sum in the format"),
               MLSYS_OUT_NULLABLE(fp32, "", "Sum accumulated in fp32"),
               MLSYS_OUT_NULLABLE(kahan, "", "Kahan compensated sum in the format"),
               MLSYS_OUT_NULLABLE(pairwise, "", "Pairwise sum in the format (streamed)"),
               MLSYS_OUT_NULLABLE(pairwise_recursive, "", "Pairwise sum by recursive halving"),
               MLSYS_OUT_NULLABLE(rel_error_naive, "", "|naive − exact| / exact"),
               MLSYS_OUT_NULLABLE(rel_error_fp32, "", "|fp32 − exact| / exact"),
               MLSYS_OUT_NULLABLE(rel_error_kahan, "", "|kahan − exact| / exact"),
               MLSYS_OUT_NULLABLE(rel_error_pairwise, "", "|pairwise − exact| / exact"),
               MLSYS_OUT(lost_additions, "", "Naive additions of a nonzero addend that left the sum unchanged"),
               MLSYS_OUT_NULLABLE(stall_count, "", "Constant addend: additions before the first lost one"),
               MLSYS_OUT_NULLABLE(stall_sum, "", "Constant addend: the naive sum from then on"),
               MLSYS_OUT(last_growth_step, "", "Additions done when the naive sum changed for the last time"),
               MLSYS_OUT(frozen_additions, "", "Additions after that which left the naive sum unchanged"),
               MLSYS_OUT(overflow, "", "Some sum went past the format's max"),
               MLSYS_OUT(max, "", "Largest finite value of the format"),
               MLSYS_OUT(series, "", "The four sums at about 160 log-spaced steps"));

MLSYS_DESCRIBE(GradientFractions, MLSYS_OUT(zero, "", "Fraction that rounds to zero"),
               MLSYS_OUT(subnormal, "", "Fraction that lands in the subnormal range"),
               MLSYS_OUT(normal, "", "Fraction that rounds to a normal value"),
               MLSYS_OUT(overflow, "", "Fraction that overflows"));
MLSYS_DESCRIBE(HistogramBin, MLSYS_OUT(log2_lo, "", "Lower edge of log2|g·S|"),
               MLSYS_OUT(log2_hi, "", "Upper edge of log2|g·S|"), MLSYS_OUT(fraction, "", "Fraction of the samples"));
MLSYS_DESCRIBE(ScaleSweepPoint, MLSYS_OUT(log2_scale, "", "log2 of the loss scale"),
               MLSYS_OUT(zero, "", "Fraction that rounds to zero (closed form)"),
               MLSYS_OUT(subnormal, "", "Fraction in the subnormal range"),
               MLSYS_OUT(overflow, "", "Fraction that overflows"),
               MLSYS_OUT(step_overflow, "", "Probability that a step of grads_per_step gradients has an overflow"));
MLSYS_DESCRIBE(RequiredScales,
               MLSYS_OUT_NULLABLE_AS("required_scale_subnormal", subnormal, "",
                                 "Smallest power-of-two scale lifting smallest_gradient to min_subnormal (null if it "
                                 "would overflow)"),
               MLSYS_OUT_NULLABLE_AS("required_scale_normal", normal, "",
                                 "Smallest power-of-two scale lifting smallest_gradient to min_normal (null if it "
                                 "would overflow)"));
MLSYS_DESCRIBE(LossScalingReport, MLSYS_OUT(format, "", "Format the scaled gradients are stored in"),
               MLSYS_OUT(loss_scale, "", "Loss scale S"),
               MLSYS_OUT(zero_fraction, "", "Sampled fraction that rounds to zero"),
               MLSYS_OUT(subnormal_fraction, "", "Sampled fraction in the subnormal range"),
               MLSYS_OUT(normal_fraction, "", "Sampled fraction that rounds to a normal value"),
               MLSYS_OUT(overflow_fraction, "", "Sampled fraction that overflows"),
               MLSYS_OUT(model, "", "The same fractions from the normal CDF (closed form)"),
               MLSYS_OUT(samples, "", "Gradient values drawn"),
               MLSYS_OUT(log2_min_subnormal, "", "log2 of the smallest subnormal"),
               MLSYS_OUT(log2_min_normal, "", "log2 of the smallest normal"), MLSYS_OUT(log2_max, "", "log2 of max"),
               MLSYS_OUT(histogram, "", "Sampled log2|g·S| in bins of whole binades"),
               MLSYS_OUT(sweep, "", "Closed-form fractions for S = 2^-10 .. 2^40"),
               MLSYS_OUT(best_log2_scale, "",
                         "log2 of the sweep's scale losing the fewest values (zero + overflow, per gradient: it ignores "
                         "that one overflow skips a whole step; see safe_log2_scale)"),
               MLSYS_OUT(best_lost_fraction, "", "Its zero + overflow fraction"),
               MLSYS_OUT(grads_per_step, "", "Gradient values per step, for the per-step overflow probability"),
               MLSYS_OUT(max_skip_fraction, "", "Largest share of skipped steps the safe scale may cause"),
               MLSYS_OUT(safe_log2_scale, "",
                         "log2 of the largest scale of the sweep whose step overflows with probability at most "
                         "max_skip_fraction"),
               MLSYS_OUT(safe_zero_fraction, "", "Fraction that rounds to zero at the safe scale"),
               MLSYS_OUT(safe_step_overflow, "", "Probability that a step overflows at the safe scale"),
               MLSYS_OUT(max, "", "Largest finite value"), MLSYS_OUT(min_normal, "", "Smallest normal value"),
               MLSYS_OUT(min_subnormal, "", "Smallest subnormal value"),
               MLSYS_OUT(epsilon, "", "Gap between 1 and the next value"), MLSYS_FLAT(required));

MLSYS_DESCRIBE(ScalerPoint, MLSYS_OUT(step, "", "Training step"), MLSYS_OUT(scale, "", "Loss scale used"),
               MLSYS_OUT(log2_scale, "", "log2 of the loss scale"),
               MLSYS_OUT(log2_max_grad, "", "log2 of the step's largest |g| before scaling"),
               MLSYS_OUT(overflow, "", "max|g|·scale overflowed: step skipped"));
MLSYS_DESCRIBE(DynamicScaleReport, MLSYS_OUT(format, "", "Format of the scaled gradients"),
               MLSYS_OUT(steps, "", "Steps simulated"), MLSYS_OUT(skipped_steps, "", "Steps skipped on overflow"),
               MLSYS_OUT(skipped_fraction, "", "skipped_steps / steps"),
               MLSYS_OUT(final_scale, "", "Loss scale after the last step"),
               MLSYS_OUT(min_scale, "", "Smallest loss scale used"), MLSYS_OUT(max_scale, "", "Largest loss scale used"),
               MLSYS_OUT(log2_max, "", "log2 of the format's max"),
               MLSYS_OUT(series, "", "Every step where something happens, plus an even sample"));

MLSYS_DESCRIBE(PrecisionRecipe, MLSYS_OUT_AS("weight_bytes_per_param", weight_bytes, "B", "Working weights"),
               MLSYS_OUT_AS("grad_bytes_per_param", grad_bytes, "B", "Gradient"),
               MLSYS_OUT_AS("master_bytes_per_param", master_bytes, "B", "fp32 master copy (0 when working in fp32)"),
               MLSYS_OUT_AS("optimizer_bytes_per_param", optimizer_bytes, "B", "fp32 optimizer state"),
               MLSYS_OUT_AS("total_bytes_per_param", total_bytes, "B", "Sum per parameter"),
               MLSYS_OUT(operand_bytes, "B", "Bytes per element of the matmul inputs"),
               MLSYS_OUT(accumulate_dtype, "", "The matmul accumulator"));
MLSYS_DESCRIBE(PrecisionRow, MLSYS_OUT(compute_dtype, "", "Format of the matmul inputs"),
               MLSYS_OUT(available, "", "The hardware table has a dense rate for it"),
               MLSYS_OUT_NULLABLE(peak_flops, "FLOP/s", "Dense peak in the format"),
               MLSYS_OUT_NULLABLE(speedup_vs_fp32, "", "peak_flops / fp32 peak"),
               MLSYS_OUT_NULLABLE(step_time_s, "s", "Compute-bound step: 6·params·tokens / peak_flops"),
               MLSYS_OUT_NULLABLE(tokens_per_s, "tokens/s", "tokens / step_time_s"), MLSYS_FLAT(recipe),
               MLSYS_OUT(model_state_bytes, "B", "total_bytes_per_param · params"));
MLSYS_DESCRIBE(PrecisionReport, MLSYS_FLAT(selected), MLSYS_OUT(hardware, "", "Accelerator id"),
               MLSYS_OUT(optimizer, "", "adam or sgd"), MLSYS_OUT(params, "", "Model parameters"),
               MLSYS_OUT(tokens, "tokens", "Tokens per training step"),
               MLSYS_OUT(flops_per_step, "FLOP", "6·params·tokens"),
               MLSYS_OUT(formats, "", "The same row for every compute format"));

MLSYS_DESCRIBE(Fp8BlockScheme, MLSYS_OUT(scheme, "", "per-tensor, block-128x128, tile-1x128 or mx-1x32"),
               MLSYS_OUT(block_rows, "", "Tokens per scale group"), MLSYS_OUT(block_cols, "", "Channels per scale group"),
               MLSYS_OUT(power_of_two_scale, "", "The scale is a power of two (E8M0), not an fp32 amax/max"),
               MLSYS_OUT(scale_bits_per_element, "bit", "Scale storage spread over the group's elements"),
               MLSYS_OUT(lost_fraction, "", "Elements stored as subnormal or zero (fewer significant bits)"),
               MLSYS_OUT(zero_fraction, "", "Nonzero elements rounded to zero"));
MLSYS_DESCRIBE(Fp8BlockSweepPoint, MLSYS_OUT(outlier_log2, "", "Outlier channels' size above the rest (binades)"),
               MLSYS_OUT(lost_fraction, "", "lost_fraction of each scheme, in the order of schemes"));
MLSYS_DESCRIBE(Fp8BlockScalingReport, MLSYS_OUT(format, "", "FP8 element format"),
               MLSYS_OUT(tokens, "tokens", "Rows of the tensor"), MLSYS_OUT(channels, "", "Columns of the tensor"),
               MLSYS_OUT(outlier_channels, "", "Channels scaled up by 2^outlier_log2"),
               MLSYS_OUT(outlier_log2, "", "Binades the outlier channels sit above the rest"),
               MLSYS_OUT(channel_sigma_log2, "", "Spread of log2 of the other channels' magnitudes"),
               MLSYS_OUT(tensor_amax, "", "Largest magnitude in the tensor"),
               MLSYS_OUT(schemes, "", "Per-tensor, 128x128 blocks, 1x128 tiles and MX 1x32 blocks"),
               MLSYS_OUT(sweep, "", "lost_fraction per scheme for outlier_log2 = 0, 2, ..., 20"));

void add_numerics_calculators(Calculators& out) {
  out.add("float",
          "Rounds a number to a floating-point format (round to nearest, ties to even, subnormals included) and shows "
          "its bit fields, error and the format's limits.",
          {format_field("bf16", "Floating-point format"),
           number_field("value", "", "The number to round", 0.1, -1e300, 1e300),
           boolean_field("saturate", "Clamp overflow to ±max instead of inf (NaN for E4M3)", false)},
          [](const Inputs& in) { return float_report(in.str("format"), in.num("value"), in.boolean("saturate")); });

  out.add("summation",
          "Sums `count` addends stored in a low-precision format four ways, each rounded after every operation: naive "
          "in the format, fp32 accumulation, Kahan in the format, pairwise in the format.",
          {format_field("bf16", "Format of the addends and of the low-precision accumulator"),
           number_field("value", "", "The addend (constant) or the mean of the uniform addends", 1.0, 0.0, 1e4, true),
           integer_field("count", "", "Number of addends (executed, capped)", 4096, 1, kMaxSummationCount),
           string_field("distribution", "constant: every addend equals value; uniform: drawn from [0, 2·value)",
                        "constant", {"constant", "uniform"}),
           seed_field()},
          [](const Inputs& in) {
            return summation_report(in.str("format"), in.num("value"), in.integer("count"),
                                    in.str("distribution") != "constant", static_cast<std::uint64_t>(in.integer("seed")));
          });

  out.add("loss-scaling",
          "Gradient magnitudes, log2|g| ~ Normal(mu_log2, sigma_log2), multiplied by a loss scale and rounded to a "
          "format: the fractions that become zero, subnormal, normal or overflow (sampled and closed form).",
          {format_field("fp16", "Format the scaled gradients are stored in"),
           number_field("mu_log2", "", "Mean of log2 of the gradient magnitudes", -26.0, -120.0, 20.0),
           number_field("sigma_log2", "", "Standard deviation of log2 of the gradient magnitudes", 4.0, 0.1, 20.0),
           number_field("loss_scale", "", "Loss scale S (gradients are multiplied by it)", 1.0, 0x1.0p-20, 0x1.0p+60),
           integer_field("samples", "", "Gradient values drawn (executed, capped)", 20000, 100, kMaxGradientSamples),
           seed_field(),
           optional(number_field("smallest_gradient", "", "Optional: a gradient magnitude to lift into range", json(),
                                 1e-40, 1e4, true)),
           number_field("grads_per_step", "", "Gradient values per step (one overflow among them skips the step)", 1e8,
                        1.0, 1e13),
           number_field("max_skip_fraction", "", "Share of steps the safe scale may skip", 0.01, 1e-6, 0.5)},
          [](const Inputs& in) {
            return loss_scaling_report(
                float_format(in.str("format")), in.num("mu_log2"), in.num("sigma_log2"), in.num("loss_scale"),
                in.integer("samples"), static_cast<std::uint64_t>(in.integer("seed")),
                in.has("smallest_gradient") ? std::optional<double>(in.num("smallest_gradient")) : std::nullopt,
                in.num("grads_per_step"), in.num("max_skip_fraction"));
          });

  out.add("dynamic-loss-scale",
          "Dynamic loss scaling over training steps (PyTorch GradScaler rules): skip the step and back off on "
          "overflow, grow after growth_interval clean steps. Each step's largest gradient is drawn from the "
          "log-normal model.",
          {format_field("fp16", "Format of the scaled gradients"),
           number_field("mu_log2", "", "Mean of log2 of the gradient magnitudes", -20.0, -120.0, 20.0),
           number_field("sigma_log2", "", "Standard deviation of log2 of the gradient magnitudes", 3.0, 0.1, 20.0),
           number_field("grads_per_step", "", "Gradient values per step (the maximum of these is drawn)", 1e8, 1.0,
                        1e13),
           integer_field("steps", "", "Training steps simulated (capped)", 3000, 1, kMaxScalerSteps),
           number_field("init_scale", "", "Initial loss scale", 65536.0, 1.0, 0x1.0p+40),
           integer_field("growth_interval", "", "Clean steps before the scale grows", 2000, 1, 1000000),
           number_field("growth_factor", "", "Factor applied when the scale grows", 2.0, 1.0, 16.0, true),
           number_field("backoff_factor", "", "Factor applied on overflow", 0.5, 0.01, 0.99), seed_field()},
          [](const Inputs& in) {
            return dynamic_loss_scale_report(float_format(in.str("format")), in.num("mu_log2"), in.num("sigma_log2"),
                                             in.num("grads_per_step"), in.integer("steps"), in.num("init_scale"),
                                             in.integer("growth_interval"), in.num("growth_factor"),
                                             in.num("backoff_factor"), static_cast<std::uint64_t>(in.integer("seed")));
          });

  out.add("fp8-block-scaling",
          "FP8 with one scale per tensor, per 128x128 block, per 1x128 tile (DeepSeek-V3) or per 32 values with a "
          "power-of-two scale (MXFP8), on a 128 x 1024 activation tensor with outlier channels: the share of "
          "elements each loses to the subnormal range or zero.",
          {string_field("format", "FP8 element format", "fp8-e4m3", {"fp8-e4m3", "fp8-e5m2"}),
           integer_field("outlier_channels", "", "Channels far above the rest", 8, 0, 64),
           number_field("outlier_log2", "", "How far the outlier channels sit above the rest (binades)", 10.0, 0.0,
                        24.0),
           number_field("channel_sigma_log2", "", "Spread of log2 of the other channels' magnitudes", 1.0, 0.0, 4.0),
           seed_field()},
          [](const Inputs& in) {
            return fp8_block_scaling_report(in.str("format"), static_cast<int>(in.integer("outlier_channels")),
                                            in.num("outlier_log2"), in.num("channel_sigma_log2"),
                                            static_cast<std::uint64_t>(in.integer("seed")));
          });

  out.add("mixed-precision-recipe",
          "Peak throughput, compute-bound step time and bytes per parameter of training with the mixed-precision "
          "recipe (fp32 master weights and optimizer state, fp32 accumulation) per compute format.",
          {hardware_field(true),
           string_field("compute_dtype", "Format of the matmul inputs", "bf16", precision_recipe_dtypes()),
           number_field("params", "", "Model parameters", 7e9, 1e3, 1e13),
           number_field("tokens", "", "Tokens per training step", 4194304.0, 1.0, 1e10),
           string_field("optimizer", "adam (m and v in fp32) or sgd (momentum in fp32)", "adam", {"adam", "sgd"})},
          [](const Inputs& in) {
            return precision_report(in.str("hardware"), in.str("compute_dtype"), in.num("params"), in.num("tokens"),
                                    in.str("optimizer"));
          });
}

}  // namespace mlsys::api
