// Exercises of the mixed-precision lesson: round a value to bf16/fp16, derive a format's
// limits from its bit widths, predict where a low-precision running sum stalls, pick the loss
// scale that lifts a small gradient into fp16's range, and count the recipe's bytes.
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/numerics/float_format.hpp"
#include "mlsys/numerics/fp8_block_scaling.hpp"
#include "mlsys/numerics/precision_recipe.hpp"

namespace mlsys::exercises {

namespace {

std::string pow2(int k) { return "2^" + std::to_string(k); }

// Up to 17 significant digits, enough to print any of these formats' values exactly.
std::string exact(double x) { return prose(x, 17); }

// The answer at the end of a solution: in prose form, followed where that is "× 10ᵏ" by the
// e-notation the answer box reads, so the solution's last number is one the reader can type.
std::string typed(double x, int sig) {
  const std::string p = prose(x, sig);
  return p.find("\u00D7 10") == std::string::npos ? p : p + " (type " + format_number(x, sig) + ")";
}

Exercise round_value_ex(Rng& rng) {
  const std::string name = rng.pick(std::vector<std::string>{"bf16", "fp16"});
  const FloatFormat& f = float_format(name);
  // A 4-significant-digit value whose rounding moves it by at least an eighth of the spacing
  // q, so that the stored value differs from the typed one in its 5th or 6th digit: an
  // eighth of q is at least 2^-(m+4) of the value (6.1e-5 in fp16), far above the tolerance,
  // and typing the question's number back is wrong. Most draws pass at once; 64 tries never
  // all fail over the seeds the tests cover.
  double x = 0, q = 0;
  int e = 0;
  Rounded r;
  for (int tries = 0; tries < 64; ++tries) {
    const int k = rng.integer(-3, 2);
    x = rng.integer(1001, 9999) * std::pow(10.0, k - 3);
    r = round_to_format(x, f);
    int e2 = 0;
    std::frexp(x, &e2);
    e = e2 - 1;
    q = std::ldexp(1.0, e - f.mantissa_bits);
    if (std::fabs(r.value - x) >= q / 8) break;
  }
  Exercise ex;
  ex.title = "Round a number to " + name;
  ex.params = {{"format", name}, {"value", x}};
  ex.prompt = name + " stores " + std::to_string(f.mantissa_bits) +
              " fraction bits after the implicit leading 1. What value does " + prose(x, 4) +
              " become when it is rounded to " + name + " (round to nearest, ties to even)? Give the value as a "
              "decimal number with at least 6 significant digits.";
  ex.unit = "";
  ex.answer = r.value;
  // Six significant digits, as the prompt asks, are within 5e-6 of the value; the typed input
  // (at least q/8 away, see above) and the neighbouring codes (q/2 or q away) are farther.
  ex.rel_tolerance = 1e-5;
  ex.asked_significant = 6;  // as the prompt asks
  ex.hint = "Find the power of two just below the number, 2^e. In that binade the representable values are "
            "spaced 2^(e − " + std::to_string(f.mantissa_bits) + ") apart: divide by the spacing, round to the "
            "nearest integer, multiply back.";
  ex.solution = prose(x, 4) + " lies in [" + pow2(e) + ", " + pow2(e + 1) + "), where the spacing is " +
                pow2(e - f.mantissa_bits) + " = " + exact(q) + ". " + prose(x, 4) + " ÷ spacing = " +
                prose(x / q, 8) + ", which rounds to " + format_int(r.value / q) + ". So the stored value is " +
                format_int(r.value / q) + " × " + pow2(e - f.mantissa_bits) + ", a relative error of " +
                prose(std::fabs(r.value - x) / x, 3) + ": " + typed(r.value, 17) + ".";
  require(ex, x >= f.min_normal && x <= f.max, prose(x, 4) + " lies in " + name + "'s normal range");
  require(ex, std::fabs(r.value - x) >= q / 8 && std::fabs(r.value - x) <= q / 2,
          "rounding moves the value by between q/8 and q/2");
  reject_mistake_where_distinct(ex, std::trunc(x / q) * q, "truncated instead of rounding to nearest");
  reject_mistake_where_distinct(ex, x, "typed the value back unrounded");
  return ex;
}

Exercise format_limit(Rng& rng) {
  const std::string name =
      rng.pick(std::vector<std::string>{"fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "tf32", "fp8-e4m3-fnuz"});
  const FloatFormat& f = float_format(name);
  const int which = rng.integer(0, 3);
  const std::string m = std::to_string(f.mantissa_bits);
  Exercise ex;
  ex.params = {{"format", name}};
  ex.unit = "";
  // The answer is one exact value of the format: 6 significant digits (within 5e-6) pass, a
  // neighbouring value does not (fp16's 65472 is 5e-4 below its max, E4M3's 416 7 % below).
  ex.rel_tolerance = 1e-5;
  ex.asked_significant = 6;  // as the prompt asks
  const std::string digits = " Give it exactly or to 6 significant digits.";
  std::string layout = name + " has 1 sign bit, " + std::to_string(f.exponent_bits) + " exponent bits with bias " +
                       std::to_string(f.bias) + " and " + m + " mantissa bits" +
                       (f.has_infinity ? "; like IEEE 754 it reserves the all-ones exponent for infinities and NaN."
                        : f.fnuz ? "; it is AMD's FNUZ variant (MI300): no infinities, no negative zero, and the "
                                   "only NaN is the code of negative zero, sign 1 with all other bits 0."
                                 : "; as in the OCP FP8 spec it has no infinities, and only the all-ones "
                                   "exponent with all-ones mantissa is NaN.");
  if (which == 0) {
    ex.title = "Largest finite value of " + name;
    ex.prompt = layout + " What is its largest finite value?" + digits;
    ex.answer = f.max;
    ex.hint = f.has_infinity ? "The largest usable exponent field is all ones minus one; the mantissa is all ones."
              : f.fnuz ? "Every positive code is a number: the all-ones exponent with the all-ones mantissa too."
                       : "The all-ones exponent is usable; the largest mantissa that is not NaN is all ones but "
                         "the last bit.";
    ex.solution = "Largest exponent = " + std::to_string(f.emax) + ", largest significand = " +
                  exact(f.max / std::ldexp(1.0, f.emax)) + ", so max = " + exact(f.max / std::ldexp(1.0, f.emax)) +
                  " × " + pow2(f.emax) + " = " + typed(f.max, 17) + ".";
  } else if (which == 1) {
    ex.title = "Smallest normal value of " + name;
    ex.prompt = layout + " What is its smallest positive normal value?" + digits;
    ex.answer = f.min_normal;
    ex.hint = "Exponent field 1 is the smallest normal exponent: its value is 1 − bias.";
    ex.solution = "Smallest normal = 2^(1 − " + std::to_string(f.bias) + ") = " + pow2(f.emin) + " = " +
                  typed(f.min_normal, 6) + ".";
  } else if (which == 2) {
    ex.title = "Smallest subnormal value of " + name;
    ex.prompt = layout + " What is its smallest positive (subnormal) value?" + digits;
    ex.answer = f.min_subnormal;
    ex.hint = "Subnormals share the smallest normal exponent, with no implicit 1: the smallest has only the "
              "last mantissa bit set.";
    ex.solution = "Smallest subnormal = " + pow2(f.emin) + " × " + pow2(-f.mantissa_bits) + " = " +
                  pow2(f.emin - f.mantissa_bits) + " = " + typed(f.min_subnormal, 6) + ".";
  } else {
    ex.title = "Machine epsilon of " + name;
    ex.prompt = layout + " What is its machine epsilon, the gap between 1 and the next larger value?" + digits;
    ex.answer = f.epsilon;
    ex.hint = "Next to 1 the last mantissa bit is worth 2^−(mantissa bits).";
    ex.solution = "epsilon = 2^−" + m + " = " + typed(f.epsilon, 6) + ".";
  }
  require(ex, f.max > f.min_normal && f.min_normal > f.min_subnormal && f.min_subnormal > 0,
          "max > smallest normal > smallest subnormal > 0");
  if (which == 0) {
    // As if the all-ones exponent were reserved, as in IEEE 754: wrong for the FP8 variants.
    const double ieee_max = (2 - std::ldexp(1.0, -f.mantissa_bits)) * std::ldexp(1.0, (1 << f.exponent_bits) - 2 - f.bias);
    reject_mistake_where_distinct(ex, ieee_max, "reserved the all-ones exponent as IEEE 754 does");
  } else {
    reject_mistake(ex, ex.answer / 2, which == 3 ? "gave the unit roundoff 2^\u2212(m+1), half of epsilon"
                                                 : "took the exponent one step too low (off by one in the bias)");
  }
  return ex;
}

Exercise sum_stall(Rng& rng) {
  const std::string name = rng.pick(std::vector<std::string>{"bf16", "fp16", "fp8-e5m2"});
  const FloatFormat& f = float_format(name);
  const int k = rng.integer(-3, 3);
  const double c = std::ldexp(1.0, k);
  const double stall = std::ldexp(c, f.mantissa_bits + 1);
  Exercise ex;
  // "an fp16", "an fp8-e5m2", "a bf16": the article follows the sound of the first letter.
  ex.title = std::string("Where does ") + (name[0] == 'f' ? "an " : "a ") + name + " running sum stop growing?";
  ex.params = {{"format", name}, {"value", c}, {"count", 4096}, {"distribution", "constant"}};
  ex.prompt = "A loop adds " + prose(c, 4) + " to an accumulator held in " + name + " (" +
              std::to_string(f.mantissa_bits) + " mantissa bits), rounding to nearest even after every addition. "
              "At what value does the sum get stuck?";
  ex.unit = "";
  ex.answer = stall;
  ex.integer = true;
  ex.hint = "Adding c changes the sum only while c is more than half the spacing between neighbouring values at "
            "the sum. At exactly half, the tie goes to the even neighbour: the sum itself.";
  ex.solution = "At a sum s in [2^e, 2^(e+1)) the spacing is 2^(e − " + std::to_string(f.mantissa_bits) +
                "). The sum stays exact until the spacing reaches 2c = " + prose(2 * c, 4) + ", i.e. at s = 2c × " +
                pow2(f.mantissa_bits) + " = " + prose(stall, 6) + ". There s + c is a tie between s and s + 2c, "
                "and ties go to the even mantissa, s. After " + format_int(stall / c) +
                " additions, however many more follow, the sum sticks at " + prose(stall, 6) + ".";
  require(ex, stall <= f.max, "the sum reaches " + prose(stall, 6) + " without overflowing " + name);
  reject_mistake(ex, stall / 2, "stopped where the spacing equals c, not 2c (the tie goes to the sum)");
  reject_mistake(ex, stall * 2, "stopped where the spacing passes 2c");
  return ex;
}

Exercise loss_scale(Rng& rng) {
  const bool normal = rng.integer(0, 1) == 1;
  const FloatFormat& f = float_format("fp16");
  const double target = normal ? f.min_normal : f.min_subnormal;
  const int k = normal ? rng.integer(7, 10) : rng.integer(10, 13);
  const double g = rng.integer(11, 99) / 10.0 * std::pow(10.0, -k);
  double s = 1;
  while (g * s < target) s *= 2;
  Exercise ex;
  ex.title = "Choose a loss scale";
  ex.params = {{"format", "fp16"}, {"smallest_gradient", g}};
  ex.prompt = "The smallest gradient you must keep has magnitude " + prose(g, 2) + ". fp16's smallest " +
              (normal ? "normal value is 2^−14 ≈ 6.104 × 10⁻⁵" : "subnormal value is 2^−24 ≈ 5.960 × 10⁻⁸") +
              ". What is the smallest power-of-two loss scale S that lifts it to at least that value? Answer with S "
              "as a number (for example 1024).";
  ex.unit = "";
  ex.answer = s;
  ex.integer = true;
  ex.hint = "You need S ≥ threshold ÷ gradient; take log2 and round up.";
  ex.solution = "threshold ÷ gradient = " + prose(target / g, 4) + "; log2 of that is " +
                prose(std::log2(target / g), 4) + ", rounded up " + prose(std::log2(s), 3) +
                ". Then " + prose(g, 2) + " × 2^" + prose(std::log2(s), 3) + " = " +
                prose(g * s, 4) + " clears the threshold, so S = " + pow2(static_cast<int>(std::log2(s))) +
                " = " + format_int(s) + ".";
  require(ex, g * s >= target && g * s / 2 < target, "S is the smallest power of two that clears the threshold");
  require(ex, g * s <= f.max, "the scaled gradient stays below fp16's maximum");
  reject_mistake(ex, s / 2, "rounded log2 down instead of up");
  return ex;
}

Exercise recipe_bytes(Rng& rng) {
  const double billions = rng.pick(std::vector<double>{1.3, 2.7, 6.7, 7, 13, 34, 70});
  const std::string opt = rng.pick(std::vector<std::string>{"adam", "sgd"});
  const PrecisionRecipe r = precision_recipe("bf16", opt);
  Exercise ex;
  ex.title = "Bytes of the mixed-precision recipe";
  ex.params = {{"params", billions * 1e9}, {"optimizer", opt}, {"compute_dtype", "bf16"}};
  ex.prompt = "A " + prose(billions, 3) + "-billion-parameter model trains with the mixed-precision recipe: "
              "bf16 working weights and gradients, an fp32 master copy of the weights, and " +
              (opt == "adam" ? "Adam's two moments" : "SGD's momentum") +
              " in fp32. How many GB do these per-parameter tensors take in total (1 GB = 10^9 bytes)?";
  ex.unit = "GB";
  ex.answer = r.total_bytes * billions;
  ex.hint = "Count bytes per parameter: 2 for each bf16 tensor, 4 for each fp32 one. Then multiply by the "
            "parameter count.";
  ex.solution = "Per parameter: 2 (bf16 weights) + 2 (bf16 gradients) + 4 (fp32 master) + " +
                format_int(r.optimizer_bytes) + (opt == "adam" ? " (fp32 m and v)" : " (fp32 momentum)") + " = " +
                format_int(r.total_bytes) + " bytes. × " + prose(billions, 3) + " × 10⁹ = " +
                prose(ex.answer, 4) + " GB.";
  require_between(ex, billions, 1, 100, "the model size in billions of parameters");
  reject_mistake(ex, (r.total_bytes - r.master_bytes) * billions, "left out the fp32 master copy");
  if (opt == "adam") reject_mistake(ex, (r.total_bytes - 4) * billions, "counted one of Adam's two moments");
  return ex;
}

// DeepSeek-V3's 1×128 activation tiles: an element of a tile without outliers, scaled by its
// own tile's amax/448, rounded to E4M3 and read back, against the per-tensor scale set by an
// outlier channel elsewhere in the tensor.
Exercise fp8_tile_scale(Rng& rng) {
  const double tile_amax = rng.integer(150, 990) / 100.0;
  const double tensor_amax = rng.integer(20, 90) * 100.0;
  // A 4-significant-digit element whose round trip moves it by at least 0.3 %, so that typing
  // it back is wrong at the asked 4 digits, and that the tensor's scale would store at least
  // twice as badly (a subnormal with few bits, or zero); most draws pass at once.
  double x = 0, q = 0, per_tensor = 0;
  Rounded per_tensor_code;
  for (int tries = 0; tries < 64; ++tries) {
    x = rng.integer(1001, 9999) * std::pow(10.0, -3 - rng.integer(1, 3));
    q = fp8_group_dequantize(x, tile_amax, "fp8-e4m3");
    per_tensor = fp8_group_dequantize(x, tensor_amax, "fp8-e4m3");
    per_tensor_code = round_to_format(x / (tensor_amax / 448), float_format("fp8-e4m3"), Overflow::Saturate);
    if (std::fabs(q - x) >= 0.003 * x && std::fabs(per_tensor - x) >= 2 * std::fabs(q - x) &&
        (per_tensor_code.subnormal || per_tensor_code.value == 0))
      break;
  }
  const double s = tile_amax / 448, code = x / s;
  const Rounded r = round_to_format(code, float_format("fp8-e4m3"), Overflow::Saturate);
  Exercise ex;
  ex.title = "Scale one 1×128 tile to FP8";
  ex.params = {{"format", "fp8-e4m3"}, {"tile_amax", tile_amax}, {"tensor_amax", tensor_amax}, {"value", x}};
  ex.prompt = "An activation tensor is cast to FP8 E4M3 (largest value 448) for a matmul. An outlier channel gives "
              "the whole tensor a largest magnitude of " + prose(tensor_amax, 2) + ", but one 1×128 tile (one "
              "token, 128 channels) holds no outlier: its largest magnitude is " + prose(tile_amax, 3) + ". As in "
              "DeepSeek-V3, the tile gets its own scale s = (tile's largest magnitude) ÷ 448: each element is "
              "divided by s, rounded to E4M3 (to nearest, ties to even) and multiplied back by s. What value does "
              "the element " + prose(x, 4) + " of that tile come back as? Give 4 significant digits.";
  ex.unit = "";
  ex.answer = q;
  ex.rel_tolerance = 1e-3;
  ex.asked_significant = 4;
  ex.hint = "Divide the element by s, round that to E4M3: in the binade [2^e, 2^(e+1)) its 3 mantissa bits space "
            "values 2^(e − 3) apart (below 2^−6 the spacing stays 2^−9). Then multiply back by s.";
  ex.solution = "With the tensor's scale, " + prose(tensor_amax, 2) + " ÷ 448, the element would come back as " +
                (per_tensor == 0 ? std::string("zero: it underflows")
                                 : prose(per_tensor, 4) + ", " + prose(100 * std::fabs(per_tensor - x) / x, 2) +
                                       " % off (a subnormal with few bits left)") +
                ". The tile's own scale is s = " + prose(tile_amax, 3) + " ÷ 448 = " + prose(s, 4) + ". " +
                prose(x, 4) + " ÷ s = " + prose(code, 5) + ", which E4M3 stores as " + prose(r.value, 6) +
                (r.subnormal ? " (a subnormal)" : "") + ". Back: " + prose(r.value, 6) + " × s = " + typed(q, 4) + ".";
  require(ex, tile_amax < tensor_amax / 100, "the tile's largest magnitude is far below the outlier channel's");
  require(ex, x < tile_amax, prose(x, 4) + " is inside the tile's range");
  require(ex, std::fabs(q - x) >= 0.003 * x, "the round trip moves the element by at least 0.3 %");
  require(ex, std::fabs(per_tensor - x) >= 2 * std::fabs(q - x) && (per_tensor_code.subnormal || per_tensor == 0),
          "the tensor's scale would leave it subnormal or zero, at least twice as far off");
  reject_mistake_where_distinct(ex, x, "typed the element back unrounded");
  reject_mistake_where_distinct(ex, per_tensor, "used the tensor's scale set by the outlier channel");
  reject_mistake_where_distinct(ex, r.value, "gave the E4M3 code's value without multiplying back by s");
  return ex;
}

}  // namespace

void add_numerics_exercises(std::vector<Generator>& out) {
  out.push_back({"numerics-round-value", round_value_ex});
  out.push_back({"numerics-format-limit", format_limit});
  out.push_back({"numerics-sum-stall", sum_stall});
  out.push_back({"numerics-loss-scale", loss_scale});
  out.push_back({"numerics-recipe-bytes", recipe_bytes});
  out.push_back({"numerics-fp8-tile-scale", fp8_tile_scale});
}

}  // namespace mlsys::exercises
