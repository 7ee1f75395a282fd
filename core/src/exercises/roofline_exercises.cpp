// Exercises of the roofline lesson: ridge point, kernel time bound, matmul intensity, the
// batch where a weight matmul turns compute-bound, elementwise time. Hardware numbers come
// from the table and are shown rounded; answers are computed from the numbers shown.
#include <algorithm>
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/dtype.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"

namespace mlsys::exercises {

namespace {

const std::string kMicro = "\xC2\xB5s";  // µs

struct Chip {
  const Accelerator* hw;
  std::string dtype;
  double peak_tflops;  // as shown, 4 significant digits
  double bw_tbps;      // as shown, 4 significant digits
};

// A GPU and a dtype it has a dense rate for.
Chip pick_chip(Rng& rng, const std::vector<std::string>& dtypes) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x"};
  for (;;) {
    const Accelerator* hw = find_accelerator(rng.pick(ids));
    const std::string dtype = rng.pick(dtypes);
    if (auto peak = hw->peak_for(dtype))
      return {hw, dtype, round_sig(*peak / 1e12, 4), round_sig(hw->hbm_bandwidth_Bps / 1e12, 4)};
  }
}

std::string chip_text(const Chip& c) {
  return "The " + c.hw->name + " has a dense " + c.dtype + " peak of " + format_number(c.peak_tflops, 4) +
         " TFLOP/s and an HBM bandwidth of " + format_number(c.bw_tbps, 4) + " TB/s.";
}

double log_uniform(Rng& rng, double lo, double hi) { return lo * std::pow(hi / lo, rng.uniform()); }

// "989.4 × 10¹²": a number shown with a power of ten, never in e-notation.
std::string times_ten(double mantissa, int sig, int exponent) { return format_number(mantissa, sig) + times_power_of_ten(exponent); }

// A byte count with an SI prefix, 3 significant digits: "9.1 MB", "21.1 GB".
std::string si_bytes(double bytes) {
  static const std::vector<std::pair<double, std::string>> prefixes = {
      {1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}, {1, "B"}};
  for (const auto& [scale, unit] : prefixes)
    if (bytes >= scale * 0.9995) return format_number(bytes / scale, 3) + " " + unit;
  return format_number(bytes, 3) + " B";
}

// Every accelerator of the table with HBM (the L4's GDDR6 is left out: the prompt says HBM) and
// a dense rate for the dtype, so that pressing for new numbers rarely repeats a chip.
Chip pick_any_chip(Rng& rng, const std::vector<std::string>& dtypes) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x",
                                               "tpu-v4", "tpu-v5e", "tpu-v5p", "h100-pcie"};
  for (;;) {
    const Accelerator* hw = find_accelerator(rng.pick(ids));
    const std::string dtype = rng.pick(dtypes);
    if (auto peak = hw->peak_for(dtype))
      return {hw, dtype, round_sig(*peak / 1e12, 4), round_sig(hw->hbm_bandwidth_Bps / 1e12, 4)};
  }
}

Exercise ridge(Rng& rng) {
  const Chip c = pick_any_chip(rng, {"bf16", "fp16", "fp8-e4m3", "tf32", "fp32"});
  // Two draws in three ask for the ridge of measured roofs: a GEMM at a share of the peak and a
  // streaming copy at a share of the bandwidth (the pitfall: real kernels reach neither).
  const bool measured = rng.uniform() < 2.0 / 3;
  static const std::vector<int> compute_pcts = {60, 65, 70, 75, 80}, memory_pcts = {85, 88, 90, 92, 95};
  const int fc = measured ? rng.pick(compute_pcts) : 100, fm = measured ? rng.pick(memory_pcts) : 100;
  Exercise e;
  e.title = "Find the ridge point";
  e.params = {{"hardware", c.hw->id}, {"dtype", c.dtype}, {"compute_fraction", fc / 100.0},
              {"bandwidth_fraction", fm / 100.0}};
  e.prompt = chip_text(c) +
             (measured ? " On it, a well-tuned GEMM sustains " + std::to_string(fc) +
                             "% of that peak and a streaming copy " + std::to_string(fm) +
                             "% of that bandwidth. At what arithmetic intensity do the two measured roofs meet? Answer "
                             "in FLOP/B."
                       : " What arithmetic intensity must a kernel reach before compute, not memory, limits it? "
                         "Answer in FLOP/B.");
  e.unit = "FLOP/B";
  const double peak = c.peak_tflops * fc / 100.0, bw = c.bw_tbps * fm / 100.0;
  e.answer = peak / bw;
  e.hint = measured ? "Scale each roof first: measured peak = share × datasheet peak, measured bandwidth = share × "
                      "datasheet bandwidth. The ridge is where they meet, measured peak ÷ measured bandwidth."
                    : "The two roofs meet where intensity × bandwidth equals the peak: I* = peak FLOP/s ÷ bytes/s. "
                      "Convert both to the same prefix first.";
  e.solution = measured ? "Measured peak = " + std::to_string(fc) + "% × " + format_number(c.peak_tflops, 4) +
                              " TFLOP/s = " + format_number(peak, 4) + " TFLOP/s; measured bandwidth = " +
                              std::to_string(fm) + "% × " + format_number(c.bw_tbps, 4) + " TB/s = " +
                              format_number(bw, 4) + " TB/s. I* = " + times_ten(peak, 4, 12) + " FLOP/s ÷ " +
                              times_ten(bw, 4, 12) + " B/s = " + format_number(e.answer, 4) +
                              " FLOP/B, left of the datasheet ridge because the GEMM falls further short of its "
                              "peak than the copy does."
                        : "I* = " + times_ten(c.peak_tflops, 4, 12) + " FLOP/s ÷ " + times_ten(c.bw_tbps, 4, 12) +
                              " B/s = " + format_number(e.answer, 4) + " FLOP/B. Kernels below this intensity are "
                              "memory-bound.";
  require_from_table(e, c.peak_tflops * 1e12, *c.hw->peak_for(c.dtype), "the dense " + c.dtype + " peak shown");
  require_from_table(e, c.bw_tbps * 1e12, c.hw->hbm_bandwidth_Bps, "the HBM bandwidth shown");
  reject_mistake(e, 2 * e.answer, "used the sparse (2:4) peak, twice the dense one");
  if (measured) {
    reject_mistake(e, c.peak_tflops / c.bw_tbps, "gave the datasheet ridge, not the measured one");
    reject_mistake(e, c.peak_tflops * fm / (c.bw_tbps * fc), "swapped the two shares");
  }
  return e;
}

// One kernel's realistic run time: longer than a launch (a few µs) and under a second.
constexpr double kShortestKernelUs = 1, kLongestKernelUs = 1e6;

Exercise kernel_time(Rng& rng) {
  const Chip c = pick_chip(rng, {"bf16", "fp16", "fp8-e4m3"});
  // Redraw until the two times differ by a fifth, so that the smaller one (the wrong roof) is
  // never accepted as the answer, and until the traffic is at most what the chip's HBM holds
  // (a kernel that moves more must reread its data, a shape the prompt does not describe).
  double gflop = 0, gbytes = 0, compute_us = 0, memory_us = 0;
  do {
    gflop = round_sig(log_uniform(rng, 1, 5000), 3);
    gbytes = round_sig(gflop / log_uniform(rng, 0.5, 3000), 3);
    compute_us = gflop * 1e9 / (c.peak_tflops * 1e12) * 1e6;
    memory_us = gbytes * 1e9 / (c.bw_tbps * 1e12) * 1e6;
  } while (std::max(compute_us, memory_us) < 1.2 * std::min(compute_us, memory_us) ||
           std::max(compute_us, memory_us) < kShortestKernelUs || std::max(compute_us, memory_us) > kLongestKernelUs ||
           gbytes * 1e9 > c.hw->hbm_bytes);
  Exercise e;
  e.title = "Lower-bound a kernel's time";
  e.params = {{"hardware", c.hw->id}, {"dtype", c.dtype}, {"flops", gflop * 1e9}, {"bytes", gbytes * 1e9},
              {"peak_flops", c.peak_tflops * 1e12}, {"bandwidth_Bps", c.bw_tbps * 1e12}};
  e.prompt = chip_text(c) + " A kernel in " + c.dtype + " performs " + format_number(gflop, 3) + " GFLOP and moves " +
             si_bytes(gbytes * 1e9) + " to and from HBM. What is the roofline lower bound on its run time, in " +
             kMicro + "?";
  e.unit = kMicro;
  e.answer = std::max(compute_us, memory_us);
  e.hint = "Compute two times, FLOPs ÷ peak and bytes ÷ bandwidth. The kernel cannot finish before the longer one.";
  e.solution = "Compute time = " + times_ten(gflop, 3, 9) + " FLOP ÷ " + times_ten(c.peak_tflops, 4, 12) +
               " FLOP/s = " + format_number(compute_us, 4) + " " + kMicro + "; memory time = " +
               si_bytes(gbytes * 1e9) + " ÷ " + format_number(c.bw_tbps, 4) + " TB/s = " +
               format_number(memory_us, 4) + " " + kMicro +
               ". The bound is the larger, " + format_number(e.answer, 4) + " " + kMicro + " (" +
               (compute_us >= memory_us ? "compute" : "memory") + "-bound).";
  require_between(e, e.answer, kShortestKernelUs, kLongestKernelUs, "the kernel's time in \u00B5s");
  require(e, gbytes * 1e9 <= c.hw->hbm_bytes, "the traffic fits the chip's HBM");
  reject_mistake(e, std::min(compute_us, memory_us), "took the shorter time, the roof that does not bind");
  reject_mistake_where_distinct(e, compute_us + memory_us, "added the two times (the bound with no overlap)");
  return e;
}

Exercise matmul_intensity(Rng& rng) {
  static const std::vector<int> dims = {1, 8, 32, 64, 128, 512, 1024, 2048, 4096, 8192, 12288};
  static const std::vector<std::string> dtypes = {"fp32", "bf16", "fp8-e4m3"};
  const int m = rng.pick(dims), n = rng.pick(dims), k = rng.pick(std::vector<int>{1024, 2048, 4096, 8192});
  const std::string dtype = rng.pick(dtypes);
  const double s = dtype_bytes(dtype);
  const double flops = 2.0 * m * n * k, bytes = (1.0 * m * k + 1.0 * k * n + 1.0 * m * n) * s;
  Exercise e;
  e.title = "Intensity of a matmul";
  e.params = {{"m", m}, {"n", n}, {"k", k}, {"dtype", dtype}};
  e.prompt = "C = A·B with A of shape " + format_int(m) + "×" + format_int(k) + " and B of shape " + format_int(k) +
             "×" + format_int(n) + ", all in " + dtype + " (" + bytes_per_element(s) +
             " per element). If each matrix crosses HBM exactly once, what is the arithmetic intensity in FLOP/B?";
  e.unit = "FLOP/B";
  e.answer = flops / bytes;
  e.hint = "FLOPs = 2·m·n·k (a multiply and an add per term). Bytes = (m·k + k·n + m·n) × bytes per element.";
  e.solution = "FLOPs = 2 × " + format_int(m) + " × " + format_int(n) + " × " + format_int(k) + " = " +
               format_int(flops) + "; bytes = (" + format_int(1.0 * m * k) + " + " + format_int(1.0 * k * n) +
               " + " + format_int(1.0 * m * n) + ") × " + format_number(s, 2) + " = " + format_int(bytes) +
               "; intensity = " + format_number(e.answer, 4) + " FLOP/B.";
  require(e, e.answer <= 2.0 * std::min({m, n, k}) / s, "the intensity is at most 2\u00B7min(m, n, k)/s");
  require_fits(e, bytes, find_accelerator("h100-sxm")->hbm_bytes, "A, B and C in one H100 SXM");
  reject_mistake(e, e.answer / 2, "counted multiply-adds (MACs), not FLOPs");
  if (s != 1) reject_mistake(e, flops / (bytes / s), "counted elements, not bytes");
  return e;
}

Exercise crossover_batch(Rng& rng) {
  const Chip c = pick_chip(rng, {"bf16", "fp16", "fp8-e4m3"});
  const int d = rng.pick(std::vector<int>{4096, 5120, 8192, 12288, 16384});
  const double s = dtype_bytes(c.dtype);
  const double ridge = c.peak_tflops / c.bw_tbps;
  // Intensity of [b,d]·[d,d]: 2bd² / (s(2bd + d²)) = 2bd / (s(2b + d)); >= ridge when
  // b >= s·R·d / (2(d − s·R)).
  const double b_exact = s * ridge * d / (2 * (d - s * ridge));
  Exercise e;
  e.title = "When does a weight matmul become compute-bound?";
  e.params = {{"d", d}, {"dtype", c.dtype}, {"peak_flops", c.peak_tflops * 1e12}, {"bandwidth_Bps", c.bw_tbps * 1e12}};
  e.prompt = chip_text(c) + " A layer multiplies a batch of b token vectors (b×" + format_int(d) +
             ") by a weight matrix of shape " + format_int(d) + "×" + format_int(d) + ", all in " + c.dtype +
             ". Counting each matrix once through HBM, what is the smallest whole batch b at which it is compute-bound?";
  e.unit = "";
  e.answer = std::ceil(b_exact);
  e.integer = true;
  e.hint = "Write the intensity as a function of b: 2·b·d² FLOPs over (2·b·d + d²)·bytes-per-element bytes. Set it "
           "equal to the ridge point peak ÷ bandwidth and solve for b.";
  e.solution = "Ridge R = " + format_number(c.peak_tflops, 4) + " TFLOP/s ÷ " + format_number(c.bw_tbps, 4) + " TB/s = " +
               format_number(ridge, 4) + " FLOP/B. For b ≪ d the intensity is about 2b/s, so the crossover batch is close to "
               "s·R/2. Exactly, intensity 2bd/(s(2b+d)) ≥ R gives b ≥ s·R·d / (2(d − s·R)) = " +
               format_number(b_exact, 4) + ", so b = " + format_int(e.answer) + ".";
  require(e, d > s * ridge && e.answer <= d, "the weight matmul turns compute-bound at a batch below d");
  if (s != 1)
    reject_mistake_where_distinct(e, std::ceil(ridge * d / (2 * (d - ridge))), "left out the bytes per element");
  return e;
}

Exercise elementwise(Rng& rng) {
  const Chip c = pick_chip(rng, {"bf16", "fp16"});
  const std::string dtype = rng.pick(std::vector<std::string>{"fp32", "bf16"});
  const int log2n = rng.integer(22, 30);
  const double n = std::ldexp(1.0, log2n);
  const double s = dtype_bytes(dtype);
  const double bytes = 3 * n * s;
  Exercise e;
  e.title = "Time of an elementwise add";
  e.params = {{"dtype", dtype}, {"flops", n}, {"bytes", bytes}, {"bandwidth_Bps", c.bw_tbps * 1e12}};
  e.prompt = "The " + c.hw->name + " has an HBM bandwidth of " + format_number(c.bw_tbps, 4) +
             " TB/s. A kernel computes c = a + b over " + format_int(n) + " (2^" + std::to_string(log2n) +
             ") elements in " + dtype + ". Assuming it runs at full bandwidth, how long does it take, in " + kMicro + "?";
  e.unit = kMicro;
  e.answer = bytes / (c.bw_tbps * 1e12) * 1e6;
  e.hint = "It does 1 FLOP per element but moves three elements (read a, read b, write c): it is deeply memory-bound, "
           "so time = bytes ÷ bandwidth.";
  e.solution = "Its intensity is 1/(3×" + format_number(s, 2) + ") FLOP/B, far below any ridge point. Bytes = 3 × " +
               format_int(n) + " × " + format_number(s, 2) + " = " + format_int(bytes) + " B; time = " +
               format_int(bytes) + " B ÷ " + times_ten(c.bw_tbps, 4, 12) + " B/s = " + format_number(e.answer, 4) +
               " " + kMicro + ".";
  require_fits(e, bytes, c.hw->hbm_bytes, "a, b and c in the " + c.hw->name);
  reject_mistake(e, e.answer * 2 / 3, "counted the two reads and not the write");
  reject_mistake(e, e.answer / s, "counted elements as bytes");
  return e;
}

}  // namespace

void add_roofline_exercises(std::vector<Generator>& out) {
  out.push_back({"roofline-ridge", ridge});
  out.push_back({"roofline-time", kernel_time});
  out.push_back({"matmul-intensity", matmul_intensity});
  out.push_back({"matmul-crossover-batch", crossover_batch});
  out.push_back({"elementwise-time", elementwise});
}

}  // namespace mlsys::exercises
