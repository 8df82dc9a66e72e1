// FinitePosterior::observe_batch (one block update: GEMM + triangular solve) against q calls of
// observe() and against the dense GP formulas, on fingerprint and grid domains, lazy and eager,
// incremental and recompute, one rank and three in-process ranks; rows_at and apply_rows against
// the dense posterior covariance and mean. Fixed seeds.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/rng.hpp"
#include "test_support.hpp"

namespace {

using gpb::Context;
using gpb::Domain;
using gpb::FinitePosterior;
using gpb::Kernel;
using gpb::PosteriorOptions;

Domain fingerprint_domain(long long n, std::uint64_t seed) {
  return Domain::fingerprints(gpb::Fingerprints::random(n, 256, 0.08, seed));
}

/// `count` distinct candidates of [0, n) and rewards for them (fixed seed).
void draw(int n, int count, std::uint64_t seed, std::vector<int>& idx, std::vector<double>& y) {
  gpb::Rng rng(seed, 0, 1);
  std::vector<char> used(static_cast<std::size_t>(n), 0);
  idx.clear();
  y.clear();
  while (static_cast<int>(idx.size()) < count) {
    const int a = static_cast<int>(rng.below(n));
    if (used[a] != 0) continue;
    used[a] = 1;
    idx.push_back(a);
    y.push_back(rng.normal());
  }
}

/// Dense posterior mean and variance of N(0, K + λI) observations at idx (the reference).
void dense_posterior(const Context& ctx, const Kernel& k, const Domain& dom, double lambda,
                     const std::vector<int>& idx, const std::vector<double>& y, Eigen::VectorXd& mu,
                     Eigen::VectorXd& s2) {
  const int t = static_cast<int>(idx.size());
  Eigen::MatrixXd X(dom.dim(), t);
  for (int i = 0; i < t; ++i) X.col(i) = dom.points().col(idx[static_cast<std::size_t>(i)]);
  Eigen::MatrixXd Kxx = gpb::kernel_matrix(ctx, k, X, X);
  Kxx.diagonal().array() += lambda;
  const Eigen::MatrixXd Kdx = gpb::kernel_matrix(ctx, k, dom.points(), X);
  const Eigen::LLT<Eigen::MatrixXd> llt(Kxx);
  const Eigen::VectorXd yv = Eigen::Map<const Eigen::VectorXd>(y.data(), t);
  mu = Kdx * llt.solve(yv);
  const Eigen::MatrixXd w = llt.matrixL().solve(Kdx.transpose());
  s2 = gpb::kernel_diag(ctx, k, dom) - w.colwise().squaredNorm().transpose();
}

/// Observes idx/y as batches of `q` (block updates) on one posterior and one by one on another,
/// then compares μ, σ², the factor and α.
void expect_block_equals_sequential(const Domain& dom, const Kernel& k, PosteriorOptions o, int t,
                                    int q) {
  const Context ctx = gpb::test::make_cpu_context(2);
  std::vector<int> idx;
  std::vector<double> y;
  draw(dom.size(), t, 17, idx, y);
  FinitePosterior block(ctx, k, dom, 1, o), seq(ctx, k, dom, 1, o);
  for (int s = 0; s < t; s += q) {
    const int len = std::min(q, t - s);
    block.observe_batch(len, idx.data() + s, y.data() + s);
  }
  for (int s = 0; s < t; ++s) seq.observe(idx.data() + s, y.data() + s);
  ASSERT_EQ(block.rows(), t);
  EXPECT_EQ(block.history(0), seq.history(0));
  const gpb::PosteriorFactor fb = block.factor(0), fs = seq.factor(0);
  EXPECT_LT((fb.L - fs.L).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((fb.alpha - fs.alpha).cwiseAbs().maxCoeff(), 1e-8);
  for (int a = 0; a < dom.size(); ++a) {
    ASSERT_NEAR(block.mean(0)[a], seq.mean(0)[a], 1e-9) << "candidate " << a;
    ASSERT_NEAR(block.variance(0)[a], seq.variance(0)[a], 1e-9) << "candidate " << a;
  }
  Eigen::VectorXd mu, s2;
  dense_posterior(ctx, k, dom, o.noise_variance, idx, y, mu, s2);
  for (int a = 0; a < dom.size(); ++a) {
    ASSERT_NEAR(block.mean(0)[a], mu[a], 1e-8) << "candidate " << a;
    ASSERT_NEAR(block.variance(0)[a], std::max(s2[a], 0.0), 1e-8) << "candidate " << a;
  }
}

TEST(PosteriorBlock, FingerprintsEagerAndLazy) {
  PosteriorOptions o;
  o.noise_variance = 0.05;
  o.capacity = 8;  // V grows during the blocks
  for (const bool lazy : {false, true}) {
    o.lazy = lazy;
    expect_block_equals_sequential(fingerprint_domain(700, 3), Kernel::tanimoto(1.3), o, 90, 37);
  }
}

TEST(PosteriorBlock, LargeFingerprintPoolOverSeveralChunks) {
  // 5000 candidates of 2048 bits: the block products split them into 3 chunks of 2048 rows over
  // 2 threads, and the Tanimoto kernel columns run the AVX2 tile (with each row's bit count).
  PosteriorOptions o;
  o.noise_variance = 0.05;
  o.capacity = 160;
  o.lazy = false;
  const Domain dom = Domain::fingerprints(gpb::Fingerprints::random(5000, 2048, 0.04, 11));
  expect_block_equals_sequential(dom, Kernel::tanimoto(0.9), o, 150, 70);
}

TEST(PosteriorBlock, AfterAddedCandidatesTheRowsKeepTheirStride) {
  // add_candidates widens V's rows past the candidates held (ncap > n); later blocks must write
  // and read V with that stride. Reference: one posterior that held every candidate from the
  // start, fed the same batches.
  const Context ctx = gpb::test::make_cpu_context(2);
  const Domain all = Domain::grid({0, 0}, {1, 1}, {24, 24});  // 576 candidates
  const int first = 500;
  const Domain part = Domain::from_points(all.points().leftCols(first));
  PosteriorOptions o;
  o.noise_variance = 1e-2;
  o.capacity = 16;
  o.lazy = false;
  const Kernel k = Kernel::se(0.2);
  FinitePosterior grown(ctx, k, part, 1, o), full(ctx, k, all, 1, o);
  std::vector<int> idx;
  std::vector<double> y;
  draw(first, 60, 29, idx, y);
  grown.observe_batch(30, idx.data(), y.data());
  full.observe_batch(30, idx.data(), y.data());
  grown.add_candidates(all.points().rightCols(all.size() - first));
  grown.observe_batch(30, idx.data() + 30, y.data() + 30);
  full.observe_batch(30, idx.data() + 30, y.data() + 30);
  ASSERT_EQ(grown.size(), all.size());
  for (int a = 0; a < all.size(); ++a) {
    ASSERT_NEAR(grown.mean(0)[a], full.mean(0)[a], 1e-10) << "candidate " << a;
    ASSERT_NEAR(grown.variance(0)[a], full.variance(0)[a], 1e-10) << "candidate " << a;
  }
  // apply_rows (Vᵀ B, the pathwise draws' product) reads V with the same stride.
  const Eigen::MatrixXd B = Eigen::MatrixXd::Random(60, 3);
  EXPECT_LT((grown.apply_rows(0, B) - full.apply_rows(0, B)).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(PosteriorBlock, MixedPrecisionBlockStaysNearDouble) {
  // V stored in float: the block update's GEMM and TRSM run in single precision. Against the
  // double posterior fed the same batches (a 50k-like model: output scale 0.64, noise 0.033,
  // 2048-bit fingerprints, batches of 150 up to t = 600), μ and σ² stay within the stated
  // tolerance of the Mixed mode: 1e-5·v absolute (measured: 6e-7 for μ, 4e-7 for σ²; float rounding
  // is deterministic here, so this cannot fail at random). Row-by-row float updates (observe())
  // stay within the same bound, so the block path is no worse than the path it replaces.
  const Domain dom = Domain::fingerprints(gpb::Fingerprints::random(3000, 2048, 0.04, 13));
  const Kernel k = Kernel::tanimoto(0.64);
  PosteriorOptions o;
  o.noise_variance = 0.033;
  o.capacity = 600;
  o.lazy = false;
  std::vector<int> idx;
  std::vector<double> y;
  draw(dom.size(), 600, 37, idx, y);
  gpb::ContextOptions co;
  co.backend = gpb::Backend::Cpu;
  co.threads = 2;
  const Context dbl(co);
  co.precision = gpb::Precision::Mixed;
  const Context mixed(co);
  FinitePosterior ref(dbl, k, dom, 1, o), blk(mixed, k, dom, 1, o), seq(mixed, k, dom, 1, o);
  for (int s = 0; s < 600; s += 150) {
    ref.observe_batch(150, idx.data() + s, y.data() + s);
    blk.observe_batch(150, idx.data() + s, y.data() + s);
  }
  for (int s = 0; s < 600; ++s) seq.observe(idx.data() + s, y.data() + s);
  const double tol = 1e-5 * k.variance();
  double worst_mu = 0, worst_s2 = 0;
  for (int a = 0; a < dom.size(); ++a) {
    ASSERT_NEAR(blk.mean(0)[a], ref.mean(0)[a], tol) << "candidate " << a;
    ASSERT_NEAR(blk.variance(0)[a], ref.variance(0)[a], tol) << "candidate " << a;
    ASSERT_NEAR(seq.mean(0)[a], ref.mean(0)[a], tol) << "candidate " << a;
    ASSERT_NEAR(seq.variance(0)[a], ref.variance(0)[a], tol) << "candidate " << a;
    worst_mu = std::max(worst_mu, std::abs(blk.mean(0)[a] - ref.mean(0)[a]));
    worst_s2 = std::max(worst_s2, std::abs(blk.variance(0)[a] - ref.variance(0)[a]));
  }
  std::printf("mixed block vs double: max |dmu| = %.3g, max |ds2| = %.3g (v = %.2f)\n", worst_mu,
              worst_s2, k.variance());
  // The factor rows and α come from the same double recurrence over float-stored columns.
  const gpb::PosteriorFactor fb = blk.factor(0), fr = ref.factor(0);
  EXPECT_LT((fb.L - fr.L).cwiseAbs().maxCoeff(), tol);
}

TEST(PosteriorBlock, ReorderedGridWithLazyBlocks) {
  PosteriorOptions o;
  o.noise_variance = 1e-3;
  o.capacity = 64;
  // 60 × 60 = 3600 candidates: more than two blocks, so the lazy CPU posterior reorders them.
  expect_block_equals_sequential(Domain::grid({0, 0}, {1, 1}, {60, 60}), Kernel::se(0.15), o, 120,
                                 50);
}

TEST(PosteriorBlock, RecomputeModeFallsBackRowByRow) {
  PosteriorOptions o;
  o.noise_variance = 0.05;
  o.mode = gpb::PosteriorMode::Recompute;
  expect_block_equals_sequential(fingerprint_domain(300, 5), Kernel::tanimoto(), o, 40, 15);
}

TEST(PosteriorBlock, RowsAtAndApplyRowsGiveTheDenseCovarianceAndMean) {
  const Context ctx = gpb::test::make_cpu_context(2);
  const Domain dom = fingerprint_domain(400, 9);
  const Kernel k = Kernel::tanimoto(0.8);
  for (const auto mode : {gpb::PosteriorMode::Incremental, gpb::PosteriorMode::Recompute}) {
    PosteriorOptions o;
    o.noise_variance = 0.02;
    o.mode = mode;
    std::vector<int> idx;
    std::vector<double> y;
    draw(dom.size(), 60, 23, idx, y);
    FinitePosterior post(ctx, k, dom, 1, o);
    post.observe_batch(60, idx.data(), y.data());
    const std::vector<int> probe = {0, 7, idx[3], 399};
    const Eigen::MatrixXd v = post.rows_at(0, probe);
    ASSERT_EQ(v.rows(), 60);
    // Cov(a, b) = k(a, b) − v_aᵀ v_b against the dense formula.
    Eigen::MatrixXd X(dom.dim(), 60);
    for (int i = 0; i < 60; ++i) X.col(i) = dom.points().col(idx[static_cast<std::size_t>(i)]);
    Eigen::MatrixXd Kxx = gpb::kernel_matrix(ctx, k, X, X);
    Kxx.diagonal().array() += o.noise_variance;
    Eigen::MatrixXd P(dom.dim(), 4);
    for (int i = 0; i < 4; ++i) P.col(i) = dom.points().col(probe[static_cast<std::size_t>(i)]);
    const Eigen::MatrixXd Kpx = gpb::kernel_matrix(ctx, k, P, X);
    const Eigen::MatrixXd dense = gpb::kernel_matrix(ctx, k, P, P) -
                                  Kpx * Eigen::LLT<Eigen::MatrixXd>(Kxx).solve(Kpx.transpose());
    const Eigen::MatrixXd ours = gpb::kernel_matrix(ctx, k, P, P) - v.transpose() * v;
    EXPECT_LT((ours - dense).cwiseAbs().maxCoeff(), 1e-10);
    // apply_rows(L⁻¹ y) = μ.
    const gpb::PosteriorFactor f = post.factor(0);
    Eigen::MatrixXd b = Eigen::Map<const Eigen::VectorXd>(y.data(), 60);
    f.L.triangularView<Eigen::Lower>().solveInPlace(b);
    const Eigen::MatrixXd m = post.apply_rows(0, b);
    for (int a = 0; a < dom.size(); ++a) ASSERT_NEAR(m(a, 0), post.mean(0)[a], 1e-10);
  }
}

TEST(PosteriorBlock, ShardedOverThreeRanksEqualsOneRank) {
  const Domain dom = fingerprint_domain(1000, 31);
  const Kernel k = Kernel::tanimoto();
  PosteriorOptions o;
  o.noise_variance = 0.05;
  std::vector<int> idx;
  std::vector<double> y;
  draw(dom.size(), 80, 41, idx, y);
  const Context one = gpb::test::make_cpu_context(1);
  FinitePosterior ref(one, k, dom, 1, o);
  ref.observe_batch(50, idx.data(), y.data());
  ref.observe_batch(30, idx.data() + 50, y.data() + 50);
  const std::vector<double> mu(ref.mean(0), ref.mean(0) + dom.size());
  const std::vector<double> s2(ref.variance(0), ref.variance(0) + dom.size());
  const auto comms = gpb::Communicator::in_process(3, 60.0);
  std::vector<std::vector<double>> got_mu(3), got_s2(3);
  std::vector<std::thread> threads;
  for (int q = 0; q < 3; ++q) {
    threads.emplace_back([&, q] {
      gpb::ContextOptions co;
      co.backend = gpb::Backend::Cpu;
      co.threads = 1;
      co.communicator = comms[static_cast<std::size_t>(q)];
      const Context ctx(co);
      FinitePosterior p(ctx, k, dom, 1, o);
      p.observe_batch(50, idx.data(), y.data());
      p.observe_batch(30, idx.data() + 50, y.data() + 50);
      got_mu[q].assign(p.mean(0), p.mean(0) + dom.size());
      got_s2[q].assign(p.variance(0), p.variance(0) + dom.size());
    });
  }
  for (auto& t : threads) t.join();
  for (int q = 0; q < 3; ++q) {
    ASSERT_EQ(got_mu[q].size(), mu.size());
    for (std::size_t a = 0; a < mu.size(); ++a) {
      ASSERT_NEAR(got_mu[q][a], mu[a], 1e-12) << "rank " << q << ", candidate " << a;
      ASSERT_NEAR(got_s2[q][a], s2[a], 1e-12) << "rank " << q << ", candidate " << a;
    }
  }
}

TEST(PosteriorBlock, RejectsBadArguments) {
  const Context ctx = gpb::test::make_cpu_context(1);
  FinitePosterior p(ctx, Kernel::tanimoto(), fingerprint_domain(50, 1), 1);
  const int idx[2] = {3, 50};
  const double y[2] = {0.1, 0.2};
  EXPECT_TRUE(gpb::test::contains(
      gpb::test::invalid_argument_of([&] { p.observe_batch(2, idx, y); }), "index[1] = 50"));
  EXPECT_THROW(p.observe_batch(0, idx, y), gpb::InvalidArgument);
  const int ok[1] = {3};
  const double nan[1] = {std::nan("")};
  EXPECT_THROW(p.observe_batch(1, ok, nan), gpb::InvalidArgument);
}

}  // namespace
