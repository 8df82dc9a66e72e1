// Recompute mode's mean-only path: mean() is K(D, X_t)·β (β = L⁻ᵀα), O(N·t) without rebuilding
// V. It equals incremental mode's μ up to rounding (measured and bounded here), ignores pending
// rows exactly as incremental mode does, is the same for every chunk size, and reading it does not
// pay for the O(N·t²) rebuild that variance() needs.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <iostream>
#include <vector>

#include "gpbandit/engine/posterior.hpp"
#include "test_support.hpp"

namespace {

using gpb::Context;
using gpb::Domain;
using gpb::FinitePosterior;
using gpb::Kernel;
using gpb::PosteriorMode;
using gpb::PosteriorOptions;
using gpb::Rng;

using gpb::test::random_domain;

using gpb::test::make_cpu_context;
using gpb::test::related_fingerprints;

/// max_j |a_j − b_j| over the N values of run r, and max |b_j|.
struct Gap {
  double abs = 0, scale = 0;
};
Gap mean_gap(const FinitePosterior& a, const FinitePosterior& b, int r) {
  Gap g;
  const double* ma = a.mean(r);
  const double* mb = b.mean(r);
  for (int j = 0; j < a.size(); ++j) {
    g.abs = std::max(g.abs, std::abs(ma[j] - mb[j]));
    g.scale = std::max(g.scale, std::abs(mb[j]));
  }
  return g;
}

/// Drives an incremental and a recompute posterior (and a recompute one with another chunk)
/// through a block observation, single observations, pending rows and their resolution, and
/// grown candidates; after each step the recompute μ must match the incremental one within
/// 1e-12·max |μ| and the other chunk bit for bit. The second recompute posterior reads σ² first,
/// so its μ comes from the V rebuild's pass (CpuState::refresh), the first one's from the mean
/// pass alone (CpuState::mean_direct). Returns the largest relative gap seen.
double drive(const Kernel& k, const Domain& dom, bool grow) {
  const Context ctx = make_cpu_context(2);
  const int R = 2, n = dom.size();
  PosteriorOptions inc_o, rec_o, rec2_o;
  inc_o.mode = PosteriorMode::Incremental;
  inc_o.capacity = 8;
  inc_o.noise_variance = rec_o.noise_variance = rec2_o.noise_variance = 0.05;
  rec_o.mode = rec2_o.mode = PosteriorMode::Recompute;
  rec_o.chunk = 37;
  rec2_o.chunk = 4096;
  FinitePosterior inc(ctx, k, dom, R, inc_o), rec(ctx, k, dom, R, rec_o),
      rec2(ctx, k, dom, R, rec2_o);
  Rng rng(7, 0, 3);
  double worst = 0;
  const auto check = [&](const char* step) {
    (void)rec2.variance(0);  // every run's σ², and μ where mean() has been read before
    for (int r = 0; r < R; ++r) {
      const Gap g = mean_gap(rec, inc, r);
      EXPECT_LE(g.abs, 1e-12 * std::max(g.scale, 1.0)) << step << " run " << r;
      worst = std::max(worst, g.abs / std::max(g.scale, 1.0));
      const double* a = rec.mean(r);
      const double* b = rec2.mean(r);
      EXPECT_TRUE(std::equal(a, a + rec.size(), b)) << step << ": chunk 37 and 4096 differ";
    }
  };
  check("prior");
  for (int r = 0; r < R; ++r) EXPECT_EQ(rec.mean(r)[0], 0.0);
  const int q = 12;
  std::vector<int> idx(static_cast<std::size_t>(R) * q);
  std::vector<double> y(idx.size());
  for (std::size_t e = 0; e < idx.size(); ++e) {
    idx[e] = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
    y[e] = rng.normal();
  }
  for (FinitePosterior* p : {&inc, &rec, &rec2}) p->observe_batch(q, idx.data(), y.data());
  check("observe_batch");
  for (int step = 0; step < 5; ++step) {
    int one[2];
    double val[2];
    for (int r = 0; r < R; ++r) {
      one[r] = static_cast<int>(rng.below(static_cast<std::uint64_t>(inc.size())));
      val[r] = rng.normal();
    }
    for (FinitePosterior* p : {&inc, &rec, &rec2}) p->observe(one, val);
    check("observe");
  }
  // Pending rows have α = 0: μ stays exactly what it was (both modes).
  std::vector<std::vector<double>> before(R);
  for (int r = 0; r < R; ++r) before[r].assign(rec.mean(r), rec.mean(r) + rec.size());
  int pend[2] = {1, 2};
  for (FinitePosterior* p : {&inc, &rec, &rec2}) p->add_pending(pend);
  for (FinitePosterior* p : {&inc, &rec, &rec2}) p->add_pending(pend);  // a repeat as well
  for (int r = 0; r < R; ++r) {
    EXPECT_TRUE(std::equal(before[r].begin(), before[r].end(), rec.mean(r))) << "pending run " << r;
  }
  check("pending");
  const double answers[4] = {0.3, -0.2, 1.1, 0.4};
  for (FinitePosterior* p : {&inc, &rec, &rec2}) p->resolve_pending(answers);
  check("resolved");
  if (grow) {
    const Eigen::MatrixXd extra = Eigen::MatrixXd::Random(dom.dim(), 5).cwiseAbs();
    for (FinitePosterior* p : {&inc, &rec, &rec2}) p->add_candidates(extra);
    check("grown");
    // A new candidate observed: the row enters μ everywhere.
    int at[2] = {n + 1, n + 4};
    const double val[2] = {0.7, -0.9};
    for (FinitePosterior* p : {&inc, &rec, &rec2}) p->observe(at, val);
    check("observed a grown candidate");
  }
  return worst;
}

TEST(PosteriorMean, RecomputeMeanMatchesIncremental) {
  const double worst =
      drive(Kernel::matern(gpb::KernelType::Matern52, 0.2), random_domain(700, 3, 5),
            /*grow=*/true);
  std::cout << "[ measured ] Matérn-5/2, N = 700: max |Δμ| / max |μ| = " << worst << "\n";
}

TEST(PosteriorMean, RecomputeMeanMatchesIncrementalOnFingerprints) {
  // Tanimoto: the mean pass runs the popcount tiles (fingerprint_block).
  const double worst =
      drive(Kernel::tanimoto(), related_fingerprints(900, 256, 11), /*grow=*/false);
  std::cout << "[ measured ] Tanimoto, N = 900: max |Δμ| / max |μ| = " << worst << "\n";
}

TEST(PosteriorMean, RecomputeMeanMatchesDenseSolve) {
  const Domain dom = random_domain(300, 2, 9);
  const Kernel k = Kernel::se(0.3);
  const Context ctx = make_cpu_context(1);
  PosteriorOptions o;
  o.mode = PosteriorMode::Recompute;
  o.noise_variance = 0.01;
  FinitePosterior p(ctx, k, dom, 1, o);
  std::vector<int> x;
  std::vector<double> y;
  for (int i = 0; i < 40; ++i) {
    x.push_back((i * 37) % dom.size());
    y.push_back(std::sin(3.0 * i));
  }
  p.observe_batch(40, x.data(), y.data());
  Eigen::MatrixXd kdx(dom.size(), 40), kxx(40, 40);
  for (int j = 0; j < dom.size(); ++j)
    for (int q = 0; q < 40; ++q) kdx(j, q) = k(dom.point(j), dom.point(x[q]), 2);
  for (int a = 0; a < 40; ++a)
    for (int b = 0; b < 40; ++b) kxx(a, b) = k(dom.point(x[a]), dom.point(x[b]), 2);
  kxx.diagonal().array() += 0.01;
  const Eigen::VectorXd mu = kdx * kxx.llt().solve(Eigen::Map<const Eigen::VectorXd>(y.data(), 40));
  const Eigen::Map<const Eigen::VectorXd> got(p.mean(0), dom.size());
  EXPECT_LT((got - mu).cwiseAbs().maxCoeff(), 1e-10 * std::max(1.0, mu.cwiseAbs().maxCoeff()));
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// mean() alone must not rebuild V: on one thread, with a cheap kernel (linear: d multiply-adds)
// at N = 20 000 and t = 400, the mean pass is N·t·d operations and the V rebuild that variance()
// then needs is N·t²/2 row steps, about 100 times more. Both are the first read after the
// observations, so each pays for its own refresh; CPU time of this thread (one thread).
TEST(PosteriorMean, MeanAloneDoesNotRebuildV) {
  const Domain dom = random_domain(20000, 2, 3);
  const Context ctx = make_cpu_context(1);
  PosteriorOptions o;
  o.mode = PosteriorMode::Recompute;
  o.noise_variance = 0.05;
  FinitePosterior p(ctx, Kernel::linear(1.0, 1.0), dom, 1, o);
  const int t = 400;
  std::vector<int> x(t);
  std::vector<double> y(t);
  for (int i = 0; i < t; ++i) {
    x[static_cast<std::size_t>(i)] = (i * 7919) % dom.size();
    y[static_cast<std::size_t>(i)] = std::cos(0.1 * i);
  }
  p.observe_batch(t, x.data(), y.data());
  double start = thread_cpu_seconds();
  const double m0 = p.mean(0)[0];
  const double mean_s = thread_cpu_seconds() - start;
  start = thread_cpu_seconds();
  const double v0 = p.variance(0)[0];
  const double var_s = thread_cpu_seconds() - start;
  std::cout << "[ measured ] N = 20 000, t = 400, linear kernel, one thread: first mean() "
            << mean_s << " s, then variance() " << var_s << " s\n";
  EXPECT_TRUE(std::isfinite(m0) && std::isfinite(v0));
  EXPECT_LT(5.0 * mean_s, var_s) << "mean() seems to rebuild V";
}

}  // namespace
