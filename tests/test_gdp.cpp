// Tests for Gaussian-DP accounting (specs/dp-gibo.md §5, §9.1, §9.3): composition, the conversion
// to (ε, δ) against the spec's independently derived values, the inverse ε(δ), the ledger, the
// DP-GIBO noise-std formula, and the Gaussian sampler on the privacy noise source.
//
// The sampler tests use a fixed seeded source, so they are deterministic; each states the
// probability, over the choice of seed, that a correct sampler would fail it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "gpbandit/dpgibo/algorithms.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/privacy/gdp.hpp"
#include "gpbandit/privacy/noise_source.hpp"

namespace gpb {
namespace {
using namespace privacy;

TEST(Gdp, CompositionIsRootSumOfSquares) {
  EXPECT_NEAR(gdp_compose({3.0, 4.0}), 5.0, 1e-15);
  EXPECT_DOUBLE_EQ(gdp_compose({}), 0.0);
  // T steps of μ/√T compose to μ (spec §9.3).
  for (int T : {1, 10, 25, 150}) {
    const std::vector<double> steps(T, 0.7 / std::sqrt(static_cast<double>(T)));
    EXPECT_NEAR(gdp_compose(steps), 0.7, 1e-12) << "T = " << T;
  }
  EXPECT_TRUE(std::isinf(gdp_compose({1.0, std::numeric_limits<double>::infinity()})));
  EXPECT_THROW(gdp_compose({-1.0}), InvalidArgument);
}

TEST(Gdp, DeltaMatchesKnownValues) {
  // specs/dp-gibo.md §5, values derived independently from Dong-Roth-Su Cor. 2.13.
  EXPECT_NEAR(gdp_delta(1.0, 1.0), 0.1269, 5e-5);
  EXPECT_NEAR(gdp_delta(1.0, 2.0), 0.02092, 5e-6);
  EXPECT_NEAR(gdp_delta(0.5, 1.0), 0.006830, 5e-7);
  EXPECT_NEAR(gdp_delta(2.0, 4.0), 0.08495, 5e-6);
  // ε = 0: δ = Φ(μ/2) − Φ(−μ/2) = 2Φ(μ/2) − 1.
  EXPECT_NEAR(gdp_delta(1.0, 0.0), 2 * normal_cdf(0.5) - 1, 1e-15);
}

TEST(Gdp, DeltaIsDecreasingAndStableForLargeEpsilon) {
  double prev = 1.0;
  for (double e = 0; e <= 60; e += 0.5) {
    const double d = gdp_delta(1.0, e);
    ASSERT_TRUE(std::isfinite(d)) << e;
    ASSERT_GE(d, 0.0);
    ASSERT_LE(d, prev + 1e-15) << e;
    prev = d;
  }
  // Far tail: still finite and tiny (the naive e^ε·Φ would overflow to inf·0 = NaN at ε ≈ 710).
  EXPECT_EQ(gdp_delta(0.1, 800.0), 0.0);
  EXPECT_TRUE(std::isfinite(log_normal_cdf(-100.0)));
  EXPECT_NEAR(log_normal_cdf(-40.0), -804.608442013754, 1e-6);  // log Φ(−40) (mpmath value)
}

TEST(Gdp, EpsilonInvertsDelta) {
  for (double mu : {0.2, 0.5, 1.0, 2.0}) {
    for (double delta : {1e-3, 1e-5, 1e-9}) {
      const double e = gdp_epsilon(mu, delta);
      EXPECT_NEAR(gdp_delta(mu, e), delta, delta * 1e-6) << mu << " " << delta;
    }
  }
  EXPECT_NEAR(gdp_epsilon(1.0, 0.1269), 1.0, 1e-3);
  EXPECT_DOUBLE_EQ(gdp_epsilon(0.01, 0.5), 0.0);  // δ(0) ≤ 0.5 already
  EXPECT_THROW(gdp_epsilon(0.0, 1e-5), InvalidArgument);
  EXPECT_THROW(gdp_epsilon(1.0, 0.0), InvalidArgument);
  EXPECT_THROW(gdp_delta(-1.0, 1.0), InvalidArgument);
  EXPECT_THROW(gdp_delta(1.0, -1.0), InvalidArgument);
}

TEST(Gdp, LedgerSpendsMuTimesRootFraction) {
  const GdpLedger led(1.0, 25);
  EXPECT_NEAR(led.per_step_mu(), 0.2, 1e-15);
  EXPECT_DOUBLE_EQ(led.spent(0), 0.0);
  EXPECT_NEAR(led.spent(25), 1.0, 1e-12);
  EXPECT_NEAR(led.spent(16), 0.8, 1e-12);  // μ√(t/T)
  EXPECT_THROW(led.spent(26), InvalidArgument);
  EXPECT_THROW(GdpLedger(0.0, 5), InvalidArgument);
  EXPECT_THROW(GdpLedger(1.0, 0), InvalidArgument);
}

TEST(Gdp, GaussianMechanismStd) {
  EXPECT_DOUBLE_EQ(gaussian_mechanism_std(2.0, 0.5), 4.0);
  EXPECT_THROW(gaussian_mechanism_std(0.0, 1.0), InvalidArgument);
  EXPECT_THROW(gaussian_mechanism_std(1.0, 0.0), InvalidArgument);
}

TEST(Gdp, DpGiboNoiseStdMatchesSpecValues) {
  // ν = 2B√T/(nμ), specs/dp-gibo.md §9.1.
  EXPECT_NEAR(dpgibo::dp_noise_std(3, 25, 1000, 1.0), 0.0300, 5e-5);
  EXPECT_NEAR(dpgibo::dp_noise_std(3, 25, 700, 1.0), 0.0429, 5e-5);
  EXPECT_NEAR(dpgibo::dp_noise_std(1, 45, 1000, 0.1), 0.1342, 5e-5);
  EXPECT_NEAR(dpgibo::dp_noise_std(1, 150, 50, 0.5), 0.9798, 5e-5);
  EXPECT_NEAR(dpgibo::dp_noise_std(1, 150, 50, 2.0), 0.2449, 5e-5);
  EXPECT_NEAR(dpgibo::dp_noise_std(1, 100, 100, 1.0), 0.2000, 5e-5);
  EXPECT_NEAR(dpgibo::dp_noise_std(1, 10, 9000, 1.0), 0.000703, 5e-7);
  EXPECT_EQ(dpgibo::dp_noise_std(1, 10, 10, std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_THROW(dpgibo::dp_noise_std(0, 10, 10, 1), InvalidArgument);
  EXPECT_THROW(dpgibo::dp_noise_std(1, 0, 10, 1), InvalidArgument);
  EXPECT_THROW(dpgibo::dp_noise_std(1, 10, 0, 1), InvalidArgument);
  EXPECT_THROW(dpgibo::dp_noise_std(1, 10, 10, 0), InvalidArgument);
}

TEST(GaussianNoise, MomentsOfSeededDraws) {
  // 2e5 draws of N(0, 2²). Mean: sd of the sample mean 2/√2e5 = 0.00447; bound 0.025 is 5.6 sd
  // (false-failure ≈ 2e-8). Variance: sd of the sample variance ≈ 4·√(2/2e5) = 0.0126; bound 0.07
  // is 5.5 sd (≈ 4e-8). Fourth moment 3σ⁴ = 48: sd √((105−9)·2⁸/2e5) ≈ 0.35; bound 2.5 (≈ 7 sd).
  auto src = make_seeded_source(42, 0, 1);
  const int n = 200000;
  double s = 0, s2 = 0, s4 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = gaussian_noise(2.0, *src);
    s += x;
    s2 += x * x;
    s4 += x * x * x * x;
  }
  EXPECT_NEAR(s / n, 0.0, 0.025);
  EXPECT_NEAR(s2 / n, 4.0, 0.07);
  EXPECT_NEAR(s4 / n, 48.0, 2.5);
}

TEST(GaussianNoise, ZeroStdDrawsNothingAndBadStdThrows) {
  auto a = make_seeded_source(1, 0, 1), b = make_seeded_source(1, 0, 1);
  EXPECT_EQ(gaussian_noise(0.0, *a), 0.0);
  EXPECT_EQ(a->next_u64(), b->next_u64());  // nothing consumed
  EXPECT_THROW(gaussian_noise(-1.0, *a), InvalidArgument);
  EXPECT_THROW(gaussian_noise(std::numeric_limits<double>::quiet_NaN(), *a), InvalidArgument);
}

}  // namespace
}  // namespace gpb
