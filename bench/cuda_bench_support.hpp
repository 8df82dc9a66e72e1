/// @file cuda_bench_support.hpp
/// Shared by the GPU benchmarks (bench_cuda_posterior.cpp, cuda_one_round.cpp): the problem of a
/// GP-UCB round (N random candidates in [0,1]², SE kernel ℓ = 0.2, λ = 10⁻²), a posterior filled
/// to t rows, one round, and the bytes a round must move through device memory.
#pragma once

#include <cuda_runtime_api.h>

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::bench {

/// N random candidates in [0,1]^d (fixed seed).
inline Domain random_domain(int n, int d) {
  Rng rng(1, 0, 99);
  Eigen::MatrixXd rows(n, d);
  for (Eigen::Index i = 0; i < rows.size(); ++i) rows.data()[i] = rng.uniform();
  return Domain::from_rows(rows);
}

/// A CUDA posterior over `domain` for `runs` runs with room for `capacity` rows, filled with t
/// observed rows (random candidates and rewards). Incremental mode: V is kept on the device; the
/// caller checks recompute_mode() (true when V did not fit in device memory).
inline std::unique_ptr<FinitePosterior> filled_posterior(const Context& ctx, const Domain& domain,
                                                         int runs, int t, int capacity) {
  PosteriorOptions opt;
  opt.noise_variance = 1e-2;
  opt.capacity = capacity;
  opt.mode = PosteriorMode::Incremental;
  auto post = std::make_unique<FinitePosterior>(ctx, Kernel::se(0.2), domain, runs, opt);
  if (post->recompute_mode()) return post;
  Rng rng(2, 0, 98);
  std::vector<int> a(static_cast<std::size_t>(runs));
  std::vector<double> y(static_cast<std::size_t>(runs));
  for (int s = 0; s < t; ++s) {
    for (int r = 0; r < runs; ++r) {
      a[static_cast<std::size_t>(r)] =
          static_cast<int>(rng.below(static_cast<std::uint64_t>(domain.size())));
      y[static_cast<std::size_t>(r)] = rng.uniform(-1.0, 1.0);
    }
    post->observe(a.data(), y.data());
  }
  return post;
}

/// One GP-UCB round on `post` (fused UCB argmax, then observe the choices), synchronised.
inline void gp_ucb_round(FinitePosterior& post) {
  const std::vector<double> width(static_cast<std::size_t>(post.runs()), 2.0);
  const auto pick = post.ucb_argmax(width.data(), nullptr, nullptr);
  std::vector<int> a;
  std::vector<double> y;
  for (const auto& c : pick) {
    a.push_back(c.index);
    y.push_back(0.5);
  }
  post.observe(a.data(), y.data());
  cudaDeviceSynchronize();  // the append kernel is asynchronous
}

/// The fewest bytes one incremental round of one run must move through device memory with V
/// holding t rows of `value_bytes` each: read the t rows of V and write the new one, read and
/// write μ and σ² in the update and read them again in the argmax, read the d×N points once.
inline double round_bytes(double n, double t, double value_bytes, int d) {
  return n * (value_bytes * (t + 1.0) + 48.0 + 8.0 * d);
}

}  // namespace gpb::bench
