// FinitePosterior with known per-observation noise (K_t + Λ, Λ = diag(λ_q)): against a dense
// solve in every mode and update path, the uniform case equal to the default bit for bit, the
// factor's noise, the information gain, and bad noise refused.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/error.hpp"
#include "test_support.hpp"

namespace {

using gpb::Context;
using gpb::Domain;
using gpb::FinitePosterior;
using gpb::Kernel;
using gpb::PosteriorMode;
using gpb::PosteriorOptions;
using gpb::Rng;

constexpr double kLambda = 1e-2;

/// Dense reference with a noise variance per observation: μ = K(D,X)(K_XX + Λ)⁻¹y and
/// σ² = diag(K_DD − K(D,X)(K_XX + Λ)⁻¹K(X,D)), over the candidates of `pts` (d × n).
struct Dense {
  Eigen::VectorXd mean, var;
};
Dense dense(const Kernel& k, const Eigen::MatrixXd& pts, const std::vector<int>& x,
            const std::vector<double>& y, const std::vector<double>& noise) {
  const int n = static_cast<int>(pts.cols()), t = static_cast<int>(x.size());
  const int d = static_cast<int>(pts.rows());
  Eigen::MatrixXd kdx(n, t), kxx(t, t);
  for (int j = 0; j < n; ++j)
    for (int q = 0; q < t; ++q) kdx(j, q) = k(pts.col(j).data(), pts.col(x[q]).data(), d);
  for (int p = 0; p < t; ++p)
    for (int q = 0; q < t; ++q) kxx(p, q) = k(pts.col(x[p]).data(), pts.col(x[q]).data(), d);
  for (int q = 0; q < t; ++q) kxx(q, q) += noise[static_cast<std::size_t>(q)];
  const Eigen::LLT<Eigen::MatrixXd> llt(kxx);
  Dense out;
  out.mean = kdx * llt.solve(Eigen::Map<const Eigen::VectorXd>(y.data(), t));
  const Eigen::MatrixXd sol = llt.solve(kdx.transpose());
  out.var.resize(n);
  for (int j = 0; j < n; ++j) {
    out.var[j] = k(pts.col(j).data(), pts.col(j).data(), d) - kdx.row(j).dot(sol.col(j));
  }
  return out;
}

double rel_error(const double* a, const Eigen::VectorXd& b) {
  return gpb::test::rel_err(Eigen::Map<const Eigen::VectorXd>(a, b.size()), b);
}

/// d × n points uniform in [0, 1]^d (the columns of test_support's random_domain).
Eigen::MatrixXd random_points(int d, int n, std::uint64_t seed) {
  return gpb::test::random_domain(n, d, seed).points();
}

/// The noise of observation i: spread over three orders of magnitude, so that a path that used λ
/// for every row instead would be far off the reference.
double noise_of(int i) {
  return 1e-4 * std::pow(10.0, i % 4);
}

enum class Path { Single, Batch, Pending };

/// One run driven through `t` observations along `path` (single observe() calls, blocks of 5 by
/// observe_batch(), or blocks of 3 as pending rows then resolved), with a candidate added every
/// 10 rows when `grow`; checked against the dense reference at the end.
void check(PosteriorMode mode, bool lazy, Path path, bool grow, int n, int t) {
  Context ctx;
  const Kernel k = Kernel::ard(gpb::KernelType::Matern52, Eigen::Vector2d(0.15, 0.3));
  Eigen::MatrixXd pts = random_points(2, n, 4);
  PosteriorOptions o;
  o.noise_variance = kLambda;
  o.mode = mode;
  o.lazy = lazy;
  o.capacity = 8;
  o.chunk = 333;
  FinitePosterior post(ctx, k, Domain::from_points(pts), 1, o);
  std::vector<int> x;
  std::vector<double> y, noise;
  Rng rng(17, 0, 1);
  const int block = path == Path::Single ? 1 : path == Path::Batch ? 5 : 3;
  while (static_cast<int>(x.size()) < t) {
    if (grow && x.size() % 10 == 0 && !x.empty()) {
      const Eigen::MatrixXd extra = random_points(2, 1, 50 + x.size());
      post.add_candidates(extra);
      pts.conservativeResize(Eigen::NoChange, pts.cols() + 1);
      pts.rightCols(1) = extra;
    }
    std::vector<int> idx;
    std::vector<double> yy, lam;
    for (int i = 0; i < block; ++i) {
      const int q = static_cast<int>(x.size()) + i;
      // Every 7th row repeats the one before (distinct noises at one candidate).
      idx.push_back(q % 7 == 6
                        ? (i > 0 ? idx.back() : x.back())
                        : static_cast<int>(rng.below(static_cast<std::uint64_t>(post.size()))));
      yy.push_back(rng.normal());
      lam.push_back(noise_of(q));
    }
    if (path == Path::Single) {
      post.observe(idx.data(), yy.data(), lam.data());
    } else if (path == Path::Batch) {
      post.observe_batch(block, idx.data(), yy.data(), lam.data());
    } else {
      for (int i = 0; i < block; ++i) post.add_pending(&idx[i], &lam[i]);
      post.resolve_pending(yy.data());
    }
    x.insert(x.end(), idx.begin(), idx.end());
    y.insert(y.end(), yy.begin(), yy.end());
    noise.insert(noise.end(), lam.begin(), lam.end());
  }
  const Dense ref = dense(k, pts, x, y, noise);
  EXPECT_LE(rel_error(post.mean(0), ref.mean), 1e-8);
  EXPECT_LE(rel_error(post.variance(0), ref.var), 1e-8);
  // With λ on every row instead, the posterior is measurably different (the test can fail).
  const Dense uniform = dense(k, pts, x, y, std::vector<double>(x.size(), kLambda));
  EXPECT_GT(gpb::test::rel_err(ref.mean, uniform.mean), 1e-3);
  const gpb::PosteriorFactor f = post.factor(0);
  ASSERT_EQ(f.noise.size(), static_cast<Eigen::Index>(x.size()));
  for (std::size_t q = 0; q < x.size(); ++q)
    EXPECT_EQ(f.noise[static_cast<Eigen::Index>(q)], noise[q]);
}

TEST(PosteriorNoise, SingleRowsMatchDenseInEveryMode) {
  check(PosteriorMode::Incremental, false, Path::Single, false, 400, 40);
  check(PosteriorMode::Incremental, true, Path::Single, false, 20000, 40);  // lazy blocks defer
  check(PosteriorMode::Recompute, false, Path::Single, false, 400, 40);
}

TEST(PosteriorNoise, BlockUpdatesMatchDense) {
  check(PosteriorMode::Incremental, false, Path::Batch, false, 400, 40);
  check(PosteriorMode::Recompute, false, Path::Batch, false, 400, 40);
}

TEST(PosteriorNoise, PendingRowsKeepTheirNoiseWhenResolved) {
  check(PosteriorMode::Incremental, false, Path::Pending, false, 400, 39);
  check(PosteriorMode::Incremental, true, Path::Pending, false, 20000, 39);
  check(PosteriorMode::Recompute, false, Path::Pending, false, 400, 39);
}

TEST(PosteriorNoise, GrowingCandidateSetMatchesDense) {
  check(PosteriorMode::Incremental, false, Path::Single, true, 300, 40);
  check(PosteriorMode::Recompute, false, Path::Batch, true, 300, 40);
}

bool same_bits(const double* a, const double* b, int n) {
  return std::memcmp(a, b, sizeof(double) * static_cast<std::size_t>(n)) == 0;
}

TEST(PosteriorNoise, NoiseEqualToLambdaIsTheDefaultBitForBit) {
  Context ctx;
  const Kernel k = Kernel::se(0.2);
  const Domain dom = Domain::from_points(random_points(2, 500, 8));
  for (const PosteriorMode mode : {PosteriorMode::Incremental, PosteriorMode::Recompute}) {
    PosteriorOptions o;
    o.noise_variance = kLambda;
    o.mode = mode;
    FinitePosterior a(ctx, k, dom, 2, o), b(ctx, k, dom, 2, o);
    Rng rng(3, 0, 1);
    const std::vector<double> lam(8, kLambda);
    for (int step = 0; step < 6; ++step) {
      std::vector<int> idx(8);
      std::vector<double> y(8);
      for (int e = 0; e < 8; ++e) {
        idx[e] = static_cast<int>(rng.below(500));
        y[e] = rng.normal();
      }
      if (step % 3 == 0) {
        a.observe(idx.data(), y.data());
        b.observe(idx.data(), y.data(), lam.data());
      } else if (step % 3 == 1) {
        a.observe_batch(4, idx.data(), y.data());
        b.observe_batch(4, idx.data(), y.data(), lam.data());
      } else {
        a.add_pending(idx.data());
        b.add_pending(idx.data(), lam.data());
        a.resolve_pending(y.data());
        b.resolve_pending(y.data());
      }
    }
    for (int r = 0; r < 2; ++r) {
      EXPECT_TRUE(same_bits(a.mean(r), b.mean(r), 500));
      EXPECT_TRUE(same_bits(a.variance(r), b.variance(r), 500));
      EXPECT_EQ(a.info_gain(r), b.info_gain(r));
    }
  }
}

TEST(PosteriorNoise, InfoGainIsHalfLogDetWithTheRowsNoise) {
  Context ctx;
  const Kernel k = Kernel::se(0.3);
  const Eigen::MatrixXd pts = random_points(2, 200, 9);
  PosteriorOptions o;
  o.noise_variance = kLambda;
  FinitePosterior post(ctx, k, Domain::from_points(pts), 1, o);
  const int t = 12;
  Eigen::MatrixXd K(t, t);
  std::vector<int> x;
  Eigen::VectorXd lam(t);
  for (int q = 0; q < t; ++q) {
    const int a = 3 * q;
    const double y = 0.1 * q, l = noise_of(q);
    post.observe(&a, &y, &l);
    x.push_back(a);
    lam[q] = l;
  }
  for (int p = 0; p < t; ++p)
    for (int q = 0; q < t; ++q) K(p, q) = k(pts.col(x[p]).data(), pts.col(x[q]).data(), 2);
  const Eigen::VectorXd s = lam.cwiseSqrt().cwiseInverse();
  const Eigen::MatrixXd A = Eigen::MatrixXd::Identity(t, t) + s.asDiagonal() * K * s.asDiagonal();
  const double want = 0.5 * std::log(A.determinant());
  EXPECT_NEAR(post.info_gain(0), want, 1e-9 * std::abs(want));
}

TEST(PosteriorNoise, RefusesNoiseThatIsNotPositiveAndFinite) {
  Context ctx;
  FinitePosterior post(ctx, Kernel::se(0.3), Domain::from_points(random_points(2, 50, 1)), 1);
  const int a = 3;
  const double y = 1.0;
  for (const double bad : {0.0, -1e-3, std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(post.observe(&a, &y, &bad), gpb::InvalidArgument);
    EXPECT_THROW(post.observe_batch(1, &a, &y, &bad), gpb::InvalidArgument);
    EXPECT_THROW(post.add_pending(&a, &bad), gpb::InvalidArgument);
  }
  EXPECT_EQ(post.rows(), 0);  // nothing appended
}

}  // namespace
