/// @file dpgibo_points.hpp
/// Test helper: reproducible uniform points for the DP-GIBO surrogate and design tests.
#pragma once

#include <Eigen/Core>

#include <cstdint>

#include "gpbandit/rng.hpp"

namespace gpb::test {

/// d×n points uniform in [−half, half]^d from Rng(seed, 0, stream).
inline Eigen::MatrixXd uniform_points(int d, int n, std::uint64_t seed, double half,
                                      std::uint32_t stream) {
  Rng rng(seed, 0, stream);
  Eigen::MatrixXd X(d, n);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = rng.uniform(-half, half);
  return X;
}

}  // namespace gpb::test
