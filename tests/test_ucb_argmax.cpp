// Fused UCB argmax: scores, exclusions, tie-breaking, errors, thread independence.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"

namespace {

using gpb::Context;
using gpb::Rng;

TEST(UcbArgmax, PicksMaximalScore) {
  const Context ctx;
  const std::vector<double> mu{0.0, 1.0, 0.5, 0.9}, var{4.0, 0.0, 1.0, -3.0};  // −3 clamps to 0
  auto c = gpb::ucb_argmax(ctx, mu.data(), var.data(), 4, 1.0, nullptr, nullptr);
  EXPECT_EQ(c.index, 0);  // 0 + 1·2 = 2
  EXPECT_EQ(c.score, 2.0);
  EXPECT_EQ(c.ties, 1);
  c = gpb::ucb_argmax(ctx, mu.data(), var.data(), 4, 0.1, nullptr, nullptr);
  EXPECT_EQ(c.index, 1);
  EXPECT_EQ(c.score, 1.0);
}

TEST(UcbArgmax, Exclusions) {
  const Context ctx;
  const std::vector<double> mu{3.0, 1.0, 2.0, 0.0}, var(4, 0.0);
  std::vector<std::uint8_t> ex{1, 0, 0, 0};
  EXPECT_EQ(gpb::ucb_argmax(ctx, mu.data(), var.data(), 4, 1.0, ex.data(), nullptr).index, 2);
  ex = {1, 0, 1, 0};
  EXPECT_EQ(gpb::ucb_argmax(ctx, mu.data(), var.data(), 4, 1.0, ex.data(), nullptr).index, 1);
  ex = {1, 1, 1, 1};
  EXPECT_THROW(gpb::ucb_argmax(ctx, mu.data(), var.data(), 4, 1.0, ex.data(), nullptr),
               gpb::InvalidArgument);
  // A NaN at an excluded candidate is ignored; one at a live candidate is an error.
  std::vector<double> nan_mu = mu;
  nan_mu[0] = std::nan("");
  ex = {1, 0, 0, 0};
  EXPECT_EQ(gpb::ucb_argmax(ctx, nan_mu.data(), var.data(), 4, 1.0, ex.data(), nullptr).index, 2);
  EXPECT_THROW(gpb::ucb_argmax(ctx, nan_mu.data(), var.data(), 4, 1.0, nullptr, nullptr),
               gpb::InvalidArgument);
  std::vector<double> nan_var = var;
  nan_var[3] = std::nan("");
  EXPECT_THROW(gpb::ucb_argmax(ctx, mu.data(), nan_var.data(), 4, 1.0, nullptr, nullptr),
               gpb::InvalidArgument);
  EXPECT_THROW(gpb::ucb_argmax(ctx, mu.data(), var.data(), 0, 1.0, nullptr, nullptr),
               gpb::InvalidArgument);
}

TEST(UcbArgmax, TiesLowestIndexWithoutTiebreak) {
  const Context ctx;
  std::vector<double> mu(20, 0.0), var(20, 1.0);
  for (int j : {3, 7, 11, 19}) mu[j] = 1.0;
  const auto c = gpb::ucb_argmax(ctx, mu.data(), var.data(), 20, 1.0, nullptr, nullptr);
  EXPECT_EQ(c.index, 3);
  EXPECT_EQ(c.ties, 4);
  EXPECT_EQ(c.score, 2.0);
}

TEST(UcbArgmax, TiesUniformWithSeededTiebreak) {
  const Context ctx;
  const int tied[4] = {3, 7, 11, 19};
  std::vector<double> mu(20, 0.0), var(20, 1.0);
  for (int j : tied) mu[j] = 1.0;
  std::vector<std::uint8_t> ex(20, 0);
  ex[5] = 1;  // exclusions do not disturb the tie order
  Rng rng(123, 0, gpb::stream_of(gpb::StreamId::TieBreak));
  const int draws = 40000;
  int counts[20] = {};
  for (int i = 0; i < draws; ++i) {
    const auto c = gpb::ucb_argmax(ctx, mu.data(), var.data(), 20, 1.0, ex.data(), &rng);
    ASSERT_EQ(c.ties, 4);
    ++counts[c.index];
  }
  EXPECT_EQ(rng.position(), static_cast<std::uint64_t>(draws));  // one draw per tied argmax
  // Pearson χ² with 3 degrees of freedom; P(χ²₃ > 35) = 1.2e-7 is the false-failure probability.
  double chi2 = 0;
  int total = 0;
  for (int j : tied) {
    const double e = draws / 4.0;
    chi2 += (counts[j] - e) * (counts[j] - e) / e;
    total += counts[j];
  }
  EXPECT_EQ(total, draws);  // only tied candidates are ever chosen
  EXPECT_LT(chi2, 35.0);
  // No draw is consumed without a tie.
  mu[7] = 1.5;
  Rng quiet(1, 0, 4);
  EXPECT_EQ(gpb::ucb_argmax(ctx, mu.data(), var.data(), 20, 1.0, nullptr, &quiet).index, 7);
  EXPECT_EQ(quiet.position(), 0u);
}

TEST(UcbArgmax, SameAnswerForAnyThreadCount) {
  const int n = 200000;
  std::vector<double> mu(n), var(n);
  Rng rng(8, 0, 1);
  for (int j = 0; j < n; ++j) {
    mu[j] = std::floor(rng.uniform() * 50.0);  // many exact ties, across thread boundaries
    var[j] = 0.0;
  }
  gpb::ContextOptions one, four;
  one.threads = 1;
  four.threads = 4;
  const Context c1(one), c4(four);
  Rng t1(9, 0, 4), t4(9, 0, 4);
  for (int k = 0; k < 5; ++k) {
    const auto a = gpb::ucb_argmax(c1, mu.data(), var.data(), n, 1.0, nullptr, &t1);
    const auto b = gpb::ucb_argmax(c4, mu.data(), var.data(), n, 1.0, nullptr, &t4);
    EXPECT_EQ(a.index, b.index);
    EXPECT_EQ(a.ties, b.ties);
    EXPECT_GT(a.ties, 1000);
  }
}

}  // namespace
