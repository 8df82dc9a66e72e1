// PO-GP-UCB curator (specs/po-gp-ucb.md §4, §6, §10–§12): ω golden values, the singular-value
// lift identity, Johnson–Lindenstrauss distance preservation, the σ_min ≥ ω branch pattern on the
// synthetic grid and on Branin, the row reconstruction that defeats the paper's privacy claim for
// n > d, and input validation.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/projection.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/policy/po_gp_ucb.hpp"
#include "gpbandit/privacy/noise_source.hpp"
#include "gpbandit/privacy/po_curator.hpp"
#include "gpbandit/rng.hpp"

namespace {

using gpb::privacy::CuratorBranch;
using gpb::privacy::OmegaForm;

const gpb::Context& cpu() {
  static const gpb::Context ctx({gpb::Backend::Cpu});
  return ctx;
}

/// n×d uniform on [−1, 1]^d from a seeded stream, scaled so the largest row norm is `max_norm`.
Eigen::MatrixXd random_rows(int n, int d, std::uint64_t seed, double max_norm) {
  gpb::Rng rng(seed, 0, 99);
  Eigen::MatrixXd X(n, d);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) X(i, j) = 2.0 * rng.uniform() - 1.0;
  }
  return X * (max_norm / X.rowwise().norm().maxCoeff());
}

/// Centre, then scale to max row norm 25 (spec §2 steps 5–6).
Eigen::MatrixXd normalise(const Eigen::MatrixXd& X) {
  const Eigen::MatrixXd c = gpb::privacy::centre_rows(X);
  return c * (25.0 / c.rowwise().norm().maxCoeff());
}

Eigen::MatrixXd synthetic_grid() {
  Eigen::MatrixXd X(10000, 2);
  for (int i = 0; i < 100; ++i) {
    for (int j = 0; j < 100; ++j) X.row(i * 100 + j) << 7.5 * i / 99.0, 7.5 * j / 99.0;
  }
  return normalise(X);
}

/// Branin 31×31 grid made isotropic with the spec's reference ARD fit (§3), centred, max norm 25.
Eigen::MatrixXd branin_grid() {
  Eigen::MatrixXd X(961, 2);
  for (int i = 0; i < 31; ++i) {
    for (int j = 0; j < 31; ++j) X.row(i * 31 + j) << (-5.0 + 0.5 * i) / 0.536, (0.5 * j) / 1.209;
  }
  return normalise(X);
}

double sigma_min_of(const Eigen::MatrixXd& X) {
  return gpb::singular_spectrum(cpu(), gpb::privacy::centre_rows(X)).values.minCoeff();
}

// ---------------------------------------------------------------- ω (spec §11 T1)
TEST(PoOmega, GoldenValues) {
  struct Row {
    int r;
    double ln_eps, delta, sqrt_form, literal;
  };
  const std::vector<Row> rows = {
      {10, 1.1, 1e-5, 976.069301, 3410.111889},  {15, 1.3, 1e-5, 1002.663585, 3503.024844},
      {20, 1.5, 1e-5, 963.953971, 3367.784331},  {15, 2.9, 1e-5, 202.434286, 707.248519},
      {15, 2.8, 1e-4, 174.215138, 548.251678},   {10, 2.3, 1e-3, 167.586196, 462.030689},
      {10, 1.0, 1e-5, 1078.723406, 3768.756488}, {1, 0.0, 0.5, 65.289475, 76.872482}};
  for (const Row& row : rows) {
    const double eps = std::exp(row.ln_eps);
    // The golden values carry 9–10 significant digits.
    EXPECT_NEAR(gpb::privacy::po_omega(row.r, eps, row.delta), row.sqrt_form,
                1e-9 * row.sqrt_form + 1e-6);
    EXPECT_NEAR(gpb::privacy::po_omega(row.r, eps, row.delta, OmegaForm::Literal), row.literal,
                1e-9 * row.literal + 1e-6);
  }
}

// ---------------------------------------------------------------- lift identity (§11 T4)
TEST(PoCurator, SingularValueLiftIdentity) {
  const Eigen::MatrixXd Xc = gpb::privacy::centre_rows(random_rows(200, 3, 1, 25.0));
  const double omega = 40.0;
  const Eigen::MatrixXd Xt = gpb::privacy::po_lift(cpu(), Xc, omega);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd_c(Xc), svd_t(Xt);
  const Eigen::VectorXd s = svd_c.singularValues(), st = svd_t.singularValues();
  for (int k = 0; k < 3; ++k) {
    const double want = std::sqrt(s(k) * s(k) + omega * omega);
    EXPECT_NEAR(st(k), want, 1e-10 * want);
  }
  // X̃ᵀX̃ = X_cᵀX_c + ω²I_d.
  const Eigen::MatrixXd gram_diff =
      Xt.transpose() * Xt - Xc.transpose() * Xc - omega * omega * Eigen::MatrixXd::Identity(3, 3);
  EXPECT_LT(gram_diff.cwiseAbs().maxCoeff(), 1e-9 * omega * omega);
  // X̃X̃ᵀ − X_cX_cᵀ = ω²U_dU_dᵀ, so its distance to ω²I_n has spectral norm ω² (n > d).
  const Eigen::MatrixXd outer = Xt * Xt.transpose() - Xc * Xc.transpose() -
                                omega * omega * Eigen::MatrixXd::Identity(200, 200);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(outer, Eigen::EigenvaluesOnly);
  EXPECT_NEAR(eig.eigenvalues().cwiseAbs().maxCoeff(), omega * omega, 1e-8 * omega * omega);
  // Column means of X̃ stay zero; the U-form (U diag(√(s²+ω²)) Vᵀ) agrees with the V-form.
  EXPECT_LT(Xt.colwise().mean().cwiseAbs().maxCoeff(), 1e-10 * 25.0);
  Eigen::JacobiSVD<Eigen::MatrixXd> thin(Xc, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Eigen::VectorXd lifted = (s.array().square() + omega * omega).sqrt().matrix();
  const Eigen::MatrixXd u_form = thin.matrixU() * lifted.asDiagonal() * thin.matrixV().transpose();
  EXPECT_LT((u_form - Xt).cwiseAbs().maxCoeff(), 1e-10 * Xt.cwiseAbs().maxCoeff());
}

TEST(PoCurator, BranchesMatchTheFormulas) {
  const Eigen::MatrixXd X = random_rows(300, 3, 2, 25.0);
  const Eigen::MatrixXd Xc = gpb::privacy::centre_rows(X);
  const Eigen::MatrixXd M = gpb::gaussian_matrix(cpu(), 3, 8, 7, 0, 6);
  // IF: Z == X_c M/√r exactly.
  const auto hi = gpb::privacy::po_curate_with_matrix(cpu(), X, M, 1e6, 1e-5);
  EXPECT_EQ(hi.branch, CuratorBranch::If);
  EXPECT_EQ(hi.z, gpb::project(cpu(), Xc, M, 1.0 / std::sqrt(8.0)));
  // ELSE: Z == X̃ M/√r; Lemma 7 bounds hold for every pair of X̃.
  const auto lo = gpb::privacy::po_curate_with_matrix(cpu(), X, M, 1.0, 1e-5);
  EXPECT_EQ(lo.branch, CuratorBranch::Else);
  EXPECT_LT(lo.sigma_min, lo.omega);
  const Eigen::MatrixXd Xt = gpb::privacy::po_lift(cpu(), Xc, lo.omega);
  EXPECT_LT((lo.z - Xt * M / std::sqrt(8.0)).cwiseAbs().maxCoeff(),
            1e-12 * lo.z.cwiseAbs().maxCoeff());
  EXPECT_LT(lo.z.colwise().mean().cwiseAbs().maxCoeff(), 1e-9 * lo.z.cwiseAbs().maxCoeff());
  const double factor = std::sqrt(1.0 + lo.omega * lo.omega / (lo.sigma_min * lo.sigma_min));
  for (int i = 0; i < 300; i += 7) {
    for (int j = i + 1; j < 300; j += 5) {
      const double dx = (Xc.row(i) - Xc.row(j)).norm(), dt = (Xt.row(i) - Xt.row(j)).norm();
      EXPECT_GE(dt, dx * (1 - 1e-12));
      EXPECT_LE(dt, factor * dx * (1 + 1e-12));
    }
  }
}

TEST(PoCurator, SeededMatrixIsNestedAcrossRAndSharedAcrossEpsilon) {
  const Eigen::MatrixXd X = random_rows(100, 3, 3, 25.0);
  gpb::privacy::PoCuratorOptions a, b;
  a.r = 5;
  a.epsilon = 1e6;
  b.r = 12;
  b.epsilon = 2e6;
  const auto ra = gpb::privacy::po_curate_seeded(cpu(), X, a, 11, 4, 6);
  const auto rb = gpb::privacy::po_curate_seeded(cpu(), X, b, 11, 4, 6);
  EXPECT_EQ(ra.m, rb.m.leftCols(5));
  // Footnote 7: any ε in the IF branch gives the same Z for the same M.
  b.r = 5;
  EXPECT_EQ(gpb::privacy::po_curate_seeded(cpu(), X, b, 11, 4, 6).z, ra.z);
  // A different run draws a different M.
  EXPECT_NE(gpb::privacy::po_curate_seeded(cpu(), X, a, 11, 5, 6).m, ra.m);
}

TEST(PoCurator, SecureSourceProducesAValidRelease) {
  const Eigen::MatrixXd X = random_rows(100, 3, 4, 25.0);
  auto source = gpb::privacy::make_secure_source();
  gpb::privacy::PoCuratorOptions o;
  o.epsilon = 1e6;
  o.r = 4;
  const auto rel = gpb::privacy::po_curate(cpu(), X, o, *source);
  EXPECT_EQ(rel.z.rows(), 100);
  EXPECT_EQ(rel.z.cols(), 4);
  EXPECT_EQ(rel.branch, CuratorBranch::If);
  EXPECT_TRUE(rel.m.allFinite());
}

// ---------------------------------------------------------------- JL (§10 Lemma 1, §11 T7)
// n = 1000 random points in 5-d, ν = 0.5, μ = 0.05 ⇒ r ≥ 8 ln(n²/μ)/ν² = 537.8, r = 538 ≤ n
// (the curator rejects r > n). Lemma 1 bounds the failure probability of one draw of M by μ; the
// χ² Chernoff bound gives ≤ C(n,2)·((1+ν)e^{−ν})^{r/2} ≈ 4.6e-6 per draw (the lower tail is far
// smaller), so the false-failure probability of requiring all 10 draws to pass is ≤ 5e-5. The
// seed is fixed, so the outcome is deterministic.
Eigen::MatrixXd squared_distances(const Eigen::MatrixXd& A) {
  const Eigen::MatrixXd G = A * A.transpose();
  const Eigen::VectorXd g = G.diagonal();
  return (g.replicate(1, A.rows()) + g.transpose().replicate(A.rows(), 1) - 2.0 * G);
}

TEST(PoCurator, PairwiseDistancesWithinJohnsonLindenstrauss) {
  const int n = 1000, r = 538;
  const double nu = 0.5;
  EXPECT_GE(r, 8.0 * std::log(1.0 * n * n / 0.05) / (nu * nu));
  const Eigen::MatrixXd X = random_rows(n, 5, 5, 25.0);
  const Eigen::MatrixXd dx = squared_distances(gpb::privacy::centre_rows(X));
  gpb::privacy::PoCuratorOptions o;
  o.r = r;
  o.epsilon = 1e9;  // IF branch
  int failures = 0;
  for (std::uint32_t run = 0; run < 10; ++run) {
    const auto rel = gpb::privacy::po_curate_seeded(cpu(), X, o, 2024, run, 6);
    ASSERT_EQ(rel.branch, CuratorBranch::If);
    const Eigen::MatrixXd dz = squared_distances(rel.z);
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        // 1e-9 absolute slack for the Gram-route rounding of near-equal points.
        ok = ok && dz(i, j) >= (1 - nu) * dx(i, j) - 1e-9 && dz(i, j) <= (1 + nu) * dx(i, j) + 1e-9;
      }
    }
    failures += ok ? 0 : 1;
  }
  EXPECT_EQ(failures, 0);
}

// §11 T6: in the IF branch r‖z−z′‖²/‖x−x′‖² ~ χ²_r exactly for a fixed pair. Over 10⁴ draws of M
// (r = 5): the sample mean has sd √(2r/N) = 0.032 and the sample variance sd ≈ √((12r(r+4) −
// 4r²)/N) = 0.21; the 5-sd tolerances give a false-failure probability below 1e-5 (normal
// approximation). Fixed seed.
TEST(PoCurator, ScaledSquaredDistanceIsChiSquared) {
  const int r = 5, draws = 10000;
  const Eigen::MatrixXd X = random_rows(12, 3, 6, 25.0);
  const Eigen::MatrixXd Xc = gpb::privacy::centre_rows(X);
  const double dx2 = (Xc.row(2) - Xc.row(7)).squaredNorm();
  gpb::privacy::PoCuratorOptions o;
  o.r = r;
  o.epsilon = 1e9;
  double sum = 0, sum2 = 0;
  for (int k = 0; k < draws; ++k) {
    const auto rel =
        gpb::privacy::po_curate_seeded(cpu(), X, o, 77, static_cast<std::uint32_t>(k), 6);
    const double q = r * (rel.z.row(2) - rel.z.row(7)).squaredNorm() / dx2;
    sum += q;
    sum2 += q * q;
  }
  const double mean = sum / draws, var = (sum2 - draws * mean * mean) / (draws - 1);
  EXPECT_NEAR(mean, r, 5 * std::sqrt(2.0 * r / draws));
  EXPECT_NEAR(var, 2.0 * r, 5 * std::sqrt((12.0 * r * (r + 4) - 4.0 * r * r) / draws));
}

// ---------------------------------------------------------------- branch pattern (§11 T2, T3)
TEST(PoCurator, SyntheticGridBranchPattern) {
  const Eigen::MatrixXd X = synthetic_grid();
  const auto spec = gpb::singular_spectrum(cpu(), X);
  EXPECT_NEAR(spec.values(0), 1030.8785, 1e-3);
  EXPECT_NEAR(spec.values(1), 1030.8785, 1e-3);
  const double smin = spec.values(1);
  struct Case {
    double ln_eps;
    std::vector<int> if_r, else_r;
    int r_max;
  };
  const std::vector<Case> cases = {{1.1, {3, 6, 8, 10}, {15, 20}, 11},
                                   {1.3, {3, 9, 12, 15}, {20, 30}, 15},
                                   {1.5, {5, 10, 15, 20}, {30, 50}, 22}};
  for (const Case& c : cases) {
    const double eps = std::exp(c.ln_eps);
    for (int r : c.if_r) EXPECT_GE(smin, gpb::privacy::po_omega(r, eps, 1e-5)) << r;
    for (int r : c.else_r) EXPECT_LT(smin, gpb::privacy::po_omega(r, eps, 1e-5)) << r;
    EXPECT_EQ(gpb::privacy::po_max_r(smin, eps, 1e-5, 10000), c.r_max) << c.ln_eps;
  }
  // Fig 2a at r = 10: e^1.1 IF, e^0.9 and e^0.0 ELSE (checked through the curator itself).
  gpb::privacy::PoCuratorOptions o;
  o.r = 10;
  o.delta = 1e-5;
  for (double ln_eps : {1.1, 0.9, 0.0}) {
    o.epsilon = std::exp(ln_eps);
    const auto rel = gpb::privacy::po_curate_seeded(cpu(), X, o, 1, 0, 6);
    EXPECT_EQ(rel.branch, ln_eps > 1.0 ? CuratorBranch::If : CuratorBranch::Else) << ln_eps;
  }
  // The literal ω puts even r = 3 at e^1.1 in the ELSE branch (§11 T2: literal brackets are
  // infeasible for a centred grid of max norm 25).
  EXPECT_LT(smin, gpb::privacy::po_omega(3, std::exp(1.1), 1e-5, OmegaForm::Literal));
}

TEST(PoCurator, BraninBranchPattern) {
  const double smin = sigma_min_of(branin_grid());
  EXPECT_GT(smin, 187.0);
  EXPECT_LT(smin, 187.5);
  struct Case {
    double ln_eps;
    std::vector<int> if_r, else_r;
    int r_max;
  };
  const std::vector<Case> cases = {{2.3, {3, 6, 8, 10}, {15, 20}, 12},
                                   {2.5, {3, 9, 12, 15}, {20, 30}, 17},
                                   {2.7, {5, 10, 15, 20}, {30, 50}, 24}};
  for (const Case& c : cases) {
    const double eps = std::exp(c.ln_eps);
    for (int r : c.if_r) EXPECT_GE(smin, gpb::privacy::po_omega(r, eps, 1e-3)) << r;
    for (int r : c.else_r) EXPECT_LT(smin, gpb::privacy::po_omega(r, eps, 1e-3)) << r;
    EXPECT_EQ(gpb::privacy::po_max_r(smin, eps, 1e-3, 961), c.r_max) << c.ln_eps;
  }
  for (double ln_eps : {2.0, 1.8}) {
    EXPECT_LT(smin, gpb::privacy::po_omega(10, std::exp(ln_eps), 1e-3)) << ln_eps;
  }
  // r = auto picks r_max.
  gpb::privacy::PoCuratorOptions o;
  o.epsilon = std::exp(2.3);
  o.delta = 1e-3;
  const auto rel = gpb::privacy::po_curate_seeded(cpu(), branin_grid(), o, 1, 0, 6);
  EXPECT_EQ(rel.r, 12);
  EXPECT_EQ(rel.branch, CuratorBranch::If);
}

// ---------------------------------------------------------------- reconstruction (§12)
/// The adversary of spec §12: knows Z, i* and every other row of X; fits B̂ on the known rows.
Eigen::MatrixXd fit_b(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Z, int i_star, int j0) {
  std::vector<int> known;
  for (int j = 0; j < X.rows(); ++j) {
    if (j != i_star && j != j0) known.push_back(j);
  }
  Eigen::MatrixXd dx(known.size(), X.cols()), dz(known.size(), Z.cols());
  for (std::size_t k = 0; k < known.size(); ++k) {
    dx.row(k) = X.row(known[k]) - X.row(j0);
    dz.row(k) = Z.row(known[k]) - Z.row(j0);
  }
  return dx.colPivHouseholderQr().solve(dz);  // d×r
}

Eigen::RowVectorXd reconstruct(const Eigen::MatrixXd& X, const Eigen::MatrixXd& Z, int i_star,
                               int j0) {
  const Eigen::MatrixXd B = fit_b(X, Z, i_star, j0);
  const Eigen::RowVectorXd dz = Z.row(i_star) - Z.row(j0);
  // x̂ = x_{j0} + (Z_{i*} − Z_{j0}) B̂⁺ (least squares, exact when B̂ has rank d).
  const Eigen::VectorXd dx = B.transpose().colPivHouseholderQr().solve(dz.transpose());
  return X.row(j0) + dx.transpose();
}

TEST(PoReconstruction, AdversaryRecoversTheMissingRowInBothBranches) {
  const int n = 500, d = 3, i_star = 17, j0 = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Eigen::MatrixXd X = random_rows(n, d, 100 + seed, 25.0);
    Eigen::MatrixXd Xn = X;  // neighbour: row i* moved by a vector of norm 0.5
    const Eigen::RowVectorXd move = random_rows(1, d, 500 + seed, 0.5);
    Xn.row(i_star) += move;
    for (double eps : {1e6, 1.0}) {  // IF, then ELSE
      gpb::privacy::PoCuratorOptions o;
      o.r = 10;
      o.epsilon = eps;
      o.delta = 1e-5;
      const auto rel = gpb::privacy::po_curate_seeded(cpu(), X, o, seed, 0, 6);
      const auto reln = gpb::privacy::po_curate_seeded(cpu(), Xn, o, seed, 0, 6);
      EXPECT_EQ(rel.branch, eps > 1 ? CuratorBranch::If : CuratorBranch::Else);
      const double err = (reconstruct(X, rel.z, i_star, j0) - X.row(i_star)).norm();
      const double errn = (reconstruct(Xn, reln.z, i_star, j0) - Xn.row(i_star)).norm();
      EXPECT_LE(err, 25.0 * 1e-8) << seed << " " << eps;
      EXPECT_LE(errn, 25.0 * 1e-8) << seed << " " << eps;
      // E = {‖x̂ − x_{i*}‖ ≤ 0.125} happens under X and not under X′: no (ε, δ < 1) bound holds.
      EXPECT_GT((reconstruct(Xn, reln.z, i_star, j0) - X.row(i_star)).norm(), 0.125);
    }
  }
}

TEST(PoReconstruction, ResidualSeparatesNeighboursWhenRIsBelowD) {
  const int n = 500, d = 3, i_star = 5, j0 = 1;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Eigen::MatrixXd X = random_rows(n, d, 300 + seed, 25.0);
    const Eigen::RowVectorXd neighbour = X.row(i_star) + random_rows(1, d, 700 + seed, 0.5);
    for (double eps : {1e6, 1.0}) {
      gpb::privacy::PoCuratorOptions o;
      o.r = 2;
      o.epsilon = eps;
      const auto rel = gpb::privacy::po_curate_seeded(cpu(), X, o, seed, 0, 6);
      const Eigen::MatrixXd B = fit_b(X, rel.z, i_star, j0);
      const Eigen::RowVectorXd target = rel.z.row(i_star) - rel.z.row(j0);
      const auto residual = [&](const Eigen::RowVectorXd& x) {
        return ((x - X.row(j0)) * B - target).norm();
      };
      EXPECT_LE(residual(X.row(i_star)), 25.0 * 1e-8) << seed;
      EXPECT_GT(residual(neighbour), 1e-3) << seed;
    }
  }
}

// ---------------------------------------------------------------- modeler (§5, §11 T8)
TEST(PoGpUcb, BetaScheduleMatchesTheSpecTable) {
  const gpb::PoGpUcbOptions o;  // δ′ = 0.025
  EXPECT_NEAR(std::pow(o.beta.width(1, 10000, 0.0), 2), 26.794, 1e-3);
  EXPECT_NEAR(std::pow(o.beta.width(50, 10000, 0.0), 2), 42.442, 1e-3);
  EXPECT_NEAR(std::pow(o.beta.width(1, 961, 0.0), 2), 22.109, 1e-3);
  EXPECT_NEAR(std::pow(o.beta.width(50, 961, 0.0), 2), 37.757, 1e-3);
}

/// Runs `policy` for T rounds on f(x) = −‖x‖² over the domain; returns the chosen indices.
std::vector<int> play(gpb::Policy& policy, const gpb::Domain& domain, int runs, int T) {
  std::vector<int> picks;
  for (int t = 0; t < T; ++t) {
    gpb::Round round;
    round.index = t + 1;
    round.done = t;
    const gpb::Selection s = policy.select(round);
    gpb::Rewards y;
    for (int r = 0; r < runs; ++r) {
      const int i = s.at(r, 0);
      EXPECT_GE(i, 0);
      EXPECT_LT(i, domain.size());
      const double* x = domain.point(i);
      y.y.push_back(-(x[0] * x[0] + x[1] * x[1]) / 100.0);
      picks.push_back(i);
    }
    policy.observe(s, y);
  }
  return picks;
}

TEST(PoGpUcb, IfBranchEpsilonsGiveIdenticalRunsAndFindTheOptimum) {
  const gpb::Domain domain = gpb::Domain::grid({-10, -10}, {10, 10}, {21, 21});
  gpb::PolicyEnv env;
  env.ctx = &cpu();
  env.domain = &domain;
  env.kernel = gpb::Kernel::se(4.0);
  env.run_ids = {0, 1, 2};
  env.horizon = 30;
  env.seed = 3;
  env.noise_variance = 1e-4;
  env.random_ties = false;
  gpb::PoGpUcbOptions a, b;
  a.curator.r = 8;
  a.curator.epsilon = 1e6;
  b.curator = a.curator;
  b.curator.epsilon = 1e7;
  auto pa = gpb::make_po_gp_ucb(env, a);
  auto pb = gpb::make_po_gp_ucb(env, b);
  EXPECT_EQ(pa->name(), "po_gp_ucb");
  const auto ia = play(*pa, domain, 3, 30), ib = play(*pb, domain, 3, 30);
  EXPECT_EQ(ia, ib);  // footnote 7: same M, IF branch ⇒ same Z ⇒ same run
  // Every run gets close to the optimum f(0, 0) = 0 (f ranges over [−2, 0]) within T.
  for (int r = 0; r < 3; ++r) {
    double best = -1e9;
    for (int t = 0; t < 30; ++t) {
      const double* x = domain.point(ia[static_cast<std::size_t>(t) * 3 + r]);
      best = std::max(best, -(x[0] * x[0] + x[1] * x[1]) / 100.0);
    }
    EXPECT_GE(best, -0.1) << r;
  }
  env.kernel = gpb::Kernel::linear();
  EXPECT_THROW(gpb::make_po_gp_ucb(env, a), gpb::InvalidArgument);
}

TEST(PoGpUcb, RegistryBuildsItFromAConfig) {
  const std::string cfg = R"({
    "name": "t", "runs": 2, "T": 5,
    "domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [10, 10]},
    "kernel": {"type": "se", "lengthscale": 0.3, "variance": 1},
    "objective": {"type": "rkhs", "support": 10},
    "policies": [{"type": "po_gp_ucb", "label": "a", "epsilon": 1000, "r": 4},
                 {"type": "po_gp_ucb", "label": "b", "epsilon": 0.5, "omega_form": "literal"}]
  })";
  const gpb::ExperimentConfig c = gpb::parse_experiment_config(cfg, "cfg.json", ".");
  gpb::PolicyEnv env;
  env.ctx = &cpu();
  env.domain = &c.domain;
  env.kernel = c.kernel;
  env.run_ids = {0, 1};
  env.horizon = c.horizon;
  EXPECT_EQ(gpb::make_policy(c.policies[0], env)->name(), "po_gp_ucb");
  EXPECT_EQ(gpb::make_policy(c.policies[1], env)->name(), "po_gp_ucb");
  // Bad parameters are rejected when the config is read, naming the field.
  for (const auto& [bad, field] : std::vector<std::pair<std::string, std::string>>{
           {R"("epsilon": 1, "omega_form": "bad")", "policies[0].omega_form"},
           {R"("epsilon": 0)", "policies[0].epsilon"},
           {R"("r": 3)", "policies[0].epsilon"}}) {
    std::string text = cfg;
    const auto a = text.find("[{"), b = text.find("}]") + 2;
    text.replace(a, b - a, R"([{"type": "po_gp_ucb", )" + bad + "}]");
    try {
      gpb::parse_experiment_config(text, "cfg.json", ".");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const gpb::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
}

// ---------------------------------------------------------------- validation
void expect_invalid(const std::function<void()>& f, const std::string& field) {
  try {
    f();
    ADD_FAILURE() << "expected InvalidArgument naming " << field;
  } catch (const gpb::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(PoCurator, RejectsBadInput) {
  const Eigen::MatrixXd X = random_rows(20, 3, 9, 25.0);
  auto run = [&](const Eigen::MatrixXd& x, int r, double eps, double delta) {
    gpb::privacy::PoCuratorOptions o;
    o.r = r;
    o.epsilon = eps;
    o.delta = delta;
    return gpb::privacy::po_curate_seeded(cpu(), x, o, 1, 0, 6);
  };
  expect_invalid([&] { run(X, -1, 1.0, 1e-5); }, "r must");
  expect_invalid([&] { run(X, 21, 1.0, 1e-5); }, "r must");
  expect_invalid([&] { run(X, 3, 0.0, 1e-5); }, "epsilon");
  expect_invalid([&] { run(X, 3, -1.0, 1e-5); }, "epsilon");
  expect_invalid([&] { run(X, 3, 1.0, 0.0); }, "delta");
  expect_invalid([&] { run(X, 3, 1.0, 1.0); }, "delta");
  Eigen::MatrixXd dup = X;
  dup.col(2) = 2.0 * dup.col(0);  // rank 2 after centring
  expect_invalid([&] { run(dup, 3, 1.0, 1e-5); }, "rank-deficient");
  expect_invalid([&] { run(X.topRows(3), 2, 1.0, 1e-5); }, "rank-deficient");  // n ≤ d
  expect_invalid([&] { gpb::privacy::po_omega(0, 1.0, 0.5); }, "r must");
  const Eigen::MatrixXd M0(3, 0);
  expect_invalid([&] { gpb::privacy::po_curate_with_matrix(cpu(), X, M0, 1.0, 1e-5); }, "r must");
  const Eigen::MatrixXd M2(2, 4);
  expect_invalid([&] { gpb::privacy::po_curate_with_matrix(cpu(), X, M2, 1.0, 1e-5); }, "M");
}

}  // namespace
