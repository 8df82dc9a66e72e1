// Internal samplers built on the counter-based Rng (noise models, random Fourier features).
#pragma once

#include <Eigen/Core>

#include <optional>
#include <vector>

#include "gpbandit/engine/domain.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::detail {

/// Gamma(shape, 1) by Marsaglia–Tsang (2000); shape < 1 via Gamma(shape + 1)·u^(1/shape).
/// Rejection sampling: the number of draws taken from `rng` varies. Requires shape > 0.
double sample_gamma(Rng& rng, double shape);

/// Chi-square with `dof` > 0 degrees of freedom: 2·Gamma(dof / 2).
inline double sample_chi_square(Rng& rng, double dof) {
  return 2.0 * sample_gamma(rng, 0.5 * dof);
}

/// The axes of a Cartesian grid domain (axis 0 fastest, as Domain::grid orders candidates):
/// axis i's distinct coordinates in increasing order, or nullopt if the points are not exactly
/// that product. O(N·d·log N).
std::optional<std::vector<Eigen::VectorXd>> grid_axes(const Domain& domain);

/// A draw of a zero-mean GP with the separable kernel k(x, x′) = Π_i k_i(x_i, x′_i) on the grid
/// with `axes`: f = (A_{d−1} ⊗ … ⊗ A_0) g, A_i = Q_iΛ_i^{1/2} from the symmetric
/// eigen-decomposition of factor i (n_i×n_i, eigenvalues clipped at 0), g the N normals drawn from
/// `rng` in candidate order (specs/po-gp-ucb.md §7: F = Q₁Λ₁^{½} G Λ₂^{½}Q₂ᵀ for d = 2). O(Σ n_i³ +
/// N·Σ n_i).
Eigen::VectorXd kronecker_draw(const std::vector<Eigen::MatrixXd>& factors, Rng& rng);

}  // namespace gpb::detail
