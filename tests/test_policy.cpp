// Policies through the public API: UCB widths, GP-UCB convergence, batch selection, random search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/policy/policy.hpp"
#include "test_support.hpp"

namespace {

using gpb::BetaSchedule;

gpb::PolicyEnv make_env(const gpb::Context& ctx, const gpb::Domain& domain, const gpb::Kernel& k,
                        int runs, int horizon, double lambda) {
  return gpb::test::policy_env(ctx, domain, k, runs, horizon, 7, lambda);
}

// Runs `policy` for T evaluations on noise-free f (one f per run); returns the chosen indices per
// run.
std::vector<std::vector<int>> play(gpb::Policy& policy, const std::vector<Eigen::VectorXd>& f,
                                   int T) {
  return gpb::test::play(policy, static_cast<int>(f.size()), T,
                         [&](int r, int a) { return f[static_cast<std::size_t>(r)][a]; });
}

TEST(BetaSchedule, SrinivasMatchesFormula) {
  BetaSchedule b;  // srinivas, delta 0.1
  const double pi = 3.141592653589793;
  const double expect = std::sqrt(2.0 * std::log(100.0 * 9.0 * pi * pi / (6.0 * 0.1)));
  EXPECT_NEAR(b.width(3, 100, 0.0), expect, 1e-14);
  b.scale = 0.5;
  EXPECT_NEAR(b.width(3, 100, 0.0), 0.5 * expect, 1e-14);
}

TEST(BetaSchedule, IgpUcbAndConstant) {
  BetaSchedule b;
  b.kind = BetaSchedule::Kind::IgpUcb;
  b.rkhs_bound = 2.0;
  b.subgaussian = 0.5;
  b.delta = 0.05;
  EXPECT_NEAR(b.width(10, 50, 3.0), 2.0 + 0.5 * std::sqrt(2.0 * (3.0 + 1.0 + std::log(20.0))),
              1e-14);
  b.kind = BetaSchedule::Kind::Constant;
  b.value = 9.0;
  EXPECT_DOUBLE_EQ(b.width(10, 50, 3.0), 3.0);
}

TEST(BetaSchedule, ValidationNamesTheField) {
  BetaSchedule b;
  b.delta = 1.5;
  try {
    b.validate();
    FAIL() << "expected InvalidArgument";
  } catch (const gpb::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("beta.delta"), std::string::npos) << e.what();
  }
  b.delta = 0.1;
  b.kind = BetaSchedule::Kind::Constant;
  b.value = 0.0;
  EXPECT_THROW(b.validate(), gpb::InvalidArgument);
}

// The acceptance check: noise-free 1-d RKHS instance of 100 points, GP-UCB reaches simple
// regret 0 within 100 rounds (every one of 10 runs, each with its own f).
TEST(GpUcb, NoiseFreeRkhsReachesZeroSimpleRegretWithin100Rounds) {
  gpb::Context ctx({gpb::Backend::Cpu});
  const auto domain = gpb::Domain::grid({0.01}, {1.0}, {100});
  const auto kernel = gpb::Kernel::se(0.2);
  const auto objective = gpb::make_rkhs_objective(kernel, 100, false);
  const int runs = 10, T = 100;
  std::vector<Eigen::VectorXd> f;
  for (int r = 0; r < runs; ++r) f.push_back(objective->values(ctx, domain, 7, r));
  auto policy = gpb::make_gp_ucb(make_env(ctx, domain, kernel, runs, T, 1e-6), BetaSchedule{});
  const auto chosen = play(*policy, f, T);
  for (int r = 0; r < runs; ++r) {
    Eigen::Index best;
    const double fstar = f[r].maxCoeff(&best);
    double seen = -1e300;
    for (int j : chosen[r]) seen = std::max(seen, f[r][j]);
    EXPECT_EQ(seen, fstar) << "run " << r << " missed the best arm " << best;
  }
}

TEST(BatchGpUcb, DistinctBatchesAndHallucinationSpreadsPoints) {
  gpb::Context ctx({gpb::Backend::Cpu});
  const auto domain = gpb::Domain::grid({0.0, 0.0}, {1.0, 1.0}, {12, 12});
  const auto kernel = gpb::Kernel::matern(gpb::KernelType::Matern52, 0.3);
  const auto objective = gpb::make_rkhs_objective(kernel, 50, false);
  const int runs = 3, T = 40, q = 5;
  std::vector<Eigen::VectorXd> f;
  for (int r = 0; r < runs; ++r) f.push_back(objective->values(ctx, domain, 7, r));
  auto policy =
      gpb::make_batch_gp_ucb(make_env(ctx, domain, kernel, runs, T, 1e-4), BetaSchedule{}, q, true);
  EXPECT_EQ(policy->batch_size(), q);
  const auto chosen = play(*policy, f, T);
  for (int r = 0; r < runs; ++r) {
    ASSERT_EQ(static_cast<int>(chosen[r].size()), T);
    for (int b = 0; b < T / q; ++b) {
      std::set<int> batch(chosen[r].begin() + b * q, chosen[r].begin() + (b + 1) * q);
      EXPECT_EQ(static_cast<int>(batch.size()), q)
          << "run " << r << " batch " << b << " repeats a point";
    }
  }
}

TEST(BatchGpUcb, WithoutDistinctHallucinationStillAvoidsRepeatsWhenNoiseIsSmall) {
  gpb::Context ctx({gpb::Backend::Cpu});
  const auto domain = gpb::Domain::grid({0.0}, {1.0}, {200});
  const auto kernel = gpb::Kernel::se(0.1);
  const auto objective = gpb::make_rkhs_objective(kernel, 30, false);
  std::vector<Eigen::VectorXd> f{objective->values(ctx, domain, 7, 0)};
  auto policy =
      gpb::make_batch_gp_ucb(make_env(ctx, domain, kernel, 1, 4, 1e-6), BetaSchedule{}, 4, false);
  const auto chosen = play(*policy, f, 4);
  // After hallucinating a point its variance is ~λ, so UCB moves elsewhere within the batch.
  EXPECT_EQ(std::set<int>(chosen[0].begin(), chosen[0].end()).size(), 4u);
}

TEST(BatchGpUcb, QOfOneMakesTheSameChoicesAsGpUcb) {
  gpb::Context ctx({gpb::Backend::Cpu});
  const auto domain = gpb::Domain::grid({0.0}, {1.0}, {150});
  const auto kernel = gpb::Kernel::se(0.15);
  const auto objective = gpb::make_rkhs_objective(kernel, 40, false);
  std::vector<Eigen::VectorXd> f{objective->values(ctx, domain, 3, 0),
                                 objective->values(ctx, domain, 3, 1)};
  auto a = gpb::make_gp_ucb(make_env(ctx, domain, kernel, 2, 60, 1e-3), BetaSchedule{});
  auto b =
      gpb::make_batch_gp_ucb(make_env(ctx, domain, kernel, 2, 60, 1e-3), BetaSchedule{}, 1, false);
  EXPECT_EQ(play(*a, f, 60), play(*b, f, 60));
}

TEST(BatchGpUcb, RejectsQAboveNWhenDistinct) {
  gpb::Context ctx({gpb::Backend::Cpu});
  const auto domain = gpb::Domain::grid({0.0}, {1.0}, {10});
  const auto env = make_env(ctx, domain, gpb::Kernel::se(0.2), 1, 10, 1e-3);
  EXPECT_THROW(gpb::make_batch_gp_ucb(env, BetaSchedule{}, 11, true), gpb::InvalidArgument);
  EXPECT_THROW(gpb::make_batch_gp_ucb(env, BetaSchedule{}, 0, false), gpb::InvalidArgument);
}

// Random search: reproducible per (seed, run) and uniform over the domain. With 50 cells and
// 100000 draws each count is Binomial(1e5, 0.02): mean 2000, sd 44.3; the 6-sd band fails with
// probability < 50 · 2e-9 = 1e-7 for this fixed seed family.
TEST(RandomSearch, UniformAndReproducible) {
  gpb::Context ctx({gpb::Backend::Cpu});
  const auto domain = gpb::Domain::grid({0.0}, {1.0}, {50});
  const auto env = make_env(ctx, domain, gpb::Kernel::se(0.2), 2, 100000, 1e-3);
  auto p1 = gpb::make_random_search(env);
  auto p2 = gpb::make_random_search(env);
  std::vector<Eigen::VectorXd> f(2, Eigen::VectorXd::Zero(50));
  const auto c1 = play(*p1, f, 100000);
  const auto c2 = play(*p2, f, 100000);
  EXPECT_EQ(c1, c2);
  EXPECT_NE(c1[0], c1[1]);
  std::vector<int> count(50, 0);
  for (int j : c1[0]) ++count[j];
  for (int c : count) EXPECT_NEAR(c, 2000.0, 6 * 44.3);
}

}  // namespace
