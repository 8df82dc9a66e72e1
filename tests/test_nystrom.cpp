// Tests for the feature-map ops: NYS (Nyström embedding with ridge-leverage dictionary sampling)
// and APX (approximate DTC posterior), specs/ldp-bo.md §3.2–3.3 and F6.
//
// Statistical tests use fixed seeds (deterministic); each states the probability, over the
// choice of seed, that a correct implementation would fail it (≤ 1e-6).
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/SVD>

#include <cmath>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/features.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

namespace {

using gpb::approx_posterior;
using gpb::Context;
using gpb::Domain;
using gpb::InvalidArgument;
using gpb::Kernel;
using gpb::KernelType;
using gpb::nystrom_embedding;
using gpb::Rng;

std::vector<int> all_indices(int n) {
  std::vector<int> p(n);
  for (int i = 0; i < n; ++i) p[i] = i;
  return p;
}

/// Exact GP posterior variance at every candidate after observing arm a weights[a] times with
/// noise variance λ: k(a,a) − k_X(a)ᵀ(K_XX + λI)⁻¹k_X(a), by a dense Cholesky solve.
Eigen::VectorXd exact_variance(const Eigen::MatrixXd& k, const Eigen::VectorXd& weights,
                               double lambda) {
  std::vector<int> x;
  for (int a = 0; a < weights.size(); ++a) {
    for (int r = 0; r < static_cast<int>(weights[a]); ++r) x.push_back(a);
  }
  const int t = static_cast<int>(x.size());
  Eigen::MatrixXd kxx(t, t), kxa(t, k.cols());
  for (int i = 0; i < t; ++i) {
    for (int j = 0; j < t; ++j) kxx(i, j) = k(x[i], x[j]);
    kxa.row(i) = k.row(x[i]);
  }
  kxx += lambda * Eigen::MatrixXd::Identity(t, t);
  const Eigen::LLT<Eigen::MatrixXd> llt(kxx);
  const Eigen::MatrixXd v = llt.matrixL().solve(kxa);
  return k.diagonal() - v.colwise().squaredNorm().transpose();
}

TEST(Nystrom, FullDictionaryReproducesTheKernelAndTheExactPosterior) {
  // F6: D = every candidate, K full rank ⇒ ΦᵀΦ = K and APX with w = play counts equals the exact
  // GP variance of the same observations.
  Context ctx;
  const Domain dom = Domain::grid({0.0, 0.0}, {1.0, 1.0}, {6, 5});  // N = 30
  const Kernel ker = Kernel::matern(KernelType::Matern12, 0.3);
  const int n = dom.size();
  const Eigen::MatrixXd k = gpb::kernel_matrix(ctx, ker, dom.points(), dom.points());
  Rng rng(1, 0, 0);
  const auto emb =
      nystrom_embedding(ctx, ker, dom, all_indices(n), Eigen::VectorXd::Ones(n), 1e6, rng);
  ASSERT_EQ(static_cast<int>(emb.dictionary.size()), n);
  EXPECT_EQ(rng.position(), static_cast<std::uint64_t>(n));
  ASSERT_EQ(emb.phi.rows(), n);
  ASSERT_EQ(emb.phi.cols(), n);
  EXPECT_LT((emb.phi.transpose() * emb.phi - k).cwiseAbs().maxCoeff(), 1e-9);

  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
  Rng counts(2, 0, 0);
  for (int a = 0; a < n; ++a) w[a] = static_cast<double>(counts.below(4));  // 0..3 plays
  for (double lambda : {1.0, 0.1}) {
    const auto apx = approx_posterior(ctx, emb, w, k.diagonal(), lambda);
    const Eigen::VectorXd ref = exact_variance(k, w, lambda);
    EXPECT_LT((apx.variance - ref).cwiseAbs().maxCoeff(), 1e-9) << "lambda " << lambda;
    // Ṽ^{−1/2} is the symmetric root of Ṽ⁻¹, and G = Ṽ^{−1/2}Φ.
    Eigen::MatrixXd v = lambda * Eigen::MatrixXd::Identity(n, n);
    for (int a = 0; a < n; ++a) v += w[a] * emb.phi.col(a) * emb.phi.col(a).transpose();
    const Eigen::MatrixXd eye = Eigen::MatrixXd::Identity(n, n);
    EXPECT_LT((apx.v_inv * v - eye).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_LT((apx.v_inv_sqrt * apx.v_inv_sqrt * v - eye).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_LT((apx.v_inv_sqrt - apx.v_inv_sqrt.transpose()).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((apx.g - apx.v_inv_sqrt * emb.phi).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(Nystrom, PartialDictionaryIsExactOnTheDictionary) {
  // φ̃(a)ᵀφ̃(b) = K[D,a]ᵀK_D⁻¹K[D,b]: equals K_ab when a or b is in D; the Nyström kernel
  // elsewhere (never above the true variance: k(a,a) − ‖φ̃_a‖² ≥ 0).
  Context ctx;
  const Domain dom = Domain::grid({0.0}, {1.0}, {40});
  const Kernel ker = Kernel::se(0.15);
  const int n = dom.size();
  const Eigen::MatrixXd k = gpb::kernel_matrix(ctx, ker, dom.points(), dom.points());
  std::vector<int> p = {1, 5, 9, 20, 33};
  Rng rng(3, 0, 0);
  const auto emb = nystrom_embedding(ctx, ker, dom, p, Eigen::VectorXd::Ones(n), 10.0, rng);
  ASSERT_EQ(emb.dictionary, p);
  const Eigen::MatrixXd kn = emb.phi.transpose() * emb.phi;
  for (int a : p) {
    for (int b = 0; b < n; ++b) EXPECT_NEAR(kn(a, b), k(a, b), 1e-9) << a << "," << b;
  }
  for (int a = 0; a < n; ++a) EXPECT_GE(k(a, a) - kn(a, a), -1e-12);
}

TEST(Nystrom, SingularDictionaryDropsNullDirections) {
  // Duplicate points make K_DD singular: the eigenvalues below τ·max are dropped and ΦᵀΦ is
  // still K on the dictionary's span (the pseudo-inverse root).
  Context ctx;
  Eigen::MatrixXd rows(5, 1);
  rows << 0.0, 0.5, 0.5, 0.9, 0.9;
  const Domain dom = Domain::from_rows(rows);
  const Kernel ker = Kernel::se(0.3);
  const Eigen::MatrixXd k = gpb::kernel_matrix(ctx, ker, dom.points(), dom.points());
  Rng rng(4, 0, 0);
  const auto emb =
      nystrom_embedding(ctx, ker, dom, all_indices(5), Eigen::VectorXd::Ones(5), 100.0, rng);
  ASSERT_EQ(emb.dictionary.size(), 5u);
  EXPECT_TRUE(emb.phi.allFinite());
  EXPECT_LT((emb.phi.transpose() * emb.phi - k).cwiseAbs().maxCoeff(), 1e-9);
  // Rank of Φ is 3 (the distinct points).
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(emb.phi);
  int rank = 0;
  for (int i = 0; i < svd.singularValues().size(); ++i) rank += svd.singularValues()[i] > 1e-8;
  EXPECT_EQ(rank, 3);
}

TEST(Nystrom, DictionaryDrawsMatchTheSpecOrderAndProbability) {
  // One draw u_a per member of P in ascending order; a kept iff u_a < min(q·s2[a], 1).
  Context ctx;
  const Domain dom = Domain::grid({0.0}, {1.0}, {50});
  const Kernel ker = Kernel::se(0.2);
  const int n = dom.size();
  Eigen::VectorXd s2(n);
  for (int a = 0; a < n; ++a) s2[a] = 0.02 * a;  // p = min(0.05·a, 1): 1 for a ≥ 20
  const std::vector<int> p = {0, 3, 4, 10, 17, 25, 26, 30, 41, 49};
  const double q = 2.5;
  Rng rng(5, 0, 9);
  Rng replay = rng;
  const auto emb = nystrom_embedding(ctx, ker, dom, p, s2, q, rng);
  std::vector<int> expected;
  for (int a : p) {
    if (replay.uniform() < std::min(q * s2[a], 1.0)) expected.push_back(a);
  }
  EXPECT_EQ(emb.dictionary, expected);
  EXPECT_EQ(rng.position(), p.size());  // drawn even where p = 1 (a ≥ 20)
}

TEST(Nystrom, KeepProbabilityIsMinOfQTimesS2AndOne) {
  // 100 calls over P = 0..199 with p = 0.1 (a < 100), p = 0.5 (100 ≤ a < 150), q·s2 = 3 → p = 1
  // (150 ≤ a < 190) and s2 = 0 → p = 0 (a ≥ 190). Counts over 10^4 / 5000 Bernoulli trials;
  // Hoeffding: |count − np| ≥ 350 fails w.p. ≤ 2e^{−2·350²/10^4} = 1.0e-10 (p = 0.1) and ≥ 250
  // w.p. ≤ 2e^{−2·250²/5000} = 2.8e-11 (p = 0.5). The p ∈ {0, 1} groups are exact.
  Context ctx;
  const Domain dom = Domain::grid({0.0}, {1.0}, {200});
  const Kernel ker = Kernel::matern(KernelType::Matern12, 0.05);
  const double q = 5.0;
  Eigen::VectorXd s2(200);
  for (int a = 0; a < 200; ++a) s2[a] = a < 100 ? 0.02 : a < 150 ? 0.1 : a < 190 ? 0.6 : 0.0;
  Rng rng(6, 0, 0);
  long low = 0, mid = 0, one = 0, zero = 0;
  for (int call = 0; call < 100; ++call) {
    const auto emb = nystrom_embedding(ctx, ker, dom, all_indices(200), s2, q, rng);
    for (int a : emb.dictionary) {
      low += a < 100;
      mid += a >= 100 && a < 150;
      one += a >= 150 && a < 190;
      zero += a >= 190;
    }
  }
  EXPECT_EQ(rng.position(), 100u * 200u);
  EXPECT_NEAR(low, 1000, 350);
  EXPECT_NEAR(mid, 2500, 250);
  EXPECT_EQ(one, 4000);
  EXPECT_EQ(zero, 0);
}

TEST(Nystrom, EmptyDictionary) {
  Context ctx;
  const Domain dom = Domain::grid({0.0}, {1.0}, {12});
  const Kernel ker = Kernel::se(0.2);
  Rng rng(7, 0, 0);
  const auto emb =
      nystrom_embedding(ctx, ker, dom, {2, 5, 7}, Eigen::VectorXd::Zero(12), 100.0, rng);
  EXPECT_TRUE(emb.dictionary.empty());
  EXPECT_EQ(emb.phi.rows(), 0);
  EXPECT_EQ(emb.phi.cols(), 12);
  EXPECT_EQ(rng.position(), 3u);
  const auto none = nystrom_embedding(ctx, ker, dom, {}, Eigen::VectorXd::Ones(12), 1.0, rng);
  EXPECT_EQ(none.phi.rows(), 0);
  EXPECT_EQ(none.phi.cols(), 12);

  const Eigen::VectorXd kdiag = gpb::kernel_diag(ctx, ker, dom);
  const auto apx = approx_posterior(ctx, emb, Eigen::VectorXd::Ones(12), kdiag, 1.0);
  EXPECT_EQ(apx.v_inv_sqrt.rows(), 0);
  EXPECT_EQ(apx.v_inv.rows(), 0);
  EXPECT_EQ(apx.g.rows(), 0);
  EXPECT_EQ(apx.g.cols(), 12);
  EXPECT_EQ(apx.variance, kdiag);
  // A default-constructed (0×0) embedding is accepted as empty too.
  const auto apx0 =
      approx_posterior(ctx, gpb::NystromEmbedding{}, Eigen::VectorXd::Zero(12), kdiag, 1.0);
  EXPECT_EQ(apx0.variance, kdiag);
}

TEST(Nystrom, BadInputThrows) {
  Context ctx;
  const Domain dom = Domain::grid({0.0}, {1.0}, {10});
  const Kernel ker = Kernel::se(0.2);
  const Eigen::VectorXd s2 = Eigen::VectorXd::Ones(10);
  Rng rng(8, 0, 0);
  EXPECT_THROW(nystrom_embedding(ctx, ker, dom, {3, 2}, s2, 1.0, rng), InvalidArgument);
  EXPECT_THROW(nystrom_embedding(ctx, ker, dom, {2, 2}, s2, 1.0, rng), InvalidArgument);
  EXPECT_THROW(nystrom_embedding(ctx, ker, dom, {-1}, s2, 1.0, rng), InvalidArgument);
  EXPECT_THROW(nystrom_embedding(ctx, ker, dom, {10}, s2, 1.0, rng), InvalidArgument);
  EXPECT_THROW(nystrom_embedding(ctx, ker, dom, {1}, s2, 0.0, rng), InvalidArgument);
  EXPECT_THROW(nystrom_embedding(ctx, ker, dom, {1}, s2, -1.0, rng), InvalidArgument);
  EXPECT_THROW(nystrom_embedding(ctx, ker, dom, {1}, Eigen::VectorXd::Ones(9), 1.0, rng),
               InvalidArgument);
  EXPECT_THROW(nystrom_embedding(ctx, ker, dom, {1}, s2, 1.0, rng, -1.0), InvalidArgument);
  EXPECT_EQ(rng.position(), 0u);  // nothing drawn on bad input

  const auto emb = nystrom_embedding(ctx, ker, dom, {1, 4, 8}, s2, 10.0, rng);
  const Eigen::VectorXd kd = Eigen::VectorXd::Ones(10);
  const Eigen::VectorXd w = Eigen::VectorXd::Ones(10);
  EXPECT_THROW(approx_posterior(ctx, emb, Eigen::VectorXd::Ones(9), kd, 1.0), InvalidArgument);
  EXPECT_THROW(approx_posterior(ctx, emb, w, Eigen::VectorXd::Ones(9), 1.0), InvalidArgument);
  EXPECT_THROW(approx_posterior(ctx, emb, w, kd, 0.0), InvalidArgument);
  Eigen::VectorXd neg = w;
  neg[3] = -1;
  EXPECT_THROW(approx_posterior(ctx, emb, neg, kd, 1.0), InvalidArgument);
  auto broken = emb;
  broken.dictionary.pop_back();
  EXPECT_THROW(approx_posterior(ctx, broken, w, kd, 1.0), InvalidArgument);
}

TEST(Nystrom, CudaContextRuns) {
  // CPU parity of the CUDA version: tests/test_cuda_features.cpp.
  if (Context::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  gpb::ContextOptions opt;
  opt.backend = gpb::Backend::Cuda;
  Context ctx(opt);
  const Domain dom = Domain::grid({0.0}, {1.0}, {10});
  Rng rng(9, 0, 0);
  const auto emb =
      nystrom_embedding(ctx, Kernel::se(0.2), dom, {1}, Eigen::VectorXd::Ones(10), 1.0, rng);
  EXPECT_EQ(emb.dictionary, std::vector<int>{1});
}

TEST(Nystrom, MillionCandidates) {
  // N = 10^6, m = 16: Φ is 16×10^6 (never an N×N matrix), built in chunks.
  Context ctx;
  const int n = 1000000;
  const Domain dom = Domain::grid({0.0}, {1.0}, {n});
  const Kernel ker = Kernel::se(0.1);
  std::vector<int> p;
  for (int i = 0; i < 16; ++i) p.push_back(i * 62500 + 31);
  Rng rng(10, 0, 0);
  const auto emb = nystrom_embedding(ctx, ker, dom, p, Eigen::VectorXd::Ones(n), 10.0, rng);
  ASSERT_EQ(emb.dictionary, p);
  ASSERT_EQ(emb.phi.rows(), 16);
  ASSERT_EQ(emb.phi.cols(), n);
  for (int a : p) {
    for (int b : {0, 12345, 500000, n - 1, p[3]}) {
      const double kab = ker(dom.point(a), dom.point(b), 1);
      EXPECT_NEAR(emb.phi.col(a).dot(emb.phi.col(b)), kab, 1e-9);
    }
  }
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
  for (int a : p) w[a] = 2;
  const Eigen::VectorXd kdiag = gpb::kernel_diag(ctx, ker, dom);
  const auto apx = approx_posterior(ctx, emb, w, kdiag, 1.0);
  EXPECT_EQ(apx.variance.size(), n);
  EXPECT_TRUE(apx.variance.allFinite());
  EXPECT_LE(apx.variance.maxCoeff(), 1.0 + 1e-12);
  EXPECT_GE(apx.variance.minCoeff(), 0.0);
  // At a played arm the variance shrinks (two observations with noise λ = 1: ≤ 1/3 + slack).
  EXPECT_LT(apx.variance[p[5]], 0.34);
}

}  // namespace
