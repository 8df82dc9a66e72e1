// FinitePosterior::add_candidates: a posterior whose candidate set grows equals, bit for bit, one
// that held the candidates from the start (every mode, pending rows, several runs, repeated
// growth past the capacity), UCB choices reach the new candidates, and bad inputs are refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/error.hpp"
#include "test_support.hpp"

namespace {

using gpb::Domain;
using gpb::FinitePosterior;
using gpb::Kernel;
using gpb::PosteriorMode;
using gpb::PosteriorOptions;
using gpb::Rng;

Eigen::MatrixXd random_points(int d, int n, std::uint64_t seed) {
  Rng rng(seed, 0, 7);
  Eigen::MatrixXd p(d, n);
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < d; ++k) p(k, j) = rng.uniform();
  return p;
}

struct Setting {
  PosteriorMode mode = PosteriorMode::Incremental;
  bool lazy = true;
  int n = 300;
  int runs = 1;
  int capacity = 4;
};

/// Drives `full` (over base ∪ extra from the start) and `grown` (over base, extra added in three
/// pieces along the way) through the same observations, pending batches and resolves, at base
/// and, once added, extra candidates; μ and σ² must agree bit for bit after every step.
void check_growth(const Setting& st) {
  const int d = 3, m = 40;
  const auto ctx = gpb::test::make_cpu_context(1);
  const Kernel k = Kernel::ard(gpb::KernelType::Matern52, Eigen::Vector3d(0.3, 0.5, 0.8), 1.7);
  const Eigen::MatrixXd base = random_points(d, st.n, 1), extra = random_points(d, m, 2);
  Eigen::MatrixXd all(d, st.n + m);
  all << base, extra;
  PosteriorOptions o;
  o.mode = st.mode;
  o.lazy = st.lazy;
  o.capacity = st.capacity;
  o.noise_variance = 1e-3;
  FinitePosterior full(ctx, k, Domain::from_points(all), st.runs, o);
  FinitePosterior grown(ctx, k, Domain::from_points(base), st.runs, o);
  Rng rng(3, 0, 1);
  int added = 0;
  for (int step = 0; step < 36; ++step) {
    if (step == 5 || step == 12 || step == 20) {  // the third piece arrives with rows pending
      const int piece = step == 20 ? m - added : 15;
      grown.add_candidates(extra.middleCols(added, piece));
      added += piece;
      ASSERT_EQ(grown.size(), st.n + added);
    }
    const int limit = st.n + added;  // candidates both posteriors hold
    std::vector<int> idx(static_cast<std::size_t>(st.runs));
    std::vector<double> y(static_cast<std::size_t>(st.runs));
    for (int r = 0; r < st.runs; ++r) {
      const bool new_one = added > 0 && rng.uniform() < 0.5;
      idx[r] = new_one ? st.n + static_cast<int>(rng.below(static_cast<std::uint64_t>(added)))
                       : static_cast<int>(rng.below(static_cast<std::uint64_t>(limit)));
      y[r] = rng.uniform(-1.0, 1.0);
    }
    if (step % 6 == 3 || step == 19) {  // a pending row (resolved two steps later unless 19)
      full.add_pending(idx.data());
      grown.add_pending(idx.data());
    } else if (full.pending() > 0 && step % 6 == 5) {
      std::vector<double> yy(static_cast<std::size_t>(st.runs * full.pending()), 0.25);
      full.resolve_pending(yy.data());
      grown.resolve_pending(yy.data());
    } else if (full.pending() == 0) {
      full.observe(idx.data(), y.data());
      grown.observe(idx.data(), y.data());
    }
    if (added == m) {
      for (int r = 0; r < st.runs; ++r) {
        for (int j = 0; j < st.n + m; ++j) {
          ASSERT_EQ(grown.mean(r)[j], full.mean(r)[j])
              << "step " << step << " run " << r << " j " << j;
          ASSERT_EQ(grown.variance(r)[j], full.variance(r)[j]) << "step " << step << " j " << j;
        }
      }
      std::vector<double> width(static_cast<std::size_t>(st.runs), 1.5);
      const auto a = full.ucb_argmax(width.data(), nullptr, nullptr);
      const auto b = grown.ucb_argmax(width.data(), nullptr, nullptr);
      for (int r = 0; r < st.runs; ++r) EXPECT_EQ(a[r].index, b[r].index);
    } else {
      for (int r = 0; r < st.runs; ++r) {
        for (int j = 0; j < st.n + added; ++j) {
          ASSERT_EQ(grown.mean(r)[j], full.mean(r)[j]) << "step " << step << " j " << j;
          ASSERT_EQ(grown.variance(r)[j], full.variance(r)[j]) << "step " << step << " j " << j;
        }
      }
    }
  }
  EXPECT_GT(full.rows(), 20);
}

TEST(PosteriorGrow, EagerIncrementalEqualsFullDomain) {
  check_growth({});
}

TEST(PosteriorGrow, LazyBlocksEqualFullDomain) {
  Setting s;
  s.n = 2600;  // > 2 blocks: the candidates are in spatial order, the new ones after it
  check_growth(s);
}

TEST(PosteriorGrow, RecomputeModeEqualsFullDomain) {
  Setting s;
  s.mode = PosteriorMode::Recompute;
  check_growth(s);
}

TEST(PosteriorGrow, SeveralRunsEqualFullDomain) {
  Setting s;
  s.runs = 3;
  s.lazy = false;
  check_growth(s);
}

TEST(PosteriorGrow, ManySmallAdditionsPastTheCapacity) {
  const auto ctx = gpb::test::make_cpu_context(1);
  const Kernel k = Kernel::se(0.4);
  const Eigen::MatrixXd base = random_points(2, 10, 4), extra = random_points(2, 100, 5);
  Eigen::MatrixXd all(2, 110);
  all << base, extra;
  FinitePosterior full(ctx, k, Domain::from_points(all), 1);
  FinitePosterior grown(ctx, k, Domain::from_points(base), 1);
  for (int i = 0; i < 100; ++i) {
    const int a = i % 7, b = 10 + i;
    const double y = 0.1 * i;
    full.observe(&a, &y);
    grown.observe(&a, &y);
    grown.add_candidates(extra.col(i));  // one at a time: the capacity doubles 4 times
    full.observe(&b, &y);
    grown.observe(&b, &y);
  }
  for (int j = 0; j < 110; ++j) {
    ASSERT_EQ(grown.mean(0)[j], full.mean(0)[j]) << j;
    ASSERT_EQ(grown.variance(0)[j], full.variance(0)[j]) << j;
  }
}

TEST(PosteriorGrow, ArgmaxChoosesANewCandidateWhenItScoresBest) {
  const auto ctx = gpb::test::make_cpu_context(1);
  const Kernel k = Kernel::se(0.2);
  Eigen::MatrixXd base(1, 3);
  base << 0.0, 0.5, 1.0;
  FinitePosterior post(ctx, k, Domain::from_points(base), 1);
  const int a = 1;
  const double y = 1.0;
  post.observe(&a, &y);
  Eigen::MatrixXd near(1, 1);
  near << 0.55;  // close to the observed maximum and with more variance than x = 0.5
  post.add_candidates(near);
  const double width = 0.5;
  EXPECT_EQ(post.ucb_argmax(&width, nullptr, nullptr)[0].index, 3);
  const std::vector<std::vector<int>> none{{3}};
  EXPECT_NE(post.ucb_argmax(&width, none, nullptr)[0].index, 3);  // exclusions reach it too
}

TEST(PosteriorGrow, RefusesBadPoints) {
  const auto ctx = gpb::test::make_cpu_context(1);
  FinitePosterior post(ctx, Kernel::se(0.2), Domain::from_points(random_points(2, 5, 1)), 1);
  EXPECT_TRUE(gpb::test::contains(
      gpb::test::invalid_argument_of([&] { post.add_candidates(random_points(3, 1, 1)); }),
      "dimension 3"));
  Eigen::MatrixXd bad = random_points(2, 1, 1);
  bad(1, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(gpb::test::contains(gpb::test::invalid_argument_of([&] { post.add_candidates(bad); }),
                                  "not finite"));
  EXPECT_EQ(post.size(), 5);
  post.add_candidates(Eigen::MatrixXd(2, 0));  // nothing to add
  EXPECT_EQ(post.size(), 5);
  Eigen::MatrixXd gram = Eigen::MatrixXd::Identity(3, 3);
  Eigen::MatrixXd idx(1, 3);
  idx << 0, 1, 2;
  FinitePosterior pre(ctx, Kernel::precomputed(gram), Domain::from_points(idx), 1);
  EXPECT_TRUE(gpb::test::contains(
      gpb::test::invalid_argument_of([&] { pre.add_candidates(Eigen::MatrixXd::Zero(1, 1)); }),
      "precomputed"));
}

}  // namespace
