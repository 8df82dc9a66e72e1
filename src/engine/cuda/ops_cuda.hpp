/// @file ops_cuda.hpp
/// CUDA implementations of the engine ops (internal; src/engine/ops.cpp dispatches here on
/// Backend::Cuda in CUDA builds). Inputs are already validated by the public entry points.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <vector>

#include "engine/cuda/device_buffer.hpp"
#include "engine/cuda/matrix_cache.hpp"
#include "engine/detail/kernel_formula.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::cuda {

/// A kernel on the device: its precomputed matrix (the Context's cached copy, matrix_cache.hpp),
/// a copy of its ARD inverse lengthscales or of a composite kernel's parts (each empty when the
/// kernel has none) and the formula
/// that points at them. Keep it alive while kernels launched with `formula` may run.
struct DeviceKernel {
  DeviceMatrix matrix;                    ///< column-major n×n (precomputed kernels only)
  DeviceBuffer<double> inv_lengthscales;  ///< d values (ARD kernels only)
  DeviceBuffer<double> program;           ///< a composite kernel's parts (Kernel::program())
  detail::KernelFormula formula;          ///< device pointers into the two buffers
};

/// The device form of `k` on `ctx`: looks up (or uploads once) its precomputed matrix, uploads
/// its ARD inverse lengthscales on `stream` and fills the formula.
DeviceKernel upload_kernel(const Context& ctx, const Kernel& k, cudaStream_t stream);

/// K(A, B) on the device; host in, host out (n×m column-major). O(n·m·d) on the device plus
/// the transfers of A, B, K (and of a precomputed matrix).
Eigen::MatrixXd kernel_matrix(const Context& ctx, const Kernel& k,
                              const Eigen::Ref<const Eigen::MatrixXd>& A,
                              const Eigen::Ref<const Eigen::MatrixXd>& B);

/// k(x_j, x_j) for every column of `points` on the device; host in, host out.
Eigen::VectorXd kernel_diag(const Context& ctx, const Kernel& k,
                            const Eigen::Ref<const Eigen::MatrixXd>& points);

/// Fused UCB argmax for R runs over device arrays (mean, var: R×n run-major; width: R doubles;
/// excluded: R×n bytes or null), with the exact CPU semantics: NaN scores and all-excluded runs
/// throw InvalidArgument with the CPU's message; exact ties are broken by drawing one uniform from
/// tiebreak[r] (when non-null and ties > 1) and taking the k-th tie in index order.
std::vector<UcbChoice> ucb_choices(const Context& ctx, const double* mean, const double* var, int n,
                                   int runs, const double* width_device, const double* width_host,
                                   const std::uint8_t* excluded, const std::vector<Rng*>& tiebreak);

/// The public single-run op on host arrays (uploads them, then ucb_choices).
UcbChoice ucb_argmax(const Context& ctx, const double* mean, const double* variance, int n,
                     double width, const std::uint8_t* excluded, Rng* tiebreak);

}  // namespace gpb::cuda
