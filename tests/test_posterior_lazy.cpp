// Lazy blocks of the CPU FinitePosterior (PosteriorOptions::lazy, the default) against the eager
// update (lazy = false): the same choices, scores, tie counts and bit-identical μ, σ² on domains
// large enough to be reordered into blocks, with ties, exclusions, pending rows (also GP-BUCB's
// batches of them between choices), several runs, growth of V, Mixed precision and a tiny noise
// variance. All deterministic (fixed seeds).
#include <gtest/gtest.h>

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "engine/cpu/block_order.hpp"
#include "gpbandit/engine/posterior.hpp"

namespace {

using gpb::Context;
using gpb::ContextOptions;
using gpb::Domain;
using gpb::FinitePosterior;
using gpb::Kernel;
using gpb::PosteriorOptions;
using gpb::Rng;

/// n random points in [0,1]^d; with `copies` > 1 every point appears `copies` times at scattered
/// indices, so UCB scores tie exactly.
Domain scattered_domain(int n, int d, int copies, std::uint64_t seed) {
  Rng rng(seed, 0, 7);
  const int distinct = n / copies;
  Eigen::MatrixXd base(distinct, d);
  for (int i = 0; i < distinct; ++i)
    for (int k = 0; k < d; ++k) base(i, k) = rng.uniform();
  Eigen::MatrixXd rows(n, d);
  for (int i = 0; i < n; ++i) rows.row(i) = base.row((i * 7919) % distinct);
  return Domain::from_rows(rows);
}

/// A smooth objective on the domain: a few SE bumps (reproducible from the seed).
std::vector<double> objective(const Domain& dom, std::uint64_t seed) {
  Rng rng(seed, 0, 11);
  const int d = dom.dim();
  std::vector<double> f(static_cast<std::size_t>(dom.size()), 0.0);
  for (int c = 0; c < 6; ++c) {
    Eigen::VectorXd centre(d);
    for (int k = 0; k < d; ++k) centre[k] = rng.uniform();
    const double w = 2.0 * rng.uniform() - 1.0;
    for (int j = 0; j < dom.size(); ++j) {
      double r2 = 0;
      for (int k = 0; k < d; ++k)
        r2 += (dom.point(j)[k] - centre[k]) * (dom.point(j)[k] - centre[k]);
      f[static_cast<std::size_t>(j)] += w * std::exp(-r2 / 0.08);
    }
  }
  return f;
}

struct Scenario {
  int n = 6000, d = 2, runs = 2, rounds = 120, copies = 1, capacity = 256, pending_every = 0;
  double lambda = 1e-2, width = 2.0;
  bool excluded = false, ties = false, mixed = false;
};

void expect_same_arrays(const FinitePosterior& a, const FinitePosterior& b, int run) {
  const int n = a.size();
  EXPECT_EQ(0, std::memcmp(a.mean(run), b.mean(run), sizeof(double) * n)) << "mean, run " << run;
  EXPECT_EQ(0, std::memcmp(a.variance(run), b.variance(run), sizeof(double) * n))
      << "variance, run " << run;
}

/// Drives a lazy and an eager posterior with the same GP-UCB loop; every choice must agree bit for
/// bit. Returns how many rounds had several exact ties (so tie tests can check they saw some).
int drive(const Scenario& s) {
  ContextOptions co;
  co.backend = gpb::Backend::Cpu;
  if (s.mixed) co.precision = gpb::Precision::Mixed;
  const Context ctx(co);
  const Domain dom = scattered_domain(s.n, s.d, s.copies, 3);
  const std::vector<double> f = objective(dom, 5);
  const Kernel k = Kernel::se(0.25, 1.0);
  PosteriorOptions lazy_opt, eager_opt;
  lazy_opt.noise_variance = eager_opt.noise_variance = s.lambda;
  lazy_opt.capacity = eager_opt.capacity = s.capacity;
  lazy_opt.mode = eager_opt.mode = gpb::PosteriorMode::Incremental;
  eager_opt.lazy = false;
  FinitePosterior lazy(ctx, k, dom, s.runs, lazy_opt), eager(ctx, k, dom, s.runs, eager_opt);
  Rng noise(9, 0, 1), mask_rng(9, 0, 2);
  std::vector<Rng> tb_lazy, tb_eager;
  for (int r = 0; r < s.runs; ++r) {
    tb_lazy.emplace_back(21, r, 3);
    tb_eager.emplace_back(21, r, 3);
  }
  std::vector<double> width(static_cast<std::size_t>(s.runs), s.width);
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(s.runs) * s.n, 0);
  int tie_rounds = 0;
  for (int round = 0; round < s.rounds; ++round) {
    if (s.excluded)
      for (auto& m : mask) m = mask_rng.uniform() < 0.3 ? 1 : 0;
    const auto cl = lazy.ucb_argmax(width.data(), s.excluded ? mask.data() : nullptr,
                                    s.ties ? &tb_lazy : nullptr);
    const auto ce = eager.ucb_argmax(width.data(), s.excluded ? mask.data() : nullptr,
                                     s.ties ? &tb_eager : nullptr);
    std::vector<int> pick(static_cast<std::size_t>(s.runs));
    std::vector<double> y(static_cast<std::size_t>(s.runs));
    for (int r = 0; r < s.runs; ++r) {
      const auto& a = cl[static_cast<std::size_t>(r)];
      const auto& b = ce[static_cast<std::size_t>(r)];
      EXPECT_EQ(a.index, b.index) << "round " << round << " run " << r;
      EXPECT_EQ(0, std::memcmp(&a.score, &b.score, sizeof(double))) << "round " << round;
      EXPECT_EQ(a.ties, b.ties) << "round " << round;
      if (b.ties > 1) ++tie_rounds;
      pick[static_cast<std::size_t>(r)] = b.index;
      y[static_cast<std::size_t>(r)] = f[static_cast<std::size_t>(b.index)] + 0.1 * noise.normal();
    }
    if (::testing::Test::HasFailure()) return tie_rounds;
    if (s.pending_every > 0 && round % s.pending_every == 0) {
      lazy.add_pending(pick.data());
      eager.add_pending(pick.data());
      lazy.resolve_pending(y.data());
      eager.resolve_pending(y.data());
    } else {
      lazy.observe(pick.data(), y.data());
      eager.observe(pick.data(), y.data());
    }
    if (round % 40 == 39)
      for (int r = 0; r < s.runs; ++r) expect_same_arrays(lazy, eager, r);
  }
  for (int r = 0; r < s.runs; ++r) {
    expect_same_arrays(lazy, eager, r);
    EXPECT_EQ(lazy.history(r), eager.history(r));
    EXPECT_EQ(lazy.info_gain(r), eager.info_gain(r));
  }
  return tie_rounds;
}

TEST(PosteriorLazy, MatchesEagerBitForBit) {
  drive(Scenario{});
}

TEST(PosteriorLazy, MatchesEagerInFiveDimensions) {
  Scenario s;
  s.d = 5;
  s.runs = 1;
  drive(s);
}

TEST(PosteriorLazy, MatchesEagerWithTiesAndRandomTieBreak) {
  Scenario s;
  s.copies = 3;  // every point three times: every score ties three ways
  s.ties = true;
  EXPECT_GT(drive(s), 0) << "the test must see rounds with several ties";
}

TEST(PosteriorLazy, MatchesEagerWithExclusionsPendingRowsAndGrowth) {
  Scenario s;
  s.excluded = true;
  s.pending_every = 3;
  s.capacity = 16;  // V grows several times
  drive(s);
}

TEST(PosteriorLazy, MatchesEagerInMixedPrecision) {
  Scenario s;
  s.mixed = true;
  drive(s);
}

TEST(PosteriorLazy, MatchesEagerWithTinyNoiseAndRepeatedPicks) {
  Scenario s;
  s.lambda = 1e-10;  // the rounding margins of the block bounds are what keeps this exact
  s.width = 0.5;
  s.rounds = 80;
  drive(s);
}

/// GP-BUCB's pattern on a domain of ≥ 32 blocks, where pending rows are left to the catch-up too:
/// per round q choices, each followed by a pending row at it (exclusion lists: distinct picks),
/// then one resolve_pending; choices, scores, tie counts, and at the end μ, σ², history and
/// information gain must equal the eager posterior's bit for bit.
void drive_batches(int n, int copies, int q, int rounds, bool mixed, double w0 = 2.0) {
  ContextOptions co;
  co.backend = gpb::Backend::Cpu;
  if (mixed) co.precision = gpb::Precision::Mixed;
  const Context ctx(co);
  const Domain dom = scattered_domain(n, 2, copies, 13);
  const std::vector<double> f = objective(dom, 15);
  PosteriorOptions lazy_opt, eager_opt;
  lazy_opt.capacity = eager_opt.capacity = 32;  // V grows while rows are pending
  lazy_opt.mode = eager_opt.mode = gpb::PosteriorMode::Incremental;
  eager_opt.lazy = false;
  const Kernel k = Kernel::se(0.1, 1.0);
  const int runs = 2;
  FinitePosterior lazy(ctx, k, dom, runs, lazy_opt), eager(ctx, k, dom, runs, eager_opt);
  std::vector<Rng> tb_lazy, tb_eager;
  for (int r = 0; r < runs; ++r) {
    tb_lazy.emplace_back(23, r, 3);
    tb_eager.emplace_back(23, r, 3);
  }
  Rng noise(19, 0, 1);
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::vector<int>> excluded(static_cast<std::size_t>(runs));
    std::vector<double> y(static_cast<std::size_t>(runs) * q);
    for (int i = 0; i < q; ++i) {
      const std::vector<double> width{w0 + 0.1 * i, 0.75 * w0};
      const auto cl = lazy.ucb_argmax(width.data(), excluded, &tb_lazy);
      const auto ce = eager.ucb_argmax(width.data(), excluded, &tb_eager);
      std::vector<int> pick(static_cast<std::size_t>(runs));
      for (int r = 0; r < runs; ++r) {
        const auto& a = cl[static_cast<std::size_t>(r)];
        const auto& b = ce[static_cast<std::size_t>(r)];
        ASSERT_EQ(a.index, b.index) << "round " << round << " pick " << i << " run " << r;
        EXPECT_EQ(0, std::memcmp(&a.score, &b.score, sizeof(double))) << "round " << round;
        EXPECT_EQ(a.ties, b.ties) << "round " << round;
        pick[static_cast<std::size_t>(r)] = b.index;
        excluded[static_cast<std::size_t>(r)].push_back(b.index);
        y[static_cast<std::size_t>(r) * q + i] =
            f[static_cast<std::size_t>(b.index)] + 0.1 * noise.normal();
      }
      lazy.add_pending(pick.data());
      eager.add_pending(pick.data());
    }
    lazy.resolve_pending(y.data());
    eager.resolve_pending(y.data());
  }
  for (int r = 0; r < runs; ++r) {
    expect_same_arrays(lazy, eager, r);
    EXPECT_EQ(lazy.history(r), eager.history(r));
    EXPECT_EQ(lazy.info_gain(r), eager.info_gain(r));
  }
}

TEST(PosteriorLazy, PendingBatchesMatchEagerBitForBit) {
  drive_batches(20000, 1, 12, 8, false);
}

TEST(PosteriorLazy, PendingBatchesMatchEagerWithNarrowWidths) {
  // Widths near 0: the choices follow μ, so a stale block's bound hinges on A (the resolved
  // pending rows' α), not on σ.
  drive_batches(20000, 1, 12, 10, false, 0.0);
}

TEST(PosteriorLazy, PendingBatchesMatchEagerWithTies) {
  drive_batches(21000, 3, 8, 6, false);
}

TEST(PosteriorLazy, PendingBatchesMatchEagerInMixedPrecision) {
  drive_batches(20000, 1, 12, 4, true);
}

TEST(PosteriorLazy, MeanMatchesEagerAfterObservationsOnly) {
  // mean() on a lazy posterior whose blocks are all stale (no ucb_argmax call in between).
  const Context ctx(ContextOptions{});
  const Domain dom = scattered_domain(4000, 3, 1, 17);
  PosteriorOptions lazy_opt, eager_opt;
  eager_opt.lazy = false;
  FinitePosterior lazy(ctx, Kernel::matern(gpb::KernelType::Matern52, 0.3, 1.5), dom, 1, lazy_opt);
  FinitePosterior eager(ctx, Kernel::matern(gpb::KernelType::Matern52, 0.3, 1.5), dom, 1,
                        eager_opt);
  Rng rng(4, 0, 0);
  for (int i = 0; i < 50; ++i) {
    const int a = static_cast<int>(rng.uniform() * dom.size());
    const double y = rng.normal();
    lazy.observe(&a, &y);
    eager.observe(&a, &y);
  }
  expect_same_arrays(lazy, eager, 0);
}

TEST(PosteriorLazy, SpatialBlockOrderIsAPermutationOfCompactBlocks) {
  const int n = 20000, block = 512;
  Rng rng(8, 0, 0);
  Eigen::MatrixXd points(2, n);
  for (int j = 0; j < n; ++j) points.col(j) << rng.uniform(), 4.0 * rng.uniform();  // 1 × 4 box
  const std::vector<int> order = gpb::detail::spatial_block_order(points, block);
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> iota(n);
  std::iota(iota.begin(), iota.end(), 0);
  ASSERT_EQ(sorted, iota);
  // Each full block is one cell of a k-d split: its bounding box holds about block/n of the area
  // (4 · 512/20000 ≈ 0.1); blocks of consecutive random indices would span nearly the whole 4.
  double area = 0;
  int full = 0;
  for (int b = 0; (b + 1) * block <= n; ++b, ++full) {
    Eigen::Vector2d lo = points.col(order[static_cast<std::size_t>(b * block)]), hi = lo;
    for (int i = b * block; i < (b + 1) * block; ++i) {
      lo = lo.cwiseMin(points.col(order[static_cast<std::size_t>(i)]));
      hi = hi.cwiseMax(points.col(order[static_cast<std::size_t>(i)]));
    }
    area += (hi - lo).prod();
  }
  EXPECT_LT(area / full, 0.25);
}

}  // namespace
