// Cholesky: equals Eigen's LLT, append equals a full factorisation, jitter escalation, errors.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include <string>

#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"

namespace {

using gpb::Cholesky;
using gpb::JitterPolicy;

Eigen::MatrixXd random_spd(int n, unsigned seed) {
  std::srand(seed);
  const Eigen::MatrixXd B = Eigen::MatrixXd::Random(n, n);
  return B * B.transpose() + 0.5 * Eigen::MatrixXd::Identity(n, n);
}

double rel_diff(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / b.norm();
}

TEST(Cholesky, FactorEqualsEigenLLT) {
  const Eigen::MatrixXd A = random_spd(50, 1);
  Cholesky chol;
  chol.factor(A);
  EXPECT_EQ(chol.size(), 50);
  EXPECT_EQ(chol.jitter_used(), 0.0);
  const Eigen::MatrixXd ref = Eigen::LLT<Eigen::MatrixXd>(A).matrixL();
  EXPECT_LE(rel_diff(chol.matrix(), ref), 1e-14);
  EXPECT_LE(rel_diff(chol.matrix() * chol.matrix().transpose(), A), 1e-14);
}

TEST(Cholesky, AppendEqualsFullFactorisation) {
  const int n = 60;
  const Eigen::MatrixXd A = random_spd(n, 2);
  Cholesky grown;
  for (int t = 0; t < n; ++t) grown.append(A.col(t).head(t), A(t, t));
  Cholesky full;
  full.factor(A);
  EXPECT_EQ(grown.size(), n);
  EXPECT_LE(rel_diff(grown.matrix(), full.matrix()), 1e-12);
  // Factor a prefix, then append the rest.
  Cholesky mixed;
  mixed.factor(A.topLeftCorner(20, 20));
  for (int t = 20; t < n; ++t) mixed.append(A.col(t).head(t), A(t, t));
  EXPECT_LE(rel_diff(mixed.matrix(), full.matrix()), 1e-12);
}

TEST(Cholesky, TriangularSolves) {
  const Eigen::MatrixXd A = random_spd(30, 3);
  Cholesky chol;
  chol.factor(A);
  const Eigen::MatrixXd b = Eigen::MatrixXd::Random(30, 3);
  Eigen::MatrixXd x = b;
  chol.solve_lower(x);
  EXPECT_LE(rel_diff(chol.matrix() * x, b), 1e-13);
  x = b;
  chol.solve_upper(x);
  EXPECT_LE(rel_diff(chol.matrix().transpose() * x, b), 1e-13);
  x = b;
  chol.solve_lower(x);
  chol.solve_upper(x);  // A⁻¹ b
  EXPECT_LE(rel_diff(A * x, b), 1e-10);
  Eigen::MatrixXd wrong(29, 1);
  EXPECT_THROW(chol.solve_lower(wrong), gpb::InvalidArgument);
  EXPECT_THROW(chol.append(Eigen::VectorXd::Zero(3), 1.0), gpb::InvalidArgument);
}

TEST(Cholesky, JitterEscalatesOnDuplicatePoints) {
  // SE kernel matrix with a duplicated point: exactly singular, so the plain factorisation fails.
  Eigen::VectorXd x(6);
  x << 0.3, 0.3, 0.1, 0.7, 0.9, 0.5;
  Eigen::MatrixXd K(6, 6);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) K(i, j) = std::exp(-0.5 * std::pow((x[i] - x[j]) / 0.4, 2));
  Cholesky chol;
  chol.factor(K);
  EXPECT_GT(chol.jitter_used(), 0.0);
  EXPECT_LE(chol.jitter_used(), 1e-10 * std::pow(10.0, 5));
  Eigen::MatrixXd Kj = K;
  Kj.diagonal().array() += chol.jitter_used();
  EXPECT_LE(rel_diff(chol.matrix() * chol.matrix().transpose(), Kj), 1e-12);
}

TEST(Cholesky, ThrowsNumericalErrorOnceJitterIsExhausted) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Identity(3, 3);
  A(1, 1) = -5.0;  // a large negative eigenvalue
  JitterPolicy p;
  p.max_tries = 2;
  Cholesky chol(p);
  try {
    chol.factor(A);
    FAIL() << "no exception";
  } catch (const gpb::NumericalError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("3x3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("largest jitter tried"), std::string::npos) << msg;
  }
  Cholesky app(p);
  app.append(Eigen::VectorXd(), 1.0);
  EXPECT_THROW(app.append(Eigen::VectorXd::Ones(1), 0.5), gpb::NumericalError);  // pivot −0.5
  EXPECT_EQ(app.size(), 1);
  JitterPolicy bad;
  bad.first = 0;
  EXPECT_THROW(Cholesky{bad}, gpb::InvalidArgument);
  Eigen::MatrixXd nan = Eigen::MatrixXd::Identity(2, 2);
  nan(1, 0) = std::nan("");
  EXPECT_THROW(chol.factor(nan), gpb::InvalidArgument);
  EXPECT_THROW(chol.factor(Eigen::MatrixXd::Identity(2, 3)), gpb::InvalidArgument);
}

}  // namespace
