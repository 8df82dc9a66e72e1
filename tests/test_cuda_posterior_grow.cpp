// CUDA vs CPU parity of a growing candidate set (FinitePosterior::add_candidates): the same
// observations, pending rows and additions on both backends give the same μ, σ² and UCB choices,
// in incremental, recompute and mixed-precision modes, with V growing on the device. Skips
// without a CUDA device.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"

namespace {

using gpb::FinitePosterior;
using gpb::PosteriorMode;
using gpb::PosteriorOptions;

Eigen::MatrixXd random_points(int d, int n, std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 3);
  Eigen::MatrixXd p(d, n);
  for (Eigen::Index i = 0; i < p.size(); ++i) p.data()[i] = rng.uniform();
  return p;
}

double rel(const double* a, const double* b, int n) {
  return gpb::test::rel_err(Eigen::Map<const Eigen::VectorXd>(a, n),
                            Eigen::Map<const Eigen::VectorXd>(b, n));
}

/// Both backends from `n` candidates; every third step adds `add` new ones (once with rows
/// pending), observations fall on old and new candidates alike, the CPU's UCB choice drives both.
void grow_parity(const gpb::Context& cuda, PosteriorMode mode, double tol, int n, int add, int runs,
                 int steps) {
  const auto cpu = gpb::test::cpu_context();
  const gpb::Kernel k = gpb::Kernel::ard(gpb::KernelType::Matern52, Eigen::Vector2d(0.2, 0.5));
  PosteriorOptions o;
  o.noise_variance = 1e-3;
  o.capacity = 3;  // V grows on the device as well
  o.mode = PosteriorMode::Incremental;
  FinitePosterior ref(*cpu, k, gpb::Domain::from_points(random_points(2, n, 1)), runs, o);
  o.mode = mode;
  FinitePosterior got(cuda, k, gpb::Domain::from_points(random_points(2, n, 1)), runs, o);
  gpb::Rng rng(9, 0, 1);
  std::vector<double> width(static_cast<std::size_t>(runs), 1.0);
  for (int step = 0; step < steps; ++step) {
    if (step % 3 == 2) {
      const Eigen::MatrixXd extra = random_points(2, add, 100 + step);
      ref.add_candidates(extra);
      got.add_candidates(extra);
      ASSERT_EQ(got.size(), ref.size());
    }
    const auto choice = ref.ucb_argmax(width.data(), nullptr, nullptr);
    const auto other = got.ucb_argmax(width.data(), nullptr, nullptr);
    std::vector<int> idx(static_cast<std::size_t>(runs));
    std::vector<double> y(static_cast<std::size_t>(runs));
    for (int r = 0; r < runs; ++r) {
      if (tol <= 1e-10) {
        EXPECT_EQ(other[r].index, choice[r].index) << "step " << step;
      }
      idx[r] = step % 4 == 1 ? ref.size() - 1 - r : choice[r].index;  // newest candidates too
      y[r] = rng.uniform(-1.0, 1.0);
    }
    if (step % 5 == 4) {  // a pending row while the set grows at the next step
      ref.add_pending(idx.data());
      got.add_pending(idx.data());
    } else {
      if (ref.pending() > 0) {
        std::vector<double> yy(static_cast<std::size_t>(runs * ref.pending()), 0.5);
        ref.resolve_pending(yy.data());
        got.resolve_pending(yy.data());
      }
      ref.observe(idx.data(), y.data());
      got.observe(idx.data(), y.data());
    }
    for (int r = 0; r < runs; ++r) {
      EXPECT_LE(rel(got.mean(r), ref.mean(r), ref.size()), tol) << "step " << step << " run " << r;
      EXPECT_LE(rel(got.variance(r), ref.variance(r), ref.size()), tol) << "step " << step;
    }
  }
}

TEST(CudaPosteriorGrow, IncrementalMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  grow_parity(*cuda, PosteriorMode::Incremental, 1e-10, 3001, 7, 2, 30);
}

TEST(CudaPosteriorGrow, RecomputeMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  grow_parity(*cuda, PosteriorMode::Recompute, 1e-10, 2000, 5, 2, 24);
}

TEST(CudaPosteriorGrow, MixedPrecisionWithin1e5) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context(gpb::Precision::Mixed);
  grow_parity(*cuda, PosteriorMode::Incremental, 1e-5, 2500, 3, 1, 24);
}

}  // namespace
