/// @file thompson.hpp
/// Posterior sample paths of a FinitePosterior's GP over its points (internal; Thompson sampling
/// of the Optimizer).
#pragma once

#include <Eigen/Core>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::detail {

/// Draws f ~ GP posterior of run 0 of a FinitePosterior at its first `count` points, by pathwise
/// conditioning (Wilson et al. 2020): f = μ + f₀ − K(·, X_t) L⁻ᵀ L⁻¹ (f₀(X_t) + ε), where f₀ is
/// a prior draw over all the posterior's points, ε ~ N(0, λI) one value per row (pending rows
/// included, so the draw follows the hallucinated posterior) and L the posterior's factor. The
/// covariance of f is exactly the posterior's (up to the pivot floor) when f₀ is exact.
///
/// f₀ is exact (lower Cholesky factor of K over the points, kept for later draws while the points
/// and kernel stay the same) when the posterior has at most `exact_max` points, and uses
/// `features` random Fourier features beyond (stationary kernels only).
class ThompsonSampler {
 public:
  /// One draw at points 0..count−1 of `post` (whose points, all of them, are the columns of the
  /// d×N' `points`); draws from `rng`: the prior draw first, then one normal per row.
  /// O(N'² or N'·M·d) + O(t²) + O(count·t·d).
  /// @throws InvalidArgument beyond exact_max with a non-stationary kernel.
  Eigen::VectorXd draw(const Context& ctx, const Kernel& kernel, const FinitePosterior& post,
                       const Eigen::MatrixXd& points, int count, int exact_max, int features,
                       Rng& rng);
  /// Forgets the cached prior factor (after a kernel change).
  void invalidate() { factor_points_ = -1; }

 private:
  Eigen::MatrixXd factor_;  ///< lower Cholesky factor of K over the points
  int factor_points_ = -1;  ///< how many points it covers (−1: none)
};

}  // namespace gpb::detail
