/// @file gradient_surrogate.hpp
/// What DP-GIBO's point selection and gradient step need from a GP surrogate (specs/dp-gibo.md
/// §2–3), independent of the kernel and of how the posterior is computed: the function-space GP
/// (GradientGp: SE with ARD lengthscales, or a polynomial kernel) and the weight-space polynomial
/// GP (PolyWeightGp) implement it. Every quantity is in the original coordinates of θ.
#pragma once

#include <Eigen/Core>

#include <functional>
#include <memory>

namespace gpb::dpgibo {

/// A GP over evaluation points D (d×N) that answers questions about the gradient of f at θ:
/// the trace of the posterior gradient covariance Tr Σ_D(θ), one-point trace decrements of
/// candidate points (and their gradient in the candidate), and per-user posterior-mean gradients.
/// Selection never reads losses: only mean_gradients() does.
///
/// Thread safety: one thread at a time (adding points changes the factor).
class GradientSurrogate {
 public:
  virtual ~GradientSurrogate() = default;

  /// Schur-update state of a candidate pool C (d×q) against the current D (§3.1):
  /// R = Cov(∇f(θ), y(C) | D) (d×q), s = Var(y(c) | D) + noise (q); the one-point decrement of
  /// column c is ‖r_c‖²/s_c. V is implementation state (GradientGp: L⁻¹k(D,C), N×q).
  struct Candidates {
    Eigen::MatrixXd C;      ///< candidate points, d×q
    Eigen::VectorXd theta;  ///< the point θ the pool was scored at
    Eigen::MatrixXd V;      ///< implementation state (may be empty)
    Eigen::MatrixXd R;      ///< posterior cross-covariances, d×q
    Eigen::VectorXd s;      ///< posterior variances of a noisy evaluation, length q
    /// One-point trace decrements Δ = ‖r_c‖²/s_c (0 where s_c ≤ 0).
    Eigen::VectorXd decrements() const;
  };

  /// Δ(z) and ∂Δ/∂z (written to the second argument, length d) at one fixed θ.
  using DecrementFn = std::function<double(const Eigen::VectorXd& z, Eigen::VectorXd& grad)>;

  /// d, the dimension of the points.
  virtual int dim() const = 0;
  /// N, the number of points in D.
  virtual int size() const = 0;
  /// The points D, d×N (one column per point, in append order).
  virtual const Eigen::MatrixXd& points() const = 0;
  /// Largest diagonal jitter used so far.
  virtual double jitter_used() const = 0;
  /// Appends the columns of Z (d×b) to D. @throws NumericalError if the update fails.
  virtual void append(const Eigen::Ref<const Eigen::MatrixXd>& Z) = 0;
  /// Trace of the prior gradient covariance at θ (constant for stationary kernels).
  virtual double prior_trace_at(const Eigen::Ref<const Eigen::VectorXd>& theta) const = 0;
  /// Tr Σ_D(θ), the trace of the posterior gradient covariance at θ.
  virtual double trace(const Eigen::Ref<const Eigen::VectorXd>& theta) const = 0;
  /// Builds the state of pool C (d×q) at θ.
  virtual Candidates score(const Eigen::Ref<const Eigen::VectorXd>& theta,
                           const Eigen::Ref<const Eigen::MatrixXd>& C) const = 0;
  /// Appends candidate j of the pool to D and brings the pool's state up to date.
  virtual void append_candidate(Candidates& pool, int j) = 0;
  /// The one-point decrement and its gradient at θ, with the per-θ work done once.
  virtual DecrementFn decrement_at(const Eigen::Ref<const Eigen::VectorXd>& theta) const = 0;
  /// Posterior-mean gradients at θ of n outputs observed at D: d×n, Y is N×n (column i = user
  /// i's losses at every point of D). @throws InvalidArgument if Y has the wrong number of rows.
  virtual Eigen::MatrixXd mean_gradients(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                         const Eigen::Ref<const Eigen::MatrixXd>& Y) const = 0;
  /// A copy with the same points and hyperparameters.
  virtual std::unique_ptr<GradientSurrogate> clone() const = 0;
  /// A copy with the same hyperparameters and no points.
  virtual std::unique_ptr<GradientSurrogate> empty_copy() const = 0;
};

}  // namespace gpb::dpgibo
