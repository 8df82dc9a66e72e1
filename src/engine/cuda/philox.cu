// Launchers of the Philox fill kernels (kernels/philox.cuh).
#include <algorithm>

#include "engine/cuda/launch.hpp"
#include "engine/cuda/resources.hpp"
#include "philox.cuh"

namespace gpb::cuda {

namespace {
int grid_for(const Context& ctx, std::size_t count) {
  const std::size_t blocks = (count + 255) / 256;
  const std::size_t cap = static_cast<std::size_t>(resources(ctx).sm_count) * 16;
  return static_cast<int>(std::max<std::size_t>(1, std::min(blocks, cap)));
}
}  // namespace

void launch_philox_uniform(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                           std::uint32_t stream, std::uint64_t start, std::size_t count,
                           double* out) {
  if (count == 0) return;
  kernels::philox_uniform<<<grid_for(ctx, count), 256, 0, stream_of(ctx)>>>(seed, run, stream,
                                                                            start, count, out);
  check_launch("philox_uniform kernel launch");
}

void launch_philox_normal(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                          std::uint32_t stream, std::uint64_t start, std::size_t count,
                          double* out) {
  if (count == 0) return;
  kernels::philox_normal<<<grid_for(ctx, count), 256, 0, stream_of(ctx)>>>(seed, run, stream, start,
                                                                           count, out);
  check_launch("philox_normal kernel launch");
}

}  // namespace gpb::cuda
