// Calculators of the mixed-precision lesson: `float` (shared/API.md), `summation`,
// `loss-scaling`, `dynamic-loss-scale` and `mixed-precision-recipe`. Models in
// core/src/numerics/; this file only declares schemas and shapes the JSON.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "mlsys/foundations/dtype.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/numerics/float_format.hpp"
#include "mlsys/numerics/loss_scaling.hpp"
#include "mlsys/numerics/precision_recipe.hpp"
#include "mlsys/numerics/summation.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

// Results that go through exp, log and erfc are rounded to 12 significant digits, so that
// native and WebAssembly builds (different libm) print the same text.
json round12(const json& j) {
  if (j.is_number_float()) {
    const double x = j.get<double>();
    if (x == 0 || !std::isfinite(x)) return j;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.12g", x);
    return std::strtod(buf, nullptr);
  }
  if (j.is_structured()) {
    json out = j;
    for (auto& item : out) item = round12(item);
    return out;
  }
  return j;
}

// JSON cannot hold inf or NaN: non-finite results become null (callers add a flag).
json finite_or_null(double x) { return std::isfinite(x) ? json(x) : json(); }

Field format_field(const std::string& def, const std::string& what) {
  return string_field("format", what, def, float_format_names());
}


json limits_json(const FloatFormat& f) {
  return {{"max", f.max}, {"min_normal", f.min_normal}, {"min_subnormal", f.min_subnormal},
          {"epsilon", f.epsilon}};
}

json float_json(const Inputs& in) {
  const FloatFormat& f = float_format(in.str("format"));
  const double x = in.num("value");
  const bool saturate = in.boolean("saturate");
  const Rounded r = round_to_format(x, f, saturate ? Overflow::Saturate : Overflow::Default);
  const std::string bits = bit_string(r, f);
  const bool finite = r.special == FloatSpecial::None;
  json out = {{"format", f.name},
              {"value", x},
              {"rounded", finite ? json(r.value) : json()},
              {"special", finite ? "none" : (r.special == FloatSpecial::Infinity ? "inf" : "nan")},
              {"sign", r.negative ? "-" : "+"},
              {"overflow", r.overflow},
              {"underflow", r.underflow},
              {"subnormal", r.subnormal},
              {"bits", bits},
              {"sign_bits", bits.substr(0, 1)},
              {"exponent_bits", bits.substr(2, static_cast<std::size_t>(f.exponent_bits))},
              {"mantissa_bits", bits.substr(3 + static_cast<std::size_t>(f.exponent_bits))},
              {"exponent", finite ? json(r.exponent) : json()},
              {"exponent_width", f.exponent_bits},
              {"mantissa_width", f.mantissa_bits},
              {"bias", f.bias},
              {"total_bits", f.total_bits()},
              {"has_infinity", f.has_infinity},
              {"overflow_mode", saturate ? "saturate to ±max"
                                         : (f.has_infinity ? "to ±inf (IEEE 754)" : "to NaN (OCP E4M3 default)")},
              {"abs_error", finite ? json(std::fabs(r.value - x)) : json()},
              {"rel_error", finite ? json(x == 0 ? 0.0 : std::fabs(r.value - x) / std::fabs(x)) : json()},
              {"ulp", finite ? json(r.ulp) : json()},
              {"neighbours", neighbours(r, f, 6)}};
  out.update(limits_json(f));
  return out;
}

json summation_json(const Inputs& in) {
  const FloatFormat& f = float_format(in.str("format"));
  const bool constant = in.str("distribution") == "constant";
  const auto x = summation_addends(in.num("value"), in.integer("count"), !constant,
                                   static_cast<std::uint64_t>(in.integer("seed")), f);
  for (double v : x)
    if (!std::isfinite(v))
      throw InputError("value", "The addends exceed the largest " + f.name + " value; choose a smaller value.");
  const SummationSeries s = summation_series(x, f, constant, 160);
  if (s.exact == 0)
    throw InputError("value", "Every addend rounds to zero in " + f.name + "; choose a larger value.");
  const double recursive = pairwise_sum(x, f);
  bool overflow = false;
  json series = json::array();
  for (const auto& p : s.points) {
    for (double v : {p.naive, p.fp32, p.kahan, p.pairwise}) overflow = overflow || !std::isfinite(v);
    series.push_back({{"step", p.step}, {"exact", p.exact}, {"naive", finite_or_null(p.naive)},
                      {"fp32", finite_or_null(p.fp32)}, {"kahan", finite_or_null(p.kahan)},
                      {"pairwise", finite_or_null(p.pairwise)}});
  }
  auto rel = [&](double v) { return std::isfinite(v) ? json(std::fabs(v - s.exact) / s.exact) : json(); };
  return {{"format", f.name},
          {"distribution", constant ? "constant" : "uniform"},
          {"addend", x.front()},
          {"count", static_cast<long long>(x.size())},
          {"exact", s.exact},
          {"naive", finite_or_null(s.naive)},
          {"fp32", finite_or_null(s.fp32)},
          {"kahan", finite_or_null(s.kahan)},
          {"pairwise", finite_or_null(s.pairwise)},
          {"pairwise_recursive", finite_or_null(recursive)},
          {"rel_error_naive", rel(s.naive)},
          {"rel_error_fp32", rel(s.fp32)},
          {"rel_error_kahan", rel(s.kahan)},
          {"rel_error_pairwise", rel(s.pairwise)},
          {"lost_additions", s.lost_additions},
          {"stall_count", s.stall_count ? json(*s.stall_count) : json()},
          {"stall_sum", s.stall_sum ? json(*s.stall_sum) : json()},
          {"overflow", overflow || !std::isfinite(recursive)},
          {"max", f.max},
          {"series", series}};
}

json fractions_json(const GradientFractions& g) {
  return {{"zero", g.zero}, {"subnormal", g.subnormal}, {"normal", g.normal}, {"overflow", g.overflow}};
}

// Smallest power-of-two scale S >= 1 with g·S >= threshold (null if it would overflow).
json required_scale(double g, double threshold, const FloatFormat& f) {
  double s = 1;
  while (g * s < threshold) s *= 2;
  return g * s > f.max ? json() : json(s);
}

json loss_scaling_json(const Inputs& in) {
  const FloatFormat& f = float_format(in.str("format"));
  const double mu = in.num("mu_log2"), sigma = in.num("sigma_log2"), scale = in.num("loss_scale");
  std::vector<double> logs;
  const GradientFractions sampled =
      sample_gradient_fractions(mu, sigma, scale, f, in.integer("samples"),
                                static_cast<std::uint64_t>(in.integer("seed")), &logs);
  const GradientFractions model = gradient_fractions(mu, sigma, scale, f);
  // Histogram of log2|g·S| in bins of one binade around the distribution.
  const double centre = mu + std::log2(scale);
  const int lo = static_cast<int>(std::floor(centre - 4.5 * sigma)), hi = static_cast<int>(std::ceil(centre + 4.5 * sigma));
  const int width = std::max(1, (hi - lo + 79) / 80);  // at most ~80 bins
  std::vector<long long> counts(static_cast<std::size_t>((hi - lo) / width + 1), 0);
  for (double l : logs) {
    const int b = static_cast<int>(std::floor((l - lo) / width));
    if (b >= 0 && b < static_cast<int>(counts.size())) ++counts[static_cast<std::size_t>(b)];
  }
  json hist = json::array();
  for (std::size_t i = 0; i < counts.size(); ++i)
    hist.push_back({{"log2_lo", lo + static_cast<int>(i) * width}, {"log2_hi", lo + static_cast<int>(i + 1) * width},
                    {"fraction", static_cast<double>(counts[i]) / static_cast<double>(logs.size())}});
  json sweep = json::array();
  double best = 0, best_loss = 2;
  for (int k = -10; k <= 40; ++k) {
    const GradientFractions g = gradient_fractions(mu, sigma, std::ldexp(1.0, k), f);
    sweep.push_back({{"log2_scale", k}, {"zero", g.zero}, {"subnormal", g.subnormal}, {"overflow", g.overflow}});
    if (g.zero + g.overflow < best_loss - 1e-12) best_loss = g.zero + g.overflow, best = k;
  }
  json out = {{"format", f.name},
              {"loss_scale", scale},
              {"zero_fraction", sampled.zero},
              {"subnormal_fraction", sampled.subnormal},
              {"normal_fraction", sampled.normal},
              {"overflow_fraction", sampled.overflow},
              {"model", fractions_json(model)},
              {"samples", static_cast<long long>(logs.size())},
              {"log2_min_subnormal", std::log2(f.min_subnormal)},
              {"log2_min_normal", std::log2(f.min_normal)},
              {"log2_max", std::log2(f.max)},
              {"histogram", hist},
              {"sweep", sweep},
              {"best_log2_scale", best},
              {"best_lost_fraction", best_loss}};
  out.update(limits_json(f));
  out = round12(out);
  if (in.has("smallest_gradient")) {
    const double g = in.num("smallest_gradient");
    out["required_scale_subnormal"] = required_scale(g, f.min_subnormal, f);
    out["required_scale_normal"] = required_scale(g, f.min_normal, f);
  }
  return out;
}

json dynamic_scale_json(const Inputs& in) {
  const FloatFormat& f = float_format(in.str("format"));
  const ScalerRun r = simulate_dynamic_loss_scale(
      in.num("mu_log2"), in.num("sigma_log2"), in.num("grads_per_step"), f, in.integer("steps"),
      in.num("init_scale"), in.integer("growth_interval"), in.num("growth_factor"), in.num("backoff_factor"),
      static_cast<std::uint64_t>(in.integer("seed")));
  // Keep every step where something happens, plus an even sample: at most ~1,200 points.
  const long long every = std::max<long long>(1, static_cast<long long>(r.steps.size()) / 600);
  json series = json::array();
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    const bool changed = i == 0 || r.steps[i - 1].scale != s.scale || r.steps[i - 1].overflow;
    if (s.overflow || changed || s.step % every == 0 || i + 1 == r.steps.size())
      series.push_back({{"step", s.step}, {"scale", s.scale}, {"log2_scale", std::log2(s.scale)},
                        {"log2_max_grad", s.log2_max_grad}, {"overflow", s.overflow}});
  }
  const double n = static_cast<double>(r.steps.size());
  return round12({{"format", f.name},
          {"steps", static_cast<long long>(r.steps.size())},
          {"skipped_steps", r.skipped},
          {"skipped_fraction", static_cast<double>(r.skipped) / n},
          {"final_scale", r.final_scale},
          {"min_scale", r.min_scale},
          {"max_scale", r.max_scale},
          {"log2_max", std::log2(f.max)},
          {"series", series}});
}

const std::vector<std::string> kRecipeDtypes = {"fp32", "tf32", "bf16", "fp16", "fp8-e4m3"};

json recipe_json(const Inputs& in) {
  const Accelerator* hw = find_accelerator(in.str("hardware"));
  const std::string optimizer = in.str("optimizer"), chosen = in.str("compute_dtype");
  const double params = in.num("params"), tokens = in.num("tokens");
  const auto fp32_peak = hw->peak_for("fp32");
  json formats = json::array();
  json selected;
  for (const auto& d : kRecipeDtypes) {
    const PrecisionRecipe r = precision_recipe(d, optimizer);
    const auto peak = hw->peak_for(d);
    json row = {{"compute_dtype", d},
                {"available", peak.has_value()},
                {"peak_flops", peak ? json(*peak) : json()},
                {"speedup_vs_fp32", peak && fp32_peak ? json(*peak / *fp32_peak) : json()},
                {"step_time_s", peak ? json(training_step_time_s(params, tokens, *peak)) : json()},
                {"tokens_per_s", peak ? json(tokens / training_step_time_s(params, tokens, *peak)) : json()},
                {"weight_bytes_per_param", r.weight_bytes},
                {"grad_bytes_per_param", r.grad_bytes},
                {"master_bytes_per_param", r.master_bytes},
                {"optimizer_bytes_per_param", r.optimizer_bytes},
                {"total_bytes_per_param", r.total_bytes},
                {"model_state_bytes", r.total_bytes * params},
                {"operand_bytes", r.operand_bytes},
                {"accumulate_dtype", r.accumulate_dtype}};
    if (d == chosen) {
      if (!peak)
        throw InputError("compute_dtype", hw->name + " has no dense " + d +
                                              " rate in the hardware table; choose another compute_dtype.");
      selected = row;
    }
    formats.push_back(row);
  }
  json out = selected;
  out["hardware"] = hw->id;
  out["optimizer"] = optimizer;
  out["params"] = params;
  out["tokens"] = tokens;
  out["flops_per_step"] = 6.0 * params * tokens;
  out["formats"] = formats;
  return out;
}

// Model errors (std::invalid_argument) never escape as crashes: they name the field.
template <class F>
std::function<json(const Inputs&)> guarded(F f, const char* field) {
  return [f, field](const Inputs& in) -> json {
    try {
      return f(in);
    } catch (const std::invalid_argument& e) {
      throw InputError(field, e.what());
    }
  };
}

}  // namespace

void add_numerics_calculators(Calculators& out) {
  out.push_back({"float",
                 "Rounds a number to a floating-point format (round to nearest, ties to even, subnormals "
                 "included) and shows its bit fields, error and the format's limits.",
                 {format_field("bf16", "Floating-point format"),
                  number_field("value", "", "The number to round", 0.1, -1e300, 1e300),
                  boolean_field("saturate", "Clamp overflow to ±max instead of inf (NaN for E4M3)", false)},
                 guarded(float_json, "format")});

  out.push_back({"summation",
                 "Sums `count` addends stored in a low-precision format four ways, each rounded after every "
                 "operation: naive in the format, fp32 accumulation, Kahan in the format, pairwise in the format.",
                 {format_field("bf16", "Format of the addends and of the low-precision accumulator"),
                  number_field("value", "", "The addend (constant) or the mean of the uniform addends", 1.0, 0.0,
                               1e4, true),
                  integer_field("count", "", "Number of addends (executed, capped)", 4096, 1, kMaxSummationCount),
                  string_field("distribution", "constant: every addend equals value; uniform: drawn from [0, 2·value)",
                               "constant", {"constant", "uniform"}),
                  seed_field()},
                 guarded(summation_json, "format")});

  out.push_back(
      {"loss-scaling",
       "Gradient magnitudes, log2|g| ~ Normal(mu_log2, sigma_log2), multiplied by a loss scale and rounded "
       "to a format: the fractions that become zero, subnormal, normal or overflow (sampled and closed form).",
       {format_field("fp16", "Format the scaled gradients are stored in"),
        number_field("mu_log2", "", "Mean of log2 of the gradient magnitudes", -26.0, -120.0, 20.0),
        number_field("sigma_log2", "", "Standard deviation of log2 of the gradient magnitudes", 4.0, 0.1, 20.0),
        number_field("loss_scale", "", "Loss scale S (gradients are multiplied by it)", 1.0, 0x1.0p-20, 0x1.0p+60),
        integer_field("samples", "", "Gradient values drawn (executed, capped)", 20000, 100, kMaxGradientSamples),
        seed_field(),
        optional(number_field("smallest_gradient", "", "Optional: a gradient magnitude to lift into range", json(),
                              1e-40, 1e4, true))},
       guarded(loss_scaling_json, "format")});

  out.push_back(
      {"dynamic-loss-scale",
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
        number_field("backoff_factor", "", "Factor applied on overflow", 0.5, 0.01, 0.99),
        seed_field()},
       guarded(dynamic_scale_json, "format")});

  out.push_back({"mixed-precision-recipe",
                 "Peak throughput, compute-bound step time and bytes per parameter of training with the "
                 "mixed-precision recipe (fp32 master weights and optimizer state, fp32 accumulation) per "
                 "compute format.",
                 {hardware_field(true),
                  string_field("compute_dtype", "Format of the matmul inputs", "bf16", kRecipeDtypes),
                  number_field("params", "", "Model parameters", 7e9, 1e3, 1e13),
                  number_field("tokens", "", "Tokens per training step", 4194304.0, 1.0, 1e10),
                  string_field("optimizer", "adam (m and v in fp32) or sgd (momentum in fp32)", "adam",
                               {"adam", "sgd"})},
                 guarded(recipe_json, "compute_dtype")});
}

}  // namespace mlsys::api
