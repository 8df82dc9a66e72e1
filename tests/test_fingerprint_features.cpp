// MinHash random features of Tanimoto and MinMax (unit norm, unbiased, Φ·W without Φ) and the
// marginal-likelihood fit of output scale and noise for a fixed kernel shape. Fixed seeds.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/engine/fingerprint_features.hpp"
#include "gpbandit/engine/hyperfit.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"
#include "test_support.hpp"

namespace {

using gpb::Domain;
using gpb::TanimotoFeatures;

using gpb::test::related_fingerprints;

/// Checks the 12 fingerprints' features (m = 8192, `seed`) against the kernel k: unit norm, and
/// every pair's φ_i·φ_j within 6 sd of k(x_i, x_j). φ_i·φ_j averages m independent ±1 terms with
/// mean k: sd = sqrt((1 − k²)/m) ≤ 0.011; 6 sd over the 66 pairs: false failure < 66·2e-9 for a
/// random seed. Returns the smallest and largest k over the pairs.
std::pair<double, double> expect_unbiased(const Domain& dom, const gpb::Kernel& k,
                                          std::uint64_t seed) {
  const int m = 8192;
  const TanimotoFeatures tf(dom.fingerprint_bits(), m, seed);
  const Eigen::MatrixXd phi = tf.features(dom, 0, 12);
  const gpb::Context ctx = gpb::test::make_cpu_context(2);
  const Eigen::MatrixXd K = gpb::kernel_matrix(ctx, k, dom.points(), dom.points());
  const Eigen::MatrixXd Khat = phi * phi.transpose();
  double lo = 1, hi = 0;
  for (int i = 0; i < 12; ++i) {
    EXPECT_NEAR(Khat(i, i), 1.0, 1e-12);
    for (int j = 0; j < i; ++j) {
      lo = std::min(lo, K(i, j));
      hi = std::max(hi, K(i, j));
      const double sd = std::sqrt((1 - K(i, j) * K(i, j)) / m);
      EXPECT_NEAR(Khat(i, j), K(i, j), 6 * sd + 1e-12) << i << "," << j;
    }
  }
  return {lo, hi};
}

TEST(TanimotoFeatures, UnitNormAndUnbiasedEstimate) {
  expect_unbiased(related_fingerprints(12, 1024, 1), gpb::Kernel::tanimoto(), 99);
}

TEST(TanimotoFeatures, ApplyEqualsFeaturesTimesW) {
  const Domain dom = related_fingerprints(700, 300, 3);  // several chunks of 256
  const TanimotoFeatures tf(300, 64, 5);
  Eigen::MatrixXd W(64, 3);
  gpb::Rng rng(1, 0, 1);
  for (Eigen::Index i = 0; i < W.size(); ++i) W.data()[i] = rng.normal();
  const Eigen::MatrixXd direct = tf.features(dom, 0, 700) * W;
  EXPECT_LT((tf.apply(dom, W, 2) - direct).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_THROW(tf.apply(dom, Eigen::MatrixXd::Zero(63, 1)), gpb::InvalidArgument);
  EXPECT_THROW(TanimotoFeatures(512, 8, 0).features(dom, 0, 1), gpb::InvalidArgument);
}

/// n count fingerprints of `bits` positions, related (each a random edit of a few shared
/// parents) so that MinMax spans (0, 1), counts up to 12 with some positions above 1.
Domain related_counts(int n, int bits, std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 3);
  std::vector<std::vector<double>> parents(3, std::vector<double>(static_cast<std::size_t>(bits)));
  for (auto& p : parents) {
    for (double& v : p) v = rng.uniform() < 0.15 ? 1.0 + std::floor(4 * rng.uniform()) : 0.0;
  }
  std::vector<std::int64_t> dense(static_cast<std::size_t>(n) * bits);
  for (int r = 0; r < n; ++r) {
    const auto& p = parents[static_cast<std::size_t>(r % 3)];
    for (int b = 0; b < bits; ++b) {
      double v = p[static_cast<std::size_t>(b)];
      if (rng.uniform() < 0.04) v = rng.uniform() < 0.5 ? 0.0 : std::floor(13 * rng.uniform());
      dense[static_cast<std::size_t>(r) * bits + b] = static_cast<std::int64_t>(v);
    }
  }
  return Domain::fingerprints(
      gpb::Fingerprints::from_dense(dense.data(), n, bits, gpb::FingerprintKind::Counts));
}

TEST(TanimotoFeatures, CountsEstimateMinMaxWithoutBias) {
  // As for bits, with MinMax; the pairs span the kernel's range, so a bias would show.
  const auto [lo, hi] = expect_unbiased(related_counts(12, 256, 4), gpb::Kernel::minmax(), 17);
  EXPECT_LT(lo, 0.4);
  EXPECT_GT(hi, 0.6);
}

TEST(TanimotoFeatures, ZeroOneCountsHashAsTheirBits) {
  // Copy 1 of a position hashes as its bit: a 0/1 count fingerprint has its bit
  // fingerprint's features, and the apply() path of counts equals features()·W.
  gpb::Rng bit_rng(8, 0, 2);
  std::vector<std::int64_t> dense(static_cast<std::size_t>(300) * 200);
  for (std::int64_t& v : dense) v = bit_rng.uniform() < 0.1 ? 1 : 0;
  const auto from = [&dense](gpb::FingerprintKind kind) {
    return Domain::fingerprints(gpb::Fingerprints::from_dense(dense.data(), 300, 200, kind));
  };
  const Domain bits = from(gpb::FingerprintKind::Bits), counts = from(gpb::FingerprintKind::Counts);
  const TanimotoFeatures tf(200, 64, 3);
  EXPECT_EQ(tf.features(counts, 0, 300), tf.features(bits, 0, 300));
  Eigen::MatrixXd W(64, 2);
  gpb::Rng rng(2, 0, 1);
  for (Eigen::Index i = 0; i < W.size(); ++i) W.data()[i] = rng.normal();
  const Domain many = related_counts(600, 200, 5);  // several chunks of 256
  EXPECT_LT((tf.apply(many, W, 2) - tf.features(many, 0, 600) * W).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(ScaleNoiseFit, MaximisesTheLikelihoodAndRecoversAGpSample) {
  const Domain dom = related_fingerprints(400, 512, 7);
  const gpb::Context ctx = gpb::test::make_cpu_context(2);
  const Eigen::MatrixXd K =
      gpb::kernel_matrix(ctx, gpb::Kernel::tanimoto(), dom.points(), dom.points());
  // y ~ N(3, 2.5·K + 0.1·I), one draw with a fixed seed.
  Eigen::MatrixXd C = 2.5 * K;
  C.diagonal().array() += 0.1;
  const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(C).matrixL();
  gpb::Rng rng(11, 0, 4);
  Eigen::VectorXd z(400);
  for (auto& x : z) x = rng.normal();
  const Eigen::VectorXd y = (L * z).array() + 3.0;
  const gpb::ScaleNoiseFit f = gpb::fit_scale_and_noise(K, y);
  EXPECT_NEAR(f.mean, y.mean(), 1e-12);
  // 400 observations pin v within a factor of 2.5 and λ within a factor of 3: v·K and λI are
  // partly confounded, because a Tanimoto matrix has a large near-diagonal part (this fixed draw
  // gives λ̂ = 0.046). Deterministic (fixed seed); the sharp check is the likelihood grid below.
  EXPECT_GT(f.signal_variance, 2.5 / 2.5);
  EXPECT_LT(f.signal_variance, 2.5 * 2.5);
  EXPECT_GT(f.noise_variance, 0.1 / 3);
  EXPECT_LT(f.noise_variance, 0.1 * 3);
  // No (v, λ) on a grid around it is more likely.
  const Eigen::VectorXd yc = y.array() - f.mean;
  const auto loglik = [&](double v, double lam) {
    Eigen::MatrixXd A = v * K;
    A.diagonal().array() += lam;
    const Eigen::LLT<Eigen::MatrixXd> llt(A);
    const Eigen::MatrixXd Lm = llt.matrixL();
    return -0.5 * yc.dot(llt.solve(yc)) - Lm.diagonal().array().log().sum() -
           0.5 * 400 * std::log(2 * M_PI);
  };
  EXPECT_NEAR(loglik(f.signal_variance, f.noise_variance), f.log_likelihood, 1e-6);
  for (const double sv : {0.5, 0.9, 1.1, 2.0}) {
    for (const double sn : {0.5, 0.9, 1.1, 2.0}) {
      EXPECT_LE(loglik(f.signal_variance * sv, f.noise_variance * sn), f.log_likelihood + 1e-9);
    }
  }
  EXPECT_THROW(gpb::fit_scale_and_noise(K, Eigen::VectorXd::Constant(400, 1.0)),
               gpb::InvalidArgument);
  EXPECT_THROW(gpb::fit_scale_and_noise(K.topLeftCorner(3, 3), y), gpb::InvalidArgument);
}

}  // namespace
