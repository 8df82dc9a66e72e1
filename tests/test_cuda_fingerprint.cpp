// CUDA twins of the fingerprint kernels (the formula's __popcll branch in kernels/*.cuh) against
// the CPU's SIMD popcount: kernel matrices and diagonals bit for bit (popcounts are integers, the
// last operations are one division and one product, correctly rounded on both), and the CUDA
// posterior over a fingerprint domain (observe, observe_batch, rows_at, apply_rows) against the
// CPU one. Skips without a device (label gpu).
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cstring>
#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"

namespace {

using gpb::Domain;
using gpb::Fingerprints;
using gpb::Kernel;

Fingerprints counts(long long n, int bits, std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 5);
  std::vector<std::int64_t> v(static_cast<std::size_t>(n) * bits, 0);
  for (auto& x : v) {
    if (rng.uniform() < 0.07) x = 1 + static_cast<std::int64_t>(rng.below(20));
  }
  return Fingerprints::from_dense(v.data(), n, bits, gpb::FingerprintKind::Counts);
}

TEST(CudaFingerprint, KernelMatricesBitForBit) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto gpu = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  // 2048 bits = 32 words (shared-memory tiles), 8192 bits = 128 words (the global-memory kernel).
  for (const int bits : {2048, 8192}) {
    const Domain a = Domain::fingerprints(Fingerprints::random(300, bits, 0.05, 1));
    const Domain b = Domain::fingerprints(Fingerprints::random(170, bits, 0.05, 2));
    const Kernel k = Kernel::tanimoto(1.3);
    const Eigen::MatrixXd kc = gpb::kernel_matrix(*cpu, k, a.points(), b.points());
    const Eigen::MatrixXd kg = gpb::kernel_matrix(*gpu, k, a.points(), b.points());
    EXPECT_EQ((kc - kg).cwiseAbs().maxCoeff(), 0.0) << bits << " bits";
    EXPECT_EQ((gpb::kernel_diag(*cpu, k, a) - gpb::kernel_diag(*gpu, k, a)).cwiseAbs().maxCoeff(),
              0.0);
  }
  const Domain c = Domain::fingerprints(counts(200, 1024, 3));
  const Kernel mm = Kernel::minmax(0.7);
  EXPECT_EQ((gpb::kernel_matrix(*cpu, mm, c.points(), c.points()) -
             gpb::kernel_matrix(*gpu, mm, c.points(), c.points()))
                .cwiseAbs()
                .maxCoeff(),
            0.0);
}

TEST(CudaFingerprint, PosteriorMatchesTheCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto gpu = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  const Domain dom = Domain::fingerprints(Fingerprints::random(5000, 2048, 0.04, 9));
  const Kernel k = Kernel::tanimoto(1.1);
  gpb::PosteriorOptions o;
  o.noise_variance = 0.05;
  o.capacity = 16;
  gpb::FinitePosterior pc(*cpu, k, dom, 1, o), pg(*gpu, k, dom, 1, o);
  gpb::Rng rng(4, 0, 1);
  std::vector<int> idx;
  std::vector<double> y;
  for (int i = 0; i < 60; ++i) {
    idx.push_back(static_cast<int>(rng.below(5000)));
    y.push_back(rng.normal());
  }
  pc.observe_batch(40, idx.data(), y.data());  // CPU: the block update
  pg.observe_batch(40, idx.data(), y.data());  // CUDA: the rows one by one
  for (int i = 40; i < 60; ++i) {
    pc.observe(&idx[static_cast<std::size_t>(i)], &y[static_cast<std::size_t>(i)]);
    pg.observe(&idx[static_cast<std::size_t>(i)], &y[static_cast<std::size_t>(i)]);
  }
  const Eigen::Map<const Eigen::VectorXd> mc(pc.mean(0), 5000), mg(pg.mean(0), 5000);
  const Eigen::Map<const Eigen::VectorXd> sc(pc.variance(0), 5000), sg(pg.variance(0), 5000);
  EXPECT_LT(gpb::test::rel_err(mg, mc), 1e-10);
  EXPECT_LT(gpb::test::rel_err(sg, sc), 1e-10);
  const std::vector<int> probe = {1, 77, idx[5], 4999};
  EXPECT_LT(gpb::test::rel_err(pg.rows_at(0, probe), pc.rows_at(0, probe)), 1e-10);
  const Eigen::MatrixXd B = Eigen::MatrixXd::Random(60, 3);
  EXPECT_LT(gpb::test::rel_err(pg.apply_rows(0, B), pc.apply_rows(0, B)), 1e-10);
}

}  // namespace
