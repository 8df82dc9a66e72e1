// Backend::Auto on a machine with a device: it picks CUDA (the parity tests of tests/test_cuda_*
// passed on an H200, kAutoSelectsCuda), for a bare Context and for an Optimizer left on its
// defaults, unless GPBANDIT_BACKEND=cpu keeps the process on the CPU. Skips without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "test_support.hpp"

namespace {

TEST(CudaContext, AutoPicksTheDeviceUnlessTheEnvironmentSaysCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  {
    const gpb::test::ScopedEnv env("GPBANDIT_BACKEND", nullptr);
    const gpb::Context ctx;
    EXPECT_EQ(ctx.backend(), gpb::Backend::Cuda);
    EXPECT_NE(ctx.cuda(), nullptr);
    EXPECT_NE(ctx.describe().find("cuda: "), std::string::npos) << ctx.describe();
    const auto cpu = gpb::test::cpu_context();
    const Eigen::MatrixXd x = Eigen::MatrixXd::Random(40, 3);
    const gpb::Kernel k = gpb::Kernel::matern(gpb::KernelType::Matern52, 0.4);
    EXPECT_LT(
        gpb::test::rel_err(gpb::kernel_matrix(ctx, k, x, x), gpb::kernel_matrix(*cpu, k, x, x)),
        1e-12);
  }
  {
    const gpb::test::ScopedEnv env("GPBANDIT_BACKEND", "cpu");
    EXPECT_EQ(gpb::Context().backend(), gpb::Backend::Cpu);
  }
}

TEST(CudaContext, DefaultOptimizerRunsOnTheDevice) {
  GPB_REQUIRE_CUDA_DEVICE();
  const gpb::test::ScopedEnv env("GPBANDIT_BACKEND", nullptr);
  gpb::OptimizerOptions o;  // context.backend left at Auto
  o.domain = gpb::DomainSpec::sobol({0, 0}, {1, 1}, 2000, 4);
  o.seed = 5;
  gpb::Optimizer opt(o);
  ASSERT_EQ(opt.context().backend(), gpb::Backend::Cuda);
  for (int t = 0; t < 12; ++t) {
    const gpb::AskResult a = opt.ask(1);
    ASSERT_EQ(a.indices.size(), 1u);
    const double y = std::sin(5 * a.points(0, 0)) + a.points(0, 1);
    opt.tell(a.indices, std::vector<double>{y});
  }
  EXPECT_EQ(opt.context().backend(), gpb::Backend::Cuda);
}

}  // namespace
