// CUDA vs CPU parity of FinitePosterior with known per-observation noise (a noise variance per
// row): observe, observe_batch and pending rows with their own noise, in incremental and
// recompute modes, with the candidate set growing. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"
#include "test_support.hpp"

namespace {

using gpb::FinitePosterior;
using gpb::PosteriorMode;
using gpb::PosteriorOptions;

using gpb::test::random_domain;

/// max |a − b| / max |b| over n values.
double rel(const double* a, const double* b, int n) {
  return gpb::test::rel_err(Eigen::Map<const Eigen::VectorXd>(a, n),
                            Eigen::Map<const Eigen::VectorXd>(b, n));
}

void noise_parity(PosteriorMode mode) {
  const auto cpu = gpb::test::cpu_context();
  const auto cuda = gpb::test::cuda_context();
  const gpb::Kernel k = gpb::Kernel::ard(gpb::KernelType::Matern52, Eigen::Vector2d(0.2, 0.4));
  const int n = 2999, runs = 2;
  PosteriorOptions o;
  o.noise_variance = 1e-2;
  o.capacity = 4;
  o.mode = PosteriorMode::Incremental;
  FinitePosterior ref(*cpu, k, random_domain(n, 2, 1), runs, o);
  o.mode = mode;
  FinitePosterior got(*cuda, k, random_domain(n, 2, 1), runs, o);
  gpb::Rng rng(4, 0, 1);
  std::vector<double> width(runs, 1.5);
  for (int step = 0; step < 24; ++step) {
    if (step % 8 == 7) {
      const Eigen::MatrixXd extra = random_domain(3, 2, 200 + step).points();
      ref.add_candidates(extra);
      got.add_candidates(extra);
    }
    const auto choice = ref.ucb_argmax(width.data(), nullptr, nullptr);
    const auto other = got.ucb_argmax(width.data(), nullptr, nullptr);
    const int q = step % 3 == 1 ? 3 : 1;
    std::vector<int> idx(static_cast<std::size_t>(runs) * q);
    std::vector<double> y(idx.size()), lam(idx.size());
    for (int r = 0; r < runs; ++r) {
      EXPECT_EQ(other[r].index, choice[r].index) << "step " << step;
      for (int i = 0; i < q; ++i) {
        const std::size_t e = static_cast<std::size_t>(r) * q + i;
        idx[e] = i == 0 ? choice[r].index : static_cast<int>(rng.below(ref.size()));
        y[e] = rng.uniform(-1.0, 1.0);
        lam[e] = 1e-4 * std::pow(10.0, (step + i) % 4);
      }
    }
    if (q == 3) {
      ref.observe_batch(q, idx.data(), y.data(), lam.data());
      got.observe_batch(q, idx.data(), y.data(), lam.data());
    } else if (step % 3 == 2) {
      ref.add_pending(idx.data(), lam.data());
      got.add_pending(idx.data(), lam.data());
      ref.resolve_pending(y.data());
      got.resolve_pending(y.data());
    } else {
      ref.observe(idx.data(), y.data(), lam.data());
      got.observe(idx.data(), y.data(), lam.data());
    }
    for (int r = 0; r < runs; ++r) {
      EXPECT_LE(rel(got.mean(r), ref.mean(r), ref.size()), 1e-10) << "step " << step;
      EXPECT_LE(rel(got.variance(r), ref.variance(r), ref.size()), 1e-10) << "step " << step;
      EXPECT_NEAR(got.info_gain(r), ref.info_gain(r), 1e-10 * std::abs(ref.info_gain(r)));
    }
  }
}

TEST(CudaPosteriorNoise, IncrementalMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  noise_parity(PosteriorMode::Incremental);
}

TEST(CudaPosteriorNoise, RecomputeMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  noise_parity(PosteriorMode::Recompute);
}

}  // namespace
