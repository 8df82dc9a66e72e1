/// @file poly_gradient_gp.hpp
/// The weight-space GP of DP-GIBO's polynomial kernel k(x, z) = v·(xᵀz + c)² (specs/dp-gibo.md
/// §2, decision 8): f(x) = wᵀψ(x), w ~ N(0, I), with the explicit features
/// ψ(x) = √v·[c, √(2c)·x_a, x_a², √2·x_a x_b (a < b)], p = (d+1)(d+2)/2 of them, so that
/// ψ(x)ᵀψ(z) = k(x, z). With Ψ = ψ(D) (N×p), σ_e² = σ² + τ and M = (ΨᵀΨ + σ_e² I)⁻¹:
/// per-user mean gradients g⁽ⁱ⁾ = Jψ(θ)ᵀ M Ψᵀ y_i and Σ_D(θ) = σ_e² Jψ(θ)ᵀ M Jψ(θ). This equals
/// the function-space posterior (push-through and Woodbury) and stays well defined when N > p,
/// where k(D, D) is singular. Host-only: every factorisation is p×p.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "gpbandit/dpgibo/gradient_surrogate.hpp"

namespace gpb::dpgibo {

/// Weight-space GP of the degree-2 polynomial kernel (see the file comment).
class PolyWeightGp : public GradientSurrogate {
 public:
  /// @param dim d ≥ 1. @param variance v > 0. @param offset c ≥ 0.
  /// @param noise_variance σ² ≥ 0 assumed by the GP. @param jitter τ > 0, always added to σ²;
  /// escalated ×10 up to three times if ΨᵀΨ + σ_e² I fails to factor.
  /// @throws InvalidArgument for a bad argument (naming it).
  PolyWeightGp(int dim, double variance, double offset, double noise_variance, double jitter);

  /// p = (d+1)(d+2)/2, the number of features.
  int feature_dim() const { return p_; }
  /// ψ(x) (length p).
  Eigen::VectorXd features(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  /// ∂ψ/∂x (p×d).
  Eigen::MatrixXd feature_jacobian(const Eigen::Ref<const Eigen::VectorXd>& x) const;

  /// d.
  int dim() const override { return d_; }
  /// N.
  int size() const override { return static_cast<int>(D_.cols()); }
  /// The points D (d×N).
  const Eigen::MatrixXd& points() const override { return D_; }
  /// τ, or the largest escalated jitter.
  double jitter_used() const override { return jitter_used_; }
  /// Appends the columns of Z: ΨᵀΨ += ψψᵀ per point, one p×p refactorisation. O(b p² + p³).
  /// @throws NumericalError if the factorisation fails after escalation.
  void append(const Eigen::Ref<const Eigen::MatrixXd>& Z) override;
  /// ‖Jψ(θ)‖_F² = 2v[d(‖θ‖² + c) + ‖θ‖²].
  double prior_trace_at(const Eigen::Ref<const Eigen::VectorXd>& theta) const override;
  /// σ_e²‖L⁻¹Jψ(θ)‖_F², L Lᵀ = ΨᵀΨ + σ_e² I. O(p² d).
  double trace(const Eigen::Ref<const Eigen::VectorXd>& theta) const override;
  /// R = σ_e²(L⁻¹Jψ(θ))ᵀ(L⁻¹ψ(C)), s = σ_e²(‖L⁻¹ψ(c)‖² + 1). O(p² q).
  Candidates score(const Eigen::Ref<const Eigen::VectorXd>& theta,
                   const Eigen::Ref<const Eigen::MatrixXd>& C) const override;
  /// Appends candidate j and rescores the pool (O(p² q): p is small).
  void append_candidate(Candidates& pool, int j) override;
  /// With Q = σ_e² M Jψ(θ) and m = σ_e² M ψ(z): r = Qᵀψ(z), s = ψ(z)ᵀm + σ_e², Δ = ‖r‖²/s,
  /// ∂r/∂z = QᵀJψ(z), ∂s/∂z = 2Jψ(z)ᵀm, ∂Δ/∂z = 2(∂r/∂z)ᵀr/s − Δ(∂s/∂z)/s.
  DecrementFn decrement_at(const Eigen::Ref<const Eigen::VectorXd>& theta) const override;
  /// Jψ(θ)ᵀ M Ψᵀ Y (d×n). O(N p n + p² n). @throws InvalidArgument if Y has ≠ N rows.
  Eigen::MatrixXd mean_gradients(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                 const Eigen::Ref<const Eigen::MatrixXd>& Y) const override;
  /// A copy.
  std::unique_ptr<GradientSurrogate> clone() const override;
  /// Same kernel, σ² and τ, no points.
  std::unique_ptr<GradientSurrogate> empty_copy() const override;

 private:
  int d_, p_;
  double v_, c_, noise_, jitter_, jitter_used_;
  Eigen::MatrixXd D_;    // d×N
  Eigen::MatrixXd Psi_;  // N×p
  Eigen::MatrixXd G_;    // ΨᵀΨ
  Eigen::LLT<Eigen::MatrixXd> llt_;
  double noise_eff() const { return noise_ + jitter_used_; }
  void refactor();
  Eigen::MatrixXd solve_lower(const Eigen::MatrixXd& B) const;  // L⁻¹B
};

}  // namespace gpb::dpgibo
