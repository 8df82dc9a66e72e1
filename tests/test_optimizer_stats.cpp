// Statistical tests of the Optimizer's model and rules (fixed seeds; each states its false-failure
// probability): Thompson draws have the posterior's mean and covariance (exact prior) or mean
// (random features); TS and EI beat random search on the demo problem; fitted ARD lengthscales
// recover those of GP data.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "optimizer/thompson.hpp"
#include "test_support.hpp"

namespace {

gpb::Context cpu() {
  return gpb::test::make_cpu_context(1);
}

/// A posterior over 8 points of [0, 1] with three observations and one pending row, and its
/// dense mean and covariance (the pending row shrinks the covariance, not the mean).
struct SmallPosterior {
  gpb::Context ctx = cpu();
  gpb::Kernel k = gpb::Kernel::se(0.3, 1.5);
  gpb::Domain dom = gpb::Domain::grid({0}, {1}, {8});
  double lambda = 0.05;
  gpb::FinitePosterior post{ctx, k, dom, 1, {lambda, 8}};
  Eigen::VectorXd mean;
  Eigen::MatrixXd cov;
  SmallPosterior() {
    const std::vector<int> x = {1, 5, 6};
    const std::vector<double> y = {0.8, -0.5, 0.1};
    for (std::size_t i = 0; i < x.size(); ++i) post.observe(&x[i], &y[i]);
    const int pending = 3;
    post.add_pending(&pending);
    Eigen::MatrixXd X(1, 4);
    X << dom.points()(0, 1), dom.points()(0, 5), dom.points()(0, 6), dom.points()(0, 3);
    Eigen::MatrixXd K = gpb::kernel_matrix(ctx, k, X, X);
    K.diagonal().array() += lambda;
    const Eigen::MatrixXd Ks = gpb::kernel_matrix(ctx, k, X, dom.points());
    const Eigen::LLT<Eigen::MatrixXd> llt(K);
    const Eigen::LLT<Eigen::MatrixXd> llt3(K.topLeftCorner(3, 3));
    mean = Ks.topRows(3).transpose() * llt3.solve(Eigen::Vector3d(0.8, -0.5, 0.1));
    cov = gpb::kernel_matrix(ctx, k, dom.points(), dom.points()) - Ks.transpose() * llt.solve(Ks);
  }
};

/// Checks the sample mean (and, with the exact prior, the covariance) of M draws against the
/// posterior. With the exact prior the draws are Gaussian with the posterior's moments: a sample
/// mean has sd √(C_jj/M) and a covariance entry sd √((C_ii C_jj + C_ij²)/M); a 6-sd miss of any of
/// the 8 + 36 entries has probability < 44 × 2e−9 < 1e−7 (normal tails; M = 20000 makes the CLT
/// error negligible). Random features change the covariance (approximately) but not the mean; the
/// mean's sd is then taken from the sample (M = 4000, 256 features), same 6-sd rule.
void check_draws(bool exact) {
  SmallPosterior p;
  gpb::detail::ThompsonSampler ts;
  const int M = exact ? 20000 : 4000;
  gpb::Rng rng(9, 0, 1);
  Eigen::MatrixXd F(8, M);
  for (int m = 0; m < M; ++m) {
    F.col(m) = ts.draw(p.ctx, p.k, p.post, p.dom.points(), 8, exact ? 8 : 1, 256, rng);
  }
  const Eigen::VectorXd mu = F.rowwise().mean();
  const Eigen::MatrixXd C = F.colwise() - mu;
  const Eigen::MatrixXd cov = C * C.transpose() / (M - 1);
  const Eigen::MatrixXd& ref = exact ? p.cov : cov;
  for (int j = 0; j < 8; ++j) {
    EXPECT_NEAR(mu[j], p.mean[j], 6 * std::sqrt(ref(j, j) / M)) << "point " << j;
    if (!exact) continue;
    for (int i = 0; i <= j; ++i) {
      const double sd = std::sqrt((ref(i, i) * ref(j, j) + ref(i, j) * ref(i, j)) / M);
      EXPECT_NEAR(cov(i, j), ref(i, j), 6 * sd) << "entry " << i << ", " << j;
    }
  }
}

TEST(ThompsonDraws, ExactPriorGivesThePosteriorMeanAndCovariance) {
  check_draws(true);
}

TEST(ThompsonDraws, RandomFeaturesGiveThePosteriorMean) {
  check_draws(false);
}

/// An acquisition rule under test.
struct Rule {
  const char* name;
  gpb::AcquisitionKind kind;
  int exact_max = 4096;  ///< TS: the largest point set drawn exactly
  int features = 1024;   ///< TS: random Fourier features beyond it
};
const Rule kRandom{"random", gpb::AcquisitionKind::Random};
const Rule kRules[] = {{"ts", gpb::AcquisitionKind::Thompson},
                       {"ts-rff", gpb::AcquisitionKind::Thompson, 100, 256},  // N = 1600 > 100
                       {"ei", gpb::AcquisitionKind::ExpectedImprovement}};

/// Cumulative regret over T asks of `rule` on run r of the demo problem (examples/demo.json:
/// 40×40 grid, SE(0.2) RKHS function with 100 support points, Gaussian noise sd 0.1, λ = 0.01).
double demo_regret(const Rule& rule, int r, int T) {
  const gpb::Context ctx = cpu();
  const gpb::Kernel k = gpb::Kernel::se(0.2);
  const gpb::Domain dom = gpb::Domain::grid({0, 0}, {1, 1}, {40, 40});
  const Eigen::VectorXd f = gpb::make_rkhs_objective(k, 100, false)->values(ctx, dom, 100, r);
  gpb::OptimizerOptions o;
  o.domain = gpb::DomainSpec::grid({0, 0}, {1, 1}, {40, 40});
  o.kernel = k;
  o.noise_variance = 0.01;
  o.seed = 1000 + static_cast<std::uint64_t>(r);
  o.context.backend = gpb::Backend::Cpu;
  o.context.threads = 1;
  o.acquisition.kind = rule.kind;
  o.acquisition.exact_max = rule.exact_max;
  o.acquisition.features = rule.features;
  gpb::Optimizer opt(o);
  gpb::Rng noise(100, static_cast<std::uint32_t>(r), 2);
  double regret = 0;
  for (int t = 0; t < T; ++t) {
    const gpb::AskResult a = opt.ask();
    const int j = a.indices[0];
    regret += f.maxCoeff() - f[j];
    opt.tell(a.indices, {f[j] + 0.1 * noise.normal()});
  }
  return regret;
}

/// Wins (less cumulative regret than random search on the same run) of each rule over runs
/// [first, first + runs), T asks each; prints each rule's mean regret and worst ratio to random.
std::vector<int> wins_over_random(int first, int runs, int T) {
  std::vector<double> random;
  for (int r = first; r < first + runs; ++r) random.push_back(demo_regret(kRandom, r, T));
  std::vector<int> wins;
  for (const Rule& rule : kRules) {
    int won = 0;
    double ours = 0, worst = 0;
    for (int r = first; r < first + runs; ++r) {
      const double a = demo_regret(rule, r, T), b = random[static_cast<std::size_t>(r - first)];
      won += a < b ? 1 : 0;
      ours += a;
      worst = std::max(worst, a / b);
    }
    wins.push_back(won);
    std::printf("%-7s wins %d of %d, mean regret %.1f (random %.1f), worst ratio %.2f\n", rule.name,
                won, runs, ours / runs, std::accumulate(random.begin(), random.end(), 0.0) / runs,
                worst);
  }
  return wins;
}

TEST(AcquisitionRegret, ThompsonAndEiBeatRandomSearchOnTheDemoProblem) {
  // Calibration (DISABLED_Calibration below: the same problem and seed scheme, T = 60, runs
  // 0..199): TS (exact prior), TS (random features) and EI had less cumulative regret than random
  // search in 200 of 200 runs each (mean 27.6, 27.7 and 23.5 against 170.4; worst ratios 0.61,
  // 0.64 and 0.83). A run is lost with probability p ≤ 1.5% (95% upper bound from 0 of 200), so
  // losing 3 or more of these 10 runs has probability ≤ C(10,3)·p³ < 5e−4 per rule.
  const std::vector<int> wins = wins_over_random(0, 10, 60);
  for (std::size_t i = 0; i < wins.size(); ++i) EXPECT_GE(wins[i], 8) << kRules[i].name;
}

// Not run by ctest: test_optimizer_stats --gtest_also_run_disabled_tests
// --gtest_filter='*Calibration' (a few minutes).
TEST(AcquisitionRegret, DISABLED_Calibration) {
  wins_over_random(0, 200, 60);
}

TEST(HyperparameterFit, ArdLengthscalesOfGpDataAreRecovered) {
  // f ~ GP(0, SE with l = (0.15, 0.4, 1.5)) at 120 Sobol points of [0, 1]³, y = f + N(0, 0.05²).
  // Calibration (100 data sets, these settings: 2 restarts): the fitted/true ratios stayed in
  // [0.81, 1.25], [0.82, 1.42] and [0.61, 1.61]; we allow [1/1.6, 1.6] for the two short
  // lengthscales and [1/2.5, 2.5] for the long one (poorly identified on a unit box). A data set
  // misses with probability p ≤ 3% (95% upper bound from 0 of 100); the test needs 2 of 3 data
  // sets within bounds, so it fails with probability ≤ 3p² < 3e−3.
  const gpb::Context ctx = cpu();
  const Eigen::Vector3d l(0.15, 0.4, 1.5);
  const gpb::Kernel truth = gpb::Kernel::ard(gpb::KernelType::SE, l, 1.0);
  int good = 0;
  for (int s = 0; s < 3; ++s) {
    const gpb::Domain dom = gpb::Domain::sobol({0, 0, 0}, {1, 1, 1}, 120, s);
    Eigen::MatrixXd K = gpb::kernel_matrix(ctx, truth, dom.points(), dom.points());
    K.diagonal().array() += 1e-10;
    gpb::Rng rng(static_cast<std::uint64_t>(s), 0, 77);
    Eigen::VectorXd z(120);
    for (int i = 0; i < 120; ++i) z[i] = rng.normal();
    const Eigen::VectorXd f = Eigen::LLT<Eigen::MatrixXd>(K).matrixL() * z;
    gpb::OptimizerOptions o;
    o.domain = gpb::DomainSpec::from_rows(dom.points().transpose());
    o.kernel = gpb::Kernel::se(0.5);
    o.context.backend = gpb::Backend::Cpu;
    o.seed = static_cast<std::uint64_t>(s);
    o.fit.restarts = 2;
    o.fit.every = 0;            // only the explicit fit below (the default refits at every tell)
    o.fit.unit_inputs = false;  // lengthscales in the domain's units, as the truth's
    gpb::Optimizer opt(o);
    std::vector<int> idx;
    std::vector<double> y;
    for (int i = 0; i < 120; ++i) {
      idx.push_back(i);
      y.push_back(f[i] + 0.05 * rng.normal());
    }
    opt.tell(idx, y);
    const gpb::HyperFit fit = opt.fit_hyperparameters();
    const Eigen::VectorXd ratio = fit.theta.lengthscales.cwiseQuotient(l);
    ASSERT_EQ(ratio.size(), 3);
    const bool ok = ratio[0] > 1 / 1.6 && ratio[0] < 1.6 && ratio[1] > 1 / 1.6 && ratio[1] < 1.6 &&
                    ratio[2] > 1 / 2.5 && ratio[2] < 2.5;
    good += ok ? 1 : 0;
    // The optimizer now uses the fitted ARD kernel and standardised y.
    EXPECT_TRUE(opt.options().kernel.is_ard());
    EXPECT_EQ(opt.options().kernel.lengthscales(), fit.theta.lengthscales);
    EXPECT_EQ(opt.fits(), 1);
    EXPECT_NEAR(opt.y_offset(), Eigen::Map<const Eigen::VectorXd>(y.data(), 120).mean(), 1e-12);
    // Predictions at the data follow the data closely (noise sd 0.05 against sd(f) ≈ 1).
    const gpb::Prediction p = opt.predict(dom.points().transpose());
    EXPECT_LT((p.mean - f).cwiseAbs().maxCoeff(), 0.3) << "data set " << s;
  }
  EXPECT_GE(good, 2);
}

}  // namespace
