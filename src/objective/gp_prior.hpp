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

/// f(x) = Σ_i a_i z_i cos(w_iᵀx + b_i) at the columns of the d×n `points`, whose prior
/// covariance tends to k as M → ∞ (the features a_i cos(w_iᵀx + b_i) give k̂(x, y) = Σ_i a_i²
/// cos(w_iᵀx + b_i) cos(w_iᵀy + b_i), whose mean is k(x, y)). O(n·M·d), in blocks of 64 MiB.
///  - Stationary k (variance v): a_i = √(2v/M). Per feature i the draws are: w_i (d normals, then
///    for Matérn one chi-square G with 2ν dof, w_i scaled by √(2ν/G)), each axis divided by its
///    lengthscale; b_i ~ U[0, 2π); z_i ~ N(0,1).
///  - Product v·Π_p k_p (parts on disjoint feature ranges): its spectral measure is the product of
///    the parts' measures, so every feature draws each part's frequencies on that part's range,
///    parts in order (each as above: its normals, then its chi-square), then b_i and z_i;
///    a_i = √(2v/M).
///  - Sum Σ_p v_p k_p: the concatenation of each part's features, the M features split into one
///    contiguous block per part (M_p = ⌊M/P⌋, the first M mod P parts one more); a feature of part
///    p has frequencies on p's range only (zero elsewhere) and a_i = √(2v_p/M_p). Needs M ≥ P.
/// @throws InvalidArgument unless k is stationary (SE, Matérn) or a product or sum of them, and
/// features ≥ 1 (≥ the part count for a sum).
/// The random draws of rff_prior_sample for d-dimensional points: frequencies w (d×M, scaled by
/// the inverse lengthscales), phases b, the amplitudes a and weights z (already times a).
struct RffDraw {
  Eigen::MatrixXd w;
  Eigen::VectorXd b, z;
  Eigen::VectorXd amplitude;  ///< a_i of every feature (the feature map is a_i cos(w_iᵀx + b_i))
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
