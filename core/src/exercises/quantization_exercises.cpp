// Exercises of the quantization lesson: the largest rounding error in a row of weights, the
// integer code of a value under an asymmetric (scale, zero point) quantizer, the SQNR of data
// whose range an outlier sets, the memory of a group-wise int4 model with its fp16 scales, and
// the decode-step time of weight-only int4 with a bf16 KV cache. Answers are computed from the numbers
// shown; params are inputs of `quantize`, `quantizer-staircase` and `quantization-speedup`.
#include <algorithm>
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys::exercises {

namespace {

double two_dp(double x) { return std::round(x * 100) / 100; }
double decibels_of(double ratio) { return 10 * std::log10(ratio); }
std::string range_text(double lo, double hi) {
  std::string s(1, '[');
  s += format_number(lo, 4);
  s += ", ";
  s += format_number(hi, 4);
  s += ']';
  return s;
}

// A row of six weights quantized symmetrically: the reader finds the scale from the largest
// magnitude, rounds every weight and reports the largest error. Draws whose worst error is
// within 5% of Δ/2 are redrawn, so the bound alone does not pass for the measured error.
Exercise max_error(Rng& rng) {
  for (;;) {
    const int bits = rng.pick(std::vector<int>{3, 4, 5});
    const double spread = 0.2 + 2.8 * rng.uniform();
    std::vector<double> w(6);
    double amax = 0;
    for (double& x : w) {
      x = two_dp(spread * (2 * rng.uniform() - 1));
      amax = std::max(amax, std::fabs(x));
    }
    if (amax == 0) continue;
    const double qmax = std::ldexp(1.0, bits - 1) - 1, scale = amax / qmax;
    double worst = 0, worst_w = 0;
    std::string list, steps;
    for (double x : w) {
      const double q = std::round(x / scale), err = std::fabs(x - scale * q);
      if (err > worst) worst = err, worst_w = x;
      list += (list.empty() ? "" : ", ") + format_number(x, 4);
      steps += (steps.empty() ? "" : "; ") + format_number(x, 4) + " → " + format_int(q) + " → " +
               format_number(scale * q, 4) + " (error " + format_number(err, 3) + ")";
    }
    if (worst > 0.95 * scale / 2 - 1e-9 || worst < 0.2 * scale / 2) continue;  // 95% itself too
    Exercise e;
    e.title = "Rounding error of a row of weights";
    e.params = {{"bits", bits}, {"range_min", -amax}, {"range_max", amax}, {"symmetric", true}, {"value", worst_w}};
    e.prompt = "The row of weights [" + list + "] is quantized symmetrically to " + std::to_string(bits) +
               " bits: codes −" + format_int(qmax) + " to " + format_int(qmax) + ", scale max|w| / " + format_int(qmax) +
               ", round-to-nearest. What is the largest error |w − ŵ| among these six weights?";
    e.unit = "";
    e.answer = worst;
    e.hint = "The scale is the step Δ. Divide each weight by it, round to the nearest integer code, multiply back, "
             "and compare. The bound Δ/2 is only the worst case over all possible values.";
    e.solution = "s = " + format_number(amax, 4) + " / " + format_int(qmax) + " = " + format_number(scale, 4) +
                 " (bound Δ/2 = " + format_number(scale / 2, 4) + "). " + steps + ". The largest error is " +
                 format_number(worst, 4) + ".";
    require(e, worst <= scale / 2 * (1 + 1e-9), "no weight is farther than \u0394/2 from its code");
    reject_mistake(e, scale / 2, "gave the bound \u0394/2, not the row's largest error");
    return e;
  }
}

Exercise code_of_value(Rng& rng) {
  // Draw until neither the zero point nor the code sits near a rounding tie.
  for (;;) {
    const double lo = -two_dp(0.1 + 2.9 * rng.uniform()), hi = two_dp(0.5 + 5.5 * rng.uniform());
    const double x = two_dp(lo + (hi - lo) * (0.05 + 0.9 * rng.uniform()));
    const double scale = (hi - lo) / 255, zr = -lo / scale, z = std::round(zr), qr = x / scale;
    const double q = std::round(qr) + z;
    if (std::fabs(zr - std::floor(zr) - 0.5) < 0.08 || std::fabs(qr - std::floor(qr) - 0.5) < 0.08) continue;
    Exercise e;
    e.title = "Scale, zero point and code";
    e.params = {{"bits", 8}, {"range_min", lo}, {"range_max", hi}, {"symmetric", false}, {"value", x}};
    e.prompt = "An asymmetric int8 quantizer (codes 0 to 255) is calibrated to the activation range " +
               range_text(lo, hi) + ". Compute its scale and zero point, then the integer code it stores for x = " +
               format_number(x, 4) + ".";
    e.unit = "";
    e.answer = q;
    e.integer = true;
    e.hint = "Scale s = (max − min)/255. Zero point z = round(−min/s): the code that represents 0. Then q = round(x/s) "
             "+ z, clamped to 0…255.";
    e.solution = "s = " + format_number(hi - lo, 4) + " / 255 = " + format_number(scale, 4) + "; z = round(" +
                 format_number(-lo, 4) + " / " + format_number(scale, 4) + ") = round(" + format_number(zr, 4) +
                 ") = " + format_int(z) + "; q = round(" + format_number(x, 4) + " / " + format_number(scale, 4) +
                 ") + " + format_int(z) + " = " + format_int(std::round(qr)) + " + " + format_int(z) +
                 ", which decodes to s·(q − z) = " + format_number(scale * (q - z), 4) + ". The code is q = " +
                 format_int(q) + ".";
    require(e, z >= 0 && z <= 255 && q >= 0 && q <= 255, "the zero point and the code are int8 codes (0 to 255)");
    reject_mistake(e, std::round(qr), "left out the zero point");
    reject_mistake_where_distinct(e, std::floor(qr) + z, "truncated x/s instead of rounding it");
    return e;
  }
}

// Uniform data whose quantizer range is set by an outlier: the step follows the outlier, the
// signal power the data, so the SQNR needs both (signal a²/3, noise Δ²/12 with Δ = 2M/(2^b − 1)).
// The ratio M/a keeps Δ at most a quarter of a, where the rounding model holds.
Exercise mse(Rng& rng) {
  for (;;) {
    const int bits = rng.pick(std::vector<int>{6, 8});
    const double levels = std::ldexp(1.0, bits) - 1;
    const double a = two_dp(0.5 + 3.5 * rng.uniform());
    const double ratio = 2 + ((bits == 6 ? 7.0 : 30.0) - 2) * rng.uniform();
    const double m = two_dp(a * ratio);
    const double step = 2 * m / levels, noise = step * step / 12, signal = a * a / 3;
    const double sqnr = decibels_of(signal / noise);
    if (std::fabs(m - sqnr) < 0.03 * sqnr) continue;  // M must not pass for the answer
    Exercise e;
    e.title = "SQNR when an outlier sets the range";
    e.params = {{"bits", bits}, {"range_min", -m}, {"range_max", m}};
    e.prompt = "Activations spread uniformly over " + range_text(-a, a) + " share a tensor with one outlier channel "
               "reaching ±" + format_number(m, 4) + ", so " + article(std::to_string(bits)) + std::to_string(bits) + "-bit quantizer is calibrated to " +
               range_text(-m, m) + ". Using the rounding-noise model, what SQNR do the ordinary activations get? Answer in decibels, as a plain number.";
    e.unit = "";  // decibels, typed as a plain number (the answer parser has no dB unit)
    e.answer = sqnr;
    e.abs_tolerance = 0.05;
    e.rel_tolerance = 0.002;
    require(e, step <= a / 4, "the step (" + format_number(step, 3) + ") is at most a quarter of a, where \u0394\u00B2/12 holds");
    reject_mistake(e, decibels_of(levels * levels), "gave the SQNR without the outlier (range [\u2212a, a])");
    reject_mistake_where_distinct(e, decibels_of(m * m / 3 / noise), "took the signal from the calibrated range, not the data");
    e.hint = "The step comes from the calibrated range: Δ = range / (2^b − 1), noise Δ²/12. The signal comes from the "
             "data: a uniform spread over [−a, a] has mean square a²/3. SQNR = 10·log10(signal / noise).";
    e.solution = "Δ = " + format_number(2 * m, 4) + " / " + format_int(levels) + " = " + format_number(step, 4) +
                 ", noise Δ²/12 = " + format_number(noise, 4) + "; signal a²/3 = " + format_number(signal, 4) +
                 "; SQNR = 10·log10(" + format_number(signal / noise, 4) + ") = " + format_number(sqnr, 4) +
                 " dB (without the outlier the range would be [−a, a] and the SQNR " +
                 format_number(decibels_of(levels * levels), 3) + " dB). The answer is " + format_number(sqnr, 4) + " dB.";
    return e;
  }
}

Exercise group_memory(Rng& rng) {
  const double billions = rng.pick(std::vector<double>{7, 8, 13, 14, 34, 70, 72, 405});
  const int g = rng.pick(std::vector<int>{32, 64, 128, 256});
  const int bits = rng.pick(std::vector<int>{3, 4});
  const bool sym = rng.uniform() < 0.5;
  const double bpw = bits + (sym ? 16.0 : 32.0) / g;
  Exercise e;
  e.title = "Memory of group-wise quantized weights";
  e.params = {{"bits", bits}, {"granularity", "group"}, {"group_size", g}, {"symmetric", sym}, {"cols", 4096}};
  e.prompt = "A model with " + format_number(billions, 3) + " billion parameters in its linear layers is quantized to "
             "int" + std::to_string(bits) + " in groups of " + std::to_string(g) + " weights, each group with one fp16 "
             "scale" + (sym ? "" : " and one 16-bit zero point") + ". How many GB (10^9 bytes) do these weights take?";
  e.unit = "GB";
  e.answer = billions * bpw / 8;
  e.hint = "Count bits per weight: the code plus the metadata spread over the group (16 bits per scale" +
           std::string(sym ? "" : ", 16 more per zero point") + " ÷ group size). Then multiply by the parameters and divide by 8.";
  e.solution = "Bits per weight = " + std::to_string(bits) + " + " + (sym ? "16" : "32") + "/" + std::to_string(g) +
               " = " + format_number(bpw, 4) + " (bf16 would take " + format_number(billions * 2, 4) + " GB); bytes = " +
               format_number(billions, 3) + "e9 × " + format_number(bpw, 4) + " / 8 = " + format_number(e.answer, 4) +
               " GB.";
  require(e, bpw > bits && bpw <= bits + 1, "the metadata adds under one bit per weight");
  reject_mistake(e, billions * bits / 8, "counted the codes and left out the scales" + std::string(sym ? "" : " and zero points"));
  reject_mistake(e, billions * bpw, "counted bits as bytes");
  return e;
}

// Weight-only int4 at a small decode batch with the KV cache left in bf16: the step reads the
// int4 weights and every cached token of every sequence, so the time needs the bandwidth, the
// model, the group size, the batch, the context and the KV shape. Draws where the step would be
// compute-bound are redrawn (the memory time is the answer).
Exercise int4_decode(Rng& rng) {
  struct Model {
    double billions, layers, heads, kv_heads;
  };
  static const std::vector<Model> models = {
      {7, 32, 32, 32}, {8, 32, 32, 8}, {13, 40, 40, 40}, {34, 48, 64, 8}, {70, 80, 64, 8}};
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x"};
  for (;;) {
    const Accelerator* hw = find_accelerator(rng.pick(ids));
    const double bw = round_sig(hw->hbm_bandwidth_Bps / 1e12, 3);
    const Model md = rng.pick(models);
    const int g = rng.pick(std::vector<int>{32, 64, 128});
    const double batch = rng.pick(std::vector<double>{1, 4, 8, 16, 32});
    const double context = rng.pick(std::vector<double>{1024, 2048, 4096, 8192});
    const double bpw = 4 + 16.0 / g, n = md.billions * 1e9;
    const double kv_token = 2 * md.layers * md.kv_heads * 128 * 2;  // bf16
    const double w_bytes = n * bpw / 8, kv_bytes = batch * context * kv_token;
    const double t = (w_bytes + kv_bytes) / (bw * 1e12);
    const double t16 = (2 * n + kv_bytes) / (bw * 1e12);
    const double flops = batch * (2 * n + 4 * md.layers * md.heads * 128 * context);
    // The weights and every sequence's cache must fit in 90% of the chip's memory, the budget the
    // lesson's KV-cache section gives a serving engine (a 13B model with 32 × 8,192 tokens of bf16
    // cache is 222 GB, and 80.1 GB on an 80 GB card leaves nothing for activations or the runtime).
    const double budget = 0.9 * hw->hbm_bytes;
    if (flops / hw->peak_flops.at("bf16") >= t || w_bytes + kv_bytes > budget) continue;
    Exercise e;
    e.title = "Weight-only int4 in decode";
    e.params = {{"hardware", hw->id}, {"params", n}, {"weight_bits", bpw}, {"batch", batch}, {"context", context},
                {"layers", md.layers}, {"heads", md.heads}, {"kv_heads", md.kv_heads}, {"head_dim", 128},
                {"bandwidth_Bps", bw * 1e12}};
    e.prompt = "On the " + hw->name + " (HBM " + format_number(bw, 3) + " TB/s), " + article(format_number(md.billions, 3)) +
               format_number(md.billions, 3) + "B-parameter model (" + format_int(md.layers) + " layers, " +
               format_int(md.kv_heads) + " KV heads of dimension 128) decodes " + format_int(batch) +
               (batch == 1 ? " sequence" : " sequences") + " with " + format_int(context) +
               " tokens of context each. Its weights are int4 with one fp16 scale per group of " + std::to_string(g) +
               " (multiplied in bf16); the KV cache stays in bf16. The step is memory-bound: every weight and every "
               "cached key and value is read once. What is the least time of one decode step, in ms?";
    e.unit = "ms";
    e.answer = t * 1e3;
    e.rel_tolerance = 0.02;
    e.hint = "Bytes read = weights (params × (4 + 16/g) bits / 8) + batch × context × KV bytes per token, where one "
             "token stores a key and a value per layer and KV head: 2 × layers × KV heads × 128 × 2 bytes. Divide by "
             "the bandwidth.";
    e.solution = "Weights: " + format_number(md.billions, 3) + "e9 × " + format_number(bpw, 4) + " / 8 = " +
                 format_number(w_bytes / 1e9, 4) + " GB. KV: 2 × " + format_int(md.layers) + " × " +
                 format_int(md.kv_heads) + " × 128 × 2 = " + format_int(kv_token) + " B per token, × " +
                 format_int(batch * context) + " tokens = " + format_number(kv_bytes / 1e9, 4) + " GB. Time = " +
                 format_number((w_bytes + kv_bytes) / 1e9, 4) + " GB / " + format_number(bw, 3) + " TB/s. In bf16 the "
                 "step would take " + format_number(t16 * 1e3, 4) + " ms, so int4 weights give " +
                 format_number(t16 / t, 3) + "×, not 16/" + format_number(bpw, 4) + ", because the KV cache is not "
                 "quantized. The step takes " + format_number(t * 1e3, 4) + " ms.";
    require_fits(e, w_bytes + kv_bytes, budget, "the int4 weights and the bf16 KV cache in 90% of the " + hw->name);
    require(e, flops / hw->peak_flops.at("bf16") < t, "the step is memory-bound");
    reject_mistake_where_distinct(e, w_bytes / (bw * 1e12) * 1e3, "left out the KV cache");
    reject_mistake_where_distinct(e, (n * 0.5 + kv_bytes) / (bw * 1e12) * 1e3, "left out the group scales (4 bits per weight)");
    reject_mistake_where_distinct(e, t16 * 1e3, "read the weights in bf16");
    return e;
  }
}

}  // namespace

void add_quantization_exercises(std::vector<Generator>& out) {
  out.push_back({"quant-max-error", max_error});
  out.push_back({"quant-zero-point-code", code_of_value});
  out.push_back({"quant-mse", mse});
  out.push_back({"quant-group-memory", group_memory});
  out.push_back({"quant-int4-decode", int4_decode});
}

}  // namespace mlsys::exercises
