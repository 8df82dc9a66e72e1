/// @file kernel.hpp
/// Covariance kernels. A Kernel is a small value type; the heavy evaluation lives in the engine
/// ops (ops.hpp), which batch it over many points.
#pragma once

#include <Eigen/Core>

#include <memory>
#include <string>

#include "gpbandit/engine/kernel_type.hpp"

namespace gpb {

/// Parses "se" | "matern12" | "matern32" | "matern52" | "linear" | "polynomial" | "precomputed" |
/// "tanimoto" | "minmax".
/// @throws InvalidArgument naming the bad value.
KernelType parse_kernel_type(const std::string& name);
/// The config name of a kernel type, e.g. "matern32" (inverse of parse_kernel_type).
const char* kernel_type_name(KernelType t);

/// A positive semi-definite kernel k(x, x').
///
/// Stationary kernels (SE, Matérn) depend on the scaled distance s = ‖x − x'‖₂ / l (isotropic: one
/// lengthscale l for every axis) or, with automatic relevance determination (ARD, one lengthscale
/// l_i per axis), s = √(Σ_i (x_i − x'_i)² / l_i²):
///  - SE:        v·exp(−s²/2)
///  - Matérn ½:  v·exp(−s)
///  - Matérn 3/2: v·(1 + √3 s)·exp(−√3 s)
///  - Matérn 5/2: v·(1 + √5 s + 5s²/3)·exp(−√5 s)
/// Dot-product kernels: linear v·(x·x' + c), polynomial v·(x·x' + c)^p.
/// Precomputed: an N×N PSD matrix; points are candidate indices (1×N rows holding 0..N−1).
/// Fingerprint kernels (points are W packed 64-bit words, see fingerprint.hpp and
/// Domain::fingerprints; never coordinates):
///  - Tanimoto (Jaccard on bit fingerprints): v·|a ∧ b| / |a ∨ b|
///  - MinMax (on count fingerprints, one byte per position):
///    v·Σ_i min(a_i, b_i) / Σ_i max(a_i, b_i)
/// with 0/0 = 1 (two empty fingerprints are identical). Both are positive semi-definite (Ralaivola
/// et al. 2005; Ioffe 2010) and take values in [0, v]; k(x, x) = v.
///
/// Thread safety: immutable after construction (a value type; a precomputed matrix is shared
/// read-only between copies); any number of threads may evaluate one Kernel at once.
class Kernel {
 public:
  /// Squared exponential. @throws InvalidArgument if lengthscale ≤ 0 or variance ≤ 0.
  static Kernel se(double lengthscale, double variance = 1.0);
  /// Matérn with ν ∈ {1/2, 3/2, 5/2} chosen by `type`. @throws InvalidArgument as se().
  static Kernel matern(KernelType type, double lengthscale, double variance = 1.0);
  /// SE or Matérn (by `type`) with one lengthscale per input axis (ARD). A vector of length 1 is
  /// the isotropic kernel (same as se()/matern()); length d ≥ 2 restricts the kernel to points of
  /// dimension d (checked by every op). @throws InvalidArgument for a non-stationary type, an empty
  /// vector, a lengthscale ≤ 0, not finite or whose inverse overflows, or variance ≤ 0.
  static Kernel ard(KernelType type, const Eigen::VectorXd& lengthscales, double variance = 1.0);
  /// v·(x·x' + c). @throws InvalidArgument if variance ≤ 0 or offset < 0.
  static Kernel linear(double variance = 1.0, double offset = 0.0);
  /// v·(x·x' + c)^degree. @throws InvalidArgument if degree < 1, variance ≤ 0 or offset < 0.
  static Kernel polynomial(int degree, double variance = 1.0, double offset = 1.0);
  /// Tanimoto kernel on packed bit fingerprints. @throws InvalidArgument if variance ≤ 0.
  static Kernel tanimoto(double variance = 1.0);
  /// MinMax kernel on packed count fingerprints. @throws InvalidArgument if variance ≤ 0.
  static Kernel minmax(double variance = 1.0);
  /// A given N×N matrix (column-major, symmetric; checked for finiteness and symmetry; see
  /// check_positive_semidefinite() for the O(N³) check the config reader and Python also make).
  /// @throws InvalidArgument if not square, not finite, or not symmetric to 1e-10 relative.
  static Kernel precomputed(Eigen::MatrixXd matrix);

  /// The kernel family.
  KernelType type() const { return type_; }
  /// Lengthscale of an isotropic stationary kernel (1 for the non-stationary ones).
  /// @throws InvalidArgument for an ARD kernel (use lengthscales()).
  double lengthscale() const;
  /// Lengthscales: d values for an ARD kernel, one value otherwise (the isotropic lengthscale).
  const Eigen::VectorXd& lengthscales() const { return *lengthscales_; }
  /// True for an ARD kernel (one lengthscale per axis, d ≥ 2).
  bool is_ard() const { return lengthscales_->size() > 1; }
  /// The point dimension an ARD kernel requires (0: any dimension).
  int ard_dim() const { return is_ard() ? static_cast<int>(lengthscales_->size()) : 0; }
  /// 1 / l_i per axis (ARD) or the single 1 / l, in host memory that never moves for the life of
  /// this kernel and its copies (the CPU hot loops point at it).
  const Eigen::VectorXd& inverse_lengthscales() const { return *inverse_lengthscales_; }
  /// Variance (scale factor) v.
  double variance() const { return variance_; }
  /// Offset c of dot-product kernels.
  double offset() const { return offset_; }
  /// Degree p of the polynomial kernel.
  int degree() const { return degree_; }
  /// True for SE and Matérn kernels (functions of ‖x − x'‖ only).
  bool stationary() const;
  /// True for the Tanimoto and MinMax kernels, whose points are packed fingerprint words.
  bool fingerprint() const { return type_ == KernelType::Tanimoto || type_ == KernelType::MinMax; }
  /// The same kernel with variance v (every other parameter kept).
  /// @throws InvalidArgument if v ≤ 0 or not finite.
  Kernel with_variance(double v) const;
  /// The precomputed matrix (nullptr unless type() == Precomputed).
  const Eigen::MatrixXd* matrix() const { return matrix_.get(); }
  /// The precomputed matrix as shared by every copy of this kernel (null unless Precomputed); the
  /// CUDA backend keys its device copy on it (one upload per matrix, not per op).
  std::shared_ptr<const Eigen::MatrixXd> matrix_shared() const { return matrix_; }
  /// Human-readable description, e.g. "se(l=0.2, v=1)" or "se(l=[0.2, 0.5], v=1)".
  std::string describe() const;

  /// k(x, y) for two points of dimension d (for precomputed: x(0), y(0) are indices). O(d).
  /// @throws InvalidArgument for an ARD kernel and d ≠ ard_dim(), or a bad precomputed index.
  double operator()(const double* x, const double* y, int d) const;

 private:
  KernelType type_ = KernelType::SE;
  std::shared_ptr<const Eigen::VectorXd> lengthscales_ =
      std::make_shared<const Eigen::VectorXd>(Eigen::VectorXd::Ones(1));
  std::shared_ptr<const Eigen::VectorXd> inverse_lengthscales_ =
      std::make_shared<const Eigen::VectorXd>(Eigen::VectorXd::Ones(1));
  double variance_ = 1.0;
  double offset_ = 0.0;
  int degree_ = 1;
  std::shared_ptr<const Eigen::MatrixXd> matrix_;
};

/// Checks that the symmetric matrix K is positive semi-definite, as a covariance (a precomputed
/// kernel) must be: smallest eigenvalue ≥ −1e-8·max|K|. One Cholesky factorisation of
/// K + 2·tol·I decides (O(N³)); the eigenvalues are computed only to name the smallest one.
/// @throws InvalidArgument "<what> is not positive semi-definite: smallest eigenvalue λ
/// (tolerance −tol); a kernel matrix must be a covariance matrix".
void check_positive_semidefinite(const Eigen::MatrixXd& K, const std::string& what);

}  // namespace gpb
