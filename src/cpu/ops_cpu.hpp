/// @file ops_cpu.hpp
/// CPU implementations of the engine ops (internal; the public entry points in src/ops.cpp
/// dispatch here on Backend::Cpu).
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "detail/scalar_steps.hpp"
#include "gpbandit/kernel.hpp"
#include "gpbandit/ops.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::detail {

/// Checks that the columns of `points` are valid inputs of `k`: for a precomputed kernel a 1×n
/// row of integer indices in range. `what` names the argument in the message.
/// @throws InvalidArgument otherwise.
void check_kernel_points(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& points,
                         const char* what);

/// K(A, B) on the host with `threads` OpenMP threads. Inputs already validated.
Eigen::MatrixXd kernel_matrix_cpu(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& A,
                                  const Eigen::Ref<const Eigen::MatrixXd>& B, int threads);

/// k(x_j, x_j) for every column of `points`. Inputs already validated.
Eigen::VectorXd kernel_diag_cpu(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& points,
                                int threads);

/// UCB argmax over n candidates (see gpb::ucb_argmax for the contract).
UcbChoice ucb_argmax_cpu(const double* mean, const double* variance, int n, double width,
                         const std::uint8_t* excluded, Rng* tiebreak, int threads);

}  // namespace gpb::detail
