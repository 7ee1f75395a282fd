// SmoothQuant executed on seeded data (see smoothquant.hpp).
#include "mlsys/quantization/smoothquant.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/quantization/quantizer.hpp"

namespace mlsys::quant {

namespace {

using Mat = std::vector<double>;  // row-major

// C[t × o] = A[t × c] · B[c × o] (naive, fp64).
Mat matmul(const Mat& a, const Mat& b, long long t, long long c, long long o) {
  Mat out(static_cast<std::size_t>(t * o), 0.0);
  for (long long i = 0; i < t; ++i)
    for (long long k = 0; k < c; ++k) {
      const double aik = a[static_cast<std::size_t>(i * c + k)];
      for (long long j = 0; j < o; ++j)
        out[static_cast<std::size_t>(i * o + j)] += aik * b[static_cast<std::size_t>(k * o + j)];
    }
  return out;
}

double rel_mse(const Mat& approx, const Mat& exact) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    const double e = approx[i] - exact[i];
    num += e * e;
    den += exact[i] * exact[i];
  }
  return num / den;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// max|·| of each column of X (t × c) and of each row of W (c × o).
std::vector<double> col_absmax(const Mat& x, long long t, long long c) {
  std::vector<double> m(static_cast<std::size_t>(c), 0.0);
  for (long long i = 0; i < t; ++i)
    for (long long j = 0; j < c; ++j)
      m[static_cast<std::size_t>(j)] = std::max(m[static_cast<std::size_t>(j)], std::fabs(x[static_cast<std::size_t>(i * c + j)]));
  return m;
}
std::vector<double> row_absmax(const Mat& w, long long c, long long o) {
  std::vector<double> m(static_cast<std::size_t>(c), 0.0);
  for (long long j = 0; j < c; ++j)
    for (long long k = 0; k < o; ++k)
      m[static_cast<std::size_t>(j)] = std::max(m[static_cast<std::size_t>(j)], std::fabs(w[static_cast<std::size_t>(j * o + k)]));
  return m;
}
double spread(const std::vector<double>& m) { return *std::max_element(m.begin(), m.end()) / median(m); }

SmoothQuantErrors run_w8a8(const Mat& x, const Mat& w, const Mat& y, const std::vector<double>& s,
                           const SmoothQuantSetup& st) {
  const long long t = st.tokens, c = st.channels, o = st.out_features;
  Mat xs(x.size()), ws(w.size());
  for (long long i = 0; i < t; ++i)
    for (long long j = 0; j < c; ++j)
      xs[static_cast<std::size_t>(i * c + j)] = x[static_cast<std::size_t>(i * c + j)] / s[static_cast<std::size_t>(j)];
  for (long long j = 0; j < c; ++j)
    for (long long k = 0; k < o; ++k)
      ws[static_cast<std::size_t>(j * o + k)] = w[static_cast<std::size_t>(j * o + k)] * s[static_cast<std::size_t>(j)];
  // Activations: one symmetric scale for the whole tensor.
  double amax = 0;
  for (double v : xs) amax = std::max(amax, std::fabs(v));
  const Quantizer qa = symmetric_quantizer(st.bits, amax);
  Mat xq(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) xq[i] = fake_quantize(qa, xs[i]);
  // Weights: one symmetric scale per output channel (column of W').
  Mat wq(ws.size());
  for (long long k = 0; k < o; ++k) {
    double wmax = 0;
    for (long long j = 0; j < c; ++j) wmax = std::max(wmax, std::fabs(ws[static_cast<std::size_t>(j * o + k)]));
    const Quantizer qw = symmetric_quantizer(st.bits, wmax > 0 ? wmax : 1.0);
    for (long long j = 0; j < c; ++j)
      wq[static_cast<std::size_t>(j * o + k)] = fake_quantize(qw, ws[static_cast<std::size_t>(j * o + k)]);
  }
  SmoothQuantErrors e;
  e.activation_rel_mse = rel_mse(xq, xs);
  e.weight_rel_mse = rel_mse(wq, ws);
  e.output_rel_mse = rel_mse(matmul(xq, wq, t, c, o), y);
  e.activation_channel_spread = spread(col_absmax(xs, t, c));
  e.weight_channel_spread = spread(row_absmax(ws, c, o));
  return e;
}

}  // namespace

std::vector<double> smoothing_factors(const std::vector<double>& x_absmax, const std::vector<double>& w_absmax,
                                      double alpha) {
  std::vector<double> s(x_absmax.size());
  for (std::size_t j = 0; j < s.size(); ++j) {
    // s = exp(α·ln a − (1 − α)·ln b), with log_det and a series exp (std::pow and std::exp
    // differ in the last bit between libms; these use + − × ÷ only; exp_det here would change
    // the last digits of the outputs).
    const double la = log_det(x_absmax[j]), lb = log_det(w_absmax[j]);
    const double l = alpha * la - (1 - alpha) * lb;
    // exp(l) = 2^n · exp(r), r = l − n·ln2 in [−ln2/2, ln2/2]; Taylor series to 20 terms.
    const double ln2 = 0.69314718055994530942;
    const double n = std::round(l / ln2), r = l - n * ln2;
    double term = 1, sum = 1;
    for (int k = 1; k <= 20; ++k) {
      term *= r / k;
      sum += term;
    }
    s[j] = std::ldexp(sum, static_cast<int>(n));
  }
  return s;
}

double smoothquant_work(const SmoothQuantSetup& st, std::size_t alphas) {
  return static_cast<double>(st.tokens) * static_cast<double>(st.channels) * static_cast<double>(st.out_features) *
         static_cast<double>(alphas + 2);
}

SmoothQuantResult smoothquant(const SmoothQuantSetup& st, const std::vector<double>& alphas) {
  const long long t = st.tokens, c = st.channels, o = st.out_features;
  // X: N(0, 1) with `outlier_channels` columns scaled up (the outlier features of LLM
  // activations, Dettmers et al. 2022); W: N(0, 1/c), no outliers (weights are easy).
  Matrix xm = generate(Distribution::Gaussian, t, c, st.seed, 0, 1);
  Matrix wm = generate(Distribution::Gaussian, c, o, st.seed + 0x5EEDULL, 0, 1);
  SeededStream rng(mix_seed(st.seed, 7));
  std::vector<long long> cols(static_cast<std::size_t>(c));
  for (long long j = 0; j < c; ++j) cols[static_cast<std::size_t>(j)] = j;
  const long long k_out = std::min(st.outlier_channels, c);
  for (long long j = 0; j < k_out; ++j) {
    const auto pick = j + static_cast<long long>(rng.below(static_cast<std::uint64_t>(c - j)));
    std::swap(cols[static_cast<std::size_t>(j)], cols[static_cast<std::size_t>(pick)]);
    for (long long i = 0; i < t; ++i) xm.v[static_cast<std::size_t>(i * c + cols[static_cast<std::size_t>(j)])] *= st.outlier_scale;
  }
  const double wscale = 1 / std::sqrt(static_cast<double>(c));
  for (double& v : wm.v) v *= wscale;
  const Mat y = matmul(xm.v, wm.v, t, c, o);
  const auto xa = col_absmax(xm.v, t, c), wa = row_absmax(wm.v, c, o);

  SmoothQuantResult r;
  r.baseline = run_w8a8(xm.v, wm.v, y, std::vector<double>(static_cast<std::size_t>(c), 1.0), st);
  for (double a : alphas) {
    r.alphas.push_back(a);
    r.sweep.push_back(run_w8a8(xm.v, wm.v, y, smoothing_factors(xa, wa, a), st));
  }
  return r;
}

std::vector<double> smoothquant_alphas(long long points, double alpha) {
  const long long n = points;
  std::vector<double> alphas;
  for (long long i = 0; i < n; ++i) alphas.push_back(static_cast<double>(i) / static_cast<double>(n - 1));
  alphas.push_back(alpha);
  return alphas;
}

SmoothQuantSweep smoothquant_sweep(const SmoothQuantSetup& setup, const std::vector<double>& alphas) {
  const SmoothQuantResult r = smoothquant(setup, alphas);
  SmoothQuantSweep o;
  o.alpha = alphas.back();
  o.smoothed = r.sweep.back();
  o.baseline = r.baseline;
  std::size_t best = 0;
  for (std::size_t i = 0; i + 1 < r.sweep.size(); ++i) {
    o.points.push_back({r.alphas[i], r.sweep[i]});
    if (r.sweep[i].output_rel_mse < r.sweep[best].output_rel_mse) best = i;
  }
  o.best_alpha = r.alphas[best];
  o.best_output_rel_mse = r.sweep[best].output_rel_mse;
  return o;
}

}  // namespace mlsys::quant
