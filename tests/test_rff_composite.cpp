// Random Fourier features of composite kernels (objective/gp_prior.hpp): a product's features draw
// every part's frequencies on its own range, a sum's are one block per part scaled by √v_p; the
// feature map's k̂(x, y) = Σ_i a_i² cos(w_iᵀx + b_i) cos(w_iᵀy + b_i) converges to the exact
// composite kernel; the refusals (non-stationary kernels, a sum with fewer features than parts);
// Thompson sampling beyond acquisition.exact_max on a composite kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "gpbandit/rng.hpp"
#include "kernel_part.hpp"
#include "objective/gp_prior.hpp"
#include "test_support.hpp"

namespace {

using gpb::Kernel;
using gpb::KernelPart;
using gpb::KernelType;
using gpb::test::contains;
const auto& error_of = gpb::test::invalid_argument_of;

using gpb::test::kernel_part;

gpb::Context cpu_context() {
  return gpb::test::make_cpu_context(2);
}

/// The features a_i cos(w_iᵀx + b_i) of the draw at the columns of `points` (M × n).
Eigen::MatrixXd feature_map(const gpb::detail::RffDraw& r, const Eigen::MatrixXd& points) {
  Eigen::MatrixXd phase = r.w.transpose() * points;
  phase.colwise() += r.b;
  return r.amplitude.asDiagonal() * phase.array().cos().matrix();
}

/// Checks k̂ = ΦᵀΦ against K(P, P) on `points` within `tol`, after checking that Hoeffding's
/// bound makes a miss unlikely: k̂(x, y) is a sum of independent terms a_i² cos(·) cos(·), each in
/// an interval of width 2a_i², with mean k(x, y), so P(|k̂ − k| ≥ tol) ≤ 2 exp(−2 tol² / Σ (2a_i²)²)
/// per pair; the union over the n(n+1)/2 pairs must stay below 1e-6 (the test's false-failure
/// probability over draws; the seed is fixed).
void expect_converges(const Kernel& k, const Eigen::MatrixXd& points, int features, double tol) {
  gpb::Rng rng(17, 0, 5);
  const gpb::detail::RffDraw r =
      gpb::detail::draw_rff(k, static_cast<int>(points.rows()), features, rng);
  ASSERT_EQ(r.w.cols(), features);
  ASSERT_EQ(r.amplitude.size(), features);
  const double width2 = (2.0 * r.amplitude.array().square()).square().sum();
  const double pairs = 0.5 * static_cast<double>(points.cols() * (points.cols() + 1));
  const double false_failure = pairs * 2.0 * std::exp(-2.0 * tol * tol / width2);
  ASSERT_LT(false_failure, 1e-6) << "tolerance too tight for " << features << " features";
  const Eigen::MatrixXd phi = feature_map(r, points);
  const Eigen::MatrixXd approx = phi.transpose() * phi;
  const Eigen::MatrixXd exact = gpb::kernel_matrix(cpu_context(), k, points, points);
  double worst = 0;
  for (Eigen::Index i = 0; i < points.cols(); ++i) {
    for (Eigen::Index j = 0; j <= i; ++j) {
      EXPECT_NEAR(approx(i, j), exact(i, j), tol)
          << k.describe() << " at (" << i << ", " << j << ")";
      worst = std::max(worst, std::abs(approx(i, j) - exact(i, j)));
    }
  }
  std::printf("%s, %d features: worst |k^ - k| = %.4f (tolerance %.3f, bound %.1e)\n",
              k.describe().c_str(), features, worst, tol, false_failure);
}

/// 12 points in [0, 1]^4 spread so that k(x, y) takes values across (0, 1) for the kernels below.
Eigen::MatrixXd points4() {
  gpb::Rng rng(5, 0, 1);
  Eigen::MatrixXd p(4, 12);
  for (Eigen::Index j = 0; j < p.cols(); ++j) {
    for (Eigen::Index i = 0; i < p.rows(); ++i) p(i, j) = 0.6 * rng.uniform();
  }
  return p;
}

// Product v·k_1·k_2: Matérn 5/2 with ARD on [0, 2) × SE on [2, 4), v = 1.5; M = 300 000
// features, tolerance 0.04 (Hoeffding: ≤ 1e-9 for the 78 pairs). A draw that ignored the second
// part would estimate v·k_1, which differs from v·k_1·k_2 by more than 3× the tolerance here.
TEST(RffComposite, ProductFeaturesConvergeToTheKernel) {
  const KernelPart k1 = kernel_part(KernelType::Matern52, 0, 2, {0.2, 0.5});
  const Kernel k = Kernel::product({k1, kernel_part(KernelType::SE, 2, 2, {0.3})}, 1.5);
  const Kernel first_only = Kernel::product({k1, kernel_part(KernelType::SE, 2, 2, {1e9})}, 1.5);
  const Eigen::MatrixXd p = points4();
  const gpb::Context ctx = cpu_context();
  EXPECT_GT((gpb::kernel_matrix(ctx, k, p, p) - gpb::kernel_matrix(ctx, first_only, p, p))
                .cwiseAbs()
                .maxCoeff(),
            0.12);
  expect_converges(k, p, 300000, 0.04);
}

// Sum Σ v_p k_p: Matérn 3/2 on [0, 1) (v 0.7), SE with ARD on [1, 3) (v 0.5), Matérn ½ on [3, 4)
// (v 0.3); M = 300 001 features, 100 001 / 100 000 / 100 000 per part; tolerance 0.04
// (Hoeffding: ≤ 1e-8 for the 78 pairs).
TEST(RffComposite, SumFeaturesConvergeToTheKernel) {
  const Kernel k = Kernel::sum({kernel_part(KernelType::Matern32, 0, 1, {0.25}, 0.7),
                                kernel_part(KernelType::SE, 1, 2, {0.2, 0.6}, 0.5),
                                kernel_part(KernelType::Matern12, 3, 1, {0.4}, 0.3)});
  expect_converges(k, points4(), 300001, 0.04);
}

// A sum's features are one contiguous block per part, M_p = ⌊M/P⌋ (+1 for the first M mod P
// parts), each with frequencies on its part's range only and amplitude √(2v_p/M_p); a product's
// features have frequencies on every feature and amplitude √(2v/M).
TEST(RffComposite, FeatureBlocksAndAmplitudes) {
  const Kernel s = Kernel::sum({kernel_part(KernelType::SE, 0, 2, {0.5}, 0.8),
                                kernel_part(KernelType::Matern52, 2, 1, {0.5}, 0.2),
                                kernel_part(KernelType::Matern32, 3, 1, {0.5}, 1.0)});
  gpb::Rng rng(1, 0, 0);
  const gpb::detail::RffDraw r = gpb::detail::draw_rff(s, 4, 11, rng);  // 4 + 4 + 3 features
  const int owner[11] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2};
  const int first[3] = {0, 2, 3}, size[3] = {2, 1, 1}, count[3] = {4, 4, 3};
  const double v[3] = {0.8, 0.2, 1.0};
  for (int i = 0; i < 11; ++i) {
    const int p = owner[i];
    for (int q = 0; q < 4; ++q) {
      const bool inside = q >= first[p] && q < first[p] + size[p];
      EXPECT_EQ(r.w(q, i) != 0.0, inside) << "feature " << i << ", axis " << q;
    }
    EXPECT_DOUBLE_EQ(r.amplitude[i], std::sqrt(2.0 * v[p] / count[p])) << "feature " << i;
  }
  const Kernel prod = Kernel::product(
      {kernel_part(KernelType::SE, 0, 2, {0.5}), kernel_part(KernelType::Matern52, 2, 2, {0.5})},
      2.0);
  gpb::Rng rng2(1, 0, 0);
  const gpb::detail::RffDraw rp = gpb::detail::draw_rff(prod, 4, 7, rng2);
  EXPECT_TRUE((rp.w.array() != 0.0).all());
  EXPECT_TRUE((rp.amplitude.array() == std::sqrt(2.0 * 2.0 / 7)).all());
}

// A stationary kernel's draw is the one it always was: the amplitude √(2v/M) is new bookkeeping,
// the weights z are still normals times it.
TEST(RffComposite, StationaryAmplitudeIsTheOldScale) {
  gpb::Rng rng(2, 0, 0);
  const gpb::detail::RffDraw r = gpb::detail::draw_rff(Kernel::se(0.3, 2.5), 3, 9, rng);
  EXPECT_TRUE((r.amplitude.array() == std::sqrt(2.0 * 2.5 / 9)).all());
}

TEST(RffComposite, RefusesNonStationaryKernelsAndTooFewFeatures) {
  gpb::Rng rng(1, 0, 0);
  EXPECT_TRUE(contains(error_of([&] { gpb::detail::draw_rff(Kernel::tanimoto(), 2, 8, rng); }),
                       "random Fourier features need a stationary kernel"));
  EXPECT_TRUE(contains(error_of([&] { gpb::detail::draw_rff(Kernel::linear(1.0), 2, 8, rng); }),
                       "or a product or sum of them, got linear"));
  const Kernel s = Kernel::sum({kernel_part(KernelType::SE, 0, 1, {0.5}, 0.5),
                                kernel_part(KernelType::SE, 1, 1, {0.5}, 0.5),
                                kernel_part(KernelType::SE, 2, 1, {0.5}, 0.5)});
  EXPECT_TRUE(contains(error_of([&] { gpb::detail::draw_rff(s, 3, 2, rng); }),
                       "a sum of 3 parts needs features >= 3"));
  EXPECT_TRUE(contains(error_of([&] { gpb::detail::draw_rff(s, 4, 8, rng); }),
                       "points have dimension 4 but"));
}

// Thompson sampling over more candidates than acquisition.exact_max draws the prior by random
// features, now also for a composite kernel: every ask is a valid candidate, and with a clear
// optimum (f = −‖x − c‖² on a 30×30 grid) 25 asks after 5 random ones come within 0.05 of it.
TEST(RffComposite, ThompsonBeyondExactMaxTakesACompositeKernel) {
  for (bool sum : {false, true}) {
    gpb::OptimizerOptions o;
    o.domain = gpb::DomainSpec::grid({0, 0}, {1, 1}, {30, 30});
    const double v = sum ? 0.5 : 1.0;  // a sum's part variances; a product's parts carry none
    std::vector<KernelPart> parts = {kernel_part(KernelType::Matern52, 0, 1, {0.3}, v),
                                     kernel_part(KernelType::Matern52, 1, 1, {0.3}, v)};
    o.kernel = sum ? Kernel::sum(parts) : Kernel::product(parts, 1.0);
    o.noise_variance = 1e-4;
    o.seed = 3;
    o.context.backend = gpb::Backend::Cpu;
    o.context.threads = 1;
    o.acquisition.kind = gpb::AcquisitionKind::Thompson;
    o.acquisition.exact_max = 100;  // N = 900 > 100: random features
    o.acquisition.features = 512;
    o.initial_points = 5;
    gpb::Optimizer opt(o);
    const auto f = [](double x, double y) {
      return -((x - 0.62) * (x - 0.62) + (y - 0.31) * (y - 0.31));
    };
    double best = -1e9;
    for (int t = 0; t < 30; ++t) {
      const gpb::AskResult a = opt.ask();
      ASSERT_EQ(a.points.rows(), 1);
      const double y = f(a.points(0, 0), a.points(0, 1));
      best = std::max(best, y);
      opt.tell(a.points, {y});
    }
    EXPECT_GT(best, -0.05) << (sum ? "sum" : "product");
  }
}

}  // namespace
