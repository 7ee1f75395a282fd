// Householder QR, minimum-norm and ridge solutions, and the normal-equations reference
// (mlsys/fit/least_squares.hpp).
#include "mlsys/fit/least_squares.hpp"

#include <cmath>

#include "mlsys/foundations/input_error.hpp"

namespace mlsys::fit {

namespace {

// A = Q·R in place by Householder reflections: R in the upper triangle, each reflector's
// vector v (with v₀ = 1 implied: LAPACK's layout) below the diagonal, its τ in `tau`.
// Applying the reflectors to y gives Qᵀy without forming Q.
struct Householder {
  Matrix qr;
  std::vector<double> tau;
};

Householder householder(Matrix a) {
  const std::size_t m = a.rows, n = a.cols;
  std::vector<double> tau(n, 0.0);
  for (std::size_t k = 0; k < n && k < m; ++k) {
    double norm2 = 0;
    for (std::size_t i = k; i < m; ++i) norm2 += a.at(i, k) * a.at(i, k);
    const double norm = std::sqrt(norm2);
    if (norm == 0) continue;  // a zero column: R's pivot stays 0, the solvers report it
    const double alpha = a.at(k, k) > 0 ? -norm : norm;  // the sign that avoids cancellation
    const double v0 = a.at(k, k) - alpha;
    for (std::size_t i = k + 1; i < m; ++i) a.at(i, k) /= v0;
    tau[k] = -v0 / alpha;  // H = I − τ·v·vᵀ maps column k to alpha·e_k
    a.at(k, k) = alpha;
    for (std::size_t j = k + 1; j < n; ++j) {
      double dot = a.at(k, j);
      for (std::size_t i = k + 1; i < m; ++i) dot += a.at(i, k) * a.at(i, j);
      dot *= tau[k];
      a.at(k, j) -= dot;
      for (std::size_t i = k + 1; i < m; ++i) a.at(i, j) -= dot * a.at(i, k);
    }
  }
  return {std::move(a), std::move(tau)};
}

// Qᵀ·y (apply H₀, H₁, … in order).
std::vector<double> apply_qt(const Householder& h, std::vector<double> y) {
  for (std::size_t k = 0; k < h.tau.size() && k < h.qr.rows; ++k) {
    if (h.tau[k] == 0) continue;
    double dot = y[k];
    for (std::size_t i = k + 1; i < h.qr.rows; ++i) dot += h.qr.at(i, k) * y[i];
    dot *= h.tau[k];
    y[k] -= dot;
    for (std::size_t i = k + 1; i < h.qr.rows; ++i) y[i] -= dot * h.qr.at(i, k);
  }
  return y;
}

// Q·z (apply the reflectors in reverse order); z has qr.rows entries.
std::vector<double> apply_q(const Householder& h, std::vector<double> z) {
  for (std::size_t k = std::min(h.tau.size(), h.qr.rows); k-- > 0;) {
    if (h.tau[k] == 0) continue;
    double dot = z[k];
    for (std::size_t i = k + 1; i < h.qr.rows; ++i) dot += h.qr.at(i, k) * z[i];
    dot *= h.tau[k];
    z[k] -= dot;
    for (std::size_t i = k + 1; i < h.qr.rows; ++i) z[i] -= dot * h.qr.at(i, k);
  }
  return z;
}

// A pivot of R below 1e-20 of the largest means a rank-deficient matrix (coincident points):
// above it the solution is large but finite, which an ill-conditioned fit is meant to show.
void check_pivots(const Matrix& r, std::size_t n) {
  double largest = 0;
  for (std::size_t k = 0; k < n; ++k) largest = std::max(largest, std::abs(r.at(k, k)));
  for (std::size_t k = 0; k < n; ++k)
    if (!(std::abs(r.at(k, k)) > 1e-20 * largest))
      throw InputError("samples", "The sample points do not determine the fit (a rank-deficient system): use more "
                                  "samples, a lower degree or some weight decay.");
}

}  // namespace

std::vector<double> multiply(const Matrix& a, const std::vector<double>& x) {
  std::vector<double> out(a.rows, 0.0);
  for (std::size_t i = 0; i < a.rows; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < a.cols; ++j) s += a.at(i, j) * x[j];
    out[i] = s;
  }
  return out;
}

std::vector<double> least_squares_qr(const Matrix& a, const std::vector<double>& y) {
  const std::size_t n = a.cols;
  const Householder h = householder(a);
  check_pivots(h.qr, n);
  const std::vector<double> qty = apply_qt(h, y);
  std::vector<double> x(n, 0.0);  // back substitution R·x = (Qᵀy)[0..n)
  for (std::size_t k = n; k-- > 0;) {
    double s = qty[k];
    for (std::size_t j = k + 1; j < n; ++j) s -= h.qr.at(k, j) * x[j];
    x[k] = s / h.qr.at(k, k);
  }
  return x;
}

std::vector<double> min_norm_qr(const Matrix& a, const std::vector<double>& y) {
  const std::size_t m = a.rows;
  Matrix at(a.cols, a.rows);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < a.cols; ++j) at.at(j, i) = a.at(i, j);
  const Householder h = householder(std::move(at));
  check_pivots(h.qr, m);
  // A = Rᵀ·Qᵀ, so A·x = y with x = Q·[z; 0] and Rᵀ·z = y; the zero tail makes ‖x‖ least.
  std::vector<double> z(a.cols, 0.0);
  for (std::size_t k = 0; k < m; ++k) {
    double s = y[k];
    for (std::size_t j = 0; j < k; ++j) s -= h.qr.at(j, k) * z[j];
    z[k] = s / h.qr.at(k, k);
  }
  return apply_q(h, std::move(z));
}

std::vector<double> ridge_qr(const Matrix& a, const std::vector<double>& y, double lambda) {
  const std::size_t m = a.rows, n = a.cols;
  Matrix stacked(m + n, n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) stacked.at(i, j) = a.at(i, j);
  const double root = std::sqrt(lambda);
  for (std::size_t j = 0; j < n; ++j) stacked.at(m + j, j) = root;
  std::vector<double> rhs(y);
  rhs.resize(m + n, 0.0);
  return least_squares_qr(stacked, rhs);
}

std::vector<double> normal_equations(const Matrix& a, const std::vector<double>& y) {
  const std::size_t n = a.cols;
  Matrix g(n, n);  // AᵀA
  std::vector<double> b(n, 0.0);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      b[j] += a.at(i, j) * y[i];
      for (std::size_t k = 0; k <= j; ++k) g.at(j, k) += a.at(i, j) * a.at(i, k);
    }
  for (std::size_t j = 0; j < n; ++j) {  // Cholesky G = L·Lᵀ in the lower triangle
    for (std::size_t k = 0; k < j; ++k) {
      double s = g.at(j, k);
      for (std::size_t p = 0; p < k; ++p) s -= g.at(j, p) * g.at(k, p);
      g.at(j, k) = s / g.at(k, k);
    }
    double d = g.at(j, j);
    for (std::size_t p = 0; p < j; ++p) d -= g.at(j, p) * g.at(j, p);
    if (!(d > 0)) throw InputError("samples", "The normal equations are not positive definite in double precision.");
    g.at(j, j) = std::sqrt(d);
  }
  std::vector<double> x(n, 0.0);
  for (std::size_t j = 0; j < n; ++j) {  // L·z = b
    double s = b[j];
    for (std::size_t p = 0; p < j; ++p) s -= g.at(j, p) * x[p];
    x[j] = s / g.at(j, j);
  }
  for (std::size_t j = n; j-- > 0;) {  // Lᵀ·x = z
    double s = x[j];
    for (std::size_t p = j + 1; p < n; ++p) s -= g.at(p, j) * x[p];
    x[j] = s / g.at(j, j);
  }
  return x;
}

double max_symmetric_eigenvalue(Matrix s) {
  const std::size_t n = s.rows;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, total = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) (i == j ? total : off) += s.at(i, j) * s.at(i, j);
    if (off <= 1e-28 * (total + off)) break;
    for (std::size_t p = 0; p + 1 < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) {
        if (s.at(p, q) == 0) continue;
        // The rotation that zeroes s(p, q) (Golub & Van Loan, Algorithm 8.5.1).
        const double theta = (s.at(q, q) - s.at(p, p)) / (2 * s.at(p, q));
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), sn = t * c;
        for (std::size_t k = 0; k < n; ++k) {  // columns p, q
          const double kp = s.at(k, p), kq = s.at(k, q);
          s.at(k, p) = c * kp - sn * kq;
          s.at(k, q) = sn * kp + c * kq;
        }
        for (std::size_t k = 0; k < n; ++k) {  // rows p, q
          const double pk = s.at(p, k), qk = s.at(q, k);
          s.at(p, k) = c * pk - sn * qk;
          s.at(q, k) = sn * pk + c * qk;
        }
      }
  }
  double largest = n ? s.at(0, 0) : 0.0;
  for (std::size_t i = 1; i < n; ++i) largest = std::max(largest, s.at(i, i));
  return largest;
}

}  // namespace mlsys::fit
