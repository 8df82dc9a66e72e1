// Tests for the SE kernel derivative ops (gpbandit/kernel_derivative.hpp): central finite
// differences of kernel_matrix, the value at coincident points, shapes and bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "gpbandit/engine/kernel_derivative.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

namespace gpb {
namespace {

Eigen::MatrixXd random_points(int d, int n, std::uint64_t seed) {
  Rng rng(seed, 0, 1);
  Eigen::MatrixXd X(d, n);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = rng.uniform(-1.5, 1.5);
  return X;
}

TEST(KernelDerivative, FirstDerivativeMatchesFiniteDifferences) {
  const Context ctx;
  const Kernel k = Kernel::se(0.8, 1.7);
  const int d = 3;
  const Eigen::MatrixXd X = random_points(d, 4, 1), Z = random_points(d, 5, 2);
  const Eigen::MatrixXd G = se_kernel_grad(ctx, k, X, Z);
  ASSERT_EQ(G.rows(), d * 4);
  ASSERT_EQ(G.cols(), 5);
  const double h = 1e-6;
  for (int i = 0; i < 4; ++i) {
    for (int a = 0; a < d; ++a) {
      Eigen::MatrixXd Xp = X.col(i), Xm = X.col(i);
      Xp(a, 0) += h;
      Xm(a, 0) -= h;
      const Eigen::MatrixXd fd =
          (kernel_matrix(ctx, k, Xp, Z) - kernel_matrix(ctx, k, Xm, Z)) / (2 * h);
      for (int j = 0; j < 5; ++j) EXPECT_NEAR(G(a + d * i, j), fd(0, j), 1e-8);
    }
  }
}

TEST(KernelDerivative, SecondDerivativeMatchesFiniteDifferencesOfFirst) {
  const Context ctx;
  const Kernel k = Kernel::se(1.3, 0.6);
  const int d = 3;
  const Eigen::MatrixXd X = random_points(d, 2, 3), Z = random_points(d, 3, 4);
  const Eigen::MatrixXd H = se_kernel_grad_grad(ctx, k, X, Z);
  ASSERT_EQ(H.rows(), d * 2);
  ASSERT_EQ(H.cols(), d * 3);
  const double h = 1e-6;
  for (int j = 0; j < 3; ++j) {
    for (int b = 0; b < d; ++b) {
      Eigen::MatrixXd Zp = Z.col(j), Zm = Z.col(j);
      Zp(b, 0) += h;
      Zm(b, 0) -= h;
      const Eigen::MatrixXd fd =
          (se_kernel_grad(ctx, k, X, Zp) - se_kernel_grad(ctx, k, X, Zm)) / (2 * h);  // (d·2)×1
      for (int r = 0; r < d * 2; ++r) EXPECT_NEAR(H(r, b + d * j), fd(r, 0), 1e-8);
    }
  }
}

TEST(KernelDerivative, CoincidentPointsGivePriorGradientCovariance) {
  const Context ctx;
  const Kernel k = Kernel::se(0.5, 2.0);
  const Eigen::MatrixXd x = random_points(4, 1, 5);
  const Eigen::MatrixXd H = se_kernel_grad_grad(ctx, k, x, x);
  EXPECT_LT((H - Eigen::MatrixXd::Identity(4, 4) * (2.0 / 0.25)).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT(se_kernel_grad(ctx, k, x, x).cwiseAbs().maxCoeff(), 1e-300);
}

TEST(KernelDerivative, RejectsNonSeKernelsAndDimensionMismatch) {
  const Context ctx;
  const Eigen::MatrixXd X = random_points(2, 2, 6), Z3 = random_points(3, 2, 7);
  EXPECT_THROW(se_kernel_grad(ctx, Kernel::matern(KernelType::Matern52, 1.0), X, X),
               InvalidArgument);
  EXPECT_THROW(se_kernel_grad(ctx, Kernel::se(1.0), X, Z3), InvalidArgument);
  EXPECT_THROW(se_kernel_grad_grad(ctx, Kernel::se(1.0), X, Z3), InvalidArgument);
}

// kernel_gradient (any stationary SE/Matérn 3/2/5/2 kernel, ARD): central differences of k.
TEST(KernelGradient, MatchesFiniteDifferencesForEveryKernelIsotropicAndArd) {
  const Eigen::MatrixXd Z = random_points(3, 6, 8);
  for (const KernelType t : {KernelType::SE, KernelType::Matern32, KernelType::Matern52}) {
    for (const bool ard : {false, true}) {
      const Kernel kk = ard ? Kernel::ard(t, Eigen::Vector3d(0.4, 1.1, 2.5), 1.3)
                            : Kernel::ard(t, Eigen::VectorXd::Constant(1, 0.7), 1.3);
      for (int trial = 0; trial < 4; ++trial) {
        const Eigen::VectorXd x = random_points(3, 1, 20 + trial).col(0);
        const Eigen::MatrixXd G = kernel_gradient(kk, x, Z);
        ASSERT_EQ(G.rows(), 3);
        ASSERT_EQ(G.cols(), 6);
        for (int j = 0; j < 6; ++j) {
          for (int a = 0; a < 3; ++a) {
            const double h = 1e-6;
            Eigen::VectorXd xp = x, xm = x;
            xp[a] += h;
            xm[a] -= h;
            const double fd =
                (kk(xp.data(), Z.col(j).data(), 3) - kk(xm.data(), Z.col(j).data(), 3)) / (2 * h);
            EXPECT_NEAR(G(a, j), fd, 1e-7 * (1 + std::abs(fd))) << kk.describe() << " a " << a;
          }
        }
      }
    }
  }
}

// kernel_gradient of composite kernels (an ARD Matérn 5/2 part × (+) an SE part and a Matérn 3/2
// part): central differences of k.
TEST(KernelGradient, CompositeKernelsMatchFiniteDifferences) {
  const Eigen::MatrixXd Z = random_points(4, 5, 18);
  KernelPart a, b, c;
  a.type = KernelType::Matern52;
  a.size = 2;
  a.lengthscales = Eigen::Vector2d(0.5, 1.4);
  b.type = KernelType::SE;
  b.begin = 2;
  b.lengthscales = Eigen::VectorXd::Constant(1, 0.8);
  c.type = KernelType::Matern32;
  c.begin = 3;
  c.lengthscales = Eigen::VectorXd::Constant(1, 1.1);
  const Kernel product = Kernel::product({a, b, c}, 1.4);
  a.variance = 0.6;
  b.variance = 0.3;
  c.variance = 0.9;
  const Kernel sum = Kernel::sum({a, b, c});
  for (const Kernel& kk : {product, sum}) {
    for (int trial = 0; trial < 3; ++trial) {
      const Eigen::VectorXd x = random_points(4, 1, 40 + trial).col(0);
      const Eigen::MatrixXd G = kernel_gradient(kk, x, Z);
      for (int j = 0; j < 5; ++j) {
        for (int q = 0; q < 4; ++q) {
          const double h = 1e-6;
          Eigen::VectorXd xp = x, xm = x;
          xp[q] += h;
          xm[q] -= h;
          const double fd =
              (kk(xp.data(), Z.col(j).data(), 4) - kk(xm.data(), Z.col(j).data(), 4)) / (2 * h);
          EXPECT_NEAR(G(q, j), fd, 1e-7 * (1 + std::abs(fd))) << kk.describe() << " q " << q;
        }
      }
    }
  }
  c.type = KernelType::Matern12;
  EXPECT_THROW(kernel_gradient(Kernel::sum({a, b, c}), Z.col(0), Z), InvalidArgument);
}

TEST(KernelGradient, ZeroAtTheSamePointAndRefusals) {
  const Eigen::MatrixXd Z = random_points(2, 1, 9);
  const Kernel m52 = Kernel::ard(KernelType::Matern52, Eigen::Vector2d(0.3, 0.9));
  EXPECT_EQ(kernel_gradient(m52, Z.col(0), Z).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_THROW(kernel_gradient(Kernel::matern(KernelType::Matern12, 1.0), Z.col(0), Z),
               InvalidArgument);
  EXPECT_THROW(kernel_gradient(Kernel::linear(), Z.col(0), Z), InvalidArgument);
  EXPECT_THROW(kernel_gradient(m52, random_points(3, 1, 1).col(0), Z), InvalidArgument);
}

}  // namespace
}  // namespace gpb
