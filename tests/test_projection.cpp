// Projection ops on the CPU: Philox draws equal gpb::Rng, Gaussian matrices in column-major draw
// order, Z = X M / √r, singular spectrum against Eigen's SVD, errors.
#include <gtest/gtest.h>

#include <Eigen/SVD>

#include <cmath>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/projection.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

namespace {

const gpb::Context& cpu() {
  static const gpb::Context ctx({gpb::Backend::Cpu});
  return ctx;
}

TEST(Projection, DrawsEqualRng) {
  const auto u = gpb::random_uniform(cpu(), 1, 2, 3, 10, 50);
  const auto z = gpb::random_normal(cpu(), 1, 2, 3, 10, 50);
  gpb::Rng a(1, 2, 3, 10), b(1, 2, 3, 10);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(u[i], a.uniform());
    EXPECT_EQ(z[i], b.normal());
  }
}

TEST(Projection, GaussianMatrixIsColumnMajorDrawOrder) {
  const Eigen::MatrixXd m = gpb::gaussian_matrix(cpu(), 4, 3, 5, 0, 6);
  gpb::Rng rng(5, 0, 6);
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 4; ++i) EXPECT_EQ(m(i, k), rng.normal());
  }
  EXPECT_THROW(gpb::gaussian_matrix(cpu(), -1, 3, 5, 0, 6), gpb::InvalidArgument);
}

TEST(Projection, RandomProjectionScalesByRootR) {
  Eigen::MatrixXd X(3, 2);
  X << 1, 2, 3, 4, 5, 6;
  const auto p = gpb::random_projection(cpu(), X, 4, 9, 1, 6);
  ASSERT_EQ(p.m.rows(), 2);
  ASSERT_EQ(p.m.cols(), 4);
  const Eigen::MatrixXd expect = X * p.m / 2.0;
  EXPECT_LE((p.z - expect).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_THROW(gpb::random_projection(cpu(), X, 0, 9, 1, 6), gpb::InvalidArgument);
  EXPECT_THROW(gpb::project(cpu(), X, Eigen::MatrixXd(3, 3), 1.0), gpb::InvalidArgument);
}

TEST(Projection, SingularSpectrumMatchesSvd) {
  gpb::Rng rng(3, 0, 1);
  for (int n : {40, 3}) {
    Eigen::MatrixXd X(n, 5);
    for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = rng.normal();
    const auto s = gpb::singular_spectrum(cpu(), X);
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(X, Eigen::ComputeThinV);
    ASSERT_EQ(s.values.size(), std::min(n, 5));
    for (int k = 0; k < s.values.size(); ++k) {
      EXPECT_NEAR(s.values[k], svd.singularValues()[k], 1e-10 * svd.singularValues()[0]);
      EXPECT_NEAR(std::abs(s.right.col(k).dot(svd.matrixV().col(k))), 1.0, 1e-8);
    }
  }
  EXPECT_THROW(gpb::singular_spectrum(cpu(), Eigen::MatrixXd(0, 3)), gpb::InvalidArgument);
}

}  // namespace
