/// @file cholesky_backend.hpp
/// The CUDA side of gpb::Cholesky (src/engine/cuda/cholesky_cuda.cpp; CUDA builds only). The host
/// copy of L stays authoritative: the device copy can always be rebuilt from it.
#pragma once

#include <Eigen/Core>

#include <memory>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/ops.hpp"

namespace gpb::detail {

/// Factors the lower triangle of the n×n host matrix `work` (jitter already on its diagonal) with
/// cusolverDnDpotrf. Returns false when devInfo > 0 (not positive definite). On success the lower
/// triangle of `work` holds L and `dev` a fresh device copy. @throws CudaError on CUDA failures.
bool cholesky_potrf_cuda(const Context& ctx, std::shared_ptr<CholeskyDevice>& dev,
                         Eigen::MatrixXd& work);

/// w ← L⁻¹ w (n entries, host) with cublasDtrsv on the device copy of the leading n×n block of
/// the host factor L (uploaded first if `dev` is missing or smaller).
void cholesky_trsv_cuda(const Context& ctx, std::shared_ptr<CholeskyDevice>& dev,
                        const Eigen::MatrixXd& L, int n, double* w);

/// Copies row `row` (L[row, 0..row]) of the host factor into the device copy; re-uploads the
/// leading (row+1)×(row+1) block when the copy is missing, shared with another Cholesky, or full.
void cholesky_set_row_cuda(const Context& ctx, std::shared_ptr<CholeskyDevice>& dev,
                           const Eigen::MatrixXd& L, int row);

/// B ← L⁻¹B (transpose = false) or L⁻ᵀB (true) with cublasDtrsm; B is n×cols host, column stride
/// ldb.
void cholesky_solve_cuda(const Context& ctx, std::shared_ptr<CholeskyDevice>& dev,
                         const Eigen::MatrixXd& L, int n, double* B, long ldb, int cols,
                         bool transpose);

}  // namespace gpb::detail
