// Exercises of the quantization lesson: the worst rounding error of a b-bit quantizer, the
// integer code of a value under an asymmetric (scale, zero point) quantizer, the Δ²/12
// mean-squared error, the memory of a group-wise int4 model with its fp16 scales, and the
// decode speedup bound of weight-only int4 from bytes. Answers are computed from the numbers
// shown; params are inputs of `quantize`, `quantizer-staircase` and `quantization-speedup`.
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys::exercises {

namespace {

double two_dp(double x) { return std::round(x * 100) / 100; }
std::string range_text(double lo, double hi) {
  std::string s(1, '[');
  s += format_number(lo, 4);
  s += ", ";
  s += format_number(hi, 4);
  s += ']';
  return s;
}

Exercise max_error(Rng& rng) {
  const int bits = rng.pick(std::vector<int>{3, 4, 5, 6, 8});
  const double lo = -two_dp(0.2 + 7.8 * rng.uniform()), hi = two_dp(0.2 + 7.8 * rng.uniform());
  const double levels = std::ldexp(1.0, bits) - 1, step = (hi - lo) / levels;
  Exercise e;
  e.title = "Worst-case rounding error";
  e.params = {{"bits", bits}, {"range_min", lo}, {"range_max", hi}};
  e.prompt = "An asymmetric " + std::to_string(bits) + "-bit quantizer is calibrated to the range " +
             range_text(lo, hi) + " (the lowest code maps to " + format_number(lo, 4) + ", the highest to " +
             format_number(hi, 4) + "). With round-to-nearest, what is the largest error it can make on a value inside "
             "the range?";
  e.unit = "";
  e.answer = step / 2;
  e.hint = "A b-bit code has 2^b values, so the range is cut into 2^b − 1 equal steps Δ. Round-to-nearest is off by "
           "at most half a step.";
  e.solution = "Δ = (" + format_number(hi, 4) + " − (" + format_number(lo, 4) + ")) / (2^" + std::to_string(bits) +
               " − 1) = " + format_number(hi - lo, 4) + " / " + format_int(levels) + " = " + format_number(step, 4) +
               "; the worst error is Δ/2 = " + format_number(e.answer, 4) + ".";
  return e;
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
    return e;
  }
}

Exercise mse(Rng& rng) {
  const int bits = rng.pick(std::vector<int>{4, 6, 8});
  const double a = two_dp(0.5 + 9.5 * rng.uniform());
  const double step = 2 * a / (std::ldexp(1.0, bits) - 1);
  Exercise e;
  e.title = "Rounding noise of a uniform quantizer";
  e.params = {{"bits", bits}, {"range_min", -a}, {"range_max", a}};
  e.prompt = "Values spread uniformly over " + range_text(-a, a) + " are quantized with " + std::to_string(bits) +
             " bits whose lowest and highest codes map to the ends of that range. Using the rounding-noise model, "
             "what mean-squared error do you expect?";
  e.unit = "";
  e.answer = step * step / 12;
  e.rel_tolerance = 0.02;
  e.hint = "The error of each value is spread evenly over [−Δ/2, Δ/2]; the variance of that uniform distribution is "
           "Δ²/12. First find Δ = range / (2^b − 1).";
  e.solution = "Each extra bit halves Δ and divides the MSE by 4 (about 6 dB of SQNR). Δ = " + format_number(2 * a, 4) +
               " / " + format_int(std::ldexp(1.0, bits) - 1) + " = " + format_number(step, 4) + "; MSE = Δ²/12 = " +
               format_number(e.answer, 4) + ".";
  return e;
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
  return e;
}

Exercise int4_decode(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x"};
  const Accelerator* hw = find_accelerator(rng.pick(ids));
  const double bw = round_sig(hw->hbm_bandwidth_Bps / 1e12, 3);
  const double billions = rng.pick(std::vector<double>{7, 8, 13, 34, 70});
  const int g = rng.pick(std::vector<int>{32, 64, 128});
  const double bpw = 4 + 16.0 / g;
  Exercise e;
  e.title = "Weight-only int4 in decode";
  e.params = {{"hardware", hw->id}, {"params", billions * 1e9}, {"decode_batch", 1}, {"group_size", g},
              {"bandwidth_Bps", bw * 1e12}};
  e.prompt = "On the " + hw->name + " (HBM " + format_number(bw, 3) + " TB/s), " + article(format_number(billions, 3)) + format_number(billions, 3) +
             "B-parameter model decodes one sequence: every step reads all weights once. Its bf16 weights are replaced "
             "by int4 weights with one fp16 scale per group of " + std::to_string(g) + " (matmuls still in bf16). "
             "What is the upper bound on the speedup of a decode step? Answer as a plain factor (×).";
  e.unit = "";
  // At batch 1 the speedup is the ratio of bits per weight, whatever the chip or model: one
  // answer per group size. That independence is what the exercise teaches.
  e.small_answer_set = true;
  e.answer = 16 / bpw;
  e.hint = "At batch 1 the step is memory-bound both before and after, so its time is weight bytes ÷ bandwidth. The "
           "speedup is the ratio of bits per weight; do not forget the scales.";
  const double t16 = billions * 1e9 * 2 / (bw * 1e12) * 1e3, t4 = billions * 1e9 * bpw / 8 / (bw * 1e12) * 1e3;
  e.solution = "bf16: 16 bits per weight, " + format_number(t16, 4) + " ms per step. int4: 4 + 16/" + std::to_string(g) +
               " = " + format_number(bpw, 4) + " bits, " + format_number(t4, 4) + " ms. Speedup ≤ 16 / " +
               format_number(bpw, 4) + ", whatever the bandwidth (dequantizing and the KV cache make the real gain "
               "smaller): " + format_number(e.answer, 4) + "×.";
  return e;
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
