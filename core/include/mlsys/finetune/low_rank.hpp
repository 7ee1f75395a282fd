// Low-rank approximation by an executed singular value decomposition. A seeded rows × cols
// matrix with a chosen spectrum (true_rank singular values σ_i = decay^(i−1), random orthonormal
// singular vectors) plus Gaussian noise of entries noise/√max(rows, cols); its SVD by one-sided
// Jacobi rotations (Hestenes 1958; Demmel and Veselić 1992), with a naive reference beside it
// (power iteration on AᵀA with deflation). Eckart–Young (1936): the best rank-r approximation in
// the Frobenius norm keeps the r largest singular triplets, and its error is the root of the sum
// of the dropped σ². This is why LoRA's r can be small when the update ΔW has a decaying spectrum.
#pragma once
#include <cstdint>
#include <vector>

namespace mlsys {

constexpr long long kMaxLowRankDim = 256;

// Row-major rows × cols.
struct DenseMatrix {
  long long rows = 0, cols = 0;
  std::vector<double> a;
  double& at(long long i, long long j) { return a[static_cast<std::size_t>(i * cols + j)]; }
  double at(long long i, long long j) const { return a[static_cast<std::size_t>(i * cols + j)]; }
};

// The seeded test matrix described above. Throws InputError naming rows, cols, true_rank, decay or noise.
DenseMatrix low_rank_matrix(long long rows, long long cols, long long true_rank, double decay, double noise,
                            std::uint64_t seed);

// Thin SVD A = U·diag(σ)·Vᵀ with k = min(rows, cols) triplets, σ descending.
struct Svd {
  std::vector<double> sigma;
  DenseMatrix u;  // rows × k
  DenseMatrix v;  // cols × k
  int sweeps = 0;
};
Svd svd_jacobi(const DenseMatrix& m);

// Naive reference: the top `count` singular values by power iteration on AᵀA (fixed iterations,
// deterministic start), deflating A ← A − σ·u·vᵀ after each. Returns the values and the
// Frobenius norm of what is left after deflating all of them (the rank-count error).
struct PowerSvd {
  std::vector<double> sigma;
  double residual_frobenius;
};
PowerSvd svd_power_deflation(const DenseMatrix& m, int count, int iterations = 500);

double frobenius(const DenseMatrix& m);
// ‖A − U_r·diag(σ_r)·V_rᵀ‖_F formed and measured entry by entry.
double truncation_error(const DenseMatrix& m, const Svd& s, long long rank);

struct RankError {
  double rank, relative_error;
};
struct LowRankReport {
  std::vector<double> singular_values;
  double norm_frobenius;
  double error_frobenius;    // executed: ‖A − A_r‖_F
  double eckart_young_error; // √(Σ_{i>r} σ_i²)
  double relative_error;     // error_frobenius / ‖A‖_F
  double energy_kept;        // Σ_{i≤r} σ_i² / Σ σ_i²
  double full_params;        // rows·cols
  double factor_params;      // r·(rows + cols)
  int sweeps;
  std::vector<RankError> by_rank;  // r = 0 … min(rows, cols)
};
LowRankReport low_rank(long long rows, long long cols, long long true_rank, double decay, double noise,
                       long long rank, std::uint64_t seed);

}  // namespace mlsys
