/// @file surrogate.hpp
/// The Optimizer's GP posterior at arbitrary points (internal): a snapshot of the factor of its
/// FinitePosterior (L, β = L⁻ᵀα and the points of the rows) that predicts μ and σ² at many points
/// at once, or at one point with ∇μ and ∇σ² (kernel_gradient) for the gradient step of the
/// continuous refinement; and the acquisition rules as functions of (μ, σ²) with their partial
/// derivatives, evaluated in log space for EI and PI (LogEI, Ament et al. 2023).
#pragma once

#include <Eigen/Core>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/optimizer/optimizer.hpp"

namespace gpb::detail {

/// The posterior given the first `rows` rows of a factor (pending rows included when asked: their
/// α is 0, so they shrink σ² and leave μ alone, as GP-BUCB's hallucination).
class Surrogate {
 public:
  /// `points`: d×rows, the points of the rows (history order). `ctx` must outlive this object.
  Surrogate(const Context& ctx, const Kernel& kernel, const PosteriorFactor& factor, int rows,
            Eigen::MatrixXd points);
  /// μ and σ² (clamped at 0) at the d×m `x`. O(m·rows² + m·rows·d), kernel matrix on ctx.
  void predict(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const;
  /// μ(x), σ²(x) and their gradients at one point (stationary SE / Matérn 3/2, 5/2 kernels).
  /// O(rows² + rows·d).
  void at(const Eigen::Ref<const Eigen::VectorXd>& x, double& mean, double& variance,
          Eigen::VectorXd& grad_mean, Eigen::VectorXd& grad_variance) const;
  /// Whether at() can give gradients for this kernel.
  bool differentiable() const;
  /// Rows conditioned on.
  int rows() const { return static_cast<int>(beta_.size()); }

 private:
  const Context* ctx_;
  Kernel kernel_;
  Eigen::MatrixXd L_;     // rows × rows lower factor
  Eigen::VectorXd beta_;  // L⁻ᵀα
  Eigen::MatrixXd h_;     // d × rows
};

/// One acquisition rule as a function of the posterior at a point (model units, maximised).
struct AcquisitionRule {
  AcquisitionKind kind = AcquisitionKind::ExpectedImprovement;
  double threshold = 0.0;  ///< EI, PI: f⁺ + ξ
  double width = 0.0;      ///< UCB: √β
  /// The score (log EI, log PI, or μ + width·σ); −∞ where EI or PI vanish exactly.
  double value(double mean, double variance) const;
  /// The score with ∂/∂μ and ∂/∂σ² (0 where σ² = 0).
  double value(double mean, double variance, double* d_mean, double* d_variance) const;
};

/// log(z·Φ(z) + φ(z)) for any z (the expected improvement of a unit normal over −z), accurate to
/// a few ulps in relative terms on the whole line (continued fraction for z < −5).
double log_h(double z);

}  // namespace gpb::detail
