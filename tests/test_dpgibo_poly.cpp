// DP-GIBO's polynomial-kernel surrogate (specs/dp-gibo.md §2 decision 8, §9.9–9.10) and the joint
// design (§3.3 acq = joint; issue #16 part 4): weight space against function space and against
// the kernel written out, decrement gradients against central differences, the exact gradient of
// a quadratic once N ≥ p, and the joint design never worse than A1.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include <cmath>
#include <limits>

#include "dpgibo_points.hpp"
#include "gpbandit/dpgibo/algorithms.hpp"
#include "gpbandit/dpgibo/gradient_gp.hpp"
#include "gpbandit/dpgibo/poly_gradient_gp.hpp"
#include "gpbandit/error.hpp"

namespace gpb::dpgibo {
namespace {

Eigen::MatrixXd points(int d, int n, std::uint64_t seed, double half = 1.0) {
  return test::uniform_points(d, n, seed, half, 7);
}

constexpr double kV = 1.3, kC = 0.7;  // kernel v·(xᵀz + c)²

double poly_k(const Eigen::VectorXd& x, const Eigen::VectorXd& z) {
  const double q = x.dot(z) + kC;
  return kV * q * q;
}

TEST(PolyWeightGp, FeaturesReproduceTheKernelAndTheirJacobian) {
  PolyWeightGp gp(5, kV, kC, 0.0, 1e-9);
  EXPECT_EQ(gp.feature_dim(), 21);  // (d+1)(d+2)/2 at d = 5
  const Eigen::MatrixXd X = points(5, 6, 1, 2.0);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      EXPECT_NEAR(gp.features(X.col(i)).dot(gp.features(X.col(j))), poly_k(X.col(i), X.col(j)),
                  1e-12 * std::max(1.0, poly_k(X.col(i), X.col(j))));
    }
    const Eigen::MatrixXd J = gp.feature_jacobian(X.col(i));
    for (int b = 0; b < 5; ++b) {
      Eigen::VectorXd e = Eigen::VectorXd::Zero(5);
      e(b) = 1e-6;
      const Eigen::VectorXd fd = (gp.features(X.col(i) + e) - gp.features(X.col(i) - e)) / 2e-6;
      EXPECT_LT((J.col(b) - fd).norm(), 1e-8) << "point " << i << ", coordinate " << b;
    }
  }
}

TEST(PolyWeightGp, PriorTraceIsTheClosedForm) {
  // Σ_a ∂²k(θ, θ')/∂θ_a∂θ'_a = 2v[d(‖θ‖² + c) + ‖θ‖²] for p = 2.
  const Context ctx;
  PolyWeightGp w(4, kV, kC, 0.01, 1e-9);
  GradientGp f(ctx, Kernel::polynomial(2, kV, kC), 4, 0.01, 1e-9);
  const Eigen::VectorXd theta = points(4, 1, 2, 1.5);
  const double t2 = theta.squaredNorm(), expect = 2 * kV * (4 * (t2 + kC) + t2);
  EXPECT_NEAR(w.prior_trace_at(theta), expect, 1e-12 * expect);
  EXPECT_NEAR(f.prior_trace_at(theta), expect, 1e-12 * expect);
  EXPECT_NEAR(w.trace(theta), expect, 1e-6 * expect);  // D = ∅
  EXPECT_NEAR(f.trace(theta), expect, 1e-12 * expect);
  EXPECT_THROW(f.prior_trace(), InvalidArgument);  // θ-dependent: prior_trace_at only
  EXPECT_THROW(PolyWeightGp(4, kV, -1.0, 0.0, 1e-9), InvalidArgument);
  EXPECT_THROW(PolyWeightGp(4, kV, kC, 0.0, 0.0), InvalidArgument);
}

TEST(PolyWeightGp, AgreesWithTheFunctionSpacePathWhileNAtMostP) {
  // §9.10: both paths are the same posterior while k(D, D) is regular (N ≤ p = 15 at d = 4).
  const Context ctx;
  for (const double sigma2 : {1e-2, 1e-4}) {
    PolyWeightGp w(4, kV, kC, sigma2, 1e-9);
    GradientGp f(ctx, Kernel::polynomial(2, kV, kC), 4, sigma2, 1e-9);
    const Eigen::MatrixXd D = points(4, 12, 3);
    w.append(D.leftCols(5));
    w.append(D.rightCols(7));
    f.append(D);
    const Eigen::VectorXd theta = points(4, 1, 4, 0.8);
    const double tol = 1e-6 * f.prior_trace_at(theta);
    EXPECT_NEAR(w.trace(theta), f.trace(theta), tol) << "sigma2 " << sigma2;
    Eigen::MatrixXd Y(12, 3);
    for (int j = 0; j < 12; ++j) {
      Y(j, 0) = std::sin(D(0, j)) + D(1, j) * D(2, j);
      Y(j, 1) = D.col(j).squaredNorm();
      Y(j, 2) = 1.0 - D(3, j);
    }
    EXPECT_LT((w.mean_gradients(theta, Y) - f.mean_gradients(theta, Y)).norm(), 1e-6);
    const Eigen::MatrixXd C = points(4, 9, 5, 1.5);
    EXPECT_LT((w.score(theta, C).decrements() - f.score(theta, C).decrements()).norm(), tol);
    const auto dw = w.decrement_at(theta), df = f.decrement_at(theta);
    Eigen::VectorXd gw, gf;
    const double vw = dw(C.col(2), gw), vf = df(C.col(2), gf);
    EXPECT_NEAR(vw, vf, tol);
    EXPECT_LT((gw - gf).norm(), 1e-5 * std::max(1.0, gf.norm()));
  }
}

TEST(PolyWeightGp, DecrementGradientsMatchCentralDifferencesOnBothPaths) {
  const Context ctx;
  for (const int N : {0, 8}) {
    PolyWeightGp w(3, kV, kC, 0.003, 1e-9);
    GradientGp f(ctx, Kernel::polynomial(2, kV, kC), 3, 0.003, 1e-9);
    const GradientSurrogate* gps[] = {&w, &f};
    if (N > 0) {
      w.append(points(3, N, 6));
      f.append(points(3, N, 6));
    }
    const Eigen::VectorXd theta = points(3, 1, 7, 0.5);
    for (const GradientSurrogate* gp : gps) {
      const auto fn = gp->decrement_at(theta);
      for (int trial = 0; trial < 3; ++trial) {
        const Eigen::VectorXd z = theta + points(3, 1, 20 + trial, 1.0);
        Eigen::VectorXd grad, unused;
        const double v = fn(z, grad);
        EXPECT_NEAR(v, gp->score(theta, z).decrements()(0), 1e-8 * std::max(1.0, v));
        for (int b = 0; b < 3; ++b) {
          Eigen::VectorXd e = Eigen::VectorXd::Zero(3);
          e(b) = 1e-6;
          const double fd = (fn(z + e, unused) - fn(z - e, unused)) / 2e-6;
          EXPECT_NEAR(grad(b), fd, 1e-5 * std::max(1.0, std::fabs(fd)))
              << "N = " << N << ", trial " << trial << ", coordinate " << b;
        }
      }
    }
  }
}

TEST(PolyWeightGp, ExactGradientOfTheQuadraticOnceNReachesP) {
  // §9.9: σ = 0, N = 30 ≥ p = 21 points in general position: the per-user losses ½‖θ − x_i‖² are
  // in the RKHS, so g⁽ⁱ⁾ = θ − x_i up to τ, and the posterior gradient trace is ≈ 0. Candidate
  // pools keep working past N = p (the function-space k(D, D) is singular there).
  PolyWeightGp gp(5, 1.0, 1.0, 0.0, 1e-9);
  const Eigen::MatrixXd D = points(5, 30, 8, 1.5), X = points(5, 4, 9, 2.0);
  gp.append(D);
  Eigen::MatrixXd Y(30, 4);
  for (int j = 0; j < 30; ++j) {
    for (int i = 0; i < 4; ++i) Y(j, i) = 0.5 * (D.col(j) - X.col(i)).squaredNorm();
  }
  const Eigen::VectorXd theta = points(5, 1, 10, 0.5);
  const Eigen::MatrixXd G = gp.mean_gradients(theta, Y);
  for (int i = 0; i < 4; ++i) EXPECT_LT((G.col(i) - (theta - X.col(i))).norm(), 1e-5);
  EXPECT_LT(gp.trace(theta), 1e-6);
  EXPECT_GT(gp.prior_trace_at(theta), 10.0);
  EXPECT_LT(gp.score(theta, points(5, 6, 11)).decrements().maxCoeff(), 1e-6);
}

TEST(PolyWeightGp, PoolUpdateEqualsRescoring) {
  PolyWeightGp gp(3, kV, kC, 0.01, 1e-9);
  gp.append(points(3, 4, 12));
  const Eigen::VectorXd theta = points(3, 1, 13, 0.3);
  const Eigen::MatrixXd C = points(3, 10, 14);
  GradientSurrogate::Candidates pool = gp.score(theta, C);
  const double before = gp.trace(theta), delta = pool.decrements()(6);
  gp.append_candidate(pool, 6);
  EXPECT_EQ(gp.size(), 5);
  EXPECT_NEAR(gp.trace(theta), before - delta, 1e-9 * before);  // the Schur identity
  EXPECT_LT((pool.decrements() - gp.score(theta, C).decrements()).norm(), 1e-12);
}

GiboOptions design_options(int b) {
  GiboOptions o;
  o.b_fixed = b;
  o.n_cand = 32;
  o.sigma2 = 1e-4;
  o.n_restart = 2;
  o.n_steps = 10;
  return o;
}

TEST(JointDesign, NeverWorseThanGreedyAndStrictlyBetterHere) {
  // A1 then block-coordinate sweeps: the sweeps start from A1's set (same random stream) and keep
  // only moves that lower Tr(D ∪ Z), so the joint trace is ≤ A1's; on an empty history with
  // b = d + 1 the greedy set is not jointly optimal and the sweeps find a lower trace.
  const Context ctx;
  const auto task = make_normal_location(2, 10, 0.5, 1.0, -3, 3, 1);
  const Eigen::Vector2d theta(0.2, -0.1);
  for (const SurrogateKernel kernel : {SurrogateKernel::SE, SurrogateKernel::Polynomial}) {
    GiboOptions o = design_options(3);
    o.kernel = kernel;
    auto greedy_gp = make_surrogate(ctx, o, 2);
    Rng r1(5, 0, 2);
    const Eigen::MatrixXd Zg = select_points(*task, o, *greedy_gp, theta, r1);
    o.acq = Acquisition::Joint;
    auto joint_gp = make_surrogate(ctx, o, 2);
    Rng r2(5, 0, 2);
    const Eigen::MatrixXd Zj = select_points(*task, o, *joint_gp, theta, r2);
    ASSERT_EQ(Zj.cols(), 3);
    ASSERT_EQ(joint_gp->size(), 3);
    // The returned surrogate holds exactly D ∪ Z.
    auto fresh = make_surrogate(ctx, o, 2);
    fresh->append(Zj);
    EXPECT_NEAR(joint_gp->trace(theta), fresh->trace(theta), 1e-10);
    const double tg = greedy_gp->trace(theta), tj = joint_gp->trace(theta);
    EXPECT_LT(tj, tg - 1e-3 * tg) << "kernel " << static_cast<int>(kernel);
    EXPECT_LE(((Zj.colwise() - theta).cwiseAbs().maxCoeff()), 1.0 + 1e-12);  // inside the box
  }
}

TEST(JointDesign, KeepsThetaAndWorksOnAHistory) {
  const Context ctx;
  const auto task = make_normal_location(3, 10, 0.5, 1.0, -3, 3, 1);
  const Eigen::Vector3d theta(0.1, 0.3, -0.2);
  GiboOptions o = design_options(4);
  o.acq = Acquisition::Joint;
  o.theta_in_batch = true;
  o.sweeps = 2;
  auto gp = make_surrogate(ctx, o, 3);
  gp->append(points(3, 6, 15));
  const double before = gp->trace(theta);
  Rng rng(6, 0, 2);
  const Eigen::MatrixXd Z = select_points(*task, o, *gp, theta, rng);
  ASSERT_EQ(Z.cols(), 4);
  EXPECT_EQ(Eigen::Vector3d(Z.col(0)), theta);
  EXPECT_EQ(gp->size(), 10);
  EXPECT_LT(gp->trace(theta), before);
}

/// Non-private GIBO on the exact polynomial surrogate: clip off, σ = 0, b = 3, plain GD η = 0.5.
GiboOptions exact_poly_options() {
  GiboOptions o;
  o.kernel = SurrogateKernel::Polynomial;
  o.mu = std::numeric_limits<double>::infinity();
  o.clip = false;
  o.sigma2 = 0.0;
  o.b_fixed = 3;
  o.T = 40;
  o.step = StepRule::Gd;
  o.eta = 0.5;
  o.n_cand = 64;
  o.n_restart = 1;
  o.n_steps = 5;
  return o;
}

TEST(PolyDpGibo, NonPrivateRunReachesTheMeanWithVanishingBias) {
  // E-DP6 without privacy: normal location, d = 5, b = 3, σ = 0, polynomial kernel in weight
  // space. After 7 iterations N = 21 = p points make the GP exact (bias ≈ 0), and GD with
  // η = 0.5 contracts θ − x̄ by 1/2 per step.
  const Context ctx;
  const auto task = make_normal_location(5, 50, 1.0, 1.0, -3, 3, 4);
  Rng ev(1, 0, 1), acq(1, 0, 2);
  const RunTrace tr = run_dp_gibo(ctx, *task, exact_poly_options(), Eigen::VectorXd::Zero(5), 0.0,
                                  {&ev, &acq, nullptr});
  ASSERT_EQ(tr.rows.size(), 41u);
  EXPECT_LT((tr.theta - *task->optimum()).norm(), 1e-6);
  for (std::size_t t = 8; t < tr.rows.size(); ++t) EXPECT_LT(tr.rows[t].bias, 1e-5) << t;
  EXPECT_TRUE(std::isnan(tr.rows[0].bias));
  EXPECT_GT(tr.rows[1].bias, 1e-3);  // 3 points cannot pin down a 21-feature quadratic
}

}  // namespace
}  // namespace gpb::dpgibo
