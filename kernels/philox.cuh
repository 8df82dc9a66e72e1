/// @file philox.cuh
/// __global__ kernels filling arrays with Philox draws (launched from src/engine/cuda/philox.cu).
/// Element i is a pure function of (seed, run, stream, start, i), exactly as gpb::Rng computes it.
#pragma once

#include <cstdint>

#include "gpbandit/rng.hpp"

namespace gpb::cuda::kernels {

/// out[i] = u64_to_open01(philox_u64(seed, run, stream, start + i)) for i < count: the i-th
/// Rng::uniform() of an Rng started at `start`. Bit-identical to the host.
__global__ void __launch_bounds__(256)
    philox_uniform(std::uint64_t seed, std::uint32_t run, std::uint32_t stream, std::uint64_t start,
                   std::size_t count, double* __restrict__ out) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = detail::u64_to_open01(detail::philox_u64(seed, run, stream, start + i));
  }
}

/// out[i] = the i-th Rng::normal() of an Rng started at `start`: Box–Muller on draws
/// start + 2i and start + 2i + 1 with the same expression as the host. The uniforms are
/// bit-identical; log and cos come from the CUDA math library (≤ 1–2 ulp from glibc), so a normal
/// can differ from the host's in its last bits.
__global__ void __launch_bounds__(256)
    philox_normal(std::uint64_t seed, std::uint32_t run, std::uint32_t stream, std::uint64_t start,
                  std::size_t count, double* __restrict__ out) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t k = start + 2 * static_cast<std::uint64_t>(i);
    const double u1 = detail::u64_to_open01(detail::philox_u64(seed, run, stream, k));
    const double u2 = detail::u64_to_open01(detail::philox_u64(seed, run, stream, k + 1));
    out[i] = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925 * u2);
  }
}

}  // namespace gpb::cuda::kernels
