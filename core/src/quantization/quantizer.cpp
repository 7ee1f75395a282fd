// Uniform integer quantization executed on seeded data (see quantization/quantizer.hpp).
#include "mlsys/quantization/quantizer.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys::quant {

namespace {

constexpr double kLn10 = 2.30258509299404568402;

}  // namespace

Quantizer symmetric_quantizer(int bits, double amax) {
  Quantizer q;
  q.qmax = std::ldexp(1.0, bits - 1) - 1;
  q.qmin = -q.qmax;
  q.scale = amax / q.qmax;
  q.zero_point = 0;
  return q;
}

double round_half_even(double x) { return std::nearbyint(x); }  // the default mode: ties to even

Quantizer affine_quantizer(int bits, double lo, double hi) {
  lo = std::min(lo, 0.0);  // widened to hold 0, so that the zero point is a code of the range
  hi = std::max(hi, 0.0);
  Quantizer q;
  q.qmin = 0;
  q.qmax = std::ldexp(1.0, bits) - 1;
  q.scale = (hi - lo) / q.qmax;
  q.zero_point = round_half_even(-lo / q.scale) + 0.0;  // + 0.0: no −0
  return q;
}

double quantize_code(const Quantizer& qz, double x) {
  return std::clamp(round_half_even(x / qz.scale) + qz.zero_point, qz.qmin, qz.qmax);
}

double dequantize(const Quantizer& qz, double q) { return qz.scale * (q - qz.zero_point); }

ClosedForm closed_form(int bits, double lo, double hi) {
  const Quantizer q = affine_quantizer(bits, lo, hi);
  return {q.scale, q.scale / 2, q.scale * q.scale / 12, q.scale, q.zero_point, q.qmin, q.qmax, q.qmax + 1};
}

double decibels(double ratio) { return 10 * log_det(ratio) / kLn10; }

const std::vector<std::string>& distribution_names() {
  static const std::vector<std::string> names = {"uniform", "gaussian", "laplace", "gaussian-outliers"};
  return names;
}

Distribution parse_distribution(const std::string& name) {
  if (name == "uniform") return Distribution::Uniform;
  if (name == "gaussian") return Distribution::Gaussian;
  if (name == "laplace") return Distribution::Laplace;
  if (name == "gaussian-outliers") return Distribution::GaussianOutliers;
  throw std::invalid_argument("unknown distribution '" + name + "'");
}

Granularity parse_granularity(const std::string& name) {
  if (name == "tensor") return Granularity::Tensor;
  if (name == "channel") return Granularity::Channel;
  if (name == "group") return Granularity::Group;
  throw std::invalid_argument("unknown granularity '" + name + "'");
}

Matrix generate(Distribution d, long long rows, long long cols, std::uint64_t seed, double outlier_fraction,
                double outlier_scale) {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  const auto n = static_cast<std::size_t>(rows * cols);
  m.v.resize(n);
  SeededStream rng(mix_seed(seed, 0x2545F4914F6CDD1DULL));
  const double sqrt3 = 1.73205080756887729353, inv_sqrt2 = 0.70710678118654752440;
  std::size_t i = 0;
  while (i < n) {
    switch (d) {
      case Distribution::Uniform:
        m.v[i++] = sqrt3 * (2 * rng.uniform() - 1);
        break;
      case Distribution::Laplace: {
        const double u = rng.uniform() - 0.5;  // [−½, ½)
        const double mag = -inv_sqrt2 * log_det(1 - 2 * std::fabs(u));
        m.v[i++] = u < 0 ? -mag : mag;
        break;
      }
      case Distribution::Gaussian:
      case Distribution::GaussianOutliers: {
        // Marsaglia's polar method: two independent N(0, 1) values per accepted pair.
        const NormalPair z = rng.normal_pair_open_closed();
        m.v[i++] = z.a;
        if (i < n) m.v[i++] = z.b;
        break;
      }
    }
  }
  if (d == Distribution::GaussianOutliers && outlier_fraction > 0) {
    const long long k = std::clamp(static_cast<long long>(std::llround(outlier_fraction * static_cast<double>(rows))),
                                   1LL, rows);
    std::vector<long long> idx(static_cast<std::size_t>(rows));
    for (long long r = 0; r < rows; ++r) idx[static_cast<std::size_t>(r)] = r;
    for (long long j = 0; j < k; ++j) {  // partial Fisher–Yates shuffle
      const auto pick = j + static_cast<long long>(rng.below(static_cast<std::uint64_t>(rows - j)));
      std::swap(idx[static_cast<std::size_t>(j)], idx[static_cast<std::size_t>(pick)]);
    }
    m.outlier_rows.assign(idx.begin(), idx.begin() + k);
    std::sort(m.outlier_rows.begin(), m.outlier_rows.end());
    for (long long r : m.outlier_rows)
      for (long long c = 0; c < cols; ++c) m.v[static_cast<std::size_t>(r * cols + c)] *= outlier_scale;
  }
  return m;
}

Measured quantize_matrix(const Matrix& m, const Scheme& s) {
  long long block = m.rows * m.cols;
  if (s.granularity == Granularity::Channel) block = m.cols;
  if (s.granularity == Granularity::Group) {
    if (s.group_size <= 0 || m.cols % s.group_size != 0)
      throw std::invalid_argument("group_size must divide the number of columns");
    block = s.group_size;
  }
  const auto n = static_cast<long long>(m.v.size());
  Measured r;
  double sum_sq_err = 0, sum_zeroed = 0, sum_round = 0, sum_clip = 0, sum_pred = 0, sum_sig = 0;
  double sum_ord_err = 0, sum_ord_sig = 0;
  long long clipped = 0, zeroed = 0, blocks = 0, ordinary = 0;
  std::vector<char> outlier_row(static_cast<std::size_t>(m.rows), 0);
  for (long long r : m.outlier_rows) outlier_row[static_cast<std::size_t>(r)] = 1;
  for (long long b0 = 0; b0 < n; b0 += block, ++blocks) {
    const auto first = m.v.begin() + b0, last = first + block;
    Quantizer qz;
    if (s.symmetric) {
      double amax = 0;
      for (auto it = first; it != last; ++it) amax = std::max(amax, std::fabs(*it));
      qz = symmetric_quantizer(s.bits, amax > 0 ? s.clip * amax : 1.0);
    } else {
      const auto [mn, mx] = std::minmax_element(first, last);
      const double lo = std::min(*mn, 0.0) * s.clip, hi = std::max(*mx, 0.0) * s.clip;
      qz = hi > lo ? affine_quantizer(s.bits, lo, hi) : affine_quantizer(s.bits, -1, 1);
    }
    const double lo_rep = dequantize(qz, qz.qmin), hi_rep = dequantize(qz, qz.qmax);
    sum_pred += static_cast<double>(block) * qz.scale * qz.scale / 12;
    for (auto it = first; it != last; ++it) {
      const double x = *it, xq = fake_quantize(qz, x), e = x - xq, e2 = e * e;
      if (!outlier_row[static_cast<std::size_t>((it - m.v.begin()) / m.cols)]) {
        ++ordinary;
        sum_ord_err += e2;
        sum_ord_sig += x * x;
      }
      if (x != 0 && xq == 0) {
        ++zeroed;
        sum_zeroed += e2;
      }
      sum_sq_err += e2;
      sum_sig += x * x;
      r.max_abs_error = std::max(r.max_abs_error, std::fabs(e));
      if (x < lo_rep - qz.scale / 2 || x > hi_rep + qz.scale / 2) {
        sum_clip += e2;
        ++clipped;
      } else {
        sum_round += e2;
      }
    }
  }
  const double dn = static_cast<double>(n);
  r.mse = sum_sq_err / dn;
  r.mse_rounding = sum_round / dn;
  r.mse_clipping = sum_clip / dn;
  r.mse_predicted = sum_pred / dn;
  r.signal_power = sum_sig / dn;
  r.sqnr_db = decibels(r.signal_power / std::max(r.mse, 1e-300));
  r.clipped_fraction = static_cast<double>(clipped) / dn;
  r.zeroed_fraction = static_cast<double>(zeroed) / dn;
  r.mse_zeroed = sum_zeroed / dn;
  if (ordinary > 0) {
    r.mse_ordinary = sum_ord_err / static_cast<double>(ordinary);
    r.sqnr_ordinary_db = decibels(sum_ord_sig / std::max(sum_ord_err, 1e-300));
  }
  r.blocks = static_cast<double>(blocks);
  r.scale_overhead_bytes = r.blocks * (s.symmetric ? 2.0 : 4.0);
  r.payload_bytes = dn * s.bits / 8.0;
  r.bits_per_value = (r.payload_bytes + r.scale_overhead_bytes) * 8 / dn;
  return r;
}

Matrix sample_matrix(Distribution d, long long samples, long long cols, std::uint64_t seed, double outlier_fraction,
                     double outlier_scale) {
  const long long rows = std::max(1LL, samples / cols);
  return generate(d, rows, cols, seed, outlier_fraction, outlier_scale);
}

void check_group_size(const Scheme& s, long long cols) {
  if (s.granularity == Granularity::Group && cols % s.group_size != 0)
    throw InputError("group_size", "group_size (" + std::to_string(s.group_size) + ") must divide cols (" +
                                       std::to_string(cols) + ").");
  if (s.granularity == Granularity::Group && s.group_size > cols)
    throw InputError("group_size", "group_size must not exceed cols.");
}

MatrixSummary summarize(const Matrix& m) {
  double amax = 0;
  for (double v : m.v) amax = std::max(amax, std::fabs(v));
  return {m.rows, m.cols, m.rows * m.cols, static_cast<long long>(m.outlier_rows.size()), amax};
}

Staircase quantizer_staircase(int bits, double range_min, double range_max, bool symmetric, long long points,
                              double margin, std::optional<double> value) {
  const double lo = range_min, hi = range_max;
  if (!(hi > lo)) throw InputError("range_max", "range_max must be greater than range_min.");
  const bool sym = symmetric;
  const double amax = std::max(std::fabs(lo), std::fabs(hi));
  const Quantizer qz = sym ? symmetric_quantizer(bits, amax) : affine_quantizer(bits, lo, hi);
  const double rlo = sym ? -amax : std::min(lo, 0.0), rhi = sym ? amax : std::max(hi, 0.0);
  const double span = rhi - rlo, x0 = rlo - margin * span, x1 = rhi + margin * span;
  const long long n = points;
  Staircase o;
  double max_in = 0;
  for (long long i = 0; i < n; ++i) {
    const double x = x0 + (x1 - x0) * static_cast<double>(i) / static_cast<double>(n - 1);
    const double q = quantize_code(qz, x), v = dequantize(qz, q);
    o.x.push_back(x);
    o.q.push_back(q);
    o.x_hat.push_back(v);
    o.quantization_error.push_back(v - x);
    if (x >= rlo && x <= rhi) max_in = std::max(max_in, std::fabs(v - x));
  }
  o.scale = qz.scale;
  o.step = qz.scale;
  o.zero_point = qz.zero_point;
  o.qmin = qz.qmin;
  o.qmax = qz.qmax;
  o.max_error = qz.scale / 2;
  o.max_abs_error_in_range = max_in;
  o.range_lo = rlo;
  o.range_hi = rhi;
  o.representable_min = dequantize(qz, qz.qmin);
  o.representable_max = dequantize(qz, qz.qmax);
  if (value) {
    const double q = quantize_code(qz, *value);
    o.value_code = q;
    o.value_dequantized = dequantize(qz, q);
    o.value_error = dequantize(qz, q) - *value;
  }
  return o;
}

}  // namespace mlsys::quant
