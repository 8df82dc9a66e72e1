// batch_gp_ucb (GP-BUCB) on domains large enough for the lazy blocks of the CPU FinitePosterior,
// whose hallucinated (pending) rows now reach only the blocks whose UCB bound can still win a pick:
// the policy's picks must be exactly those of the eager update (PosteriorOptions::lazy = false,
// every pending row applied to all N candidates at once, as before), on several seeded domains,
// with random and lowest-index ties, with and without distinct batches, with IGP-UCB's γ̂, in
// mixed precision, and on 2 and 3 in-process ranks of the sharded posterior. Deterministic.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"
#include "test_support.hpp"

namespace {

struct Case {
  gpb::Domain domain = gpb::Domain::indices(1);
  gpb::Kernel kernel = gpb::Kernel::se(0.1);
  gpb::BetaSchedule beta;
  int runs = 2, q = 10, T = 60;
  double lambda = 1e-2;
  bool distinct = true, random_ties = true;
  gpb::Precision precision = gpb::Precision::Double;
};

/// n points in [0,1]^d from a fixed stream; every point twice (candidates j and j + n/2) when
/// `twins`, so that scores tie exactly.
gpb::Domain scattered(int n, int d, bool twins, std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 5);
  const int distinct = twins ? n / 2 : n;
  Eigen::MatrixXd rows(n, d);
  for (int i = 0; i < distinct; ++i)
    for (int k = 0; k < d; ++k) rows(i, k) = rng.uniform();
  if (twins) rows.bottomRows(n - distinct) = rows.topRows(distinct);
  return gpb::Domain::from_rows(rows);
}

std::unique_ptr<gpb::Context> cpu_context(const Case& c, const gpb::Communicator& comm,
                                          int threads = 0) {
  gpb::ContextOptions o;
  o.backend = gpb::Backend::Cpu;
  o.threads = threads;
  o.precision = c.precision;
  o.communicator = comm;
  return std::make_unique<gpb::Context>(o);
}

/// f per run: a seeded RKHS function of the case's kernel (noise-free rewards).
std::vector<Eigen::VectorXd> objectives(const gpb::Context& ctx, const Case& c) {
  const auto obj = gpb::make_rkhs_objective(c.kernel, 40, false);
  std::vector<Eigen::VectorXd> f;
  for (int r = 0; r < c.runs; ++r) f.push_back(obj->values(ctx, c.domain, 11, r));
  return f;
}

/// The policy's picks per run over T evaluations, on the given context.
std::vector<std::vector<int>> policy_picks(const gpb::Context& ctx, const Case& c,
                                           const std::vector<Eigen::VectorXd>& f) {
  gpb::PolicyEnv env = gpb::test::policy_env(ctx, c.domain, c.kernel, c.runs, c.T, 7, c.lambda);
  env.random_ties = c.random_ties;
  auto policy = gpb::make_batch_gp_ucb(env, c.beta, c.q, c.distinct);
  return gpb::test::play(*policy, c.runs, c.T,
                         [&](int r, int a) { return f[static_cast<std::size_t>(r)][a]; });
}

/// GP-BUCB written out on an eager posterior (lazy = false): the same widths, tie streams,
/// exclusions and hallucinations as the policy (src/policy/batch_gp_ucb.cpp, ucb_common.cpp).
std::vector<std::vector<int>> eager_picks(const gpb::Context& ctx, const Case& c,
                                          const std::vector<Eigen::VectorXd>& f) {
  gpb::PosteriorOptions o;
  o.noise_variance = c.lambda;
  o.capacity = c.T;
  o.lazy = false;
  gpb::FinitePosterior post(ctx, c.kernel, c.domain, c.runs, o);
  std::vector<gpb::Rng> ties;
  for (int r = 0; r < c.runs; ++r) {
    ties.emplace_back(7, static_cast<std::uint32_t>(r), gpb::stream_of(gpb::StreamId::TieBreak, 0));
  }
  std::vector<std::vector<int>> chosen(static_cast<std::size_t>(c.runs));
  std::vector<double> width(static_cast<std::size_t>(c.runs));
  for (int done = 0; done < c.T; done += c.q) {
    const int q = std::min(c.q, c.T - done);
    std::vector<std::vector<int>> excluded(static_cast<std::size_t>(c.runs));
    std::vector<double> y(static_cast<std::size_t>(c.runs) * q);
    for (int i = 0; i < q; ++i) {
      for (int r = 0; r < c.runs; ++r) {
        const double gamma = c.beta.uses_gamma() ? post.info_gain(r) : 0.0;
        width[static_cast<std::size_t>(r)] = c.beta.width(done + i + 1, post.size(), gamma);
      }
      const auto picks = post.ucb_argmax(width.data(), excluded, c.random_ties ? &ties : nullptr);
      std::vector<int> pick(static_cast<std::size_t>(c.runs));
      for (int r = 0; r < c.runs; ++r) {
        const int a = picks[static_cast<std::size_t>(r)].index;
        pick[static_cast<std::size_t>(r)] = a;
        chosen[static_cast<std::size_t>(r)].push_back(a);
        if (c.distinct) excluded[static_cast<std::size_t>(r)].push_back(a);
        y[static_cast<std::size_t>(r) * q + i] = f[static_cast<std::size_t>(r)][a];
      }
      post.add_pending(pick.data());
    }
    post.resolve_pending(y.data());
  }
  return chosen;
}

void expect_same_picks(const Case& c) {
  const auto ctx = cpu_context(c, gpb::Communicator());
  const auto f = objectives(*ctx, c);
  const auto want = eager_picks(*ctx, c, f);
  const auto got = policy_picks(*ctx, c, f);
  ASSERT_EQ(got.size(), want.size());
  for (int r = 0; r < c.runs; ++r) {
    EXPECT_EQ(got[static_cast<std::size_t>(r)], want[static_cast<std::size_t>(r)]) << "run " << r;
  }
}

Case grid_case() {  // N = 25 600 in 50 blocks (lazy rows need ≥ 32)
  Case c;
  c.domain = gpb::Domain::grid({0.0, 0.0}, {1.0, 1.0}, {160, 160});
  c.kernel = gpb::Kernel::se(0.08);
  return c;
}

TEST(BatchGpUcbLazy, PicksAsTheEagerUpdateOnAGrid) {
  expect_same_picks(grid_case());
}

TEST(BatchGpUcbLazy, PicksAsTheEagerUpdateOnScatteredPointsWithIgpUcb) {
  Case c;
  c.domain = scattered(20000, 3, false, 3);
  c.kernel = gpb::Kernel::matern(gpb::KernelType::Matern52, 0.25);
  c.beta.kind = gpb::BetaSchedule::Kind::IgpUcb;
  c.q = 16;
  c.T = 64;
  c.runs = 1;
  expect_same_picks(c);
}

TEST(BatchGpUcbLazy, PicksAsTheEagerUpdateWithExactTiesAndRepeatsAllowed) {
  Case c;
  c.domain = scattered(24000, 2, true, 4);  // every score ties two ways: ties drawn every pick
  c.kernel = gpb::Kernel::se(0.1);
  c.distinct = false;
  c.lambda = 1e-4;
  expect_same_picks(c);
}

TEST(BatchGpUcbLazy, PicksAsTheEagerUpdateWithLowestIndexTiesAndConstantBeta) {
  Case c = grid_case();
  c.random_ties = false;
  c.beta.kind = gpb::BetaSchedule::Kind::Constant;
  c.beta.value = 9.0;
  c.q = 25;
  c.T = 75;
  expect_same_picks(c);
}

TEST(BatchGpUcbLazy, PicksAsTheEagerUpdateWithANarrowWidth) {
  Case c = grid_case();  // √β = 0.1: picks follow μ, so the bounds hinge on the resolved rows' α
  c.beta.kind = gpb::BetaSchedule::Kind::Constant;
  c.beta.value = 0.01;
  c.lambda = 1e-3;
  expect_same_picks(c);
}

TEST(BatchGpUcbLazy, PicksAsTheEagerUpdateInMixedPrecision) {
  Case c = grid_case();
  c.precision = gpb::Precision::Mixed;  // pending rows stay eager there (posterior_state.hpp)
  expect_same_picks(c);
}

TEST(BatchGpUcbLazy, ShardedPicksAsOneRank) {
  Case c = grid_case();
  c.domain = gpb::Domain::grid({0.0, 0.0}, {1.0, 1.0}, {149, 151});  // N = 22 499: uneven slices
  c.T = 40;
  const auto one = cpu_context(c, gpb::Communicator());
  const auto f = objectives(*one, c);
  const auto want = policy_picks(*one, c, f);
  EXPECT_EQ(want, eager_picks(*one, c, f));
  for (const int k : {2, 3}) {
    const std::vector<gpb::Communicator> comms = gpb::Communicator::in_process(k, 60.0);
    std::vector<std::vector<std::vector<int>>> got(static_cast<std::size_t>(k));
    std::vector<std::string> errors(static_cast<std::size_t>(k));
    std::vector<std::thread> threads;
    for (int q = 0; q < k; ++q) {
      threads.emplace_back([&, q] {
        try {
          const auto ctx = cpu_context(c, comms[static_cast<std::size_t>(q)], 1);
          got[static_cast<std::size_t>(q)] = policy_picks(*ctx, c, f);
        } catch (const std::exception& e) {
          errors[static_cast<std::size_t>(q)] = e.what();
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (int q = 0; q < k; ++q) {
      EXPECT_EQ(errors[static_cast<std::size_t>(q)], "") << k << " ranks, rank " << q;
      EXPECT_EQ(got[static_cast<std::size_t>(q)], want) << k << " ranks, rank " << q;
    }
  }
}

}  // namespace
