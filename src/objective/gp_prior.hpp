/// @file gp_prior.hpp
/// Draws of GP(0, k) at a set of points (internal): exactly, through a Cholesky factor of K, or
/// approximately by random Fourier features (stationary kernels). Shared by the gp_sample
/// objective and by Thompson sampling (src/optimizer/), so both draw the same way.
#pragma once

#include <Eigen/Core>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::detail {

/// The lower Cholesky factor of K(P, P) for the d×n points P, on ctx's backend (jitter per the
/// default JitterPolicy). O(n³) time, n² doubles. @throws NumericalError when every jitter fails.
Eigen::MatrixXd prior_factor(const Context& ctx, const Kernel& k,
                             const Eigen::Ref<const Eigen::MatrixXd>& points);

/// f = L z with z ~ N(0, I_n): n normal() draws from `rng`, in order. O(n²).
Eigen::VectorXd exact_prior_sample(const Eigen::MatrixXd& factor, Rng& rng);

/// f(x) = √(2v/M) Σ_i z_i cos(w_iᵀx + b_i) at the columns of the d×n `points`, whose prior
/// covariance tends to k as M → ∞. Per feature i the draws are: w_i (d normals, then for Matérn one
/// chi-square G with 2ν dof, w_i scaled by √(2ν/G)), each axis divided by its lengthscale;
/// b_i ~ U[0, 2π); z_i ~ N(0,1). O(n·M·d), in blocks of 64 MiB.
/// @throws InvalidArgument unless k is stationary (SE, Matérn) and features ≥ 1.
/// The random draws of rff_prior_sample for d-dimensional points: frequencies w (d×M, scaled by
/// the inverse lengthscales), phases b and weights z (z already times √(2v/M)).
struct RffDraw {
  Eigen::MatrixXd w;
  Eigen::VectorXd b, z;
};
/// Draws w, b, z in the order rff_prior_sample documents. @throws InvalidArgument as it does.
RffDraw draw_rff(const Kernel& k, int d, int features, Rng& rng);
/// Points per block of rff_prior_sample (64 MiB of features).
Eigen::Index rff_block(int features);
/// out = √(2v/M) Σ_i z_i cos(w_iᵀx + b_i) at the columns of one block of `points`.
void rff_values(const Context& ctx, const RffDraw& r,
                const Eigen::Ref<const Eigen::MatrixXd>& points, Eigen::Ref<Eigen::VectorXd> out);

Eigen::VectorXd rff_prior_sample(const Context& ctx, const Kernel& k,
                                 const Eigen::Ref<const Eigen::MatrixXd>& points, int features,
                                 Rng& rng);

}  // namespace gpb::detail
