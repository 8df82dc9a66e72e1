// MinHash random features of the Tanimoto kernel (unit norm, unbiased, Φ·W without Φ) and the
// marginal-likelihood fit of output scale and noise for a fixed kernel shape. Fixed seeds.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <cmath>
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

TEST(TanimotoFeatures, UnitNormAndUnbiasedEstimate) {
  const Domain dom = related_fingerprints(12, 1024, 1);
  const int m = 8192;
  const TanimotoFeatures tf(1024, m, 99);
  const Eigen::MatrixXd phi = tf.features(dom, 0, 12);
  const gpb::Context ctx = gpb::test::make_cpu_context(2);
  const Eigen::MatrixXd K =
      gpb::kernel_matrix(ctx, gpb::Kernel::tanimoto(), dom.points(), dom.points());
  const Eigen::MatrixXd Khat = phi * phi.transpose();
  for (int i = 0; i < 12; ++i) {
    EXPECT_NEAR(Khat(i, i), 1.0, 1e-12);
    for (int j = 0; j < i; ++j) {
      // φ_i·φ_j averages m independent ±1 terms with mean T: sd = sqrt((1 − T²)/m) ≤ 0.011;
      // 6 sd over the 66 pairs: false failure < 66·2e-9 for a random seed.
      const double sd = std::sqrt((1 - K(i, j) * K(i, j)) / m);
      EXPECT_NEAR(Khat(i, j), K(i, j), 6 * sd + 1e-12) << i << "," << j;
    }
  }
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
