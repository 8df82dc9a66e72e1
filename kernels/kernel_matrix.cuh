/// @file kernel_matrix.cuh
/// __global__ kernels for K(A, B) and k(x, x) (launched from src/engine/cuda/kernel_matrix.cu).
/// Every element is detail::KernelFormula, the formula the CPU evaluates (cpu/kernel_eval.hpp).
#pragma once

#include <cstddef>

#include "engine/detail/kernel_formula.hpp"

namespace gpb::cuda::kernels {

/// Output tile of the shared-memory kernel: kTile rows (A points) × kTile columns (B points).
constexpr int kTile = 32;
/// Threads per block: kTile × kTileRowsY; each thread computes kTile / kTileRowsY outputs.
constexpr int kTileRowsY = 8;
/// Largest dimension the shared-memory kernel takes (2·32·65·8 B = 33 KiB of shared memory).
constexpr int kMaxTiledDim = 64;

/// Odd row stride (in doubles) of a point in shared memory: consecutive threads then hit distinct
/// banks when each reads coordinate c of its own point.
__host__ __device__ inline int tile_stride(int d) {
  return (d % 2 == 0) ? d + 1 : d;
}
/// Dynamic shared memory of kernel_matrix_tiled for dimension d, in bytes.
__host__ __device__ inline std::size_t tile_shared_bytes(int d) {
  return 2u * kTile * static_cast<std::size_t>(tile_stride(d)) * sizeof(double);
}

/// K[i + j·ldk] = k(A[:, i], B[:, j]) for i < n, j < m; A is d×n (column stride lda ≥ d), B is d×m
/// (ldb ≥ d), d ≤ kMaxTiledDim. Block (kTile, kTileRowsY); a grid-stride loop walks the
/// ⌈n/32⌉·⌈m/32⌉ tiles (i fastest), so any grid size is valid and no grid dimension limit
/// applies. The 32 A points and 32 B points of a tile are staged in shared memory by coalesced
/// loads; stores are coalesced along the column (threadIdx.x runs over i).
__global__ void __launch_bounds__(kTile* kTileRowsY)
    kernel_matrix_tiled(detail::KernelFormula f, const double* __restrict__ A, long lda, int n,
                        const double* __restrict__ B, long ldb, int m, int d,
                        double* __restrict__ K, long ldk) {
  extern __shared__ double smem[];
  const int stride = tile_stride(d);
  double* As = smem;
  double* Bs = smem + kTile * stride;
  const long tiles_i = (static_cast<long>(n) + kTile - 1) / kTile;
  const long tiles_j = (static_cast<long>(m) + kTile - 1) / kTile;
  const long tiles = tiles_i * tiles_j;
  const int tid = threadIdx.y * kTile + threadIdx.x;
  const int nthreads = kTile * kTileRowsY;
  for (long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const long i0 = (tile % tiles_i) * kTile;
    const long j0 = (tile / tiles_i) * kTile;
    const int ni = static_cast<int>(min(static_cast<long>(kTile), n - i0));
    const int nj = static_cast<int>(min(static_cast<long>(kTile), m - j0));
    __syncthreads();  // the previous tile's reads of As/Bs are done
    for (int e = tid; e < ni * d; e += nthreads) {
      const int p = e / d, c = e - p * d;
      As[p * stride + c] = A[(i0 + p) * lda + c];
    }
    for (int e = tid; e < nj * d; e += nthreads) {
      const int p = e / d, c = e - p * d;
      Bs[p * stride + c] = B[(j0 + p) * ldb + c];
    }
    __syncthreads();
    const int ii = threadIdx.x;
    if (ii < ni) {
      const double* x = As + ii * stride;
#pragma unroll
      for (int k = 0; k < kTile / kTileRowsY; ++k) {
        const int jj = threadIdx.y + k * kTileRowsY;
        if (jj < nj) {
          K[(j0 + jj) * ldk + i0 + ii] = f(x, Bs + jj * stride, d);
        }
      }
    }
  }
}

/// The same result for any d, reading points straight from global memory (d > kMaxTiledDim).
/// One thread per element, grid-stride over the n·m elements (i fastest: coalesced stores).
__global__ void __launch_bounds__(256)
    kernel_matrix_global(detail::KernelFormula f, const double* __restrict__ A, long lda, int n,
                         const double* __restrict__ B, long ldb, int m, int d,
                         double* __restrict__ K, long ldk) {
  const long total = static_cast<long>(n) * m;
  for (long e = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<long>(gridDim.x) * blockDim.x) {
    const long j = e / n, i = e - j * n;
    K[j * ldk + i] = f(A + i * lda, B + j * ldb, d);
  }
}

/// out[j] = k(x_j, x_j) for the n columns of the d×n matrix X (column stride ldx). Grid-stride.
__global__ void __launch_bounds__(256)
    kernel_diag(detail::KernelFormula f, const double* __restrict__ X, long ldx, int n, int d,
                double* __restrict__ out) {
  for (long j = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += static_cast<long>(gridDim.x) * blockDim.x) {
    const double* x = X + j * ldx;
    out[j] = f(x, x, d);
  }
}

}  // namespace gpb::cuda::kernels
