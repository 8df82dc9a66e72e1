// Hyperparameter fits of composite kernels (HyperFitOptions::parts): the analytic gradient of the
// product and the sum against finite differences, a one-part composite equal to the plain kernel,
// and recovery of each part's lengthscale (and a sum's part variances) from seeded GP samples.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include <cmath>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/hyperfit.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"
#include "test_support.hpp"

namespace {

using gpb::test::uniform_rows;

using gpb::GpHyperparameters;
using gpb::HyperFitPart;
using gpb::KernelType;

/// One draw y = f(X) + noise, f ~ GP(0, k), by Cholesky of K(X, X) + noise·I.
Eigen::VectorXd sample(const gpb::Kernel& k, const Eigen::MatrixXd& X, double noise,
                       std::uint64_t seed) {
  gpb::ContextOptions co;
  co.backend = gpb::Backend::Cpu;
  const gpb::Context ctx(co);
  Eigen::MatrixXd K = gpb::kernel_matrix(ctx, k, X.transpose(), X.transpose());
  K.diagonal().array() += noise;
  gpb::Rng rng(seed, 0, 2);
  Eigen::VectorXd g(X.rows());
  for (Eigen::Index i = 0; i < g.size(); ++i) g(i) = rng.normal();
  return Eigen::LLT<Eigen::MatrixXd>(K).matrixL() * g;
}

gpb::KernelPart kpart(KernelType t, int begin, int size, double l, double v = 1.0) {
  gpb::KernelPart p;
  p.type = t;
  p.begin = begin;
  p.size = size;
  p.lengthscales = Eigen::VectorXd::Constant(1, l);
  p.variance = v;
  return p;
}

/// Parts on 5 columns: SE isotropic on [0, 2), Matérn 5/2 with ARD on [2, 4), Matérn 3/2 on [4].
std::vector<HyperFitPart> five_columns() {
  return {{KernelType::SE, 0, 2, false},
          {KernelType::Matern52, 2, 2, true},
          {KernelType::Matern32, 4, 1, true}};
}

// Deterministic: ∂ log p / ∂ψ (ψ = ln l…, ln v or ln v_p, ln σ_n²) of the product and of the sum
// agrees with central differences to 1e-5 relative.
TEST(HyperFitComposite, GradientMatchesFiniteDifferences) {
  const Eigen::MatrixXd X = uniform_rows(50, 5, 3.0, 3);
  const Eigen::VectorXd y = (X.col(0).array().sin() + 0.3 * X.col(3).array()).matrix();
  for (bool sum : {false, true}) {
    GpHyperparameters th;
    th.lengthscales = Eigen::Vector4d(0.9, 1.3, 0.6, 1.7);  // 1 + 2 + 1
    th.signal_variance = 1.1;
    if (sum) th.part_variances = Eigen::Vector3d(0.7, 0.4, 0.2);
    th.noise_variance = 0.04;
    Eigen::VectorXd grad;
    gpb::gp_log_likelihood(X, y, five_columns(), sum, th, &grad);
    const Eigen::Index q = 4, nv = sum ? 3 : 1;
    ASSERT_EQ(grad.size(), q + nv + 1);
    for (Eigen::Index p = 0; p < q + nv + 1; ++p) {
      const auto at = [&](double step) {
        GpHyperparameters t = th;
        if (p < q) t.lengthscales(p) *= std::exp(step);
        if (p >= q && p < q + nv) {
          if (sum)
            t.part_variances(p - q) *= std::exp(step);
          else
            t.signal_variance *= std::exp(step);
        }
        if (p == q + nv) t.noise_variance *= std::exp(step);
        return gpb::gp_log_likelihood(X, y, five_columns(), sum, t);
      };
      const double h = 1e-5, fd = (at(h) - at(-h)) / (2 * h);
      EXPECT_NEAR(grad(p), fd, 1e-5 * std::max(1.0, std::abs(fd))) << "sum " << sum << " ψ " << p;
    }
  }
}

// A product of one part over every column is the plain kernel's likelihood.
TEST(HyperFitComposite, OnePartEqualsThePlainKernel) {
  const Eigen::MatrixXd X = uniform_rows(40, 3, 2.0, 5);
  const Eigen::VectorXd y = X.rowwise().sum().array().cos().matrix();
  GpHyperparameters th;
  th.lengthscales = Eigen::Vector3d(0.5, 0.9, 1.4);
  th.signal_variance = 1.3;
  th.noise_variance = 0.02;
  const double plain = gpb::gp_log_likelihood(X, y, KernelType::Matern52, th);
  const double one = gpb::gp_log_likelihood(X, y, {{KernelType::Matern52, 0, 3, true}}, false, th);
  EXPECT_NEAR(one, plain, 1e-9 * std::abs(plain));
}

// Recovery, product: y ~ GP(0, SE(l = 0.6 on columns 0-1) × SE(l = 2.5 on column 2)) + 0.01
// noise, 200 points on [0, 5]³, 3 seeds. Each part's fitted lengthscale lies within 35 % of its
// truth (a fast and a slow part told apart). Measured while writing the test over seeds 1..20 of
// exactly this set-up: the largest relative errors were 0.114 (part 0) and 0.221 (part 1), so the
// false-failure probability per seed is estimated below 1/20; seeds 1..3 pass.
TEST(HyperFitComposite, ProductRecoversEachPartsLengthscale) {
  const gpb::Kernel truth =
      gpb::Kernel::product({kpart(KernelType::SE, 0, 2, 0.6), kpart(KernelType::SE, 2, 1, 2.5)});
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Eigen::MatrixXd X = uniform_rows(200, 3, 5.0, 100 + seed);
    const Eigen::VectorXd y = sample(truth, X, 0.01, 200 + seed);
    gpb::HyperFitOptions o;
    o.parts = {{KernelType::SE, 0, 2, false}, {KernelType::SE, 2, 1, true}};
    o.standardize_inputs = false;
    o.random_starts = 2;
    o.seed = seed;
    const gpb::HyperFit fit = gpb::fit_gp_hyperparameters(X, y, o);
    ASSERT_EQ(fit.theta.lengthscales.size(), 2);
    EXPECT_NEAR(fit.theta.lengthscales(0), 0.6, 0.35 * 0.6) << "seed " << seed;
    EXPECT_NEAR(fit.theta.lengthscales(1), 2.5, 0.35 * 2.5) << "seed " << seed;
  }
}

// Recovery, sum: y ~ GP(0, 1.0·SE(l = 0.5 on column 0) + 0.25·SE(l = 2 on column 1)) + 0.01
// noise, 200 points on [0, 20]², 3 seeds: lengthscales within 35 %, the first part's variance
// larger than the second's. Measured over seeds 1..20 of exactly this set-up: largest relative
// lengthscale errors 0.151 and 0.274, and the variance order held in all 20 (false-failure
// probability per seed estimated below 1/20; on [0, 5]² the slow part was not identifiable: errors
// up to 0.86, which is why the domain is wider); seeds 1..3 pass.
TEST(HyperFitComposite, SumRecoversEachPartsLengthscaleAndVariance) {
  const gpb::Kernel truth = gpb::Kernel::sum(
      {kpart(KernelType::SE, 0, 1, 0.5, 1.0), kpart(KernelType::SE, 1, 1, 2.0, 0.25)});
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Eigen::MatrixXd X = uniform_rows(200, 2, 20.0, 300 + seed);
    const Eigen::VectorXd y = sample(truth, X, 0.01, 400 + seed);
    gpb::HyperFitOptions o;
    o.parts = {{KernelType::SE, 0, 1, true}, {KernelType::SE, 1, 1, true}};
    o.sum = true;
    o.standardize_inputs = false;
    o.random_starts = 2;
    o.seed = seed;
    const gpb::HyperFit fit = gpb::fit_gp_hyperparameters(X, y, o);
    ASSERT_EQ(fit.theta.part_variances.size(), 2);
    EXPECT_NEAR(fit.theta.lengthscales(0), 0.5, 0.35 * 0.5) << "seed " << seed;
    EXPECT_NEAR(fit.theta.lengthscales(1), 2.0, 0.35 * 2.0) << "seed " << seed;
    EXPECT_GT(fit.theta.part_variances(0), fit.theta.part_variances(1)) << "seed " << seed;
    EXPECT_NEAR(fit.theta.signal_variance, fit.theta.part_variances.sum(), 1e-12);
  }
}

TEST(HyperFitComposite, RefusesPartsThatDoNotCoverTheColumns) {
  const Eigen::MatrixXd X = uniform_rows(10, 3, 1.0, 1);
  const Eigen::VectorXd y = X.col(0);
  GpHyperparameters th;
  th.lengthscales = Eigen::VectorXd::Ones(1);
  EXPECT_TRUE(gpb::test::contains(
      gpb::test::invalid_argument_of([&] {
        gpb::gp_log_likelihood(X, y, {{KernelType::SE, 0, 2, false}}, false, th);
      }),
      "column 2 is in no part"));
  gpb::HyperFitOptions o;
  o.parts = {{KernelType::Matern12, 0, 3, false}};
  EXPECT_THROW(gpb::fit_gp_hyperparameters(X, y, o), gpb::InvalidArgument);
}

}  // namespace
