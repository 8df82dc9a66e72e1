// The device state of the CUDA FinitePosterior beyond the step-by-step parity of
// test_cuda_posterior.cpp: the prior variance of every run, host mirrors allocated only for the
// runs read, the device-resident exclusion mask updated in place, recompute mode over many row
// groups, the automatic memory budget keeping a large V on the device, and batch GP-UCB with
// distinct points choosing as on the CPU. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"
#include "test_support.hpp"

namespace {

using gpb::FinitePosterior;
using gpb::PosteriorMode;
using gpb::PosteriorOptions;

gpb::Domain random_domain(int d, int n, std::uint32_t stream = 2) {
  gpb::Rng rng(23, 0, stream);
  Eigen::MatrixXd rows(n, d);
  for (Eigen::Index i = 0; i < rows.size(); ++i) rows.data()[i] = rng.uniform();
  return gpb::Domain::from_rows(rows);
}

/// Resident set size of this process, bytes (Linux /proc/self/statm).
double resident_bytes() {
  std::ifstream f("/proc/self/statm");
  double size = 0, resident = 0;
  f >> size >> resident;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE));
}

/// Observes `steps` random candidates with random rewards on both posteriors.
void observe_both(FinitePosterior& a, FinitePosterior& b, int steps, gpb::Rng& rng) {
  const int runs = a.runs(), n = a.size();
  std::vector<int> idx(runs);
  std::vector<double> y(runs);
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < runs; ++r) {
      idx[r] = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
      y[r] = rng.uniform(-1.0, 1.0);
    }
    a.observe(idx.data(), y.data());
    b.observe(idx.data(), y.data());
  }
}

TEST(CudaPosteriorState, PriorVarianceOfEveryRun) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const gpb::Domain dom = random_domain(3, 1000);  // not a multiple of the 256-thread blocks
  const gpb::Kernel k = gpb::Kernel::matern(gpb::KernelType::Matern32, 0.4, 1.7);
  const Eigen::VectorXd prior = gpb::kernel_diag(*cpu, k, dom);
  PosteriorOptions o;
  o.capacity = 4;
  const int runs = 7;
  FinitePosterior post(*cuda, k, dom, runs, o);
  for (int r = runs - 1; r >= 0; --r) {  // every run, not only the first
    const Eigen::Map<const Eigen::VectorXd> var(post.variance(r), dom.size());
    const Eigen::Map<const Eigen::VectorXd> mean(post.mean(r), dom.size());
    EXPECT_LE(gpb::test::rel_err(var, prior), 1e-14) << "run " << r;
    EXPECT_EQ(mean, Eigen::VectorXd::Zero(dom.size())) << "run " << r;
  }
}

TEST(CudaPosteriorState, HostMirrorsOnlyForRunsRead) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const int runs = 16, n = 1 << 21;  // eager mirrors would be 2·16·2²¹·8 B = 512 MiB of host
  const gpb::Domain dom = gpb::Domain::grid({0.0}, {1.0}, {n});
  PosteriorOptions o;
  o.capacity = 1;
  o.mode = PosteriorMode::Incremental;
  const double before = resident_bytes();
  FinitePosterior post(*cuda, gpb::Kernel::se(0.1), dom, runs, o);
  const double after_build = resident_bytes();
  EXPECT_LT(after_build - before, 128.0 * (1 << 20)) << "host mirrors allocated up front";
  const double* v = post.variance(3);
  const double after_read = resident_bytes();
  // One run read: μ and σ² of that run (32 MiB) at most, plus slack for the allocator.
  EXPECT_LT(after_read - after_build, 96.0 * (1 << 20));
  EXPECT_EQ(v[0], 1.0);
  EXPECT_EQ(v[n - 1], 1.0);
}

TEST(CudaPosteriorState, ExclusionMaskUpdatedInPlaceMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const gpb::Domain dom = random_domain(2, 5003);
  const gpb::Kernel k = gpb::Kernel::se(0.15);
  PosteriorOptions o;
  o.capacity = 16;
  const int runs = 3, n = dom.size();
  FinitePosterior ref(*cpu, k, dom, runs, o);
  FinitePosterior got(*cuda, k, dom, runs, o);
  gpb::Rng rng(9, 0, 1);
  observe_both(ref, got, 12, rng);
  const std::vector<double> width(runs, 2.0);
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(runs) * n, 0);
  const auto check = [&](const std::uint8_t* m, const char* what, int step) {
    const auto a = ref.ucb_argmax(width.data(), m, nullptr);
    const auto b = got.ucb_argmax(width.data(), m, nullptr);
    for (int r = 0; r < runs; ++r) {
      EXPECT_EQ(b[r].index, a[r].index) << what << " step " << step << " run " << r;
    }
    return a;
  };
  // Exclude each run's winner, one at a time (the few-entries path): every call must see the
  // entries the earlier calls set.
  for (int step = 0; step < 12; ++step) {
    const auto a = check(mask.data(), "exclude winner", step);
    for (int r = 0; r < runs; ++r) mask[static_cast<std::size_t>(r) * n + a[r].index] = 1;
  }
  // Clear the excluded entries again, a few at a time: the winners come back in reverse order.
  for (std::size_t i = 0, step = 0; i < mask.size(); ++i) {
    if (mask[i] != 0 && (i % 2 == 0)) {
      mask[i] = 0;
      check(mask.data(), "clear", static_cast<int>(step++));
    }
  }
  check(nullptr, "no mask", 0);  // a null mask between masked calls
  check(mask.data(), "mask after null", 0);
  for (auto& b : mask) b = rng.uniform() < 0.3 ? 1 : 0;  // many changes: the whole-mask path
  check(mask.data(), "whole mask", 0);
  for (std::size_t i = 0; i < mask.size(); i += 5) mask[i] = 0;  // then a medium change
  check(mask.data(), "medium change", 0);
  std::fill(mask.begin(), mask.end(), std::uint8_t{0});
  const auto none = check(mask.data(), "cleared", 0);
  const auto base = ref.ucb_argmax(width.data(), nullptr, nullptr);
  for (int r = 0; r < runs; ++r) EXPECT_EQ(none[r].index, base[r].index);
}

TEST(CudaPosteriorState, RecomputeOverManyRowGroupsMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const gpb::Domain dom = random_domain(2, 1501);
  const gpb::Kernel k = gpb::Kernel::matern(gpb::KernelType::Matern52, 0.3);
  PosteriorOptions o;
  o.capacity = 64;
  o.noise_variance = 1e-2;
  o.mode = PosteriorMode::Incremental;
  const int runs = 2;
  FinitePosterior ref(*cpu, k, dom, runs, o);
  o.mode = PosteriorMode::Recompute;
  o.chunk = 500;
  FinitePosterior got(*cuda, k, dom, runs, o);
  ASSERT_TRUE(got.recompute_mode());
  gpb::Rng rng(10, 0, 1);
  // 3 full groups of 16 rows and a partial one (t = 53), with pending rows inside groups.
  for (int block = 0; block < 5; ++block) {
    observe_both(ref, got, 9, rng);
    std::vector<int> idx(runs);
    for (int r = 0; r < runs; ++r) idx[r] = static_cast<int>(rng.below(dom.size()));
    ref.add_pending(idx.data());
    got.add_pending(idx.data());
    for (int r = 0; r < runs; ++r) {  // σ² with a pending row (μ unchanged by it)
      EXPECT_LE(gpb::test::rel_err(Eigen::Map<const Eigen::VectorXd>(got.variance(r), dom.size()),
                                   Eigen::Map<const Eigen::VectorXd>(ref.variance(r), dom.size())),
                1e-10);
    }
    std::vector<double> y(runs, 0.25);
    ref.resolve_pending(y.data());
    got.resolve_pending(y.data());
    observe_both(ref, got, 1, rng);
  }
  ASSERT_EQ(got.rows(), 55);
  for (int r = 0; r < runs; ++r) {
    EXPECT_LE(gpb::test::rel_err(Eigen::Map<const Eigen::VectorXd>(got.mean(r), dom.size()),
                                 Eigen::Map<const Eigen::VectorXd>(ref.mean(r), dom.size())),
              1e-10);
    EXPECT_LE(gpb::test::rel_err(Eigen::Map<const Eigen::VectorXd>(got.variance(r), dom.size()),
                                 Eigen::Map<const Eigen::VectorXd>(ref.variance(r), dom.size())),
              1e-10);
  }
}

TEST(CudaPosteriorState, AutomaticBudgetKeepsALargeVOnTheDevice) {
  GPB_REQUIRE_CUDA_DEVICE();
  gpb::ContextOptions opt;
  opt.backend = gpb::Backend::Cuda;  // memory_budget_bytes = 0: 3/4 of the free device memory
  const gpb::Context cuda(opt);
  EXPECT_GT(cuda.memory_budget_bytes(), std::size_t{0});
  // V of 10⁶ candidates × 640 rows in double: 5.1 GB, over the former fixed 4 GiB default.
  const double v_bytes = 8.0 * 1e6 * 640;
  if (static_cast<double>(cuda.memory_budget_bytes()) < 1.2 * v_bytes) {
    GTEST_SKIP() << "device has less than 6.8 GB free";
  }
  PosteriorOptions o;
  o.capacity = 640;
  FinitePosterior post(cuda, gpb::Kernel::se(0.2), gpb::Domain::grid({0.0}, {1.0}, {1000000}), 1,
                       o);
  EXPECT_FALSE(post.recompute_mode());
  // An explicit budget still overrides the automatic one.
  const auto small = gpb::test::cuda_context(gpb::Precision::Double, std::size_t{1} << 30);
  FinitePosterior capped(*small, gpb::Kernel::se(0.2), gpb::Domain::grid({0.0}, {1.0}, {1000000}),
                         1, o);
  EXPECT_TRUE(capped.recompute_mode());
}

TEST(CudaPosteriorState, BatchGpUcbDistinctIdenticalChoices) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const auto domain = gpb::Domain::grid({0.0, 0.0}, {1.0, 1.0}, {45, 40});
  const auto kernel = gpb::Kernel::se(0.2);
  const auto objective = gpb::make_rkhs_objective(kernel, 60, false);
  const int runs = 3, T = 60, q = 5;
  std::vector<Eigen::VectorXd> f;
  for (int r = 0; r < runs; ++r) f.push_back(objective->values(*cpu, domain, 7, r));
  auto pa = gpb::make_batch_gp_ucb(gpb::test::policy_env(*cpu, domain, kernel, runs, T, 7, 1e-2),
                                   gpb::BetaSchedule{}, q, true);
  auto pb = gpb::make_batch_gp_ucb(gpb::test::policy_env(*cuda, domain, kernel, runs, T, 7, 1e-2),
                                   gpb::BetaSchedule{}, q, true);
  const auto reward = [&](int r, int a) { return f[static_cast<std::size_t>(r)][a]; };
  const auto ca = gpb::test::play(*pa, runs, T, reward);
  const auto cb = gpb::test::play(*pb, runs, T, reward);
  EXPECT_EQ(cb, ca);
}

}  // namespace
