// Philox streams: reproducibility, independence from the number of runs, and basic statistics.
// Statistical checks use fixed seeds; each states the probability that a correct generator fails
// it (the draws are deterministic, so a passing test keeps passing).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "gpbandit/rng.hpp"

namespace {

using gpb::Rng;

TEST(Rng, Reproducible) {
  Rng a(42, 3, gpb::stream_of(gpb::StreamId::Noise)),
      b(42, 3, gpb::stream_of(gpb::StreamId::Noise));
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.next_u64(), b.next_u64());
  EXPECT_EQ(a.position(), 1000u);
  // Starting at an offset gives the same draws as skipping ahead.
  Rng c(42, 3, 2), d(42, 3, 2, 17);
  for (int i = 0; i < 17; ++i) c.next_u64();
  for (int i = 0; i < 50; ++i) ASSERT_EQ(c.next_u64(), d.next_u64());
}

TEST(Rng, RunDrawsDoNotDependOnNumberOfRuns) {
  // An experiment with 64 runs draws round-robin across runs; run 5 alone must see the same draws.
  const std::uint64_t seed = 2024;
  const std::uint32_t stream = gpb::stream_of(gpb::StreamId::TieBreak, 3);
  std::vector<Rng> many;
  for (std::uint32_t r = 0; r < 64; ++r) many.emplace_back(seed, r, stream);
  std::vector<double> from_many;
  for (int i = 0; i < 100; ++i) {
    for (std::uint32_t r = 0; r < 64; ++r) {
      const double u = many[r].uniform();
      if (r == 5) from_many.push_back(u);
    }
  }
  Rng alone(seed, 5, stream);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(alone.uniform(), from_many[static_cast<std::size_t>(i)]);
  EXPECT_EQ(gpb::detail::philox_u64(seed, 5, stream, 7), Rng(seed, 5, stream, 7).next_u64());
}

double correlation(Rng a, Rng b, int n) {
  double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
  for (int i = 0; i < n; ++i) {
    const double x = a.uniform(), y = b.uniform();
    sa += x;
    sb += y;
    saa += x * x;
    sbb += y * y;
    sab += x * y;
  }
  const double cov = sab / n - (sa / n) * (sb / n);
  return cov / std::sqrt((saa / n - (sa / n) * (sa / n)) * (sbb / n - (sb / n) * (sb / n)));
}

TEST(Rng, StreamsRunsAndSeedsUncorrelated) {
  // Under independence the sample correlation of n pairs is ≈ N(0, 1/n); with n = 100000 the bound
  // 5/√n fails with probability 5.7e-7 per check (< 3e-6 for the five checks together).
  const int n = 100000;
  const double bound = 5.0 / std::sqrt(static_cast<double>(n));
  EXPECT_LT(std::abs(correlation(Rng(1, 0, 2), Rng(1, 1, 2), n)), bound);  // runs
  EXPECT_LT(std::abs(correlation(Rng(1, 0, 1), Rng(1, 0, 2), n)), bound);  // streams
  EXPECT_LT(std::abs(correlation(Rng(1, 0, 1), Rng(2, 0, 1), n)), bound);  // seeds
  EXPECT_LT(std::abs(correlation(Rng(1, 0, 4), Rng(1, 0, 4 + gpb::kPolicyStride), n)), bound);
  EXPECT_LT(std::abs(correlation(Rng(7, 2, 5), Rng(7, 2, 5, 1), n)), bound);  // lag 1
  Rng a(1, 0, 1), b(1, 1, 1), c(1, 0, 2);
  int equal = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = a.next_u64();
    equal += (x == b.next_u64()) + (x == c.next_u64());
  }
  EXPECT_EQ(equal, 0);
}

TEST(Rng, UniformStrictlyInsideUnitInterval) {
  EXPECT_GT(gpb::detail::u64_to_open01(0), 0.0);
  EXPECT_LT(gpb::detail::u64_to_open01(~std::uint64_t{0}), 1.0);
  Rng rng(5, 0, 1);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  // Mean of n uniforms: sd = √(1/12n); a 5-sd bound fails with probability 5.7e-7.
  EXPECT_NEAR(sum / n, 0.5, 5.0 * std::sqrt(1.0 / (12.0 * n)));
  Rng r2(5, 0, 1);
  for (int i = 0; i < 1000; ++i) {
    const double u = r2.uniform(-2.0, 3.0);
    ASSERT_GT(u, -2.0);
    ASSERT_LT(u, 3.0);
  }
  Rng r3(5, 0, 3);
  for (int i = 0; i < 1000; ++i) ASSERT_LT(r3.below(7), 7u);
}

TEST(Rng, NormalMeanAndVariance) {
  Rng rng(11, 4, 2);
  const int n = 200000;
  double s = 0, ss = 0, s4 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal();
    ASSERT_TRUE(std::isfinite(z));
    s += z;
    ss += z * z;
    s4 += z * z * z * z;
  }
  EXPECT_EQ(rng.position(), 2u * n);  // two draws per normal
  const double mean = s / n, var = ss / n - mean * mean;
  // sd(mean) = 1/√n, sd(var) ≈ √(2/n), sd(4th moment) ≈ √(96/n); each 5-sd bound fails with
  // probability ≈ 5.7e-7 (< 2e-6 together).
  EXPECT_NEAR(mean, 0.0, 5.0 / std::sqrt(n));
  EXPECT_NEAR(var, 1.0, 5.0 * std::sqrt(2.0 / n));
  EXPECT_NEAR(s4 / n, 3.0, 5.0 * std::sqrt(96.0 / n));
}

}  // namespace
