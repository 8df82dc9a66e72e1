// CUDA vs CPU parity of the Nyström embedding and the approximate (DTC) posterior. Skips without a
// CUDA device.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/features.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/rng.hpp"

#if GPB_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

using gpb::test::rel_err;

TEST(CudaFeatures, NystromAndApproxPosteriorMatchCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const auto cpu = gpb::test::cpu_context();
  gpb::Rng pts(31, 0, 1);
  Eigen::MatrixXd rows(20000, 2);
  for (Eigen::Index i = 0; i < rows.size(); ++i) rows.data()[i] = pts.uniform();
  const gpb::Domain dom = gpb::Domain::from_rows(rows);
  // A well-conditioned K[D,D] (about 29 spread-out points, Matérn ½): Φ = (K_DD^{1/2})^† K[D,:]
  // is then determined to ~1e-13 by either eigensolver, and no eigenvalue sits near the τ cut.
  const gpb::Kernel k = gpb::Kernel::matern(gpb::KernelType::Matern12, 0.1);
  std::vector<int> cand;
  for (int a = 0; a < dom.size(); a += 700) cand.push_back(a);
  Eigen::VectorXd s2 = Eigen::VectorXd::Constant(dom.size(), 2.0);     // q·s2 ≥ 1: all kept
  for (std::size_t i = 0; i < cand.size(); i += 3) s2[cand[i]] = 0.4;  // some drawn out
  gpb::Rng ra(8, 0, 5), rb(8, 0, 5);
  const auto ea = gpb::nystrom_embedding(*cpu, k, dom, cand, s2, 1.0, ra);
  const auto eb = gpb::nystrom_embedding(*cuda, k, dom, cand, s2, 1.0, rb);
  ASSERT_EQ(eb.dictionary, ea.dictionary);
  EXPECT_EQ(ra.position(), rb.position());
  EXPECT_LE(rel_err(eb.phi, ea.phi), 1e-8);
  gpb::Rng wr(4, 0, 2);
  Eigen::VectorXd w(dom.size());
  for (Eigen::Index a = 0; a < w.size(); ++a) w[a] = wr.uniform() < 0.3 ? wr.uniform() * 3 : 0.0;
  const Eigen::VectorXd kd = gpb::kernel_diag(*cpu, k, dom);
  const auto pa = gpb::approx_posterior(*cpu, ea, w, kd, 1e-2);
  const auto pb = gpb::approx_posterior(*cuda, ea, w, kd, 1e-2);
  EXPECT_LE(rel_err(pb.v_inv, pa.v_inv), 1e-8);
  EXPECT_LE(rel_err(pb.v_inv_sqrt, pa.v_inv_sqrt), 1e-8);
  EXPECT_LE(rel_err(pb.g, pa.g), 1e-8);
  EXPECT_LE(rel_err(pb.variance, pa.variance), 1e-8);
}

/// The points, candidates and s2 of NystromAndApproxPosteriorMatchCpu, at any N.
struct FeatureCase {
  gpb::Domain dom;
  gpb::Kernel k;
  std::vector<int> cand;
  Eigen::VectorXd s2, w;
};

FeatureCase feature_case(int n) {
  gpb::Rng pts(31, 0, 1);
  Eigen::MatrixXd rows(n, 2);
  for (Eigen::Index i = 0; i < rows.size(); ++i) rows.data()[i] = pts.uniform();
  FeatureCase c{gpb::Domain::from_rows(rows),
                gpb::Kernel::matern(gpb::KernelType::Matern12, 0.1),
                {},
                {},
                {}};
  for (int a = 0; a < n; a += n / 29) c.cand.push_back(a);
  c.s2 = Eigen::VectorXd::Constant(n, 2.0);
  gpb::Rng wr(4, 0, 2);
  c.w.resize(n);
  for (Eigen::Index a = 0; a < n; ++a) c.w[a] = wr.uniform() < 0.3 ? wr.uniform() * 3 : 0.0;
  return c;
}

// A small budget splits Φ, G and K[D,:] into several column chunks (1 MiB blocks: about 4500
// columns of m ≈ 29 rows, so 5 chunks of 20000); the results must not depend on the split.
TEST(CudaFeatures, ChunkedOverCandidatesMatchesCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context(gpb::Precision::Double, std::size_t{1} << 20);
  const auto cpu = gpb::test::cpu_context();
  const FeatureCase c = feature_case(20000);
  gpb::Rng ra(8, 0, 5), rb(8, 0, 5);
  const auto ea = gpb::nystrom_embedding(*cpu, c.k, c.dom, c.cand, c.s2, 1.0, ra);
  const auto eb = gpb::nystrom_embedding(*cuda, c.k, c.dom, c.cand, c.s2, 1.0, rb);
  ASSERT_EQ(eb.dictionary, ea.dictionary);
  EXPECT_LE(rel_err(eb.phi, ea.phi), 1e-8);
  const Eigen::VectorXd kd = gpb::kernel_diag(*cpu, c.k, c.dom);
  const auto pa = gpb::approx_posterior(*cpu, ea, c.w, kd, 1e-2);
  const auto pb = gpb::approx_posterior(*cuda, ea, c.w, kd, 1e-2);
  EXPECT_LE(rel_err(pb.v_inv, pa.v_inv), 1e-8);
  EXPECT_LE(rel_err(pb.g, pa.g), 1e-8);
  EXPECT_LE(rel_err(pb.variance, pa.variance), 1e-8);
}

#if GPB_HAS_CUDA
// approx_posterior must stream Φ and G through the device: with only ~256 MiB free it still runs
// at N = 2·10⁶, where one m×N array alone is 464 MB (the unchunked version ran out of memory).
TEST(CudaFeatures, ApproxPosteriorStreamsWhenDeviceIsNearlyFull) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context(gpb::Precision::Double, std::size_t{64} << 20);
  const auto cpu = gpb::test::cpu_context();
  FeatureCase c = feature_case(2000000);
  // Weights on 1000 candidates only: Ṽ stays well conditioned (‖Ṽ‖/λ ≤ 3000/λ = 3·10⁵), so both
  // eigensolvers determine G to far below the tolerance whatever N is.
  for (Eigen::Index a = 0; a < c.w.size(); ++a) c.w[a] = a % 2000 == 0 ? 1.0 + (a % 3) : 0.0;
  gpb::Rng ra(8, 0, 5);
  const auto emb = gpb::nystrom_embedding(*cpu, c.k, c.dom, c.cand, c.s2, 1.0, ra);
  ASSERT_GT(emb.phi.rows(), 20);
  const Eigen::VectorXd kd = gpb::kernel_diag(*cpu, c.k, c.dom);
  const auto pa = gpb::approx_posterior(*cpu, emb, c.w, kd, 1e-2);
  std::size_t free_b = 0, total_b = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
  const std::size_t leave = std::size_t{256} << 20;
  ASSERT_GT(free_b, 2 * leave);
  void* hog = nullptr;
  ASSERT_EQ(cudaMalloc(&hog, free_b - leave), cudaSuccess);
  gpb::ApproxPosterior pb;
  try {
    pb = gpb::approx_posterior(*cuda, emb, c.w, kd, 1e-2);
  } catch (const std::exception& e) {
    cudaFree(hog);
    FAIL() << e.what();
  }
  cudaFree(hog);
  EXPECT_LE(rel_err(pb.g, pa.g), 1e-8);
  EXPECT_LE(rel_err(pb.variance, pa.variance), 1e-8);
}
#endif

TEST(CudaFeatures, EmptyDictionary) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const gpb::Domain dom = gpb::Domain::grid({0.0}, {1.0}, {50});
  gpb::Rng rng(1, 0, 0);
  const auto emb = gpb::nystrom_embedding(*cuda, gpb::Kernel::se(0.2), dom, {3, 7},
                                          Eigen::VectorXd::Zero(50), 1.0, rng);
  EXPECT_TRUE(emb.dictionary.empty());
  EXPECT_EQ(emb.phi.rows(), 0);
  const Eigen::VectorXd kd = Eigen::VectorXd::Ones(50);
  const auto post = gpb::approx_posterior(*cuda, emb, Eigen::VectorXd::Ones(50), kd, 0.1);
  EXPECT_EQ(post.variance, kd);
}

}  // namespace
