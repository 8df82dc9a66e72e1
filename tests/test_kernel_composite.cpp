// Composite kernels (Kernel::product, Kernel::sum): values against the direct formula (with ARD
// parts), k(x, x) = variance, the refusals naming the part; a FinitePosterior with a composite
// kernel on a small parameter space equals one built from its explicit kernel matrix (precomputed
// kernel) to 1e-10; the streamed posterior still equals the materialised one bit for bit, and
// lazy blocks with batch updates agree with recompute mode; the per-parameter construction on a
// parameter space (space_kernel) and its refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/engine/space_kernel.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"
#include "kernel_part.hpp"
#include "test_support.hpp"

namespace {

using gpb::Kernel;
using gpb::KernelPart;
using gpb::KernelType;
using gpb::Parameter;
using gpb::test::contains;
const auto& error_of = gpb::test::invalid_argument_of;

using gpb::test::kernel_part;

/// The stationary shape at variance 1, written out from the textbook formulas.
double shape(KernelType t, double s) {
  switch (t) {
    case KernelType::SE:
      return std::exp(-0.5 * s * s);
    case KernelType::Matern12:
      return std::exp(-s);
    case KernelType::Matern32:
      return (1 + std::sqrt(3.0) * s) * std::exp(-std::sqrt(3.0) * s);
    default:
      return (1 + std::sqrt(5.0) * s + 5.0 * s * s / 3.0) * std::exp(-std::sqrt(5.0) * s);
  }
}

/// s_p = ‖(x − y)_p / l_p‖ over the part's features.
double scaled_distance(const KernelPart& p, const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
  double r2 = 0;
  for (int i = 0; i < p.size; ++i) {
    const double l = p.lengthscales[p.lengthscales.size() == 1 ? 0 : i];
    const double t = (x[p.begin + i] - y[p.begin + i]) / l;
    r2 += t * t;
  }
  return std::sqrt(r2);
}

/// Parts on 6 features: Matérn 5/2 on [0, 1), SE with ARD on [1, 4), Matérn 3/2 isotropic on
/// [4, 6) — given out of order (the ranges, not the order, define the kernel).
std::vector<KernelPart> three_parts(bool sum) {
  return {kernel_part(KernelType::SE, 1, 3, {0.4, 1.5, 0.7}, sum ? 0.5 : 1.0),
          kernel_part(KernelType::Matern52, 0, 1, {0.3}, sum ? 1.2 : 1.0),
          kernel_part(KernelType::Matern32, 4, 2, {0.9}, sum ? 0.3 : 1.0)};
}

gpb::Context cpu_context() {
  gpb::ContextOptions o;
  o.backend = gpb::Backend::Cpu;
  o.threads = 2;
  return gpb::Context(o);
}

// Deterministic: every entry of K(A, B) and every Kernel::operator() value equals the formula
// written out here (product: v·Π u_p; sum: Σ v_p·u_p) to 1e-14 relative.
TEST(KernelComposite, ValuesMatchTheDirectFormula) {
  const gpb::Context ctx = cpu_context();
  const Eigen::MatrixXd A = Eigen::MatrixXd::Random(6, 7), B = Eigen::MatrixXd::Random(6, 5);
  for (bool sum : {false, true}) {
    const std::vector<KernelPart> parts = three_parts(sum);
    const Kernel k = sum ? Kernel::sum(parts) : Kernel::product(parts, 1.7);
    EXPECT_EQ(k.type(), sum ? KernelType::Sum : KernelType::Product);
    EXPECT_TRUE(k.composite());
    EXPECT_FALSE(k.stationary());
    EXPECT_EQ(k.input_dim(), 6);
    const Eigen::MatrixXd K = gpb::kernel_matrix(ctx, k, A, B);
    for (int i = 0; i < A.cols(); ++i) {
      for (int j = 0; j < B.cols(); ++j) {
        const Eigen::VectorXd x = A.col(i), y = B.col(j);
        double want = sum ? 0.0 : 1.7;
        for (const KernelPart& p : parts) {
          const double u = shape(p.type, scaled_distance(p, x, y));
          want = sum ? want + p.variance * u : want * u;
        }
        EXPECT_NEAR(K(i, j), want, 1e-14 * std::abs(want)) << "sum " << sum;
        EXPECT_NEAR(k(x.data(), y.data(), 6), want, 1e-14 * std::abs(want));
      }
    }
    // k(x, x) is the variance (a sum's: Σ v_p = 2.0), as kernel_diag says.
    const double v = sum ? 2.0 : 1.7;
    EXPECT_NEAR(k.variance(), v, 1e-15);
    const Eigen::VectorXd diag = gpb::kernel_diag(ctx, k, A);
    for (int i = 0; i < A.cols(); ++i) EXPECT_EQ(diag[i], k.variance());
    // The per-feature lengthscales, in feature order.
    const Eigen::VectorXd l = k.lengthscales();
    EXPECT_EQ(l[0], 0.3);
    EXPECT_EQ(l[2], 1.5);
    EXPECT_EQ(l[5], 0.9);
  }
}

// A single part over every feature is the plain ARD kernel.
TEST(KernelComposite, OnePartIsThePlainKernel) {
  const Eigen::Vector3d l(0.5, 1.0, 2.0);
  const Kernel plain = Kernel::ard(KernelType::Matern52, l, 1.3);
  const Kernel one =
      Kernel::product({kernel_part(KernelType::Matern52, 0, 3, {0.5, 1.0, 2.0})}, 1.3);
  const Eigen::MatrixXd A = Eigen::MatrixXd::Random(3, 9);
  const gpb::Context ctx = cpu_context();
  const Eigen::MatrixXd K1 = gpb::kernel_matrix(ctx, plain, A, A);
  const Eigen::MatrixXd K2 = gpb::kernel_matrix(ctx, one, A, A);
  EXPECT_LT((K1 - K2).cwiseAbs().maxCoeff(), 1e-15);
}

// One shape formula (detail::stationary_shape) serves plain kernels and composite parts: a
// one-part product at variance 1 is the plain kernel bit for bit, for every stationary type,
// isotropic and ARD, at distances from 0 to past the Matérn overflow guard.
TEST(KernelComposite, OnePartAtVarianceOneIsThePlainKernelBitForBit) {
  const Eigen::MatrixXd A = Eigen::MatrixXd::Random(3, 8);
  for (KernelType t :
       {KernelType::SE, KernelType::Matern12, KernelType::Matern32, KernelType::Matern52}) {
    for (bool ard : {false, true}) {
      const std::vector<double> l =
          ard ? std::vector<double>{0.5, 1e-160, 2.0} : std::vector<double>{0.7};
      const Kernel plain = ard ? Kernel::ard(t, Eigen::Vector3d(l[0], l[1], l[2]), 1.0)
                               : Kernel::ard(t, Eigen::VectorXd::Constant(1, l[0]), 1.0);
      const Kernel one = Kernel::product({kernel_part(t, 0, 3, l)}, 1.0);
      for (int i = 0; i < A.cols(); ++i) {
        for (int j = 0; j < A.cols(); ++j) {
          const double a = plain(A.col(i).data(), A.col(j).data(), 3);
          const double b = one(A.col(i).data(), A.col(j).data(), 3);
          EXPECT_EQ(a, b) << kernel_type_name(t) << (ard ? " ard" : "") << " " << i << ", " << j;
          EXPECT_FALSE(std::isnan(b));
        }
      }
    }
  }
}

TEST(KernelComposite, WithVarianceScalesASumsParts) {
  const Kernel s = Kernel::sum(three_parts(true)).with_variance(4.0);
  EXPECT_NEAR(s.variance(), 4.0, 1e-15);
  EXPECT_NEAR(s.parts()[0].variance, 1.0, 1e-15);  // 0.5 · 4 / 2
  const Kernel p = Kernel::product(three_parts(false), 1.0).with_variance(3.0);
  EXPECT_EQ(p.variance(), 3.0);
  EXPECT_TRUE(contains(p.describe(), "product(se[1:4](l=[0.4, 1.5, 0.7]), matern52[0:1](l=0.3)"));
}

TEST(KernelComposite, RefusesBadPartsNamingThem) {
  using V = std::vector<KernelPart>;
  EXPECT_TRUE(contains(error_of([] { (void)Kernel::product(V{}); }), "kernel.parts must not be"));
  EXPECT_TRUE(contains(error_of([] {
                         (void)Kernel::product(V{kernel_part(KernelType::SE, 0, 2, {1.0}),
                                                 kernel_part(KernelType::SE, 1, 2, {1.0})});
                       }),
                       "kernel.parts[1] overlaps kernel.parts[0] at feature 1"));
  EXPECT_TRUE(contains(error_of([] {
                         (void)Kernel::product(V{kernel_part(KernelType::SE, 0, 1, {1.0}),
                                                 kernel_part(KernelType::SE, 2, 1, {1.0})});
                       }),
                       "feature 1 of 3"));
  EXPECT_TRUE(
      contains(error_of([] { (void)Kernel::sum(V{kernel_part(KernelType::Linear, 0, 1, {1.0})}); }),
               "kernel.parts[0].type must be se, matern12"));
  EXPECT_TRUE(contains(error_of([] {
                         (void)Kernel::product(V{kernel_part(KernelType::SE, 0, 3, {1.0, 2.0})});
                       }),
                       "kernel.parts[0].lengthscale must have 1 or 3 values"));
  EXPECT_TRUE(contains(
      error_of([] { (void)Kernel::product(V{kernel_part(KernelType::SE, 0, 1, {1.0}, 2.0)}); }),
      "kernel.parts[0].variance must be 1 in a product"));
  EXPECT_TRUE(
      contains(error_of([] { (void)Kernel::sum(V{kernel_part(KernelType::SE, 0, 1, {-1.0})}); }),
               "kernel.parts[0].lengthscale must be > 0"));
  EXPECT_TRUE(contains(error_of([] { (void)gpb::parse_kernel_type("product"); }),
                       "kernel 'product' is composite"));
  // Points of the wrong dimension.
  const gpb::Context ctx = cpu_context();
  const Kernel k = Kernel::sum(three_parts(true));
  EXPECT_TRUE(contains(error_of([&] {
                         (void)gpb::kernel_matrix(ctx, k, Eigen::MatrixXd::Zero(5, 2),
                                                  Eigen::MatrixXd::Zero(5, 2));
                       }),
                       "parts over 6 features"));
}

/// A small mixed space: 3 labels one-hot (3 features) × 4 numeric values × 3 integers × 2 labels
/// = 72 combinations, 6 features.
std::shared_ptr<const gpb::ParameterSpace> small_space() {
  std::vector<Parameter> ps{Parameter::categorical("base", {"a", "b", "c"}),
                            Parameter::numerical_discrete("conc", {0.1, 0.2, 0.5, 0.9}),
                            Parameter::integer("temp", 90, 120, 15),
                            Parameter::categorical("solvent", {"p", "q"})};
  return std::make_shared<const gpb::ParameterSpace>(ps);
}

/// Matérn 5/2 on the numeric parameters (ARD) × a kernel on each categorical's encoding.
Kernel space_product(const gpb::ParameterSpace& sp, bool sum) {
  std::vector<gpb::SpaceKernelPart> parts(2);
  parts[0].parameters = {"conc", "temp"};
  parts[0].lengthscales = Eigen::Vector2d(0.4, 0.8);
  parts[1].parameters = {"base"};
  parts[1].type = KernelType::SE;
  parts[1].lengthscales = Eigen::VectorXd::Constant(1, 1.1);
  return gpb::space_kernel(sp, sum ? KernelType::Sum : KernelType::Product, parts,
                           KernelType::Matern32, 1.4);
}

// Deterministic: μ and σ² of a posterior with the composite kernel on the encodings equal those
// of a posterior whose kernel is the explicit 72 × 72 matrix K(D, D) of the same kernel
// (precomputed, points = indices) to 1e-10, after each of 10 observations, for product and sum.
TEST(KernelComposite, PosteriorEqualsThePrecomputedMatrixOne) {
  const auto sp = small_space();
  const gpb::Domain dom = gpb::Domain::from_space(sp);
  const int n = dom.size();
  ASSERT_EQ(n, 72);
  const gpb::Context ctx = cpu_context();
  for (bool sum : {false, true}) {
    const Kernel k = space_product(*sp, sum);
    const Kernel pre = Kernel::precomputed(gpb::kernel_matrix(ctx, k, dom.points(), dom.points()));
    gpb::PosteriorOptions po;
    po.noise_variance = 0.02;
    po.mode = gpb::PosteriorMode::Incremental;
    gpb::FinitePosterior a(ctx, k, dom, 1, po);
    gpb::FinitePosterior b(ctx, pre, gpb::Domain::indices(n), 1, po);
    for (int step = 0; step < 10; ++step) {
      const int j = (step * 29 + 5) % n;
      const double y = std::sin(3.0 * sp->encode(j).sum()) + 0.1 * step;
      a.observe(&j, &y);
      b.observe(&j, &y);
      for (int c = 0; c < n; ++c) {
        ASSERT_NEAR(a.mean(0)[c], b.mean(0)[c], 1e-10) << "sum " << sum << " step " << step;
        ASSERT_NEAR(a.variance(0)[c], b.variance(0)[c], 1e-10) << "sum " << sum;
      }
    }
  }
}

// Deterministic: the streamed posterior (encodings computed per chunk) equals the materialised one
// bit for bit with a composite kernel, through observations, a pending row and UCB choices.
TEST(KernelComposite, StreamedPosteriorEqualsTheMaterialisedOne) {
  const auto sp = small_space();
  const gpb::Domain held = gpb::Domain::from_space(sp);
  const gpb::Domain streamed = gpb::Domain::streamed_space(sp);
  const gpb::Context ctx = cpu_context();
  for (bool sum : {false, true}) {
    const Kernel k = space_product(*sp, sum);
    gpb::PosteriorOptions po;
    po.noise_variance = 0.05;
    po.mode = gpb::PosteriorMode::Recompute;
    po.chunk = 17;
    gpb::FinitePosterior a(ctx, k, held, 1, po);
    po.mode = gpb::PosteriorMode::Auto;
    gpb::FinitePosterior b(ctx, k, streamed, 1, po);
    ASSERT_TRUE(b.recompute_mode());
    std::vector<gpb::Rng> ta{gpb::Rng(3, 0, 1)}, tb = ta;
    for (int step = 0; step < 8; ++step) {
      const double width[1] = {1.2};
      const auto ca = a.ucb_argmax(width, nullptr, &ta);
      const auto cb = b.ucb_argmax(width, nullptr, &tb);
      ASSERT_EQ(ca[0].index, cb[0].index) << "step " << step;
      ASSERT_EQ(ca[0].score, cb[0].score);
      const int j = step % 2 == 0 ? ca[0].index : (step * 31) % held.size();
      const double y = std::cos(2.0 * sp->encode(j).sum());
      if (step == 3) {
        a.add_pending(&j);
        b.add_pending(&j);
        a.resolve_pending(&y);
        b.resolve_pending(&y);
      } else {
        a.observe(&j, &y);
        b.observe(&j, &y);
      }
      for (int c = 0; c < held.size(); ++c) {
        ASSERT_EQ(a.mean(0)[c], b.mean(0)[c]) << "sum " << sum << " step " << step;
        ASSERT_EQ(a.variance(0)[c], b.variance(0)[c]);
      }
    }
  }
}

// Deterministic: on a 3 960-combination space (lazy blocks active), the incremental posterior
// with lazy blocks and block (batch) updates and the recompute-mode posterior agree to 1e-10 in μ
// and σ² and choose the same UCB candidates, with a composite kernel.
TEST(KernelComposite, LazyBlocksAndBatchesAgreeWithRecompute) {
  std::vector<Parameter> ps{Parameter::categorical("base", {"a", "b", "c", "d"}),
                            Parameter::continuous("conc", 0.0, 1.0, 30),
                            Parameter::integer("temp", 90, 120, 3),
                            Parameter::categorical("solvent", {"p", "q", "r"})};
  const auto sp = std::make_shared<const gpb::ParameterSpace>(ps);
  const gpb::Domain dom = gpb::Domain::from_space(sp);
  ASSERT_EQ(dom.size(), 3960);
  const gpb::Context ctx = cpu_context();
  for (bool sum : {false, true}) {
    const Kernel k = space_product(*sp, sum);
    gpb::PosteriorOptions po;
    po.noise_variance = 0.01;
    po.mode = gpb::PosteriorMode::Incremental;
    gpb::FinitePosterior a(ctx, k, dom, 1, po);
    po.mode = gpb::PosteriorMode::Recompute;
    gpb::FinitePosterior b(ctx, k, dom, 1, po);
    std::vector<gpb::Rng> ta{gpb::Rng(7, 0, 1)}, tb = ta;
    for (int step = 0; step < 6; ++step) {
      const double width[1] = {2.0};
      const auto ca = a.ucb_argmax(width, nullptr, &ta);
      const auto cb = b.ucb_argmax(width, nullptr, &tb);
      ASSERT_EQ(ca[0].index, cb[0].index) << "sum " << sum << " step " << step;
      const int idx[3] = {ca[0].index, (step * 977 + 13) % dom.size(),
                          (step * 331 + 7) % dom.size()};
      double y[3];
      for (int i = 0; i < 3; ++i) y[i] = std::sin(2.0 * sp->encode(idx[i]).sum());
      a.observe_batch(3, idx, y);
      b.observe_batch(3, idx, y);
      for (int c = 0; c < dom.size(); ++c) {
        ASSERT_NEAR(a.mean(0)[c], b.mean(0)[c], 1e-10) << "sum " << sum << " step " << step;
        ASSERT_NEAR(a.variance(0)[c], b.variance(0)[c], 1e-10) << "sum " << sum;
      }
    }
  }
}

TEST(KernelComposite, SpaceKernelPartsFollowTheEncodings) {
  const auto sp = small_space();
  const Kernel k = space_product(*sp, false);
  // base: features [0, 3); conc, temp: [3, 5); solvent: [5, 6) (a default part of its own).
  ASSERT_EQ(k.parts().size(), 3u);
  EXPECT_EQ(k.parts()[0].begin, 3);
  EXPECT_EQ(k.parts()[0].size, 2);
  EXPECT_TRUE(k.parts()[0].ard);
  EXPECT_EQ(k.parts()[1].begin, 0);
  EXPECT_EQ(k.parts()[1].size, 3);
  EXPECT_FALSE(k.parts()[1].ard);  // one-hot labels: one lengthscale by default
  EXPECT_EQ(k.parts()[2].begin, 5);
  EXPECT_EQ(k.parts()[2].type, KernelType::Matern32);
  EXPECT_EQ(k.variance(), 1.4);
  // A sum's default variances share 1 between its parts.
  const Kernel s = space_product(*sp, true);
  EXPECT_NEAR(s.variance(), 1.0, 1e-15);
}

TEST(KernelComposite, SpaceKernelRefusesBadPartsNamingTheField) {
  const auto sp = small_space();
  const auto with = [&](std::vector<std::vector<std::string>> names) {
    std::vector<gpb::SpaceKernelPart> parts;
    for (auto& n : names) {
      gpb::SpaceKernelPart p;
      p.parameters = n;
      parts.push_back(p);
    }
    return error_of([&] { (void)gpb::space_kernel(*sp, KernelType::Product, parts); });
  };
  EXPECT_TRUE(contains(with({}), "kernel.parts must not be empty"));
  EXPECT_TRUE(contains(with({{"conc"}, {"tmp"}}),
                       "kernel.parts[1].parameters[0]: unknown parameter 'tmp' (the space's: "
                       "base, conc, temp, solvent)"));
  EXPECT_TRUE(contains(with({{"conc", "temp"}, {"temp"}}),
                       "kernel.parts[1].parameters[0]: 'temp' is already in kernel.parts[0]"));
  EXPECT_TRUE(contains(with({{"base", "temp"}}), "kernel.parts[0].parameters must be adjacent"));
  EXPECT_TRUE(contains(with({{}}), "kernel.parts[0].parameters must name at least one"));
}

}  // namespace
