#include "mlsys/finetune/low_rank.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "mlsys/foundations/deterministic.hpp"
#include "mlsys/foundations/input_error.hpp"

namespace mlsys {

namespace {

constexpr std::uint64_t kLowRankSalt = 0x4C6F52416E6B5356ULL;

// rows × k with orthonormal columns: Gaussian columns by modified Gram–Schmidt (twice, for accuracy).
DenseMatrix random_orthonormal(long long rows, long long k, SeededStream& rng) {
  DenseMatrix q{rows, k, std::vector<double>(static_cast<std::size_t>(rows * k))};
  for (auto& x : q.a) x = rng.normal();
  for (long long j = 0; j < k; ++j) {
    for (int pass = 0; pass < 2; ++pass) {
      for (long long p = 0; p < j; ++p) {
        double dot = 0;
        for (long long i = 0; i < rows; ++i) dot += q.at(i, p) * q.at(i, j);
        for (long long i = 0; i < rows; ++i) q.at(i, j) -= dot * q.at(i, p);
      }
    }
    double norm = 0;
    for (long long i = 0; i < rows; ++i) norm += q.at(i, j) * q.at(i, j);
    norm = std::sqrt(norm);
    for (long long i = 0; i < rows; ++i) q.at(i, j) /= norm;
  }
  return q;
}

DenseMatrix transpose(const DenseMatrix& m) {
  DenseMatrix t{m.cols, m.rows, std::vector<double>(m.a.size())};
  for (long long i = 0; i < m.rows; ++i)
    for (long long j = 0; j < m.cols; ++j) t.at(j, i) = m.at(i, j);
  return t;
}

}  // namespace

DenseMatrix low_rank_matrix(long long rows, long long cols, long long true_rank, double decay, double noise,
                            std::uint64_t seed) {
  if (rows < 2 || rows > kMaxLowRankDim) throw InputError("rows", "rows must be between 2 and 256");
  if (cols < 2 || cols > kMaxLowRankDim) throw InputError("cols", "cols must be between 2 and 256");
  if (true_rank < 1 || true_rank > std::min(rows, cols))
    throw InputError("true_rank", "true_rank must be between 1 and min(rows, cols)");
  if (!(decay > 0) || decay > 1) throw InputError("decay", "decay must be in (0, 1]");
  if (!(noise >= 0) || noise > 10) throw InputError("noise", "noise must be between 0 and 10");
  SeededStream rng(mix_seed(seed, kLowRankSalt));
  const DenseMatrix u = random_orthonormal(rows, true_rank, rng);
  const DenseMatrix v = random_orthonormal(cols, true_rank, rng);
  DenseMatrix m{rows, cols, std::vector<double>(static_cast<std::size_t>(rows * cols), 0.0)};
  double sigma = 1;
  for (long long k = 0; k < true_rank; ++k, sigma *= decay)
    for (long long i = 0; i < rows; ++i)
      for (long long j = 0; j < cols; ++j) m.at(i, j) += sigma * u.at(i, k) * v.at(j, k);
  const double scale = noise / std::sqrt(static_cast<double>(std::max(rows, cols)));
  for (auto& x : m.a) x += scale * rng.normal();
  return m;
}

Svd svd_jacobi(const DenseMatrix& input) {
  const bool flip = input.rows < input.cols;
  const DenseMatrix b0 = flip ? transpose(input) : input;  // m × n with m ≥ n
  const long long m = b0.rows, n = b0.cols;
  // Columns stored contiguously (the rotations work on column pairs).
  std::vector<std::vector<double>> b(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(m)));
  std::vector<std::vector<double>> v(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n), 0.0));
  for (long long j = 0; j < n; ++j) {
    for (long long i = 0; i < m; ++i) b[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = b0.at(i, j);
    v[static_cast<std::size_t>(j)][static_cast<std::size_t>(j)] = 1;
  }
  int sweeps = 0;
  for (; sweeps < 60; ++sweeps) {
    bool rotated = false;
    for (std::size_t p = 0; p + 1 < static_cast<std::size_t>(n); ++p) {
      for (std::size_t q = p + 1; q < static_cast<std::size_t>(n); ++q) {
        std::vector<double>& x = b[p];
        std::vector<double>& y = b[q];
        double alpha = 0, beta = 0, gamma = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
          alpha += x[i] * x[i];
          beta += y[i] * y[i];
          gamma += x[i] * y[i];
        }
        if (gamma == 0 || std::fabs(gamma) <= 1e-15 * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        for (std::size_t i = 0; i < x.size(); ++i) {
          const double xi = x[i], yi = y[i];
          x[i] = c * xi - s * yi;
          y[i] = s * xi + c * yi;
        }
        std::vector<double>& vp = v[p];
        std::vector<double>& vq = v[q];
        for (std::size_t i = 0; i < vp.size(); ++i) {
          const double xi = vp[i], yi = vq[i];
          vp[i] = c * xi - s * yi;
          vq[i] = s * xi + c * yi;
        }
      }
    }
    if (!rotated) break;
  }
  std::vector<double> norms(static_cast<std::size_t>(n));
  for (std::size_t j = 0; j < norms.size(); ++j) {
    double s = 0;
    for (double x : b[j]) s += x * x;
    norms[j] = std::sqrt(s);
  }
  std::vector<long long> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0LL);
  std::stable_sort(order.begin(), order.end(), [&](long long x, long long y) {
    return norms[static_cast<std::size_t>(x)] > norms[static_cast<std::size_t>(y)];
  });
  Svd out;
  out.sweeps = sweeps + 1;
  DenseMatrix u{m, n, std::vector<double>(static_cast<std::size_t>(m * n), 0.0)};
  DenseMatrix vs{n, n, std::vector<double>(static_cast<std::size_t>(n * n), 0.0)};
  for (long long k = 0; k < n; ++k) {
    const auto j = static_cast<std::size_t>(order[static_cast<std::size_t>(k)]);
    const double s = norms[j];
    out.sigma.push_back(s);
    for (long long i = 0; i < m; ++i) u.at(i, k) = s > 0 ? b[j][static_cast<std::size_t>(i)] / s : 0;
    for (long long i = 0; i < n; ++i) vs.at(i, k) = v[j][static_cast<std::size_t>(i)];
  }
  if (flip) {
    out.u = vs;
    out.v = u;
  } else {
    out.u = u;
    out.v = vs;
  }
  return out;
}

PowerSvd svd_power_deflation(const DenseMatrix& m, int count, int iterations) {
  DenseMatrix r = m;
  PowerSvd out{};
  std::vector<double> v(static_cast<std::size_t>(m.cols)), w(static_cast<std::size_t>(m.rows));
  for (int k = 0; k < count; ++k) {
    for (long long j = 0; j < m.cols; ++j) v[static_cast<std::size_t>(j)] = 1.0 + static_cast<double>(j % 7) / 7.0;
    double sigma = 0;
    for (int it = 0; it < iterations; ++it) {
      for (long long i = 0; i < m.rows; ++i) {  // w = R v
        double s = 0;
        for (long long j = 0; j < m.cols; ++j) s += r.at(i, j) * v[static_cast<std::size_t>(j)];
        w[static_cast<std::size_t>(i)] = s;
      }
      double norm = 0;
      for (long long j = 0; j < m.cols; ++j) {  // v = Rᵀ w
        double s = 0;
        for (long long i = 0; i < m.rows; ++i) s += r.at(i, j) * w[static_cast<std::size_t>(i)];
        v[static_cast<std::size_t>(j)] = s;
        norm += s * s;
      }
      norm = std::sqrt(norm);
      if (norm == 0) break;
      for (auto& x : v) x /= norm;
    }
    for (long long i = 0; i < m.rows; ++i) {
      double s = 0;
      for (long long j = 0; j < m.cols; ++j) s += r.at(i, j) * v[static_cast<std::size_t>(j)];
      w[static_cast<std::size_t>(i)] = s;
    }
    for (double x : w) sigma += x * x;
    sigma = std::sqrt(sigma);
    out.sigma.push_back(sigma);
    if (sigma == 0) continue;
    for (long long i = 0; i < m.rows; ++i)  // R ← R − σ u vᵀ with u = w/σ, so σ u = w
      for (long long j = 0; j < m.cols; ++j) r.at(i, j) -= w[static_cast<std::size_t>(i)] * v[static_cast<std::size_t>(j)];
  }
  out.residual_frobenius = frobenius(r);
  return out;
}

double frobenius(const DenseMatrix& m) {
  double s = 0;
  for (double x : m.a) s += x * x;
  return std::sqrt(s);
}

double truncation_error(const DenseMatrix& m, const Svd& s, long long rank) {
  double e = 0;
  for (long long i = 0; i < m.rows; ++i) {
    for (long long j = 0; j < m.cols; ++j) {
      double approx = 0;
      for (long long k = 0; k < rank; ++k)
        approx += s.u.at(i, k) * s.sigma[static_cast<std::size_t>(k)] * s.v.at(j, k);
      const double d = m.at(i, j) - approx;
      e += d * d;
    }
  }
  return std::sqrt(e);
}

LowRankReport low_rank(long long rows, long long cols, long long true_rank, double decay, double noise,
                       long long rank, std::uint64_t seed) {
  const DenseMatrix m = low_rank_matrix(rows, cols, true_rank, decay, noise, seed);
  const long long k = std::min(rows, cols);
  if (rank < 0 || rank > k) throw InputError("rank", "rank must be between 0 and min(rows, cols)");
  const Svd s = svd_jacobi(m);
  LowRankReport r{};
  r.singular_values = s.sigma;
  r.norm_frobenius = frobenius(m);
  r.error_frobenius = truncation_error(m, s, rank);
  double total = 0, kept = 0;
  for (long long i = 0; i < k; ++i) {
    const double e = s.sigma[static_cast<std::size_t>(i)] * s.sigma[static_cast<std::size_t>(i)];
    total += e;
    if (i < rank) kept += e;
  }
  r.eckart_young_error = std::sqrt(std::max(0.0, total - kept));
  r.relative_error = r.norm_frobenius > 0 ? r.error_frobenius / r.norm_frobenius : 0;
  r.energy_kept = total > 0 ? kept / total : 1;
  r.full_params = static_cast<double>(rows * cols);
  r.factor_params = static_cast<double>(rank * (rows + cols));
  r.sweeps = s.sweeps;
  // Tail sums from the smallest σ up, so the small errors keep their digits.
  std::vector<double> tail(static_cast<std::size_t>(k + 1), 0.0);
  for (long long i = k - 1; i >= 0; --i)
    tail[static_cast<std::size_t>(i)] =
        tail[static_cast<std::size_t>(i + 1)] + s.sigma[static_cast<std::size_t>(i)] * s.sigma[static_cast<std::size_t>(i)];
  for (long long i = 0; i <= k; ++i)
    r.by_rank.push_back({static_cast<double>(i), tail[0] > 0 ? std::sqrt(tail[static_cast<std::size_t>(i)] / tail[0]) : 0});
  return r;
}

}  // namespace mlsys
