// Launchers of the kernel-matrix and kernel-diagonal kernels (kernels/kernel_matrix.cuh).
#include <algorithm>

#include "engine/cuda/launch.hpp"
#include "engine/cuda/resources.hpp"
#include "kernel_matrix.cuh"

namespace gpb::cuda {

namespace {
int grid_for(const Context& ctx, long work_items, int per_block) {
  const long blocks = (work_items + per_block - 1) / per_block;
  const long cap = static_cast<long>(resources(ctx).sm_count) * 16;  // grid-stride beyond that
  return static_cast<int>(std::max(1L, std::min(blocks, cap)));
}
}  // namespace

void launch_kernel_matrix(const Context& ctx, const detail::KernelFormula& f, const double* A,
                          long lda, int n, const double* B, long ldb, int m, int d, double* K,
                          long ldk) {
  if (n == 0 || m == 0) return;
  cudaStream_t s = stream_of(ctx);
  if (d <= kernels::kMaxTiledDim) {
    const long tiles = ((static_cast<long>(n) + kernels::kTile - 1) / kernels::kTile) *
                       ((static_cast<long>(m) + kernels::kTile - 1) / kernels::kTile);
    const dim3 block(kernels::kTile, kernels::kTileRowsY);
    kernels::
        kernel_matrix_tiled<<<grid_for(ctx, tiles, 1), block, kernels::tile_shared_bytes(d), s>>>(
            f, A, lda, n, B, ldb, m, d, K, ldk);
  } else {
    kernels::kernel_matrix_global<<<grid_for(ctx, static_cast<long>(n) * m, 256), 256, 0, s>>>(
        f, A, lda, n, B, ldb, m, d, K, ldk);
  }
  check_launch("kernel_matrix kernel launch");
}

void launch_kernel_diag(const Context& ctx, const detail::KernelFormula& f, const double* X,
                        long ldx, int n, int d, double* out) {
  if (n == 0) return;
  kernels::kernel_diag<<<grid_for(ctx, n, 256), 256, 0, stream_of(ctx)>>>(f, X, ldx, n, d, out);
  check_launch("kernel_diag kernel launch");
}

}  // namespace gpb::cuda
