/// @file kernel.hpp
/// Covariance kernels. A Kernel is a small value type; the heavy evaluation lives in the engine
/// ops (ops.hpp), which batch it over many points.
#pragma once

#include <Eigen/Core>

#include <memory>
#include <string>
#include <vector>

#include "gpbandit/engine/kernel_type.hpp"

namespace gpb {

/// Parses "se" | "matern12" | "matern32" | "matern52" | "linear" | "polynomial" | "precomputed" |
/// "tanimoto" | "minmax".
/// @throws InvalidArgument naming the bad value.
KernelType parse_kernel_type(const std::string& name);
/// The config name of a kernel type, e.g. "matern32" (inverse of parse_kernel_type).
const char* kernel_type_name(KernelType t);

/// One part of a composite kernel (Kernel::product, Kernel::sum): a stationary kernel (SE or
/// Matérn) on the contiguous features [begin, begin + size) of every point, e.g. the encoding of
/// one parameter of a ParameterSpace, a group of them, or one axis of a box.
struct KernelPart {
  KernelType type = KernelType::Matern52;  ///< SE, Matern12, Matern32 or Matern52
  int begin = 0;                           ///< first feature
  int size = 1;                            ///< number of features (≥ 1)
  /// One value (isotropic over the part's features) or `size` values (ARD within the part).
  Eigen::VectorXd lengthscales = Eigen::VectorXd::Ones(1);
  /// The part's variance v_p in a sum; a product's parts carry none (it must be 1 there).
  double variance = 1.0;
  /// Whether a hyperparameter fit gives this part one lengthscale per feature (when size > 1);
  /// false keeps one lengthscale for the whole part (e.g. a one-hot encoding, whose features are
  /// exchangeable).
  bool ard = true;
};

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
/// Composite kernels (product(), sum()): stationary parts k_p, each on its own contiguous range of
/// features with its own lengthscales, s_p = ‖(x − x')_p / l_p‖ and u_p = k_p at variance 1:
///  - product: v·Π_p u_p(s_p) (one overall variance v)
///  - sum:     Σ_p v_p·u_p(s_p) (one variance per part)
/// Both are positive semi-definite (Schur product; sum of PSD kernels) and k(x, x) = variance().
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
  /// v·Π_p u_p: the product of `parts` (a part's variance must be 1; the product has one overall
  /// variance v). The parts' feature ranges must not overlap and must cover [0, d) for d = the
  /// largest begin + size, the dimension every op then requires of the points.
  /// @throws InvalidArgument naming the part (kernel.parts[i]) for an empty list, a non-stationary
  /// type, an empty or overlapping range, a gap, a lengthscale count other than 1 or size, a
  /// lengthscale ≤ 0 or not finite, a part variance ≠ 1, or v ≤ 0.
  static Kernel product(std::vector<KernelPart> parts, double variance = 1.0);
  /// Σ_p v_p·u_p: the sum of `parts`, each with its own variance v_p > 0 (part.variance). Ranges
  /// as for product(). @throws InvalidArgument as product(), or for a part variance ≤ 0.
  static Kernel sum(std::vector<KernelPart> parts);
  /// A given N×N matrix (column-major, symmetric; checked for finiteness and symmetry; see
  /// check_positive_semidefinite() for the O(N³) check the config reader and Python also make).
  /// @throws InvalidArgument if not square, not finite, or not symmetric to 1e-10 relative.
  static Kernel precomputed(Eigen::MatrixXd matrix);

  /// The kernel family.
  KernelType type() const { return type_; }
  /// Lengthscale of an isotropic stationary kernel (1 for the non-stationary ones).
  /// @throws InvalidArgument for an ARD or composite kernel (use lengthscales() or parts()).
  double lengthscale() const;
  /// Lengthscales: d values for an ARD kernel, one value otherwise (the isotropic lengthscale);
  /// for a composite kernel, the lengthscale of every feature (its part's, d values).
  const Eigen::VectorXd& lengthscales() const { return *lengthscales_; }
  /// True for an ARD kernel (one lengthscale per axis, d ≥ 2); false for a composite kernel.
  bool is_ard() const { return !composite() && lengthscales_->size() > 1; }
  /// The point dimension an ARD kernel requires (0: any dimension).
  int ard_dim() const { return is_ard() ? static_cast<int>(lengthscales_->size()) : 0; }
  /// The point dimension the kernel requires: an ARD kernel's lengthscale count, a composite
  /// kernel's feature count, 0 for any dimension.
  int input_dim() const {
    return composite() ? static_cast<int>(lengthscales_->size()) : ard_dim();
  }
  /// True for a product or sum of parts (product(), sum()).
  bool composite() const { return type_ == KernelType::Product || type_ == KernelType::Sum; }
  /// The parts of a composite kernel (empty otherwise), as given (a sum's part variances as set).
  const std::vector<KernelPart>& parts() const;
  /// The composite kernel flattened for the formula (detail/kernel_formula.hpp): the part count,
  /// then per part its type, begin, size, variance, lengthscale count n and the n inverse
  /// lengthscales, all as doubles; null unless composite(). Shared by every copy, never moved.
  const Eigen::VectorXd* program() const { return program_.get(); }
  /// True when k(x, x) is variance() for every x: stationary and composite kernels.
  bool constant_diagonal() const { return stationary() || composite(); }
  /// 1 / l_i per axis (ARD) or the single 1 / l, in host memory that never moves for the life of
  /// this kernel and its copies (the CPU hot loops point at it).
  const Eigen::VectorXd& inverse_lengthscales() const { return *inverse_lengthscales_; }
  /// Variance (scale factor) v; for a sum, Σ_p v_p (= k(x, x)).
  double variance() const { return variance_; }
  /// Offset c of dot-product kernels.
  double offset() const { return offset_; }
  /// Degree p of the polynomial kernel.
  int degree() const { return degree_; }
  /// True for SE and Matérn kernels (functions of ‖x − x'‖ only; not the composite ones, whose
  /// parts each see their own distance).
  bool stationary() const;
  /// True for the Tanimoto and MinMax kernels, whose points are packed fingerprint words.
  bool fingerprint() const { return type_ == KernelType::Tanimoto || type_ == KernelType::MinMax; }
  /// The same kernel with variance v (every other parameter kept; a sum scales every part's
  /// variance by v / variance()).
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
  /// @throws InvalidArgument for an ARD or composite kernel and d ≠ input_dim(), or a bad
  /// precomputed index.
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
  std::shared_ptr<const std::vector<KernelPart>> parts_;
  std::shared_ptr<const Eigen::VectorXd> program_;

  static Kernel composite_of(KernelType type, std::vector<KernelPart> parts, double variance);
};

/// Checks that the symmetric matrix K is positive semi-definite, as a covariance (a precomputed
/// kernel) must be: smallest eigenvalue ≥ −1e-8·max|K|. One Cholesky factorisation of
/// K + 2·tol·I decides (O(N³)); the eigenvalues are computed only to name the smallest one.
/// @throws InvalidArgument "<what> is not positive semi-definite: smallest eigenvalue λ
/// (tolerance −tol); a kernel matrix must be a covariance matrix".
void check_positive_semidefinite(const Eigen::MatrixXd& K, const std::string& what);

}  // namespace gpb
