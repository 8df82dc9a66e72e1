/// @file se_derivative_cuda.hpp
/// CUDA twins of the SE derivative-block ops (gpbandit/kernel_derivative.hpp); host in, host out.
/// Inputs are validated by the public entry points. Internal to the CUDA backend.
#pragma once

#include <Eigen/Core>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"

namespace gpb::cuda {

/// (d·n)×m first-derivative block on the device (one thread per (i, j) pair). O(n·m·d).
Eigen::MatrixXd se_kernel_grad(const Context& ctx, const Kernel& k,
                               const Eigen::Ref<const Eigen::MatrixXd>& X,
                               const Eigen::Ref<const Eigen::MatrixXd>& Z);
/// (d·n)×(d·m) mixed second-derivative block on the device. O(n·m·d²).
Eigen::MatrixXd se_kernel_grad_grad(const Context& ctx, const Kernel& k,
                                    const Eigen::Ref<const Eigen::MatrixXd>& X,
                                    const Eigen::Ref<const Eigen::MatrixXd>& Z);

}  // namespace gpb::cuda
