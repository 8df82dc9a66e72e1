// Kernels against their closed forms; validation; precomputed matrices.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"

namespace {

using gpb::Kernel;
using gpb::KernelType;

std::string message_of(void (*f)()) {
  try {
    f();
  } catch (const gpb::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

/// Two points in 3-D at Euclidean distance r.
void points_at(double r, double* x, double* y) {
  const double s = r / std::sqrt(3.0);
  for (int i = 0; i < 3; ++i) {
    x[i] = 0.1 * i;
    y[i] = 0.1 * i + s;
  }
}

TEST(Kernel, StationaryClosedForms) {
  const double l = 0.5, v = 2.0;
  for (double r : {0.0, 0.3, 1.7}) {
    double x[3], y[3];
    points_at(r, x, y);
    const double s = r / l;
    const double want[4] = {
        v * std::exp(-0.5 * s * s), v * std::exp(-s),
        v * (1 + std::sqrt(3.0) * s) * std::exp(-std::sqrt(3.0) * s),
        v * (1 + std::sqrt(5.0) * s + 5.0 * s * s / 3.0) * std::exp(-std::sqrt(5.0) * s)};
    const Kernel ks[4] = {Kernel::se(l, v), Kernel::matern(KernelType::Matern12, l, v),
                          Kernel::matern(KernelType::Matern32, l, v),
                          Kernel::matern(KernelType::Matern52, l, v)};
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(ks[i](x, y, 3), want[i], 1e-13 * v) << ks[i].describe() << " r=" << r;
      EXPECT_EQ(ks[i](x, y, 3), ks[i](y, x, 3));
      EXPECT_TRUE(ks[i].stationary());
    }
  }
}

TEST(Kernel, DotProductClosedForms) {
  const double x[3] = {0.5, -1.0, 2.0}, y[3] = {1.5, 0.25, -0.75};
  const double dot = 0.5 * 1.5 - 0.25 - 1.5;
  EXPECT_NEAR(Kernel::linear(2.0, 0.5)(x, y, 3), 2.0 * (dot + 0.5), 1e-14);
  EXPECT_NEAR(Kernel::polynomial(3, 1.5, 1.0)(x, y, 3), 1.5 * std::pow(dot + 1.0, 3), 1e-13);
  EXPECT_NEAR(Kernel::polynomial(1, 1.0, 0.0)(x, y, 3), dot, 1e-14);
  EXPECT_FALSE(Kernel::linear().stationary());
  EXPECT_FALSE(Kernel::polynomial(2).stationary());
}

TEST(Kernel, KernelMatrixAndDiagAgreeWithPairwise) {
  gpb::Context ctx;
  Eigen::MatrixXd A = Eigen::MatrixXd::Random(2, 7), B = Eigen::MatrixXd::Random(2, 5);
  const Kernel k = Kernel::matern(KernelType::Matern32, 0.7, 1.3);
  const Eigen::MatrixXd K = gpb::kernel_matrix(ctx, k, A, B);
  ASSERT_EQ(K.rows(), 7);
  ASSERT_EQ(K.cols(), 5);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(K(i, j), k(A.col(i).data(), B.col(j).data(), 2));
  const gpb::Domain dom = gpb::Domain::from_rows(A.transpose());
  const Eigen::VectorXd diag = gpb::kernel_diag(ctx, k, dom);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(diag[i], 1.3);
  EXPECT_THROW(gpb::kernel_matrix(ctx, k, A, Eigen::MatrixXd::Zero(3, 2)), gpb::InvalidArgument);
}

TEST(Kernel, ValidationNamesTheParameter) {
  EXPECT_EQ(message_of([] { Kernel::se(-1); }),
            "kernel.lengthscale must be > 0 and finite, got -1");
  EXPECT_NE(message_of([] { Kernel::se(1, 0); }).find("kernel.variance"), std::string::npos);
  EXPECT_NE(message_of([] { Kernel::matern(KernelType::Matern32, 0); }).find("kernel.lengthscale"),
            std::string::npos);
  EXPECT_NE(message_of([] { Kernel::matern(KernelType::Linear, 1); }).find("kernel.type"),
            std::string::npos);
  EXPECT_NE(message_of([] { Kernel::linear(1, -0.5); }).find("kernel.offset"), std::string::npos);
  EXPECT_NE(message_of([] { Kernel::polynomial(0); }).find("kernel.degree must be >= 1, got 0"),
            std::string::npos);
  EXPECT_THROW(Kernel::se(std::nan("")), gpb::InvalidArgument);
}

TEST(Kernel, ParseAndName) {
  for (KernelType t :
       {KernelType::SE, KernelType::Matern12, KernelType::Matern32, KernelType::Matern52,
        KernelType::Linear, KernelType::Polynomial, KernelType::Precomputed}) {
    EXPECT_EQ(gpb::parse_kernel_type(gpb::kernel_type_name(t)), t);
  }
  const std::string msg = message_of([] { gpb::parse_kernel_type("rbf"); });
  EXPECT_NE(msg.find("'rbf'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("matern52"), std::string::npos) << msg;
  EXPECT_EQ(Kernel::se(0.2).describe(), "se(l=0.2, v=1)");
  EXPECT_EQ(Kernel::polynomial(2, 1, 0.5).describe(), "polynomial(p=2, v=1, c=0.5)");
}

TEST(Kernel, Precomputed) {
  Eigen::MatrixXd M(3, 3);
  M << 2, 0.5, 0.1, 0.5, 1, 0.2, 0.1, 0.2, 3;
  const Kernel k = Kernel::precomputed(M);
  EXPECT_EQ(k.type(), KernelType::Precomputed);
  ASSERT_NE(k.matrix(), nullptr);
  EXPECT_FALSE(k.stationary());
  const double i0 = 0, i2 = 2, bad = 3, frac = 0.5;
  EXPECT_EQ(k(&i0, &i2, 1), 0.1);
  EXPECT_EQ(k(&i2, &i2, 1), 3.0);
  EXPECT_THROW(k(&i0, &bad, 1), gpb::InvalidArgument);
  EXPECT_THROW(k(&frac, &i0, 1), gpb::InvalidArgument);

  gpb::Context ctx;
  Eigen::MatrixXd idx(1, 3);
  idx << 2, 0, 1;
  const Eigen::MatrixXd K = gpb::kernel_matrix(ctx, k, idx, idx);
  EXPECT_EQ(K(0, 1), M(2, 0));
  EXPECT_EQ(K(2, 2), M(1, 1));
  Eigen::MatrixXd out_of_range(1, 1);
  out_of_range << -1;
  EXPECT_THROW(gpb::kernel_matrix(ctx, k, idx, out_of_range), gpb::InvalidArgument);
  EXPECT_THROW(gpb::kernel_matrix(ctx, k, Eigen::MatrixXd::Zero(2, 1), Eigen::MatrixXd::Zero(2, 1)),
               gpb::InvalidArgument);
  const Eigen::VectorXd diag = gpb::kernel_diag(ctx, k, gpb::Domain::indices(3));
  EXPECT_EQ(diag, M.diagonal());

  EXPECT_THROW(Kernel::precomputed(Eigen::MatrixXd::Zero(2, 3)), gpb::InvalidArgument);
  Eigen::MatrixXd asym = M;
  asym(0, 1) += 1e-6;
  EXPECT_THROW(Kernel::precomputed(asym), gpb::InvalidArgument);
  Eigen::MatrixXd nearly = M;
  nearly(0, 1) += 1e-14;  // within 1e-10 relative
  EXPECT_NO_THROW(Kernel::precomputed(nearly));
  Eigen::MatrixXd nan = M;
  nan(1, 1) = std::nan("");
  EXPECT_THROW(Kernel::precomputed(nan), gpb::InvalidArgument);
}

}  // namespace
