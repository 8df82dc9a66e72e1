/// @file ops.hpp
/// Engine ops (DESIGN §2): the only seam between host drivers and the CPU/CUDA backends.
/// Every op takes the Context first and dispatches on its backend.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/rng.hpp"

namespace gpb {

/// K(A, B): A is d×n, B is d×m (columns are points; for a precomputed kernel, 1×n index rows).
/// Returns the n×m matrix (column-major, host memory). O(n·m·d).
/// @throws InvalidArgument if A and B differ in dimension or an index is out of range.
Eigen::MatrixXd kernel_matrix(const Context& ctx, const Kernel& k,
                              const Eigen::Ref<const Eigen::MatrixXd>& A,
                              const Eigen::Ref<const Eigen::MatrixXd>& B);

/// k(x_j, x_j) for every candidate of the domain (length N). O(N·d).
Eigen::VectorXd kernel_diag(const Context& ctx, const Kernel& k, const Domain& domain);
/// k(x_j, x_j) for every column of the d×n matrix `points` (any points, not only candidates).
/// O(n·d). @throws InvalidArgument for points the kernel cannot take (dimension, indices).
Eigen::VectorXd kernel_diag(const Context& ctx, const Kernel& k,
                            const Eigen::Ref<const Eigen::MatrixXd>& points);

/// Jitter policy for Cholesky factorisations: try `initial` first; on failure add
/// first·s, first·factor·s, … (s = mean diagonal when `relative`, else 1) up to max_tries times,
/// then throw NumericalError naming the largest jitter tried.
struct JitterPolicy {
  /// Jitter added on the first attempt.
  double initial = 0.0;
  /// First escalation step (times s).
  double first = 1e-10;
  /// Growth factor between escalation steps.
  double factor = 10.0;
  /// Escalation steps before NumericalError.
  int max_tries = 6;
  /// Scale the steps by the mean diagonal s (else s = 1).
  bool relative = true;
};

namespace detail {
struct CholeskyDevice;  // device copy of L (CUDA builds; src/engine/cuda/cholesky_cuda.cpp)
}  // namespace detail

/// Lower Cholesky factor L (A = L Lᵀ) that can grow by one row and column in O(t²).
/// Host memory, column-major, capacity grows geometrically. Built with a CUDA Context, the factor
/// is also kept on the device: factor() runs cuSOLVER potrf (devInfo checked, same jitter
/// schedule), append() solves L w = b with cuBLAS trsv on the device copy and uploads only the new
/// row, and the triangular solves run cuBLAS trsm; matrix() and the host copy stay in sync.
///
/// Thread safety: one thread at a time (not even const methods concurrently with a mutating one).
class Cholesky {
 public:
  /// A factor on the CPU. @throws InvalidArgument for a bad policy.
  explicit Cholesky(JitterPolicy policy = {});
  /// A factor on ctx's backend; `ctx` must outlive this object (and its copies).
  /// @throws InvalidArgument for a bad policy.
  explicit Cholesky(const Context& ctx, JitterPolicy policy = {});
  /// Factors the symmetric n×n matrix A from scratch (only the lower triangle is read),
  /// escalating jitter per the policy. O(n³). @throws NumericalError when every jitter fails.
  void factor(const Eigen::Ref<const Eigen::MatrixXd>& A);
  /// Appends row/column t: b = A[0:t, t], c = A[t, t]. O(t²). The new pivot c + jitter − ‖L⁻¹b‖²
  /// must be positive; the jitter escalates per the policy. @throws NumericalError otherwise.
  void append(const Eigen::Ref<const Eigen::VectorXd>& b, double c);
  /// Current size t.
  int size() const { return n_; }
  /// The t×t lower factor.
  Eigen::MatrixXd matrix() const;
  /// Solves L x = b in place (b has t rows, any number of columns). O(t²) per column.
  void solve_lower(Eigen::Ref<Eigen::MatrixXd> b) const;
  /// Solves Lᵀ x = b in place. O(t²) per column.
  void solve_upper(Eigen::Ref<Eigen::MatrixXd> b) const;
  /// Largest jitter added to a diagonal so far (0 if none).
  double jitter_used() const { return jitter_used_; }

 private:
  JitterPolicy policy_;
  int n_ = 0;
  int cap_ = 0;
  Eigen::MatrixXd L_;  // cap_×cap_, lower triangle valid for [0, n_)
  double jitter_used_ = 0.0;
  const Context* ctx_ = nullptr;                            // CUDA context, or null (CPU)
  mutable std::shared_ptr<detail::CholeskyDevice> device_;  // device copy of L (copy-on-append)
  void reserve(int cap);
  bool on_cuda() const;
};

/// Result of a UCB argmax for one run.
struct UcbChoice {
  int index = -1;    ///< chosen candidate
  double score = 0;  ///< μ + width·σ at the chosen candidate
  int ties = 1;      ///< how many candidates shared the maximal score (exact equality)
};

/// Fused UCB score μ + width·√max(σ², 0) and argmax over n candidates, one pass.
/// `excluded` (length n, may be null) marks candidates that may not be chosen. Exact ties are
/// broken uniformly at random with `tiebreak` (lowest index when tiebreak is null).
/// @throws InvalidArgument if every candidate is excluded or a score is NaN.
UcbChoice ucb_argmax(const Context& ctx, const double* mean, const double* variance, int n,
                     double width, const std::uint8_t* excluded, Rng* tiebreak);

}  // namespace gpb
