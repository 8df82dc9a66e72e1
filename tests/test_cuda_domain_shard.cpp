// Issue #19 on a CUDA Context: an objective evaluated on one rank's slice of a grid gives the
// whole grid's values bit for bit (rkhs builds its kernel blocks on the device; random Fourier
// features on the host), and the CUDA values match the CPU's. Skips without a device.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/objective/objective.hpp"
#include "slice_check.hpp"

namespace {

using gpb::test::expect_slices_match;
using gpb::test::rel_err;

TEST(CudaDomainShard, SlicesGiveTheWholeGridsBits) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const gpb::Kernel k = gpb::Kernel::matern(gpb::KernelType::Matern52, 0.05, 1.3);
  // Support 5: blocks of 1 677 721 candidates; the cuts straddle the first block boundary.
  const std::vector<long long> cuts{0, 1000000, 1677720, 1677722, 2000000};
  expect_slices_match(*cuda, *gpb::make_rkhs_objective(k, 5, false), {0.0}, {1.0}, {2000000}, cuts,
                      "cuda rkhs m=5");
  const std::vector<long long> small{0, 1, 145, 291, 436, 437};
  expect_slices_match(*cuda, *gpb::make_rkhs_objective(k, 30, true), {0, 0}, {1, 1}, {23, 19},
                      small, "cuda rkhs m=30");
  expect_slices_match(*cuda, *gpb::make_gp_sample_objective(k, 64, false), {0, 0}, {1, 1}, {23, 19},
                      small, "cuda rff M=64");
}

TEST(CudaDomainShard, SliceValuesMatchTheCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const gpb::Kernel k = gpb::Kernel::se(0.2, 1.0);
  const auto f = gpb::make_rkhs_objective(k, 40, false);
  const gpb::Domain s = gpb::Domain::grid_slice({0, 0}, {1, 1}, {300, 200}, 12345, 40000);
  EXPECT_LT(rel_err(f->values(*cuda, s, 3, 1), f->values(*cpu, s, 3, 1)), 1e-12);
}

}  // namespace
