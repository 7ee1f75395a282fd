// Uniform integer quantization executed on seeded data: the affine quantizer x ≈ s·(q − z)
// with round-to-nearest and clamping (Jacob et al., CVPR 2018, arXiv:1712.05877), its
// rounding-noise model Δ²/12 (Widrow; Gray & Neuhoff, IEEE Trans. Inf. Theory 1998), and
// per-tensor, per-channel and group-wise scales with clipping (Nagel et al., "A White Paper on
// Neural Network Quantization", arXiv:2106.08295).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlsys::quant {

// q = clamp(round(x / scale) + zero_point, qmin, qmax); x̂ = scale · (q − zero_point).
struct Quantizer {
  double scale = 1;       // Δ, in the units of x
  double zero_point = 0;  // integer (stored as double); 0 for symmetric quantizers
  double qmin = 0, qmax = 0;
};

// Symmetric: zero point 0, codes −(2^(b−1)−1) ... 2^(b−1)−1 (the restricted range), scale
// amax / (2^(b−1)−1). bits in [2, 16], amax > 0.
Quantizer symmetric_quantizer(int bits, double amax);
// Asymmetric (affine): the range is first widened to hold 0 (lo ≤ 0 ≤ hi, as PyTorch's observers
// do), then codes 0 ... 2^b − 1, scale (hi − lo) / (2^b − 1), zero point round(−lo / scale), a code
// of the range. bits in [2, 16], lo < hi.
//
// Rounding rule, for every integer quantizer here (codes and zero points): round half to even,
// the rule of IEEE 754's default mode, of PyTorch's quantize_per_tensor and of ONNX's
// QuantizeLinear; the block formats (block_formats.hpp) round their elements the same way.
double round_half_even(double x);
Quantizer affine_quantizer(int bits, double lo, double hi);

double quantize_code(const Quantizer& qz, double x);   // the integer code q (as double)
double dequantize(const Quantizer& qz, double q);      // scale · (q − zero_point)
inline double fake_quantize(const Quantizer& qz, double x) { return dequantize(qz, quantize_code(qz, x)); }

// Closed form of a b-bit affine quantizer over [lo, hi]: step Δ = (hi − lo)/(2^b − 1), worst
// rounding error Δ/2 inside the range, mean-squared error Δ²/12 for values spread uniformly.
struct ClosedForm {
  double step, max_error, mse_uniform, scale, zero_point, qmin, qmax, levels;
};
ClosedForm closed_form(int bits, double lo, double hi);

// --- Seeded data ------------------------------------------------------------------------
// Every distribution has unit variance: "uniform" on [−√3, √3], "gaussian" N(0, 1),
// "laplace" with scale 1/√2, "gaussian-outliers" N(0, 1) where a fraction of the rows
// (channels) is multiplied by outlier_scale. Generated with SplitMix64 and a natural log
// built from + − × ÷ only, so native code and WASM give the same bits.
enum class Distribution { Uniform, Gaussian, Laplace, GaussianOutliers };
Distribution parse_distribution(const std::string& name);  // throws std::invalid_argument
const std::vector<std::string>& distribution_names();


struct Matrix {
  long long rows = 0, cols = 0;
  std::vector<double> v;             // row-major rows × cols
  std::vector<long long> outlier_rows;  // sorted
};
// outlier_fraction in [0, 1]: round(fraction·rows) rows (at least one when fraction > 0)
// are outlier channels; they are used only by GaussianOutliers.
Matrix generate(Distribution d, long long rows, long long cols, std::uint64_t seed, double outlier_fraction,
                double outlier_scale);

// --- Quantizing a matrix with one scale per block ----------------------------------------
// tensor: one block; channel: one block per row; group: blocks of group_size consecutive
// elements of a row. Each block stores one fp16 scale (2 bytes) and, when asymmetric, one
// 16-bit zero point (2 bytes).
enum class Granularity { Tensor, Channel, Group };
Granularity parse_granularity(const std::string& name);  // throws std::invalid_argument

struct Scheme {
  int bits = 8;
  Granularity granularity = Granularity::Tensor;
  long long group_size = 128;  // group only; must divide cols
  bool symmetric = true;
  double clip = 1;  // fraction (0, 1] of each block's max |x| (symmetric) or of min and max (asymmetric)
};

struct Measured {
  double mse = 0;             // mean (x − x̂)² over all elements
  double mse_rounding = 0;    // part from elements inside the clipped range (divided by all elements)
  double mse_clipping = 0;    // part from elements outside it
  double mse_predicted = 0;   // mean over elements of their block's Δ²/12 (rounding-noise model)
  double signal_power = 0;    // mean x²
  double sqnr_db = 0;         // 10·log10(signal_power / mse)
  double max_abs_error = 0;
  double clipped_fraction = 0;
  // Share of elements x ≠ 0 that dequantize to 0: values below Δ/2 of their block, whose error
  // is the value itself (x²), however large Δ²/12 grows.
  double zeroed_fraction = 0;
  double mse_zeroed = 0;      // part of mse from those elements: Σ x² over them ÷ all elements
  // The same error over the ordinary rows only (all rows but the outlier channels): mean (x − x̂)²
  // there and their own SQNR. The tensor's mse mixes in the outlier rows' own rounding error.
  double mse_ordinary = 0;
  double sqnr_ordinary_db = 0;
  double blocks = 0;
  double scale_overhead_bytes = 0;  // 2 per block (+2 per block when asymmetric)
  double payload_bytes = 0;         // elements · bits / 8
  double bits_per_value = 0;        // (payload + overhead) · 8 / elements
};
// Quantizes and dequantizes every element of m under `s` (executed). Throws
// std::invalid_argument when group_size does not divide m.cols.
Measured quantize_matrix(const Matrix& m, const Scheme& s);

// 10·log10(r) with log_det (foundations/deterministic.hpp).
double decibels(double ratio);

// --- Calculator helpers ----------------------------------------------------------------
// Seeded data of about `samples` values: max(1, floor(samples / cols)) rows × cols.
Matrix sample_matrix(Distribution d, long long samples, long long cols, std::uint64_t seed, double outlier_fraction,
                     double outlier_scale);
// Throws InputError on "group_size" when granularity is group and group_size does not divide
// cols or exceeds it.
void check_group_size(const Scheme& s, long long cols);

struct MatrixSummary {
  long long rows, cols, elements;
  long long outlier_rows;  // rows scaled as outlier channels
  double max_abs;          // max |x|
};
MatrixSummary summarize(const Matrix& m);

// The transfer curve of one b-bit quantizer over [range_min, range_max] (symmetric: over
// ±max|range|), on `points` values of x spread from margin·span below the range to
// margin·span above it, and optionally one value. Throws InputError on "range_max" unless
// range_max > range_min.
struct Staircase {
  double scale, step, zero_point, qmin, qmax, max_error;  // step = scale, max_error = scale / 2
  double max_abs_error_in_range;
  double range_lo, range_hi, representable_min, representable_max;
  std::vector<double> x, q, x_hat, quantization_error;
  std::optional<double> value_code, value_dequantized, value_error;
};
Staircase quantizer_staircase(int bits, double range_min, double range_max, bool symmetric, long long points,
                              double margin, std::optional<double> value);

}  // namespace mlsys::quant
