/// @file gradient_gp.hpp
/// The function-space GP surrogate of DP-GIBO (specs/dp-gibo.md §2–3): an SE kernel (isotropic or
/// ARD) or a polynomial kernel v·(xᵀz + c)^p, evaluations at points D with noise variance σ²
/// (+ jitter τ), and what it says about the gradient at a point θ: per-user posterior-mean
/// gradients and the trace of the posterior gradient covariance. Built on the engine ops
/// (kernel_matrix, se_kernel_grad, Cholesky), so it runs on either backend.
#pragma once

#include <Eigen/Core>

#include "gpbandit/dpgibo/gradient_surrogate.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"

namespace gpb::dpgibo {

/// GP over points D (d×N, host), factor L = chol(k(D,D) + (σ² + τ)I) grown by appending points.
/// Selection never reads losses (the trace does not depend on them). With a polynomial kernel
/// k(D,D) is singular once N exceeds the feature dimension, so only τ keeps L defined: that is
/// the literal function-space path (`poly_impl = function_space`); PolyWeightGp is the default.
class GradientGp : public GradientSurrogate {
 public:
  /// @param ctx engine context of the ops (kept by reference: must outlive the GP).
  /// @param kernel an SE kernel (s² = variance, ℓ = lengthscale) or a polynomial kernel
  /// v·(xᵀz + c)^p (variance v, offset c, degree p).
  /// @param dim d, the dimension of the points (≥ 1).
  /// @param noise_variance σ² ≥ 0 assumed by the GP. @param jitter τ > 0, always added; escalated
  /// ×10 up to three times when an append fails (jitter_used() reports the largest).
  /// @throws InvalidArgument if the kernel is neither SE nor polynomial, d < 1, σ² < 0 or τ ≤ 0.
  GradientGp(const Context& ctx, const Kernel& kernel, int dim, double noise_variance,
             double jitter);
  /// ARD form: k(x, z) = s²·exp(−½ Σ_a (x_a − z_a)²/ℓ_a²) with one lengthscale per coordinate.
  /// Works in the rescaled coordinates u = x ⊘ ℓ, where the kernel is the engine's isotropic SE
  /// with ℓ = 1, and maps derivatives back by the chain rule (∂/∂x_a = ℓ_a⁻¹ ∂/∂u_a); every
  /// public quantity (points, gradients, traces, decrements) is in the original coordinates.
  /// @throws InvalidArgument if lengthscales has a size other than d or an entry ≤ 0, s² ≤ 0,
  /// σ² < 0 or τ ≤ 0.
  GradientGp(const Context& ctx, const Eigen::VectorXd& lengthscales, double variance,
             double noise_variance, double jitter);

  /// d, the dimension of the points.
  int dim() const override { return d_; }
  /// N, the number of points in D.
  int size() const override { return static_cast<int>(D_.cols()); }
  /// The points D, d×N (one column per point, in append order).
  const Eigen::MatrixXd& points() const override { return D_; }
  /// Largest diagonal jitter used (τ unless an append escalated).
  double jitter_used() const override;

  /// Appends the columns of Z (d×b) to D: b Cholesky appends, O(N²b + N b d).
  /// @throws NumericalError if a pivot stays non-positive after escalation.
  void append(const Eigen::Ref<const Eigen::MatrixXd>& Z) override;

  /// The lengthscales ℓ_a (length d; all equal for the isotropic constructor; 1 for polynomial).
  const Eigen::VectorXd& lengthscales() const { return ell_; }
  /// Trace of the prior gradient covariance of an SE kernel: s²·Σ_a ℓ_a⁻².
  /// @throws InvalidArgument for a polynomial kernel (its prior trace depends on θ).
  double prior_trace() const;
  /// Prior trace at θ: s²·Σ_a ℓ_a⁻² (SE); p·v·[d(‖θ‖² + c)^{p−1} + (p−1)‖θ‖²(‖θ‖² + c)^{p−2}]
  /// (polynomial).
  double prior_trace_at(const Eigen::Ref<const Eigen::VectorXd>& theta) const override;
  /// Tr Σ_D(θ) = prior trace − ‖L⁻¹J(θ,D)ᵀ‖_F². O(N²d).
  double trace(const Eigen::Ref<const Eigen::VectorXd>& theta) const override;
  /// One-point trace decrements Δ(c) = ‖r‖²/s for each column c of C (d×q) (§3.1 Schur update):
  /// r = J(θ,c) − Wᵀ L⁻¹k(D,c), s = k(c,c) + σ² + τ − ‖L⁻¹k(D,c)‖². O(N²q + N d q).
  Eigen::VectorXd trace_decrement(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                  const Eigen::Ref<const Eigen::MatrixXd>& C) const;
  /// Builds the state of pool C (§3.1): V = L⁻¹k(D,C) (N×q), R = J(θ,C) − WᵀV (d×q),
  /// s = k(c,c) + σ² + τ − ‖v_c‖² (q). O(N²q + N d q).
  Candidates score(const Eigen::Ref<const Eigen::VectorXd>& theta,
                   const Eigen::Ref<const Eigen::MatrixXd>& C) const override;
  /// Appends candidate j of the pool to D and updates the pool's state by the rank-one Schur
  /// step (O(N q + d q) plus the O(N²) Cholesky append), so a greedy batch costs one O(N²q) solve.
  void append_candidate(Candidates& pool, int j) override;

  /// The one-point trace decrement Δ(z) of §3.1 and its gradient ∂Δ/∂z (spec §3.1, [derived]):
  /// with w = K_D⁻¹k(D,z), P_{j,b} = ∂k(x_j,z)/∂z_b, A = J(θ,D)K_D⁻¹:
  /// ∂s/∂z = ∇_z k(z,z) − 2Pᵀw (the first term is 0 for SE), ∂r/∂z = ∂J(θ,z)/∂z − A·P,
  /// ∂Δ/∂z = 2(∂r/∂z)ᵀr/s − Δ·(∂s/∂z)/s.
  /// `A` must be gradient_operator(θ) (computed once per θ). O(N² + N d + d²).
  double decrement_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                const Eigen::Ref<const Eigen::MatrixXd>& A,
                                const Eigen::Ref<const Eigen::VectorXd>& z,
                                Eigen::VectorXd& grad) const;
  /// decrement_and_gradient with A = gradient_operator(θ) computed once here.
  DecrementFn decrement_at(const Eigen::Ref<const Eigen::VectorXd>& theta) const override;
  /// A = J(θ,D)·K_D⁻¹ (d×N): the map from losses at D to the posterior-mean gradient at θ. O(N²d).
  Eigen::MatrixXd gradient_operator(const Eigen::Ref<const Eigen::VectorXd>& theta) const;

  /// Posterior-mean gradients at θ of n outputs observed at D: returns G = J(θ,D) K_D⁻¹ Y (d×n),
  /// Y is N×n (column i = user i's losses at every point of D). One solve: with d right-hand
  /// sides (A = J K⁻¹, then the GEMM A·Y, O(N²d + dNn)) when n ≥ d, else with the n columns of Y
  /// (O(N²n + dNn)). @throws InvalidArgument if Y has the wrong number of rows.
  Eigen::MatrixXd mean_gradients(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                 const Eigen::Ref<const Eigen::MatrixXd>& Y) const override;
  /// A copy (the factor is copied: O(N²)).
  std::unique_ptr<GradientSurrogate> clone() const override;
  /// Same kernel, σ² and τ, no points.
  std::unique_ptr<GradientSurrogate> empty_copy() const override;

 private:
  /// Kernel terms of one candidate z in the original coordinates (decrement_and_gradient).
  struct PointTerms {
    double kzz = 0;        // k(z, z)
    Eigen::VectorXd dkzz;  // ∇_z k(z, z)
    Eigen::VectorXd Jz;    // J(θ, z) = ∇_θ k(θ, z)
    Eigen::MatrixXd dJ;    // ∂J(θ, z)_a/∂z_b
    Eigen::VectorXd kD;    // k(D, z)
    Eigen::MatrixXd P;     // ∂k(x_j, z)/∂z_b, N×d
  };
  const Context* ctx_;
  Kernel kernel_;        // SE: isotropic with ℓ = 1 on the rescaled coordinates; or polynomial
  bool poly_;            // polynomial kernel (ℓ = 1, no rescaling)
  Eigen::VectorXd ell_;  // ℓ_a
  int d_;
  double noise_, jitter_;
  Eigen::MatrixXd D_, U_;  // points in original and rescaled coordinates (d×N)
  Cholesky chol_;
  Eigen::MatrixXd scaled(const Eigen::Ref<const Eigen::MatrixXd>& X) const;  // X ⊘ ℓ per column
  Eigen::MatrixXd grad_block(const Eigen::Ref<const Eigen::VectorXd>& theta,
                             const Eigen::Ref<const Eigen::MatrixXd>& Xu) const;  // J(θ, X), d×m
  Eigen::VectorXd diag(const Eigen::Ref<const Eigen::MatrixXd>& Xu) const;  // k(x, x) per column
  PointTerms point_terms(const Eigen::Ref<const Eigen::VectorXd>& theta,
                         const Eigen::Ref<const Eigen::VectorXd>& z) const;
  Eigen::MatrixXd whitened_grad(const Eigen::Ref<const Eigen::VectorXd>& theta) const;
};

/// Closed-form posterior trace of the axis design {θ ± h e_a}, each repeated m times, with D = ∅,
/// isotropic SE (specs/dp-gibo.md §3.3): d·(s²/ℓ²)·[1 − 2u e^{−u}/((1 − e^{−2u}) + σ²/(m s²))],
/// u = (h/ℓ)². @throws InvalidArgument for h ≤ 0, m < 1, σ² < 0.
double axis_design_trace(int d, double s2, double lengthscale, double sigma2, int m, double h);
/// h* = argmin of axis_design_trace over h ∈ [0.1ℓ, ℓ] (golden-section, 1e-8·ℓ tolerance).
double axis_design_step(int d, double s2, double lengthscale, double sigma2, int m);

}  // namespace gpb::dpgibo
