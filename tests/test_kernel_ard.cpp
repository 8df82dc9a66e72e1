// ARD kernels (one lengthscale per axis): closed forms, equivalence with the isotropic kernel,
// dimension checks, the posterior over an ARD kernel against a dense solve, the config format
// ("lengthscale": number or array) and random Fourier features.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <functional>
#include <string>

#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/kernel_derivative.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/rng.hpp"
#include "objective/gp_prior.hpp"
#include "test_support.hpp"

namespace {

using gpb::Kernel;
using gpb::KernelType;

using gpb::test::contains;
const auto& error_of = gpb::test::invalid_argument_of;
gpb::Context cpu() {
  return gpb::test::make_cpu_context();
}
Eigen::MatrixXd random_points(int d, int n, std::uint32_t stream) {
  gpb::Rng rng(5, 0, stream);
  Eigen::MatrixXd x(d, n);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.uniform(-1.0, 1.0);
  return x;
}

/// κ(s) of each stationary type (unit variance) at scaled distance s.
double shape(KernelType t, double s) {
  switch (t) {
    case KernelType::SE:
      return std::exp(-0.5 * s * s);
    case KernelType::Matern12:
      return std::exp(-s);
    case KernelType::Matern32:
      return (1 + std::sqrt(3.0) * s) * std::exp(-std::sqrt(3.0) * s);
    default:
      return (1 + std::sqrt(5.0) * s + 5.0 * s * s / 3.0) * std::exp(-std::sqrt(5.0) * s);
  }
}

TEST(KernelArd, ClosedFormsPerAxis) {
  const Eigen::Vector3d l(0.2, 1.5, 4.0);
  const double x[3] = {0.1, -0.4, 2.0}, y[3] = {0.35, 0.6, -1.0};
  double s2 = 0;
  for (int i = 0; i < 3; ++i) s2 += (x[i] - y[i]) * (x[i] - y[i]) / (l[i] * l[i]);
  for (KernelType t :
       {KernelType::SE, KernelType::Matern12, KernelType::Matern32, KernelType::Matern52}) {
    const Kernel k = Kernel::ard(t, l, 1.7);
    EXPECT_TRUE(k.is_ard());
    EXPECT_EQ(k.ard_dim(), 3);
    EXPECT_NEAR(k(x, y, 3), 1.7 * shape(t, std::sqrt(s2)), 1e-14) << k.describe();
    EXPECT_EQ(k(x, y, 3), k(y, x, 3));
    EXPECT_EQ(k(x, x, 3), 1.7);
  }
}

TEST(KernelArd, EqualLengthscalesAreTheIsotropicKernelBitForBit) {
  const gpb::Context ctx = cpu();
  const Eigen::MatrixXd A = random_points(4, 30, 1), B = random_points(4, 20, 2);
  for (KernelType t :
       {KernelType::SE, KernelType::Matern12, KernelType::Matern32, KernelType::Matern52}) {
    const Kernel iso = Kernel::matern(t, 0.7, 1.3);
    const Kernel ard = Kernel::ard(t, Eigen::VectorXd::Constant(4, 0.7), 1.3);
    EXPECT_EQ(gpb::kernel_matrix(ctx, ard, A, B), gpb::kernel_matrix(ctx, iso, A, B));
    // A vector of one lengthscale is the isotropic kernel itself.
    const Kernel one = Kernel::ard(t, Eigen::VectorXd::Constant(1, 0.7), 1.3);
    EXPECT_FALSE(one.is_ard());
    EXPECT_EQ(one.lengthscale(), 0.7);
    EXPECT_EQ(one.describe(), iso.describe());
  }
}

TEST(KernelArd, ScalingAnAxisIsScalingItsLengthscale) {
  // k_ARD(x, y) with l = (l0, l1) equals the isotropic unit kernel on (x0/l0, x1/l1).
  const gpb::Context ctx = cpu();
  const Eigen::Vector2d l(0.25, 3.0);
  const Eigen::MatrixXd A = random_points(2, 25, 3), B = random_points(2, 15, 4);
  const Eigen::MatrixXd As = l.cwiseInverse().asDiagonal() * A;
  const Eigen::MatrixXd Bs = l.cwiseInverse().asDiagonal() * B;
  const Eigen::MatrixXd got = gpb::kernel_matrix(ctx, Kernel::ard(KernelType::Matern32, l), A, B);
  const Eigen::MatrixXd ref =
      gpb::kernel_matrix(ctx, Kernel::matern(KernelType::Matern32, 1.0), As, Bs);
  EXPECT_LE((got - ref).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(KernelArd, ValidationAndDimensionChecks) {
  EXPECT_TRUE(contains(error_of([] { Kernel::ard(KernelType::SE, Eigen::Vector2d(0.1, -1)); }),
                       "kernel.lengthscale[1]"));
  EXPECT_TRUE(contains(error_of([] { Kernel::ard(KernelType::SE, Eigen::VectorXd(0)); }), "empty"));
  EXPECT_TRUE(contains(error_of([] { Kernel::ard(KernelType::Linear, Eigen::Vector2d(1, 1)); }),
                       "stationary"));
  const Kernel k = Kernel::ard(KernelType::SE, Eigen::Vector3d(0.1, 0.2, 0.3));
  EXPECT_TRUE(contains(error_of([&] { (void)k.lengthscale(); }), "lengthscales()"));
  EXPECT_EQ(k.describe(), "se(l=[0.1, 0.2, 0.3], v=1)");
  const gpb::Context ctx = cpu();
  const Eigen::MatrixXd p2 = random_points(2, 5, 5);
  EXPECT_TRUE(contains(error_of([&] { gpb::kernel_matrix(ctx, k, p2, p2); }), "dimension 2"));
  EXPECT_TRUE(contains(error_of([&] { gpb::kernel_diag(ctx, k, p2); }), "3 lengthscales"));
  const double x[2] = {0, 0};
  EXPECT_TRUE(contains(error_of([&] { (void)k(x, x, 2); }), "3 lengthscales"));
  const gpb::Domain dom = gpb::Domain::grid({0, 0}, {1, 1}, {3, 3});
  EXPECT_TRUE(contains(error_of([&] { gpb::FinitePosterior(ctx, k, dom, 1); }), "posterior"));
  // Derivative ops take isotropic SE kernels only (ARD derivatives are not implemented).
  const Eigen::MatrixXd p3 = random_points(3, 4, 6);
  EXPECT_TRUE(contains(error_of([&] { gpb::se_kernel_grad(ctx, k, p3, p3); }), "isotropic"));
}

TEST(KernelArd, PosteriorMatchesDenseSolve) {
  const gpb::Context ctx = cpu();
  const gpb::Domain dom = gpb::Domain::grid({0, 0}, {1, 1}, {12, 9});
  const Kernel k = Kernel::ard(KernelType::Matern52, Eigen::Vector2d(0.15, 0.8), 1.4);
  const double lambda = 0.05;
  gpb::FinitePosterior post(ctx, k, dom, 1, {lambda, 8});
  const std::vector<int> xs = {3, 50, 71, 3, 100, 7};
  Eigen::VectorXd y(6);
  y << 0.4, -1.0, 0.3, 0.5, 2.0, -0.2;
  for (std::size_t i = 0; i < xs.size(); ++i)
    post.observe(&xs[i], &y[static_cast<Eigen::Index>(i)]);
  Eigen::MatrixXd X(2, 6);
  for (int i = 0; i < 6; ++i) X.col(i) = dom.points().col(xs[static_cast<std::size_t>(i)]);
  Eigen::MatrixXd Kt = gpb::kernel_matrix(ctx, k, X, X);
  Kt.diagonal().array() += lambda;
  const Eigen::MatrixXd Ks = gpb::kernel_matrix(ctx, k, X, dom.points());
  const Eigen::LLT<Eigen::MatrixXd> llt(Kt);
  const Eigen::VectorXd mean = Ks.transpose() * llt.solve(y);
  const Eigen::MatrixXd W = llt.matrixL().solve(Ks);
  for (int j = 0; j < dom.size(); ++j) {
    EXPECT_NEAR(post.mean(0)[j], mean[j], 1e-11);
    EXPECT_NEAR(post.variance(0)[j], 1.4 - W.col(j).squaredNorm(), 1e-11);
  }
}

TEST(KernelArd, ConfigTakesANumberOrAnArray) {
  const std::string base = R"({"domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1],
      "counts": [5, 5]}, "objective": {"type": "rkhs"}, "policies": [{"type": "gp_ucb"}],
      "kernel": )";
  const auto cfg = gpb::parse_experiment_config(
      base + R"({"type": "matern32", "lengthscale": [0.1, 0.4], "variance": 2}})", "cfg.json", ".");
  EXPECT_TRUE(cfg.kernel.is_ard());
  EXPECT_EQ(cfg.kernel.lengthscales(), Eigen::Vector2d(0.1, 0.4));
  const auto iso = gpb::parse_experiment_config(base + R"({"type": "se", "lengthscale": 0.3}})",
                                                "cfg.json", ".");
  EXPECT_FALSE(iso.kernel.is_ard());
  EXPECT_EQ(iso.kernel.lengthscale(), 0.3);
  const auto err = [&](const std::string& kernel) {
    return error_of([&] { gpb::parse_experiment_config(base + kernel + "}", "cfg.json", "."); });
  };
  EXPECT_TRUE(contains(err(R"({"type": "se", "lengthscale": [0.1, 0.2, 0.3]})"),
                       "kernel.lengthscale: has 3 values (ARD) but the domain has dimension 2"));
  EXPECT_TRUE(contains(err(R"({"type": "se", "lengthscale": [0.1, -2]})"),
                       "kernel.lengthscale[1]: must be > 0"));
  EXPECT_TRUE(contains(err(R"({"type": "se", "lengthscale": [0.1, "a"]})"),
                       "kernel.lengthscale[1]: expected a number"));
  EXPECT_TRUE(contains(err(R"({"type": "se", "lengthscale": []})"), "non-empty array"));
}

TEST(KernelArd, RandomFeaturesMatchTheArdKernel) {
  // E f(x) f(y) = k(x, y) for the RFF draw; the points differ along both axes, whose lengthscales
  // differ 20-fold (k = 0.48; ignoring either axis gives 0.67 or 0.73). f(x) f(y) has variance
  // ≤ 3v²(1 + 1/(2M)) = 3.375 with M = 4 features, so the mean of a block of 1350 draws misses k
  // by more than 0.1 with probability ≤ 1/4 (Chebyshev), and the median of 129 block means does
  // with probability ≤ exp(−129/8) ≈ 1e−7 (Hoeffding on the count of bad blocks).
  const gpb::Context ctx = cpu();
  const Kernel k = Kernel::ard(KernelType::SE, Eigen::Vector2d(0.05, 1.0), 1.0);
  Eigen::MatrixXd pts(2, 2);
  pts << 0.0, 0.04, 0.0, 0.9;
  const double want = gpb::kernel_matrix(ctx, k, pts.col(0), pts.col(1))(0, 0);
  constexpr int kBlocks = 129, kPerBlock = 1350;
  std::vector<double> means;
  for (int b = 0; b < kBlocks; ++b) {
    double sum = 0;
    for (int i = 0; i < kPerBlock; ++i) {
      gpb::Rng rng(3, static_cast<std::uint32_t>(b * kPerBlock + i), 1);
      const Eigen::VectorXd f = gpb::detail::rff_prior_sample(ctx, k, pts, 4, rng);
      sum += f[0] * f[1];
    }
    means.push_back(sum / kPerBlock);
  }
  std::nth_element(means.begin(), means.begin() + kBlocks / 2, means.end());
  EXPECT_NEAR(means[kBlocks / 2], want, 0.1) << "k(x, y) = " << want;
}

}  // namespace
