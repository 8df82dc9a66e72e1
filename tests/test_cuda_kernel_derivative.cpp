// GPU parity of the SE kernel derivative ops (label gpu; skipped without a CUDA device).
#include <gtest/gtest.h>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/kernel_derivative.hpp"
#include "gpbandit/rng.hpp"

namespace gpb {
namespace {

Eigen::MatrixXd points(int d, int n, std::uint64_t seed) {
  Rng rng(seed, 0, 1);
  Eigen::MatrixXd X(d, n);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = rng.uniform(-2, 2);
  return X;
}

TEST(CudaKernelDerivative, FirstAndSecondDerivativeBlocksMatchCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  auto gpu = test::cuda_context();
  auto cpu = test::cpu_context();
  const Kernel k = Kernel::se(0.9, 1.4);
  for (int d : {1, 5, 15, 103}) {
    const Eigen::MatrixXd X = points(d, 3, 1), Z = points(d, 257, 2);
    EXPECT_LT(test::rel_err(se_kernel_grad(*gpu, k, X, Z), se_kernel_grad(*cpu, k, X, Z)), 1e-12)
        << "d = " << d;
    const Eigen::MatrixXd Zs = Z.leftCols(7);
    EXPECT_LT(
        test::rel_err(se_kernel_grad_grad(*gpu, k, X, Zs), se_kernel_grad_grad(*cpu, k, X, Zs)),
        1e-12)
        << "d = " << d;
  }
}

}  // namespace
}  // namespace gpb
