// Maximum-likelihood hyperparameter fit (specs/po-gp-ucb.md §3): analytic gradient against finite
// differences, recovery of known hyperparameters from GP samples, and input validation.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include <cmath>
#include <vector>

#include "gpbandit/engine/hyperfit.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"
#include "hyperfit_support.hpp"
#include "test_support.hpp"

namespace {

using gpb::test::se_matrix;
using gpb::test::theta;
using gpb::test::uniform_rows;

using gpb::GpHyperparameters;
using gpb::KernelType;

/// One draw y = f(X) + noise with f ~ GP(0, ARD SE θ), by Cholesky of K_θ.
Eigen::VectorXd sample_gp(const Eigen::MatrixXd& X, const GpHyperparameters& th,
                          std::uint64_t seed) {
  const Eigen::Index m = X.rows();
  Eigen::MatrixXd K = se_matrix(X, th);
  K.diagonal().array() += th.noise_variance;
  gpb::Rng rng(seed, 0, 2);
  Eigen::VectorXd g(m);
  for (Eigen::Index i = 0; i < m; ++i) g(i) = rng.normal();
  return Eigen::LLT<Eigen::MatrixXd>(K).matrixL() * g;
}

// Deterministic: the analytic gradient of every supported kernel (ARD and isotropic) agrees with
// central differences in ψ = ln θ to 1e-5 relative.
TEST(HyperFit, GradientMatchesFiniteDifferences) {
  const Eigen::MatrixXd X = uniform_rows(60, 3, 4.0, 7);
  const Eigen::VectorXd y = sample_gp(X, theta({1.0, 0.8, 2.0}, 1.2, 0.05), 8);
  for (KernelType k : {KernelType::SE, KernelType::Matern32, KernelType::Matern52}) {
    for (bool ard : {true, false}) {
      GpHyperparameters th = ard ? theta({0.7, 1.3, 2.2}, 0.9, 0.03) : theta({1.1}, 0.9, 0.03);
      Eigen::VectorXd grad;
      gpb::gp_log_likelihood(X, y, k, th, &grad);
      const Eigen::Index q = th.lengthscales.size();
      ASSERT_EQ(grad.size(), q + 2);
      for (Eigen::Index p = 0; p < q + 2; ++p) {
        const double h = 1e-5;
        auto at = [&](double step) {
          GpHyperparameters t = th;
          if (p < q) t.lengthscales(p) *= std::exp(step);
          if (p == q) t.signal_variance *= std::exp(step);
          if (p == q + 1) t.noise_variance *= std::exp(step);
          return gpb::gp_log_likelihood(X, y, k, t);
        };
        const double fd = (at(h) - at(-h)) / (2 * h);
        EXPECT_NEAR(grad(p), fd, 1e-5 * std::max(1.0, std::abs(fd)))
            << "kernel " << static_cast<int>(k) << " ard " << ard << " parameter " << p;
      }
    }
  }
}

// Recovery from sampled GPs with known θ: m = 250 points on [0, 10]², ARD SE l = (0.8, 1.6),
// σ_y² = 1, σ_n² = 0.01, default start + 2 random starts. Tolerances: each length-scale within
// 25 %, σ_y² in (0.4, 2.5), σ_n² in (0.005, 0.02). Over 40 seeds of exactly this set-up (measured
// while writing the test) the largest length-scale error was 16.4 %, σ_y² stayed in [0.61, 1.42]
// and σ_n² in [0.0074, 0.0138]; every tolerance lies beyond all 40, so the false-failure
// probability per seed is estimated below 1/40 (and well below it, since the margins are wide);
// the 3 fixed seeds used here pass. A wrong gradient or an unmapped standardisation moves the
// length-scales by far more than 25 %.
TEST(HyperFit, RecoversKnownHyperparametersOfASampledGp) {
  const GpHyperparameters truth = theta({0.8, 1.6}, 1.0, 0.01);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Eigen::MatrixXd X = uniform_rows(250, 2, 10.0, 100 + seed);
    const Eigen::VectorXd y = sample_gp(X, truth, 200 + seed);
    gpb::HyperFitOptions o;
    o.seed = seed;
    o.random_starts = 2;
    const gpb::HyperFit fit = gpb::fit_gp_hyperparameters(X, y, o);
    EXPECT_EQ(fit.rows_used, 250);
    EXPECT_GE(fit.starts_converged, 1);
    EXPECT_NEAR(fit.theta.lengthscales(0), 0.8, 0.25 * 0.8) << "seed " << seed;
    EXPECT_NEAR(fit.theta.lengthscales(1), 1.6, 0.25 * 1.6) << "seed " << seed;
    EXPECT_GT(fit.theta.signal_variance, 0.4) << "seed " << seed;
    EXPECT_LT(fit.theta.signal_variance, 2.5) << "seed " << seed;
    EXPECT_GT(fit.theta.noise_variance, 0.005) << "seed " << seed;
    EXPECT_LT(fit.theta.noise_variance, 0.02) << "seed " << seed;
    // The fit is at least as likely as the truth (it maximises the same likelihood).
    EXPECT_GE(gpb::gp_log_likelihood(X, y, KernelType::SE, fit.theta) + 1e-6,
              gpb::gp_log_likelihood(X, y, KernelType::SE, truth));
  }
}

// The isotropic fit of an isotropic sample recovers its one length-scale.
TEST(HyperFit, IsotropicFitRecoversOneLengthscale) {
  const GpHyperparameters truth = theta({1.0, 1.0}, 1.0, 0.01);
  const Eigen::MatrixXd X = uniform_rows(200, 2, 10.0, 41);
  const Eigen::VectorXd y = sample_gp(X, truth, 42);
  gpb::HyperFitOptions o;
  o.ard = false;
  o.random_starts = 1;
  const gpb::HyperFit fit = gpb::fit_gp_hyperparameters(X, y, o);
  ASSERT_EQ(fit.theta.lengthscales.size(), 1);
  EXPECT_NEAR(fit.theta.lengthscales(0), 1.0, 0.2);
}

// Subsampling: max_rows caps the rows used.
TEST(HyperFit, MaxRowsSubsamples) {
  const Eigen::MatrixXd X = uniform_rows(500, 2, 10.0, 5);
  const Eigen::VectorXd y = sample_gp(X, theta({1.0, 1.0}, 1.0, 0.01), 6);
  gpb::HyperFitOptions o;
  o.max_rows = 120;
  o.random_starts = 1;
  EXPECT_EQ(gpb::fit_gp_hyperparameters(X, y, o).rows_used, 120);
}

TEST(HyperFit, RejectsBadInput) {
  const Eigen::MatrixXd X = uniform_rows(20, 2, 1.0, 3);
  const Eigen::VectorXd y = Eigen::VectorXd::Ones(20);
  EXPECT_THROW(gpb::fit_gp_hyperparameters(X, Eigen::VectorXd::Ones(19)), gpb::InvalidArgument);
  Eigen::MatrixXd Xc = X;
  Xc.col(1).setConstant(2.0);
  EXPECT_THROW(gpb::fit_gp_hyperparameters(Xc, y), gpb::InvalidArgument);
  Eigen::MatrixXd Xn = X;
  Xn(3, 0) = std::nan("");
  EXPECT_THROW(gpb::fit_gp_hyperparameters(Xn, y), gpb::InvalidArgument);
  gpb::HyperFitOptions o;
  o.kernel = KernelType::Linear;
  EXPECT_THROW(gpb::fit_gp_hyperparameters(X, y, o), gpb::InvalidArgument);
  o = {};
  o.noise_lower = 2.0;
  EXPECT_THROW(gpb::fit_gp_hyperparameters(X, y, o), gpb::InvalidArgument);
}

}  // namespace
