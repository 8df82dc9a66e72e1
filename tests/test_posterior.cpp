// FinitePosterior against a dense direct solve, pending points, runs, modes, info gain, errors.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/error.hpp"
#include "test_support.hpp"

namespace {

using gpb::Context;
using gpb::ContextOptions;
using gpb::Domain;
using gpb::FinitePosterior;
using gpb::Kernel;
using gpb::PosteriorMode;
using gpb::PosteriorOptions;
using gpb::Rng;

using gpb::test::random_domain;

/// Dense reference: μ = K(D,X)(K_XX + λI)⁻¹y and σ² = diag(K_DD − K(D,X)(K_XX + λI)⁻¹K(X,D)).
struct Dense {
  Eigen::VectorXd mean, var;
};
Dense dense_posterior(const Kernel& k, const Domain& dom, const std::vector<int>& x,
                      const std::vector<double>& y, double lambda) {
  const int n = dom.size(), t = static_cast<int>(x.size()), d = dom.dim();
  Eigen::MatrixXd kdx(n, t), kxx(t, t);
  for (int j = 0; j < n; ++j)
    for (int q = 0; q < t; ++q) kdx(j, q) = k(dom.point(j), dom.point(x[q]), d);
  for (int p = 0; p < t; ++p)
    for (int q = 0; q < t; ++q) kxx(p, q) = k(dom.point(x[p]), dom.point(x[q]), d);
  kxx.diagonal().array() += lambda;
  Eigen::LLT<Eigen::MatrixXd> llt(kxx);
  Dense out;
  out.mean = t > 0
                 ? Eigen::VectorXd(kdx * llt.solve(Eigen::Map<const Eigen::VectorXd>(y.data(), t)))
                 : Eigen::VectorXd::Zero(n);
  const Eigen::MatrixXd sol =
      t > 0 ? Eigen::MatrixXd(llt.solve(kdx.transpose())) : Eigen::MatrixXd();
  out.var.resize(n);
  for (int j = 0; j < n; ++j) {
    const double prior = k(dom.point(j), dom.point(j), d);
    out.var[j] = t > 0 ? prior - kdx.row(j).dot(sol.col(j)) : prior;
  }
  return out;
}

/// max |a − b| / max |b| over the domain (norm-wise relative error).
double rel_error(const double* a, const Eigen::VectorXd& b) {
  double err = 0, scale = 0;
  for (Eigen::Index j = 0; j < b.size(); ++j) {
    err = std::max(err, std::abs(a[j] - b[j]));
    scale = std::max(scale, std::abs(b[j]));
  }
  return err / std::max(scale, 1e-300);
}

std::vector<Kernel> test_kernels(int d) {
  (void)d;
  return {Kernel::se(0.3), Kernel::matern(gpb::KernelType::Matern12, 0.5, 1.5),
          Kernel::matern(gpb::KernelType::Matern32, 0.4),
          Kernel::matern(gpb::KernelType::Matern52, 0.25, 2.0), Kernel::polynomial(2, 0.5, 1.0)};
}

constexpr double kTol = 1e-9;
constexpr double kLambda = 0.05;

// Observes t random candidates per run (with a deliberate repeat) and checks every run against
// its own dense posterior.
void check_against_dense(const Kernel& k, const Domain& dom, PosteriorMode mode,
                         std::uint64_t seed) {
  Context ctx;
  const int runs = 3, t = 40;
  PosteriorOptions opt;
  opt.noise_variance = kLambda;
  opt.mode = mode;
  opt.capacity = 16;  // forces V to grow in incremental mode
  opt.chunk = 70;
  FinitePosterior post(ctx, k, dom, runs, opt);
  EXPECT_EQ(post.recompute_mode(), mode == PosteriorMode::Recompute);
  std::vector<std::vector<int>> xs(runs);
  std::vector<std::vector<double>> ys(runs);
  Rng rng(seed, 0, 1);
  for (int step = 0; step < t; ++step) {
    std::vector<int> idx(runs);
    std::vector<double> y(runs);
    for (int r = 0; r < runs; ++r) {
      idx[r] = (step % 7 == 6) ? xs[r].back() : static_cast<int>(rng.below(dom.size()));
      y[r] = rng.normal();
      xs[r].push_back(idx[r]);
      ys[r].push_back(y[r]);
    }
    post.observe(idx.data(), y.data());
  }
  EXPECT_EQ(post.rows(), t);
  for (int r = 0; r < runs; ++r) {
    const Dense ref = dense_posterior(k, dom, xs[r], ys[r], kLambda);
    EXPECT_LE(rel_error(post.mean(r), ref.mean), kTol) << k.describe() << " run " << r;
    EXPECT_LE(rel_error(post.variance(r), ref.var), kTol) << k.describe() << " run " << r;
    EXPECT_EQ(post.history(r), xs[r]);
  }
}

TEST(Posterior, MatchesDenseSolveIncremental) {
  for (int d : {1, 3}) {
    const Domain dom = random_domain(300, d, 11 + d);
    for (const Kernel& k : test_kernels(d))
      check_against_dense(k, dom, PosteriorMode::Incremental, 5);
  }
}

TEST(Posterior, MatchesDenseSolveRecompute) {
  for (int d : {1, 3}) {
    const Domain dom = random_domain(300, d, 11 + d);
    for (const Kernel& k : test_kernels(d))
      check_against_dense(k, dom, PosteriorMode::Recompute, 6);
  }
}

TEST(Posterior, PrecomputedKernelMatchesDense) {
  const Domain pts = random_domain(120, 2, 3);
  Context ctx;
  const Eigen::MatrixXd K = gpb::kernel_matrix(ctx, Kernel::se(0.4), pts.points(), pts.points());
  const Kernel k = Kernel::precomputed(K);
  check_against_dense(k, Domain::indices(120), PosteriorMode::Incremental, 8);
  check_against_dense(k, Domain::indices(120), PosteriorMode::Recompute, 8);
}

TEST(Posterior, PendingPointsUpdateVarianceOnlyUntilResolved) {
  const Domain dom = random_domain(300, 3, 21);
  const Kernel k = Kernel::matern(gpb::KernelType::Matern52, 0.35);
  for (PosteriorMode mode : {PosteriorMode::Incremental, PosteriorMode::Recompute}) {
    Context ctx;
    PosteriorOptions opt;
    opt.noise_variance = kLambda;
    opt.mode = mode;
    const int runs = 2;
    FinitePosterior post(ctx, k, dom, runs, opt);
    std::vector<std::vector<int>> xs(runs);
    std::vector<std::vector<double>> ys(runs);
    Rng rng(77, 0, 2);
    auto observe_some = [&](int count) {
      for (int s = 0; s < count; ++s) {
        std::vector<int> idx(runs);
        std::vector<double> y(runs);
        for (int r = 0; r < runs; ++r) {
          idx[r] = static_cast<int>(rng.below(dom.size()));
          y[r] = rng.normal();
          xs[r].push_back(idx[r]);
          ys[r].push_back(y[r]);
        }
        post.observe(idx.data(), y.data());
      }
    };
    observe_some(15);
    std::vector<std::vector<double>> mean_before(runs);
    for (int r = 0; r < runs; ++r) mean_before[r].assign(post.mean(r), post.mean(r) + dom.size());
    // Five pending rows per run, the third repeating the second, the fourth an observed point.
    const int pend = 5;
    std::vector<std::vector<int>> pidx(runs);
    for (int i = 0; i < pend; ++i) {
      std::vector<int> idx(runs);
      for (int r = 0; r < runs; ++r) {
        idx[r] = i == 2 ? pidx[r][1] : i == 3 ? xs[r][4] : static_cast<int>(rng.below(dom.size()));
        pidx[r].push_back(idx[r]);
      }
      post.add_pending(idx.data());
    }
    EXPECT_EQ(post.pending(), pend);
    EXPECT_THROW(post.observe(pidx[0].data(), ys[0].data()), gpb::InvalidArgument);
    std::vector<double> rewards(runs * pend);
    for (int r = 0; r < runs; ++r) {
      std::vector<int> all = xs[r];
      all.insert(all.end(), pidx[r].begin(), pidx[r].end());
      std::vector<double> dummy(all.size(), 0.0);
      const Dense ref = dense_posterior(k, dom, all, dummy, kLambda);
      EXPECT_LE(rel_error(post.variance(r), ref.var), kTol);
      for (int j = 0; j < dom.size(); ++j) ASSERT_EQ(post.mean(r)[j], mean_before[r][j]);
      for (int i = 0; i < pend; ++i) rewards[r * pend + i] = rng.normal();
    }
    post.resolve_pending(rewards.data());
    EXPECT_EQ(post.pending(), 0);
    for (int r = 0; r < runs; ++r) {
      xs[r].insert(xs[r].end(), pidx[r].begin(), pidx[r].end());
      ys[r].insert(ys[r].end(), rewards.begin() + r * pend, rewards.begin() + (r + 1) * pend);
    }
    observe_some(4);  // observing after a resolve continues from the right state
    for (int r = 0; r < runs; ++r) {
      const Dense ref = dense_posterior(k, dom, xs[r], ys[r], kLambda);
      EXPECT_LE(rel_error(post.mean(r), ref.mean), kTol);
      EXPECT_LE(rel_error(post.variance(r), ref.var), kTol);
    }
  }
}

TEST(Posterior, RunsAreIndependent) {
  const Domain dom = random_domain(200, 1, 4);
  const Kernel k = Kernel::se(0.2);
  Context ctx;
  FinitePosterior three(ctx, k, dom, 3);
  FinitePosterior one(ctx, k, dom, 1);
  Rng rng(9, 0, 3);
  for (int s = 0; s < 12; ++s) {
    const int idx[3] = {static_cast<int>(rng.below(200)), static_cast<int>(rng.below(200)),
                        static_cast<int>(rng.below(200))};
    const double y[3] = {rng.normal(), rng.normal(), rng.normal()};
    three.observe(idx, y);
    one.observe(idx + 1, y + 1);  // run 1 of `three` alone
  }
  for (int j = 0; j < 200; ++j) {
    ASSERT_EQ(three.mean(1)[j], one.mean(0)[j]);
    ASSERT_EQ(three.variance(1)[j], one.variance(0)[j]);
  }
  EXPECT_NE(three.mean(0)[5], three.mean(1)[5]);
  EXPECT_NE(three.mean(2)[5], three.mean(1)[5]);
}

// Incremental and recompute modes must agree bit for bit over a UCB loop with batches: choices,
// scores and σ². Recompute mode's mean() is K(D, X_t)·β (no V; tests/test_posterior_mean.cpp),
// equal to the incremental μ up to rounding: within 1e-12 of max |μ| here.
TEST(Posterior, IncrementalAndRecomputeBitIdentical) {
  const Domain dom = random_domain(257, 2, 31);
  const Kernel k = Kernel::matern(gpb::KernelType::Matern32, 0.3);
  ContextOptions co;
  co.threads = 2;
  Context ctx(co);
  const int runs = 2;
  PosteriorOptions a, b;
  a.mode = PosteriorMode::Incremental;
  a.capacity = 5;
  b.mode = PosteriorMode::Recompute;
  b.chunk = 37;
  FinitePosterior inc(ctx, k, dom, runs, a), rec(ctx, k, dom, runs, b);
  ASSERT_FALSE(inc.recompute_mode());
  ASSERT_TRUE(rec.recompute_mode());
  auto f = [&](int j) { return std::sin(6.0 * dom.point(j)[0]) * std::cos(4.0 * dom.point(j)[1]); };
  std::vector<Rng> tb1{Rng(1, 0, 4), Rng(1, 1, 4)}, tb2 = tb1;
  Rng noise(3, 0, 2);
  const double width[2] = {2.0, 0.5};
  std::vector<std::uint8_t> excl(runs * dom.size(), 0);
  for (int round = 0; round < 60; ++round) {
    const auto c1 = inc.ucb_argmax(width, excl.data(), &tb1);
    const auto c2 = rec.ucb_argmax(width, excl.data(), &tb2);
    int idx[2];
    double y[2];
    for (int r = 0; r < runs; ++r) {
      ASSERT_EQ(c1[r].index, c2[r].index) << "round " << round;
      ASSERT_EQ(c1[r].score, c2[r].score);
      idx[r] = c1[r].index;
      y[r] = f(idx[r]) + 0.1 * noise.normal();
    }
    if (round % 10 == 9) {  // a batch: hallucinate, then resolve
      inc.add_pending(idx);
      rec.add_pending(idx);
      excl[idx[0]] = excl[dom.size() + idx[1]] = 1;
      const auto d1 = inc.ucb_argmax(width, excl.data(), &tb1);
      const auto d2 = rec.ucb_argmax(width, excl.data(), &tb2);
      int idx2[2] = {d1[0].index, d1[1].index};
      ASSERT_EQ(d1[0].index, d2[0].index);
      ASSERT_EQ(d1[1].index, d2[1].index);
      inc.add_pending(idx2);
      rec.add_pending(idx2);
      const double ys[4] = {y[0], f(idx2[0]), y[1], f(idx2[1])};
      inc.resolve_pending(ys);
      rec.resolve_pending(ys);
      std::fill(excl.begin(), excl.end(), 0);
    } else {
      inc.observe(idx, y);
      rec.observe(idx, y);
    }
    for (int r = 0; r < runs; ++r) {
      int mismatches = 0;
      double dmu = 0, scale = 1;
      for (int j = 0; j < dom.size(); ++j) {
        dmu = std::max(dmu, std::abs(inc.mean(r)[j] - rec.mean(r)[j]));
        scale = std::max(scale, std::abs(inc.mean(r)[j]));
        mismatches += inc.variance(r)[j] != rec.variance(r)[j];
      }
      ASSERT_EQ(mismatches, 0) << "round " << round << " run " << r;
      ASSERT_LE(dmu, 1e-12 * scale) << "round " << round << " run " << r;
      ASSERT_EQ(inc.info_gain(r), rec.info_gain(r));
    }
  }
}

// Precision::Mixed on the CPU: V in float, sums in double. The posterior follows the same
// observations and pending batches as a double one within 1e-5 (relative to max |·|; float
// rounding of V is ~6e-8 per element, accumulated over ≤ 60 rows), and really stores float (it
// is not bit-identical to double).
TEST(Posterior, MixedPrecisionCloseToDouble) {
  const Domain dom = random_domain(300, 2, 41);
  const Kernel k = Kernel::se(0.25);
  ContextOptions cd, cm;
  cm.precision = gpb::Precision::Mixed;
  Context ctx_d(cd), ctx_m(cm);
  const int runs = 2;
  PosteriorOptions opt;
  opt.mode = PosteriorMode::Incremental;
  opt.capacity = 7;  // forces growth of the float buffer
  FinitePosterior dbl(ctx_d, k, dom, runs, opt), mix(ctx_m, k, dom, runs, opt);
  Rng noise(5, 0, 2);
  const double width[2] = {2.0, 1.0};
  int differing = 0;
  for (int round = 0; round < 60; ++round) {
    const auto c = dbl.ucb_argmax(width, nullptr, nullptr);
    const auto cm2 = mix.ucb_argmax(width, nullptr, nullptr);
    int idx[2];
    double y[2];
    for (int r = 0; r < runs; ++r) {
      EXPECT_NEAR(cm2[r].score, c[r].score, 1e-5) << "round " << round;
      idx[r] = c[r].index;
      y[r] = std::sin(5.0 * dom.point(idx[r])[0]) + 0.1 * noise.normal();
    }
    if (round % 12 == 11) {
      dbl.add_pending(idx);
      mix.add_pending(idx);
      dbl.resolve_pending(y);
      mix.resolve_pending(y);
    } else {
      dbl.observe(idx, y);
      mix.observe(idx, y);
    }
    for (int r = 0; r < runs; ++r) {
      const Eigen::Map<const Eigen::VectorXd> md(dbl.mean(r), dom.size());
      const Eigen::Map<const Eigen::VectorXd> vd(dbl.variance(r), dom.size());
      ASSERT_LE(rel_error(mix.mean(r), md), 1e-5) << "round " << round;
      ASSERT_LE(rel_error(mix.variance(r), vd), 1e-5) << "round " << round;
      for (int j = 0; j < dom.size(); ++j) differing += mix.mean(r)[j] != dbl.mean(r)[j];
    }
  }
  EXPECT_GT(differing, 0) << "Mixed gave bit-identical results: V is not stored in float";
}

// Large enough that the OpenMP paths run with several threads: still bit-identical (choices and
// σ²; recompute mode's μ, K(D, X_t)·β, within 1e-12 of max |μ|).
TEST(Posterior, ModesBitIdenticalWithThreads) {
  const Domain dom = random_domain(20000, 2, 32);
  const Kernel k = Kernel::se(0.2);
  ContextOptions co;
  co.threads = 2;
  Context ctx(co);
  PosteriorOptions a, b;
  a.mode = PosteriorMode::Incremental;
  a.capacity = 4;
  b.mode = PosteriorMode::Recompute;
  b.chunk = 1000;
  FinitePosterior inc(ctx, k, dom, 2, a), rec(ctx, k, dom, 2, b);
  Rng noise(5, 0, 2);
  const double width[2] = {1.5, 3.0};
  for (int round = 0; round < 15; ++round) {
    const auto c1 = inc.ucb_argmax(width, nullptr, nullptr);
    const auto c2 = rec.ucb_argmax(width, nullptr, nullptr);
    const int idx[2] = {c1[0].index, c1[1].index};
    ASSERT_EQ(c1[0].index, c2[0].index);
    ASSERT_EQ(c1[1].index, c2[1].index);
    const double y[2] = {noise.normal(), noise.normal()};
    inc.observe(idx, y);
    rec.observe(idx, y);
  }
  for (int r = 0; r < 2; ++r) {
    int mismatches = 0;
    double dmu = 0, scale = 1;
    for (int j = 0; j < dom.size(); ++j) {
      dmu = std::max(dmu, std::abs(inc.mean(r)[j] - rec.mean(r)[j]));
      scale = std::max(scale, std::abs(inc.mean(r)[j]));
      mismatches += inc.variance(r)[j] != rec.variance(r)[j];
    }
    EXPECT_EQ(mismatches, 0);
    EXPECT_LE(dmu, 1e-12 * scale);
  }
}

TEST(Posterior, AutoModePicksRecomputeWhenBudgetIsTiny) {
  const Domain dom = random_domain(100, 1, 1);
  ContextOptions tiny;
  tiny.memory_budget_bytes = 1000;
  Context small(tiny), big;
  PosteriorOptions opt;
  opt.capacity = 10;
  EXPECT_DOUBLE_EQ(FinitePosterior::incremental_bytes(3, 100, 10), 24000.0);
  EXPECT_TRUE(FinitePosterior(small, Kernel::se(0.2), dom, 3, opt).recompute_mode());
  EXPECT_FALSE(FinitePosterior(big, Kernel::se(0.2), dom, 3, opt).recompute_mode());
}

TEST(Posterior, InfoGainIsHalfLogDet) {
  const Domain dom = random_domain(150, 3, 2);
  const Kernel k = Kernel::se(0.5);
  Context ctx;
  PosteriorOptions opt;
  opt.noise_variance = 0.1;
  FinitePosterior post(ctx, k, dom, 1, opt);
  Rng rng(4, 0, 1);
  std::vector<int> xs;
  for (int s = 0; s < 20; ++s) {
    const int i = s == 5 ? xs[2] : static_cast<int>(rng.below(150));
    const double y = rng.normal();
    xs.push_back(i);
    if (s < 15) {
      post.observe(&i, &y);
    } else {
      post.add_pending(&i);  // pending rows count too
    }
  }
  Eigen::MatrixXd K =
      gpb::kernel_matrix(ctx, k, dom.points()(Eigen::all, xs), dom.points()(Eigen::all, xs));
  const Eigen::MatrixXd M = Eigen::MatrixXd::Identity(20, 20) + K / 0.1;
  const Eigen::LLT<Eigen::MatrixXd> llt(M);
  const double ref = llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
  EXPECT_NEAR(post.info_gain(0), ref, 1e-10 * std::abs(ref));
}

TEST(Posterior, RejectsBadInput) {
  const Domain dom = random_domain(50, 2, 1);
  const Kernel k = Kernel::se(0.3);
  Context ctx;
  PosteriorOptions bad;
  bad.noise_variance = 0;
  EXPECT_THROW(FinitePosterior(ctx, k, dom, 1, bad), gpb::InvalidArgument);
  bad.noise_variance = std::nan("");
  EXPECT_THROW(FinitePosterior(ctx, k, dom, 1, bad), gpb::InvalidArgument);
  bad = PosteriorOptions{};
  bad.capacity = 0;
  EXPECT_THROW(FinitePosterior(ctx, k, dom, 1, bad), gpb::InvalidArgument);
  EXPECT_THROW(FinitePosterior(ctx, k, dom, 0), gpb::InvalidArgument);
  // A precomputed kernel smaller than the domain's index range.
  EXPECT_THROW(FinitePosterior(ctx, Kernel::precomputed(Eigen::MatrixXd::Identity(3, 3)),
                               Domain::indices(5), 1),
               gpb::InvalidArgument);

  FinitePosterior post(ctx, k, dom, 2);
  const int good[2] = {1, 2}, neg[2] = {1, -1}, big[2] = {50, 0};
  const double y[2] = {0.5, 1.0}, nan_y[2] = {0.5, std::nan("")};
  EXPECT_THROW(post.observe(neg, y), gpb::InvalidArgument);
  EXPECT_THROW(post.observe(big, y), gpb::InvalidArgument);
  EXPECT_THROW(post.observe(good, nan_y), gpb::InvalidArgument);
  EXPECT_THROW(post.add_pending(big), gpb::InvalidArgument);
  EXPECT_EQ(post.rows(), 0);  // rejected calls change nothing
  post.add_pending(good);
  EXPECT_THROW(post.observe(good, y), gpb::InvalidArgument);
  EXPECT_THROW(post.resolve_pending(nan_y), gpb::InvalidArgument);
  post.resolve_pending(y);
  post.observe(good, y);
  EXPECT_EQ(post.rows(), 2);
  EXPECT_THROW(post.mean(2), gpb::InvalidArgument);
  EXPECT_THROW(post.variance(-1), gpb::InvalidArgument);
  EXPECT_THROW(post.history(2), gpb::InvalidArgument);
  std::vector<Rng> one_rng{Rng(1, 0, 4)};
  const double w[2] = {1.0, 1.0};
  EXPECT_THROW(post.ucb_argmax(w, nullptr, &one_rng), gpb::InvalidArgument);
}

TEST(Posterior, CudaContextSelectsTheCudaBackend) {
  if (!Context::cuda_compiled() || Context::cuda_device_count() == 0)
    GTEST_SKIP() << "no CUDA device";
  ContextOptions co;
  co.backend = gpb::Backend::Cuda;
  Context ctx(co);
  // Parity with the CPU is checked in test_cuda_posterior.cpp; here only that it runs.
  FinitePosterior post(ctx, Kernel::se(0.3), random_domain(10, 1, 1), 1);
  EXPECT_EQ(post.size(), 10);
}

}  // namespace
