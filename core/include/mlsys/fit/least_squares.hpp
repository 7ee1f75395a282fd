// Dense linear least squares, executed: Householder QR (Golub & Van Loan, "Matrix
// Computations", 4th ed., §5.2 and §5.3), the minimum-norm solution of an underdetermined
// system by the QR of the transpose (§5.6.2), ridge regression as an augmented least-squares
// problem (§6.1.4), and, as the naive reference, the normal equations by Cholesky (§5.3.1),
// whose error grows with cond(A)² instead of cond(A). Only + − × ÷ and sqrt: the same bits
// natively and in WASM.
#pragma once
#include <cstddef>
#include <vector>

namespace mlsys::fit {

// A row-major matrix of rows × cols doubles.
struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> data;
  Matrix() = default;
  Matrix(std::size_t r, std::size_t c) : rows(r), cols(c), data(r * c, 0.0) {}
  double& at(std::size_t i, std::size_t j) { return data[i * cols + j]; }
  double at(std::size_t i, std::size_t j) const { return data[i * cols + j]; }
};

// A·x for a vector x of length A.cols.
std::vector<double> multiply(const Matrix& a, const std::vector<double>& x);

// argmin ‖A·x − y‖₂ for rows ≥ cols, by Householder QR of A (A = Q·R, x = R⁻¹·Qᵀy). Throws
// InputError("samples", ...) when A is rank deficient (a zero pivot of R).
std::vector<double> least_squares_qr(const Matrix& a, const std::vector<double>& y);

// The x of least ‖x‖₂ with A·x = y, for rows < cols and A of full row rank: Aᵀ = Q·R, then
// x = Q·(R⁻ᵀ·y) (R⁻ᵀ by forward substitution).
std::vector<double> min_norm_qr(const Matrix& a, const std::vector<double>& y);

// argmin ‖A·x − y‖₂² + lambda·‖x‖₂² (lambda > 0), solved as the least-squares problem of the
// stacked matrix [A; √lambda·I] and vector [y; 0] by least_squares_qr, for any shape of A.
std::vector<double> ridge_qr(const Matrix& a, const std::vector<double>& y, double lambda);

// The naive reference: (AᵀA)·x = Aᵀy solved by Cholesky. Forming AᵀA squares the condition
// number, so it loses about twice the digits that QR loses. Throws InputError when AᵀA is not
// numerically positive definite (a pivot ≤ 0).
std::vector<double> normal_equations(const Matrix& a, const std::vector<double>& y);

// The largest eigenvalue of a symmetric matrix, by cyclic Jacobi rotations (Golub & Van Loan
// §8.5) until the off-diagonal part is below 1e-14 of the whole (at most 100 sweeps).
double max_symmetric_eigenvalue(Matrix s);

}  // namespace mlsys::fit
