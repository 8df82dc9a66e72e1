// CUDA vs CPU parity of FinitePosterior (incremental, recompute, mixed precision, pending rows,
// exclusion, ties, ARD and composite kernels) and identical GP-UCB choices over 200 rounds. Skips
// without a CUDA device.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"
#include "test_support.hpp"

namespace {

using gpb::FinitePosterior;
using gpb::PosteriorMode;
using gpb::PosteriorOptions;

double rel(const double* a, const double* b, int n) {
  return gpb::test::rel_err(Eigen::Map<const Eigen::VectorXd>(a, n),
                            Eigen::Map<const Eigen::VectorXd>(b, n));
}

/// Drives a CPU and a CUDA posterior through the same observations, pending rows and resolves,
/// checking μ, σ² (relative to max |·|) and the UCB choices after every step.
void run_parity(const gpb::Context& cuda, PosteriorMode cuda_mode, int capacity, double tol,
                const gpb::Kernel& kernel, const gpb::Domain& dom, int runs, int steps) {
  const auto cpu = gpb::test::cpu_context();
  PosteriorOptions o;
  o.noise_variance = 1e-2;
  o.capacity = capacity;  // small capacities force V to grow on the device
  o.mode = PosteriorMode::Incremental;
  FinitePosterior ref(*cpu, kernel, dom, runs, o);
  o.mode = cuda_mode;
  o.chunk = 777;  // not a divisor of N: partial chunks in recompute mode
  FinitePosterior got(cuda, kernel, dom, runs, o);
  ASSERT_EQ(got.recompute_mode(), cuda_mode == PosteriorMode::Recompute);
  const int n = dom.size();
  gpb::Rng rng(5, 0, 1);
  std::vector<double> width(runs, 2.0);
  std::vector<std::uint8_t> excluded(static_cast<std::size_t>(runs) * n, 0);
  for (int step = 0; step < steps; ++step) {
    std::vector<gpb::Rng> ta, tb;
    for (int r = 0; r < runs; ++r) {
      ta.emplace_back(3, r, 4, step);
      tb.emplace_back(3, r, 4, step);
    }
    const bool with_mask = step % 3 == 1;
    for (std::size_t i = 0; i < excluded.size(); ++i) excluded[i] = rng.uniform() < 0.2 ? 1 : 0;
    const auto ca = ref.ucb_argmax(width.data(), with_mask ? excluded.data() : nullptr, &ta);
    const auto cb = got.ucb_argmax(width.data(), with_mask ? excluded.data() : nullptr, &tb);
    std::vector<int> idx(runs);
    std::vector<double> y(runs);
    for (int r = 0; r < runs; ++r) {
      if (tol == 0.0 || tol <= 1e-10) {
        EXPECT_EQ(cb[r].index, ca[r].index) << "step " << step << " run " << r;
        EXPECT_EQ(cb[r].ties, ca[r].ties) << "step " << step << " run " << r;
      }
      idx[r] = ca[r].index;  // the CPU's choice drives both
      y[r] = rng.uniform(-1.0, 1.0);
    }
    if (step % 5 == 4) {  // a batch of two pending rows (one repeated), then resolved
      got.add_pending(idx.data());
      ref.add_pending(idx.data());
      got.add_pending(idx.data());
      ref.add_pending(idx.data());
      std::vector<double> yy(2 * static_cast<std::size_t>(runs));
      for (double& v : yy) v = rng.uniform(-1.0, 1.0);
      for (int r = 0; r < runs; ++r) {
        EXPECT_LE(rel(got.variance(r), ref.variance(r), n), tol) << "pending, step " << step;
      }
      got.resolve_pending(yy.data());
      ref.resolve_pending(yy.data());
    } else {
      got.observe(idx.data(), y.data());
      ref.observe(idx.data(), y.data());
    }
    for (int r = 0; r < runs; ++r) {
      EXPECT_LE(rel(got.mean(r), ref.mean(r), n), tol) << "step " << step << " run " << r;
      EXPECT_LE(rel(got.variance(r), ref.variance(r), n), tol) << "step " << step << " run " << r;
      EXPECT_EQ(got.history(r), ref.history(r));
      EXPECT_NEAR(got.info_gain(r), ref.info_gain(r),
                  std::max(tol, 1e-12) * (1 + ref.info_gain(r)));
    }
  }
}

gpb::Domain random_domain(int d, int n) {
  gpb::Rng rng(17, 0, 2);
  Eigen::MatrixXd rows(n, d);
  for (Eigen::Index i = 0; i < rows.size(); ++i) rows.data()[i] = rng.uniform();
  return gpb::Domain::from_rows(rows);
}

TEST(CudaPosterior, IncrementalDoubleMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  run_parity(*cuda, PosteriorMode::Incremental, 3, 1e-10,
             gpb::Kernel::matern(gpb::KernelType::Matern52, 0.3), random_domain(3, 5003), 4, 25);
  run_parity(*cuda, PosteriorMode::Incremental, 64, 1e-10, gpb::Kernel::se(0.2),
             random_domain(2, 20000), 3, 20);
}

TEST(CudaPosterior, RecomputeDoubleMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  run_parity(*cuda, PosteriorMode::Recompute, 8, 1e-10, gpb::Kernel::se(0.25),
             random_domain(2, 4001), 3, 20);
}

TEST(CudaPosterior, ArdKernelMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const gpb::Kernel k = gpb::Kernel::ard(gpb::KernelType::Matern52, Eigen::Vector3d(0.1, 0.4, 2.0));
  run_parity(*cuda, PosteriorMode::Incremental, 4, 1e-10, k, random_domain(3, 4099), 3, 20);
  run_parity(*cuda, PosteriorMode::Recompute, 4, 1e-10, k, random_domain(3, 3001), 2, 12);
}

TEST(CudaPosterior, CompositeKernelMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  gpb::KernelPart a, b;
  a.type = gpb::KernelType::Matern52;
  a.size = 2;
  a.lengthscales = Eigen::Vector2d(0.2, 0.6);
  b.type = gpb::KernelType::SE;
  b.begin = 2;
  b.lengthscales = Eigen::VectorXd::Constant(1, 0.4);
  const gpb::Kernel product = gpb::Kernel::product({a, b}, 1.3);
  a.variance = 0.8;
  b.variance = 0.3;
  const gpb::Kernel sum = gpb::Kernel::sum({a, b});
  for (const gpb::Kernel& k : {product, sum}) {
    run_parity(*cuda, PosteriorMode::Incremental, 4, 1e-10, k, random_domain(3, 4099), 3, 20);
    run_parity(*cuda, PosteriorMode::Recompute, 4, 1e-10, k, random_domain(3, 3001), 2, 12);
  }
}

TEST(CudaPosterior, AutoModeFallsBackToRecomputeOverBudget) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context(gpb::Precision::Double, 1 << 16);
  PosteriorOptions o;
  o.capacity = 50;
  FinitePosterior post(*cuda, gpb::Kernel::se(0.3), random_domain(2, 3000), 2, o);
  EXPECT_TRUE(post.recompute_mode());
}

TEST(CudaPosterior, MixedPrecisionWithin1e5) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context(gpb::Precision::Mixed);
  run_parity(*cuda, PosteriorMode::Incremental, 16, 1e-5,
             gpb::Kernel::matern(gpb::KernelType::Matern32, 0.3), random_domain(2, 6000), 3, 25);
}

TEST(CudaPosterior, PrecomputedKernel) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const gpb::Domain pts = random_domain(2, 300);
  const gpb::Kernel se = gpb::Kernel::se(0.3);
  const gpb::Kernel pre =
      gpb::Kernel::precomputed(gpb::kernel_matrix(*cpu, se, pts.points(), pts.points()));
  run_parity(*cuda, PosteriorMode::Incremental, 4, 1e-10, pre, gpb::Domain::indices(300), 2, 15);
  run_parity(*cuda, PosteriorMode::Recompute, 4, 1e-10, pre, gpb::Domain::indices(300), 2, 10);
}

gpb::PolicyEnv make_env(const gpb::Context& ctx, const gpb::Domain& domain, const gpb::Kernel& k,
                        int runs, int horizon) {
  return gpb::test::policy_env(ctx, domain, k, runs, horizon, 7, 1e-2);
}

// The acceptance check: 200 GP-UCB rounds through make_gp_ucb choose the same candidates
// on both backends (noisy rewards from a fixed stream, so both see identical rewards).
TEST(CudaPosterior, GpUcb200RoundsIdenticalChoices) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const auto domain = gpb::Domain::grid({0.0, 0.0}, {1.0, 1.0}, {60, 50});
  const auto kernel = gpb::Kernel::se(0.2);
  const auto objective = gpb::make_rkhs_objective(kernel, 60, false);
  const int runs = 4, T = 200;
  std::vector<Eigen::VectorXd> f;
  for (int r = 0; r < runs; ++r) f.push_back(objective->values(*cpu, domain, 7, r));
  auto pa = gpb::make_gp_ucb(make_env(*cpu, domain, kernel, runs, T), gpb::BetaSchedule{});
  auto pb = gpb::make_gp_ucb(make_env(*cuda, domain, kernel, runs, T), gpb::BetaSchedule{});
  std::vector<gpb::Rng> noise;
  for (int r = 0; r < runs; ++r) noise.emplace_back(7, r, gpb::stream_of(gpb::StreamId::Noise));
  for (int t = 1; t <= T; ++t) {
    gpb::Round rd;
    rd.index = t;
    rd.done = t - 1;
    const gpb::Selection sa = pa->select(rd);
    const gpb::Selection sb = pb->select(rd);
    ASSERT_EQ(sa.chosen, sb.chosen) << "round " << t;
    gpb::Rewards y;
    for (int r = 0; r < runs; ++r) y.y.push_back(f[r][sa.at(r, 0)] + 0.1 * noise[r].normal());
    pa->observe(sa, y);
    pb->observe(sb, y);
  }
}

}  // namespace
