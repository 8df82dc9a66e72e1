// Internal samplers built on the counter-based Rng (noise models, random Fourier features).
#pragma once

#include "gpbandit/rng.hpp"

namespace gpb::detail {

/// Gamma(shape, 1) by Marsaglia–Tsang (2000); shape < 1 via Gamma(shape + 1)·u^(1/shape).
/// Rejection sampling: the number of draws taken from `rng` varies. Requires shape > 0.
double sample_gamma(Rng& rng, double shape);

/// Chi-square with `dof` > 0 degrees of freedom: 2·Gamma(dof / 2).
inline double sample_chi_square(Rng& rng, double dof) {
  return 2.0 * sample_gamma(rng, 0.5 * dof);
}

}  // namespace gpb::detail
