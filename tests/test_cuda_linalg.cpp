// CUDA vs CPU parity of Cholesky (potrf with jitter, append, solves) and of the projection ops
// (Gaussian matrix, Z = X M / √r, singular spectrum). Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/projection.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

namespace {

using gpb::test::rel_err;

Eigen::MatrixXd random_matrix(int rows, int cols, std::uint32_t stream) {
  gpb::Rng rng(23, 0, stream);
  Eigen::MatrixXd x(rows, cols);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.normal();
  return x;
}

Eigen::MatrixXd spd(int n, std::uint32_t stream) {
  const Eigen::MatrixXd pts = random_matrix(3, n, stream);
  const auto cpu = gpb::test::cpu_context();
  Eigen::MatrixXd K = gpb::kernel_matrix(*cpu, gpb::Kernel::se(1.0), pts, pts);
  K.diagonal().array() += 1e-2;
  return K;
}

TEST(CudaCholesky, FactorAppendAndSolvesMatchCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const Eigen::MatrixXd A = spd(90, 1);
  gpb::Cholesky ref, got(*cuda);
  ref.factor(A.topLeftCorner(40, 40));
  got.factor(A.topLeftCorner(40, 40));
  EXPECT_LE(rel_err(got.matrix(), ref.matrix()), 1e-10);
  for (int t = 40; t < 90; ++t) {  // 50 appends: the device copy grows twice
    ref.append(A.col(t).head(t), A(t, t));
    got.append(A.col(t).head(t), A(t, t));
  }
  EXPECT_LE(rel_err(got.matrix(), ref.matrix()), 1e-10);
  Eigen::MatrixXd b = random_matrix(90, 3, 2), c = b;
  ref.solve_lower(b);
  got.solve_lower(c);
  EXPECT_LE(rel_err(c, b), 1e-10);
  ref.solve_upper(b);
  got.solve_upper(c);
  EXPECT_LE(rel_err(c, b), 1e-10);
  gpb::Cholesky copy = got;  // a copy appends on its own device copy
  copy.append(Eigen::VectorXd::Zero(90), 1.0);
  got.append(Eigen::VectorXd::Zero(90), 4.0);
  EXPECT_EQ(copy.matrix()(90, 90), 1.0);
  EXPECT_EQ(got.matrix()(90, 90), 2.0);
}

TEST(CudaCholesky, JitterEscalatesAndFailsLikeCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  Eigen::MatrixXd dup = Eigen::MatrixXd::Ones(5, 5);  // rank one: needs jitter
  gpb::Cholesky ref, got(*cuda);
  ref.factor(dup);
  got.factor(dup);
  EXPECT_EQ(got.jitter_used(), ref.jitter_used());
  EXPECT_GT(got.jitter_used(), 0.0);
  gpb::JitterPolicy none;
  none.max_tries = 0;
  gpb::Cholesky strict(*cuda, none);
  EXPECT_THROW(strict.factor(-Eigen::MatrixXd::Identity(4, 4)), gpb::NumericalError);
}

TEST(CudaProjection, GaussianMatrixAndProjectionMatchCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const Eigen::MatrixXd X = random_matrix(500, 12, 3);
  const auto a =
      gpb::random_projection(*cpu, X, 7, 99, 2, gpb::stream_of(gpb::StreamId::Projection));
  const auto b =
      gpb::random_projection(*cuda, X, 7, 99, 2, gpb::stream_of(gpb::StreamId::Projection));
  EXPECT_LE(rel_err(b.m, a.m), 1e-13);
  EXPECT_LE(rel_err(b.z, a.z), 1e-10);
  gpb::Rng rng(99, 2, gpb::stream_of(gpb::StreamId::Projection));
  EXPECT_EQ(a.m(0, 0), rng.normal());
  EXPECT_EQ(a.m(1, 0), rng.normal());  // column-major order of draws
}

TEST(CudaProjection, SingularSpectrumMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  for (int n : {300, 6}) {  // tall, and n < d (p = n)
    const Eigen::MatrixXd X = random_matrix(n, 10, 4);
    const auto a = gpb::singular_spectrum(*cpu, X);
    const auto b = gpb::singular_spectrum(*cuda, X);
    ASSERT_EQ(b.values.size(), std::min(n, 10));
    EXPECT_LE(rel_err(b.values, a.values), 1e-10) << "n=" << n;
    // Columns agree up to sign.
    const Eigen::MatrixXd overlap = (b.right.transpose() * a.right).cwiseAbs();
    EXPECT_LE(rel_err(overlap, Eigen::MatrixXd::Identity(overlap.rows(), overlap.cols())), 1e-8);
  }
}

}  // namespace
