/// @file se_derivative.cuh
/// __global__ kernels for the SE kernel's derivative blocks (launched from
/// src/engine/cuda/se_derivative.cu). Each thread evaluates detail::se_grad / se_grad_grad, the
/// formulas the CPU uses.
#pragma once

#include "engine/detail/se_derivative_formula.hpp"

namespace gpb::cuda::kernels {

/// G[(a + d·i) + j·ldg] = ∂k(x_i, z_j)/∂x_{i,a}; X is d×n dense, Z is d×m dense, ldg = d·n.
/// Grid-stride over the n·m pairs (i fastest).
__global__ void se_grad_block(const double* __restrict__ X, int n, const double* __restrict__ Z,
                              int m, int d, double inv_l2, double variance,
                              double* __restrict__ G) {
  const long total = static_cast<long>(n) * m;
  const long ldg = static_cast<long>(d) * n;
  for (long p = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; p < total;
       p += static_cast<long>(gridDim.x) * blockDim.x) {
    const long i = p % n, j = p / n;
    detail::se_grad(X + i * d, Z + j * d, d, inv_l2, variance, G + j * ldg + i * d, 1);
  }
}

/// H[(a + d·i) + (b + d·j)·ldh] = ∂²k(x_i, z_j)/∂x_{i,a}∂z_{j,b}; ldh = d·n. Grid-stride over
/// pairs.
__global__ void se_grad_grad_block(const double* __restrict__ X, int n,
                                   const double* __restrict__ Z, int m, int d, double inv_l2,
                                   double variance, double* __restrict__ H) {
  const long total = static_cast<long>(n) * m;
  const long ldh = static_cast<long>(d) * n;
  for (long p = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; p < total;
       p += static_cast<long>(gridDim.x) * blockDim.x) {
    const long i = p % n, j = p / n;
    detail::se_grad_grad(X + i * d, Z + j * d, d, inv_l2, variance, H + (j * d) * ldh + i * d, ldh);
  }
}

}  // namespace gpb::cuda::kernels
