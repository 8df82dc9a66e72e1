// Tests for DP-GIBO's GP surrogate and algorithms (specs/dp-gibo.md §2–4, §9): trace facts, the
// axis-design identity, the forward design, the Schur update, the per-user gradient solve, the
// clipping (sensitivity) bound, and convergence of a noise-free run on a quadratic.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gpbandit/dpgibo/algorithms.hpp"
#include "gpbandit/dpgibo/gradient_gp.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/privacy/noise_source.hpp"

namespace gpb::dpgibo {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Eigen::MatrixXd random_points(int d, int n, std::uint64_t seed, double half = 1.0) {
  Rng rng(seed, 0, 3);
  Eigen::MatrixXd X(d, n);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = rng.uniform(-half, half);
  return X;
}

/// Trace at θ = 0 after evaluating the axis design {±h e_a}, each point m times.
double axis_trace_numeric(int d, double sigma, int m, double h) {
  const Context ctx;
  GradientGp gp(ctx, Kernel::se(1.0), d, sigma * sigma, 1e-9);
  Eigen::MatrixXd Z = Eigen::MatrixXd::Zero(d, 2 * d * m);
  for (int a = 0; a < d; ++a) {
    for (int r = 0; r < m; ++r) {
      Z(a, (2 * a) * m + r) = h;
      Z(a, (2 * a + 1) * m + r) = -h;
    }
  }
  gp.append(Z);
  return gp.trace(Eigen::VectorXd::Zero(d));
}

TEST(GradientGp, PriorTraceAndMonotoneDecrease) {
  const Context ctx;
  GradientGp gp(ctx, Kernel::se(0.5, 2.0), 4, 0.01, 1e-9);
  const Eigen::VectorXd theta = Eigen::VectorXd::Zero(4);
  EXPECT_NEAR(gp.trace(theta), 4 * 2.0 / 0.25, 1e-12);  // d s²/ℓ² with D = ∅
  double prev = gp.trace(theta);
  const Eigen::MatrixXd Z = random_points(4, 12, 1, 0.7);
  for (int j = 0; j < 12; ++j) {
    gp.append(Z.col(j));
    const double tr = gp.trace(theta);
    EXPECT_LE(tr, prev + 1e-12);
    EXPECT_GE(tr, -1e-9);
    prev = tr;
  }
}

TEST(GradientGp, AxisDesignMatchesClosedForm) {
  // specs/dp-gibo.md §9.5 (d = 15, ℓ = s = 1, D = ∅), numerically and in closed form.
  struct Case {
    double sigma;
    int m;
    double h, expect;
  };
  for (const Case& c :
       {Case{0.05, 1, 0.3, 0.24417}, Case{0.05, 1, 0.5, 0.24884}, Case{0.05, 2, 0.3, 0.13304},
        Case{0.01, 1, 0.3, 0.02932}, Case{0.05, 1, 0.1, 1.68174}}) {
    EXPECT_NEAR(axis_design_trace(15, 1, 1, c.sigma * c.sigma, c.m, c.h), c.expect, 5e-5);
    EXPECT_NEAR(axis_trace_numeric(15, c.sigma, c.m, c.h), c.expect, 5e-5)
        << c.sigma << " " << c.m << " " << c.h;
  }
  const double h = axis_design_step(15, 1, 1, 0.0025, 1);
  EXPECT_NEAR(h, 0.393, 2e-3);
  EXPECT_NEAR(axis_design_trace(15, 1, 1, 0.0025, 1, h), 0.1987, 5e-4);
  EXPECT_NEAR(axis_design_trace(15, 1, 1, 0.0025, 1, 0.2236), 0.3901, 5e-4);  // Lemma A.8's h
}

TEST(GradientGp, ForwardDesignTraces) {
  // {θ, θ + h e_a}, σ = 0, d = 15 (§9.6).
  const Context ctx;
  for (auto [h, expect] : {std::pair{1.0, 6.270}, {0.5, 1.797}, {0.1, 0.0749}}) {
    GradientGp gp(ctx, Kernel::se(1.0), 15, 0.0, 1e-9);
    Eigen::MatrixXd Z = Eigen::MatrixXd::Zero(15, 16);
    for (int a = 0; a < 15; ++a) Z(a, a + 1) = h;
    gp.append(Z);
    EXPECT_NEAR(gp.trace(Eigen::VectorXd::Zero(15)), expect, 1.5e-3) << "h = " << h;
  }
}

TEST(GradientGp, SchurUpdateEqualsRefactorisation) {
  const Context ctx;
  GradientGp gp(ctx, Kernel::se(0.8), 3, 0.01, 1e-9);
  gp.append(random_points(3, 6, 2));
  const Eigen::VectorXd theta = Eigen::VectorXd::Constant(3, 0.1);
  const Eigen::MatrixXd C = random_points(3, 40, 3);
  GradientGp::Candidates pool = gp.score(theta, C);
  const Eigen::VectorXd delta = pool.decrements();
  const double before = gp.trace(theta);
  gp.append_candidate(pool, 7);
  EXPECT_NEAR(gp.trace(theta), before - delta(7), 1e-10);
  gp.append_candidate(pool, 21);
  const GradientGp::Candidates fresh = gp.score(theta, C);
  EXPECT_LT((pool.R - fresh.R).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((pool.s - fresh.s).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((pool.V - fresh.V).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(GradientGp, FirstPointIsBestAtDistanceLengthscale) {
  // σ = 0, ℓ = s = 1, D = ∅: Δ(z) = ‖z−θ‖² e^{−‖z−θ‖²}, maximal e^{−1} at distance 1 (§9.7).
  const Context ctx;
  GradientGp gp(ctx, Kernel::se(1.0), 2, 0.0, 1e-9);
  Eigen::MatrixXd C(2, 3);
  C << 1.0, 0.5, 2.0, 0.0, 0.0, 0.0;
  const Eigen::VectorXd d = gp.trace_decrement(Eigen::VectorXd::Zero(2), C);
  EXPECT_NEAR(d(0), std::exp(-1.0), 1e-8);
  EXPECT_LT(d(1), d(0));
  EXPECT_LT(d(2), d(0));
}

TEST(GradientGp, BothGradientSolvesAgree) {
  const Context ctx;
  GradientGp gp(ctx, Kernel::se(1.0), 4, 0.01, 1e-9);
  gp.append(random_points(4, 15, 4));
  const Eigen::MatrixXd Y = random_points(15, 6, 5);  // n = 6 ≥ d: the A·Y path
  const Eigen::VectorXd theta = Eigen::VectorXd::Constant(4, 0.2);
  const Eigen::MatrixXd G = gp.mean_gradients(theta, Y);
  const Eigen::MatrixXd G2 = gp.mean_gradients(theta, Y.leftCols(2));  // n < d: K⁻¹Y path
  EXPECT_LT((G.leftCols(2) - G2).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_THROW(gp.mean_gradients(theta, Y.topRows(3)), InvalidArgument);
}

TEST(Clipping, ReplacingOneUserMovesTheMeanByAtMost2BOverN) {
  // §9.2: for any D, θ and adversarial replacement of one user's column of Y.
  const Context ctx;
  GradientGp gp(ctx, Kernel::se(0.7), 3, 0.0025, 1e-9);
  gp.append(random_points(3, 9, 6));
  const Eigen::VectorXd theta = Eigen::VectorXd::Constant(3, -0.1);
  const int n = 25;
  const double B = 0.3;
  Eigen::MatrixXd Y = random_points(9, n, 7);
  const Eigen::VectorXd g = clipped_mean(gp.mean_gradients(theta, Y), B, true);
  for (double scale : {1e6, -1e6, -1.0}) {
    Eigen::MatrixXd Y2 = Y;
    Y2.col(4) = scale * Y.col(4) + Eigen::VectorXd::LinSpaced(9, -3, 3);
    const Eigen::VectorXd g2 = clipped_mean(gp.mean_gradients(theta, Y2), B, true);
    EXPECT_LE((g - g2).norm(), 2 * B / n + 1e-12) << scale;
  }
  // The bound is attained: two opposite columns of norm ≥ B.
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(3, n);
  G(0, 0) = 5;
  Eigen::MatrixXd G2 = G;
  G2(0, 0) = -5;
  EXPECT_NEAR((clipped_mean(G, B, true) - clipped_mean(G2, B, true)).norm(), 2 * B / n, 1e-15);
  int clipped = -1;
  clipped_mean(G, B, true, &clipped);
  EXPECT_EQ(clipped, 1);
}

TEST(Clipping, OffWithHugeBoundIsTheGradientOfTheMeanLoss) {
  const Context ctx;
  GradientGp gp(ctx, Kernel::se(1.0), 2, 0.01, 1e-9);
  gp.append(random_points(2, 8, 8));
  const Eigen::MatrixXd Y = random_points(8, 30, 9);
  const Eigen::VectorXd theta = Eigen::VectorXd::Zero(2);
  const Eigen::VectorXd g = clipped_mean(gp.mean_gradients(theta, Y), 1e300, false);
  const Eigen::VectorXd single = gp.mean_gradients(theta, Y.rowwise().mean());
  EXPECT_LT((g - single).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(Algorithms, NoiseFreeGiboConvergesToTheQuadraticOptimum) {
  // §9.12: μ = ∞, clip off, σ = 0, quadratic objective → the optimum x̄. GD itself contracts by
  // 1/2 per step here; what remains (≈ 1.4e-3 in θ) is the bias of the zero-mean SE GP's gradient
  // estimate of a quadratic from points at distance ~ℓ, so the bound is 5e-3 (start: ~0.9 away).
  const Context ctx;
  const auto task = make_normal_location(3, 20, 0.5, 1.0, -3, 3, 11);
  GiboOptions o;
  o.mu = kInf;
  o.clip = false;
  o.T = 40;
  o.b_fixed = 4;
  o.step = StepRule::Gd;
  o.eta = 0.5;
  o.sigma2 = 1e-6;
  o.n_cand = 64;
  o.n_restart = 1;  // keeps the test short; refinement itself is tested in test_dpgibo_design
  o.n_steps = 5;
  Rng ev(1, 0, 1), acq(1, 0, 2);
  const RunTrace tr =
      run_dp_gibo(ctx, *task, o, Eigen::VectorXd::Zero(3), 0.0, {&ev, &acq, nullptr});
  ASSERT_EQ(tr.rows.size(), 41u);
  EXPECT_EQ(tr.rows.back().evaluations, 160);
  EXPECT_LT((tr.theta - *task->optimum()).norm(), 5e-3);
  EXPECT_LT(tr.rows.back().loss - task->objective(*task->optimum()), 2e-5);
  EXPECT_GT(tr.rows.front().loss - task->objective(*task->optimum()), 0.3);  // it had to move
  // The axis design gets there too.
  o.acq = Acquisition::Axis;
  o.b_fixed = 0;
  const RunTrace ax =
      run_dp_gibo(ctx, *task, o, Eigen::VectorXd::Zero(3), 0.0, {&ev, &acq, nullptr});
  EXPECT_LT((ax.theta - *task->optimum()).norm(), 5e-3);
  // Non-private GD on the true gradients as well.
  o.T = 60;
  const RunTrace gd = run_dp_gd(*task, o, Eigen::VectorXd::Zero(3), {&ev, &acq, nullptr});
  EXPECT_LT((gd.theta - *task->optimum()).norm(), 1e-6);
}

TEST(Algorithms, PrivateRunUsesTheNoiseStdAndAdaptiveBRespectsTheCap) {
  const Context ctx;
  const auto task = make_normal_location(2, 10, 0.0, 1.0, -3, 3, 12);
  GiboOptions o;
  o.mu = 0.5;
  o.B = 1;
  o.T = 5;
  o.eps_bias = 1e-6;  // unreachable: b hits the cap 2d = 4 every iteration
  o.n_cand = 32;
  Rng ev(2, 0, 1), acq(2, 0, 2);
  auto src = privacy::make_seeded_source(2, 0, 9);
  const RunTrace tr =
      run_dp_gibo(ctx, *task, o, Eigen::VectorXd::Zero(2), 0.0, {&ev, &acq, src.get()});
  const double nu = dp_noise_std(1, 5, 10, 0.5);
  EXPECT_NEAR(nu, 2 * std::sqrt(5.0) / 5, 1e-15);
  for (std::size_t t = 1; t < tr.rows.size(); ++t) {
    EXPECT_EQ(tr.rows[t].b, 4);
    EXPECT_GT(tr.rows[t].noise_norm, 0);
    EXPECT_LT(tr.rows[t].noise_norm, 8 * nu);  // ‖w‖ of a 2-d normal exceeds 8 w.p. e^{-32}
  }
  // A private run without a noise source is refused.
  EXPECT_THROW(run_dp_gibo(ctx, *task, o, Eigen::VectorXd::Zero(2), 0.0, {&ev, &acq, nullptr}),
               InvalidArgument);
}

TEST(Algorithms, SharedPerPointNoiseDoesNotAverageOutOverUsers) {
  // Non-private GIBO, no clipping, one plain gradient step θ₁ = θ₀ − η·g from θ₀ = 1.5, 400
  // users. The design does not read y, so a noisy run and a noise-free run with the same streams
  // evaluate the same points and ‖θ₁ − θ₁(noise-free)‖ = η·‖the noise's part of g‖. Per-user noise
  // averages out over the users (1/√n); one draw per point shared by every user does not. Over 20
  // runs the mean of that norm, shared over per-user, is ≈ √400 = 20 in expectation; the test asks
  // for > 5 (fixed seeds, deterministic; a ratio below 5 would need the two means of 20 norms to
  // sit 2× on opposite sides of their expectations).
  const Context ctx;
  const auto task = make_normal_location(2, 400, 0.0, 1.0, -3, 3, 5);
  GiboOptions o;
  o.mu = std::numeric_limits<double>::infinity();
  o.clip = false;
  o.T = 1;
  o.b_fixed = 4;
  o.n_cand = 32;
  o.step = StepRule::Gd;
  o.eta = 1.0;
  o.sigma2 = 0.01;
  const Eigen::VectorXd theta0 = Eigen::VectorXd::Constant(2, 1.5);
  auto step = [&](std::uint32_t run, EvalNoise noise) {
    Rng ev(4, run, 1), acq(4, run, 2);
    return run_dp_gibo(ctx, *task, o, theta0, noise, {&ev, &acq, nullptr}).theta;
  };
  double per_user = 0, shared = 0;
  for (std::uint32_t run = 0; run < 20; ++run) {
    const Eigen::VectorXd clean = step(run, EvalNoise(0.0));
    per_user += (step(run, EvalNoise(0.1, false)) - clean).norm();
    shared += (step(run, EvalNoise(0.1, true)) - clean).norm();
  }
  EXPECT_GT(per_user, 0);
  EXPECT_GT(shared, 5 * per_user) << shared << " vs " << per_user;
}

TEST(Algorithms, ValidateNamesTheBadField) {
  GiboOptions o;
  auto msg = [&](GiboOptions bad) {
    try {
      validate(bad, 3, "m.");
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  o.mu = 0;
  EXPECT_NE(msg(o).find("m.mu"), std::string::npos);
  o = {};
  o.B = -1;
  EXPECT_NE(msg(o).find("m.B"), std::string::npos);
  o = {};
  o.T = 0;
  EXPECT_NE(msg(o).find("m.T"), std::string::npos);
  o = {};
  o.b_fixed = 7;  // cap 2d = 6
  EXPECT_NE(msg(o).find("m.b"), std::string::npos);
  o = {};
  o.clip = false;  // with finite μ
  EXPECT_NE(msg(o).find("m.clip"), std::string::npos);
  o = {};
  EXPECT_EQ(msg(o), "no error");
}

TEST(Tasks, GpLengthscaleLossPrefersTheTrueLengthscale) {
  // Data from a GP with ℓ = 1 in d = 2: the validation loss at θ = ln ℓ = 0 is below the
  // loss of a badly mis-set lengthscale (ℓ = e^{-2}, which interpolates noise) and is near the
  // noise floor 0.1² = 0.01 (bound 0.03).
  const auto task = make_gp_lengthscale(2, 150, 100, 21);
  EXPECT_EQ(task->users(), 100);
  const Eigen::VectorXd good = task->losses(Eigen::VectorXd::Zero(2));
  const double bad = task->objective(Eigen::VectorXd::Constant(2, -2.0));
  EXPECT_TRUE(good.allFinite());
  EXPECT_GE(good.minCoeff(), 0.0);
  EXPECT_LT(good.mean(), 0.03);
  EXPECT_LT(good.mean(), bad);
}

TEST(Tasks, GpLengthscaleInputRange) {
  // specs/dp-gibo.md §8: inputs U[0, L_d]^d with L_d = √(15/d); L_15 = 1 exactly, so the d = 15
  // task of E-DP1–E-DP4 is the unit-cube one.
  EXPECT_EQ(gp_lengthscale_scaled_range(15), 1.0);
  EXPECT_DOUBLE_EQ(gp_lengthscale_scaled_range(2), std::sqrt(7.5));
  EXPECT_DOUBLE_EQ(gp_lengthscale_scaled_range(10), std::sqrt(1.5));
  EXPECT_THROW(gp_lengthscale_scaled_range(0), InvalidArgument);
  EXPECT_THROW(make_gp_lengthscale(2, 50, 40, 21, 0.0), InvalidArgument);
  EXPECT_THROW(make_gp_lengthscale(2, 50, 40, 21, -1.0), InvalidArgument);
  EXPECT_THROW(make_gp_lengthscale(2, 50, 40, 21, std::numeric_limits<double>::infinity()),
               InvalidArgument);
  // input_range = 1 is the unit cube of the default argument, bit for bit.
  const Eigen::VectorXd th = Eigen::VectorXd::Constant(2, 0.3);
  const Eigen::VectorXd unit = make_gp_lengthscale(2, 150, 100, 21)->losses(th);
  EXPECT_EQ(unit, make_gp_lengthscale(2, 150, 100, 21, 1.0)->losses(th));
  // On the unit cube at d = 2 the loss is nearly flat in θ (the data GP with ℓ = 1 is almost
  // linear over [0, 1]²); on [0, L_2]² a too-long lengthscale costs clearly more, and the true
  // one (θ = 0) is still near the noise floor 0.1² = 0.01.
  const double L2 = gp_lengthscale_scaled_range(2);
  const auto flat = make_gp_lengthscale(2, 150, 100, 21, 1.0);
  const auto wide = make_gp_lengthscale(2, 150, 100, 21, L2);
  EXPECT_NE(wide->describe().find("U[0, 2.73861]"), std::string::npos) << wide->describe();
  EXPECT_EQ(flat->describe().find("U[0,"), std::string::npos) << flat->describe();
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(2), longer = Eigen::VectorXd::Constant(2, 2.0);
  const double gap_flat = flat->objective(longer) - flat->objective(zero);
  const double gap_wide = wide->objective(longer) - wide->objective(zero);
  EXPECT_LT(wide->objective(zero), 0.03);
  EXPECT_GT(gap_wide, 5 * std::abs(gap_flat)) << gap_wide << " vs " << gap_flat;
}

TEST(Tasks, HuberGradientsMatchFiniteDifferences) {
  const auto task = make_huber(3, 7, 1.0, -3, 3, 22);
  const Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(3, 0.2, 1.4);
  const Eigen::MatrixXd G = task->per_user_gradients(theta);
  const double h = 1e-6;
  for (int a = 0; a < 3; ++a) {
    Eigen::VectorXd tp = theta, tm = theta;
    tp(a) += h;
    tm(a) -= h;
    const Eigen::VectorXd fd = (task->losses(tp) - task->losses(tm)) / (2 * h);
    for (int i = 0; i < 7; ++i) EXPECT_NEAR(G(a, i), fd(i), 1e-6);
  }
}

TEST(Tasks, SvrSubstituteTrainsAndScores) {
  std::unique_ptr<Task> task;
  try {
    task = make_svr_friedman(6, 60, 40, 23);
  } catch (const InvalidArgument& e) {
    GTEST_SKIP() << e.what();  // a build without libsvm
  }
  EXPECT_EQ(task->dim(), 9);
  Eigen::VectorXd mid = (task->lower() + task->upper()) / 2;
  const Eigen::VectorXd L = task->losses(mid);
  ASSERT_EQ(L.size(), 40);
  EXPECT_TRUE(L.allFinite());
  EXPECT_GE(L.minCoeff(), 0.0);
  // Standardised targets: a useful SVR beats predicting 0 (mean squared error ≈ 1).
  EXPECT_LT(L.mean(), 1.0);
  EXPECT_THROW(make_svr_friedman(4, 60, 40, 23), InvalidArgument);
}

}  // namespace
}  // namespace gpb::dpgibo
