// Noise models: names, validation messages, draw counts, and the sampled distributions.
//
// Statistical checks, all with fixed seeds. Each check below fails with probability <= 1e-7 for a
// correct sampler, and no test makes more than 5 of them, so a test falsely fails with
// probability <= 1e-6 (union bound). The bounds are distribution-free (no normal approximation):
//  - means and second moments: median of k = 129 block means (median-of-means). A block of b
//    values whose variance is at most V has a mean more than 2·sqrt(V/b) off with probability
//    <= 1/4 (Chebyshev); the median is that far off only if half the blocks are, probability
//    <= exp(-2k/16) = exp(-k/8) < 1e-7 (Hoeffding on the count of bad blocks).
//  - a bounded statistic in [0, B] with variance <= V: Bernstein, 2·exp(-n t²/(2V + 2Bt/3)) <=
//  1e-7.
//  - distribution: Kolmogorov–Smirnov distance against the exact CDF, with the DKW inequality
//    (Massart's constant): P(sup|F_n − F| > λ/sqrt(n)) <= 2·exp(−2λ²) = 1e-7.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"

namespace {

using Kind = gpb::NoiseModel::Kind;
constexpr double kDelta = 1e-7;  // false-failure probability of one check
constexpr int kBlocks = 129;     // ceil(8 ln(1/kDelta))
constexpr int kBlockSize = 30000;
constexpr double kPi = 3.14159265358979323846;

gpb::NoiseModel model(Kind kind, double scale, double nu = 3.0, double alpha = 3.0) {
  gpb::NoiseModel m;
  m.kind = kind;
  m.scale = scale;
  m.nu = nu;
  m.alpha = alpha;
  return m;
}

std::vector<double> draw(const gpb::NoiseModel& m, std::uint64_t seed, std::size_t n) {
  gpb::Rng rng(seed, 0, gpb::stream_of(gpb::StreamId::Noise));
  std::vector<double> x(n);
  for (auto& v : x) v = m.sample(rng);
  return x;
}

/// Median of kBlocks block means of g(x_i); see the file comment.
double median_of_means(const std::vector<double>& x, const std::function<double(double)>& g) {
  std::vector<double> means(kBlocks);
  for (int b = 0; b < kBlocks; ++b) {
    double sum = 0.0;
    for (int i = 0; i < kBlockSize; ++i) sum += g(x[static_cast<std::size_t>(b) * kBlockSize + i]);
    means[b] = sum / kBlockSize;
  }
  std::nth_element(means.begin(), means.begin() + kBlocks / 2, means.end());
  return means[kBlocks / 2];
}

/// Tolerance of median_of_means for a statistic of variance at most `var`.
double mom_tolerance(double var) {
  return 2.0 * std::sqrt(var / kBlockSize);
}

/// Checks E x = 0 (Var x = var2) and E x² = var2 (Var x² = var4 − var2², var4 = E x⁴).
void check_moments(const std::vector<double>& x, double var2, double var4) {
  const double mean = median_of_means(x, [](double v) { return v; });
  EXPECT_NEAR(mean, 0.0, mom_tolerance(var2));
  const double second = median_of_means(x, [](double v) { return v * v; });
  EXPECT_NEAR(second, var2, mom_tolerance(var4 - var2 * var2));
}

/// KS check of the first n samples against `cdf` (DKW bound, see the file comment).
void check_cdf(std::vector<double> x, std::size_t n, const std::function<double(double)>& cdf) {
  x.resize(n);
  std::sort(x.begin(), x.end());
  double d = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  const double lambda = std::sqrt(std::log(2.0 / kDelta) / 2.0);
  EXPECT_LT(d, lambda / std::sqrt(static_cast<double>(n)));
}

constexpr std::size_t kN = static_cast<std::size_t>(kBlocks) * kBlockSize;
constexpr std::size_t kKs = 200000;

TEST(Noise, NamesRoundTrip) {
  for (Kind k :
       {Kind::None, Kind::Gaussian, Kind::Uniform, Kind::StudentT, Kind::Pareto, Kind::Laplace}) {
    EXPECT_EQ(gpb::parse_noise_kind(gpb::noise_kind_name(k)), k);
  }
  EXPECT_STREQ(gpb::noise_kind_name(Kind::StudentT), "student_t");
  try {
    gpb::parse_noise_kind("cauchy");
    FAIL() << "expected InvalidArgument";
  } catch (const gpb::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'cauchy'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("none, gaussian, uniform, student_t, pareto, laplace"),
              std::string::npos);
  }
}

TEST(Noise, Describe) {
  EXPECT_EQ(model(Kind::None, 0).describe(), "none");
  EXPECT_EQ(model(Kind::Gaussian, 0.5).describe(), "gaussian(sd=0.5)");
  EXPECT_EQ(model(Kind::Uniform, 1).describe(), "uniform(R=1)");
  EXPECT_EQ(model(Kind::StudentT, 2, 3).describe(), "student_t(scale=2, nu=3)");
  EXPECT_EQ(model(Kind::Pareto, 1, 3, 4).describe(), "pareto(scale=1, alpha=4)");
  EXPECT_EQ(model(Kind::Laplace, 1.5).describe(), "laplace(scale=1.5)");
}

std::string validation_error(const gpb::NoiseModel& m) {
  try {
    m.validate();
  } catch (const gpb::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(Noise, ValidationNamesField) {
  EXPECT_EQ(validation_error(model(Kind::None, 0)), "");
  EXPECT_EQ(validation_error(model(Kind::Gaussian, 1)), "");
  EXPECT_EQ(validation_error(model(Kind::StudentT, 1, 0.5)), "");
  EXPECT_EQ(validation_error(model(Kind::Pareto, 1, 3, 1.5)), "");
  EXPECT_EQ(validation_error(model(Kind::Gaussian, 0)).rfind("noise.sd must be > 0", 0), 0u);
  EXPECT_EQ(validation_error(model(Kind::Gaussian, -1)).rfind("noise.sd must be finite", 0), 0u);
  EXPECT_EQ(validation_error(model(Kind::Uniform, 0)).rfind("noise.R must be > 0", 0), 0u);
  EXPECT_EQ(validation_error(model(Kind::Laplace, NAN)).rfind("noise.scale", 0), 0u);
  EXPECT_EQ(validation_error(model(Kind::None, -1)).rfind("noise.scale", 0), 0u);
  EXPECT_EQ(validation_error(model(Kind::StudentT, 1, 0)).rfind("noise.nu must be", 0), 0u);
  EXPECT_EQ(validation_error(model(Kind::StudentT, 0, 3)).rfind("noise.scale must be > 0", 0), 0u);
  EXPECT_EQ(validation_error(model(Kind::Pareto, 1, 3, 1)).rfind("noise.alpha must be", 0), 0u);
  EXPECT_EQ(validation_error(model(Kind::Pareto, 1, 3, INFINITY)).rfind("noise.alpha", 0), 0u);
}

TEST(Noise, DrawCountDependsOnlyOnKind) {
  const std::pair<Kind, std::uint64_t> expected[] = {{Kind::None, 0},     {Kind::Gaussian, 2},
                                                     {Kind::Uniform, 1},  {Kind::Laplace, 1},
                                                     {Kind::StudentT, 3}, {Kind::Pareto, 1}};
  for (const auto& [kind, count] : expected) {
    // Student-t with nu = 0.3 rejects often inside its Gamma sampler; the count stays fixed.
    const gpb::NoiseModel m = model(kind, 1.0, 0.3, 2.0);
    gpb::Rng rng(7, 1, 2);
    for (int i = 0; i < 1000; ++i) {
      const std::uint64_t before = rng.position();
      const double v = m.sample(rng);
      EXPECT_TRUE(std::isfinite(v));
      ASSERT_EQ(rng.position() - before, count) << gpb::noise_kind_name(kind);
    }
  }
}

TEST(Noise, SameRngSameDraws) {
  const gpb::NoiseModel m = model(Kind::StudentT, 1.0, 3.0);
  EXPECT_EQ(draw(m, 11, 100), draw(m, 11, 100));
  EXPECT_NE(draw(m, 11, 100), draw(m, 12, 100));
}

TEST(Noise, GaussianMomentsAndCdf) {
  const double sd = 0.7;
  const auto x = draw(model(Kind::Gaussian, sd), 1, kN);
  const double v = sd * sd;
  check_moments(x, v, 3 * v * v);
  check_cdf(x, kKs, [sd](double t) { return 0.5 * std::erfc(-t / (sd * std::sqrt(2.0))); });
}

TEST(Noise, UniformMomentsAndCdf) {
  const double r = 2.0;
  const auto x = draw(model(Kind::Uniform, r), 2, kN);
  check_moments(x, r * r / 3, std::pow(r, 4) / 5);
  check_cdf(x, kKs, [r](double t) { return std::clamp((t + r) / (2 * r), 0.0, 1.0); });
  EXPECT_LE(*std::max_element(x.begin(), x.end()), r);
  EXPECT_GE(*std::min_element(x.begin(), x.end()), -r);
}

TEST(Noise, LaplaceMomentsAndCdf) {
  const double b = 1.3;
  const auto x = draw(model(Kind::Laplace, b), 3, kN);
  check_moments(x, 2 * b * b, 24 * std::pow(b, 4));
  check_cdf(x, kKs,
            [b](double t) { return t < 0 ? 0.5 * std::exp(t / b) : 1.0 - 0.5 * std::exp(-t / b); });
}

TEST(Noise, StudentTMomentsAndCdf) {
  // nu = 5: variance nu/(nu−2)·s², fourth moment 3nu²/((nu−2)(nu−4))·s⁴ = 25 s⁴.
  const double s = 0.8, nu = 5.0;
  const auto x = draw(model(Kind::StudentT, s, nu), 4, kN);
  check_moments(x, nu / (nu - 2) * s * s, 25 * std::pow(s, 4));
  // CDF of t_5: 1/2 + (θ + sinθ (cosθ + (2/3)cos³θ))/π with θ = atan(t/√5).
  check_cdf(x, kKs, [s](double t) {
    const double th = std::atan(t / s / std::sqrt(5.0));
    const double c = std::cos(th);
    return 0.5 + (th + std::sin(th) * (c + 2.0 / 3.0 * c * c * c)) / kPi;
  });
}

TEST(Noise, StudentTSmallDofCdf) {
  // nu = 1 (Cauchy; Gamma shape 1/2 < 1 takes the u^(1/shape) boost) and nu = 3 (specs/ldp-bo.md).
  const auto cauchy = draw(model(Kind::StudentT, 1.0, 1.0), 5, kKs);
  check_cdf(cauchy, kKs, [](double t) { return 0.5 + std::atan(t) / kPi; });
  const auto t3 = draw(model(Kind::StudentT, 2.0, 3.0), 6, kKs);
  check_cdf(t3, kKs, [](double t) {
    const double th = std::atan(t / 2.0 / std::sqrt(3.0));
    return 0.5 + (th + std::sin(th) * std::cos(th)) / kPi;
  });
}

TEST(Noise, ParetoMomentsAndCdf) {
  // alpha = 4: variance alpha/((alpha−1)²(alpha−2))·s² = 2/9·s², but E x⁴ = ∞, so the second
  // moment is checked truncated at P <= c (bounded, Bernstein); the KS check covers the tail.
  const double s = 1.5, a = 4.0, m = a / (a - 1), c = 10.0;
  const auto x = draw(model(Kind::Pareto, s, 3.0, a), 7, kN);
  EXPECT_NEAR(median_of_means(x, [](double v) { return v; }), 0.0,
              mom_tolerance(a / ((a - 1) * (a - 1) * (a - 2)) * s * s));
  // E[(P − m)² 1{P <= c}] = 4[(1 − c⁻²)/2 − 2m(1 − c⁻³)/3 + m²(1 − c⁻⁴)/4]; → 2/9 as c → ∞.
  const double trunc = 4 * ((1 - std::pow(c, -2)) / 2 - 2 * m * (1 - std::pow(c, -3)) / 3 +
                            m * m * (1 - std::pow(c, -4)) / 4);
  EXPECT_NEAR(4 * (0.5 - 2 * m / 3 + m * m / 4), 2.0 / 9.0, 1e-15);
  double sum = 0.0;
  for (double v : x) sum += (v <= s * (c - m)) ? v * v : 0.0;
  // Y in [0, B], B = s²(c − m)²; Var Y <= E Y² <= s⁴·∫_1^c p⁴·4p⁻⁵ dp = 4 s⁴ ln c.
  const double n = static_cast<double>(x.size()), big = s * s * (c - m) * (c - m);
  const double var = 4 * std::pow(s, 4) * std::log(c), l = std::log(2.0 / kDelta);
  const double tol =
      (2 * big * l / 3 + std::sqrt(std::pow(2 * big * l / 3, 2) + 8 * n * var * l)) / (2 * n);
  EXPECT_NEAR(sum / n, s * s * trunc, tol);
  check_cdf(x, kKs, [s, m, a](double t) {
    const double p = t / s + m;
    return p <= 1.0 ? 0.0 : 1.0 - std::pow(p, -a);
  });
  EXPECT_GE(*std::min_element(x.begin(), x.end()), s * (1 - m));
}

TEST(Noise, NoneIsZero) {
  gpb::Rng rng(1, 0, 2);
  EXPECT_EQ(model(Kind::None, 0).sample(rng), 0.0);
}

}  // namespace
