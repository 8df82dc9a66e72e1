// Streamed parameter spaces (Domain::streamed_space): a FinitePosterior that computes each
// chunk's encodings from the space gives bit for bit the μ, σ², rows and UCB choices of one over
// the materialised encodings (incremental and recompute mode), also across chunk boundaries of a
// constrained space; an Optimizer that streams (its materialised form above the memory budget)
// asks exactly what a materialised one asks, also with observations at points off the space
// (extras, which grow the streamed posterior as they grow the materialised one); a space too big
// even for streaming is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/engine/space_values.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "test_support.hpp"

namespace {

using gpb::Constraint;
using gpb::Parameter;
using gpb::test::contains;
const auto& error_of = gpb::test::invalid_argument_of;

/// A constrained mixed space: 5 × 6 × 4 × 3 (× `extra` levels of a fifth parameter), with a
/// forbidden combination and a linear inequality.
std::shared_ptr<const gpb::ParameterSpace> space(int extra) {
  std::vector<Parameter> ps{
      Parameter::categorical("cat", {"a", "b", "c", "d", "e"}),
      Parameter::integer("n", 1, 6),
      Parameter::numerical_discrete("x", {0.1, 0.5, 0.9, 1.3}),
      Parameter::categorical("s", {"p", "q", "r"}),
  };
  if (extra > 1) ps.push_back(Parameter::integer("m", 0, extra - 1));
  std::vector<Constraint> cs{Constraint::exclusion({0, 3}, {{1, 2}, {0}}),
                             Constraint::linear({1, 2}, {1.0, 2.0}, 7.0)};
  return std::make_shared<const gpb::ParameterSpace>(ps, cs);
}

gpb::Context cpu_context() {
  gpb::ContextOptions o;
  o.backend = gpb::Backend::Cpu;
  o.threads = 2;
  return gpb::Context(o);
}

/// y at candidate j: a smooth function of its encoding.
double reward(const gpb::ParameterSpace& sp, int j) {
  const Eigen::VectorXd x = sp.encode(j);
  return std::sin(3.0 * x.sum()) + 0.5 * x[0] - 0.2 * x.tail(2).sum();
}

/// μ and σ² of a and b bit for bit, except μ within mean_tol·max |μ| when the two compute it
/// differently (recompute mode's mean() is K(D, X_t)·β, incremental mode's Σ α_q v_q).
void expect_same(const gpb::FinitePosterior& a, const gpb::FinitePosterior& b, int runs,
                 const char* when, double mean_tol = 0.0) {
  for (int r = 0; r < runs; ++r) {
    const double* ma = a.mean(r);
    std::vector<double> m(ma, ma + a.size());
    const double* mb = b.mean(r);
    const double* va = a.variance(r);
    std::vector<double> v(va, va + a.size());
    const double* vb = b.variance(r);
    double scale = 1.0;
    for (const double x : m) scale = std::max(scale, std::abs(x));
    for (int j = 0; j < a.size(); ++j) {
      ASSERT_LE(std::abs(m[static_cast<std::size_t>(j)] - mb[j]), mean_tol * scale)
          << when << ": run " << r << " mean at " << j;
      ASSERT_EQ(v[static_cast<std::size_t>(j)], vb[j]) << when << ": run " << r << " var at " << j;
    }
  }
}

/// Drives a materialised posterior (mode `mode`) and a streamed one through the same observations,
/// pending rows, batches and UCB argmaxes, comparing everything after each step.
void compare_posteriors(int extra, gpb::PosteriorMode mode) {
  const auto sp = space(extra);
  const gpb::Domain held = gpb::Domain::from_space(sp);
  const gpb::Domain streamed = gpb::Domain::streamed_space(sp);
  ASSERT_TRUE(streamed.streams_points());
  ASSERT_EQ(held.size(), streamed.size());
  ASSERT_TRUE(held.lower() == streamed.lower());
  ASSERT_TRUE(held.upper() == streamed.upper());
  const gpb::Context ctx = cpu_context();
  const gpb::Kernel k = gpb::Kernel::matern(gpb::KernelType::Matern52, 0.8, 1.3);
  const int R = 2, n = held.size();
  gpb::PosteriorOptions po;
  po.noise_variance = 0.05;
  po.capacity = 40;
  po.mode = mode;
  po.chunk = 257;  // the materialised recompute mode's chunks cut the domain differently
  gpb::FinitePosterior a(ctx, k, held, R, po);
  po.mode = gpb::PosteriorMode::Auto;
  gpb::FinitePosterior b(ctx, k, streamed, R, po);
  EXPECT_TRUE(b.recompute_mode());
  // The streamed posterior recomputes: its μ is K(D, X_t)·β, bit for bit a recompute-mode one's.
  const double mean_tol = mode == gpb::PosteriorMode::Recompute ? 0.0 : 1e-12;
  std::vector<gpb::Rng> ta{gpb::Rng(5, 0, 1), gpb::Rng(5, 1, 1)};
  std::vector<gpb::Rng> tb = ta;
  for (int step = 0; step < 8; ++step) {
    const double width[2] = {1.5, 0.3};
    const auto ca = a.ucb_argmax(width, nullptr, &ta);
    const auto cb = b.ucb_argmax(width, nullptr, &tb);
    std::vector<int> idx;
    std::vector<double> y;
    for (int r = 0; r < R; ++r) {
      ASSERT_EQ(ca[r].index, cb[r].index) << "step " << step << " run " << r;
      ASSERT_EQ(ca[r].score, cb[r].score);
      ASSERT_EQ(ca[r].ties, cb[r].ties);
      // Spread the observations over the domain (both chunk ends included) besides the choices.
      const int j = step % 2 == 0 ? ca[r].index : (step * 7919 + r * 104729) % n;
      idx.push_back(j);
      y.push_back(reward(*sp, j));
    }
    if (step == 3) {  // a pending row, then its answer
      a.add_pending(idx.data());
      b.add_pending(idx.data());
      expect_same(a, b, R, "pending", mean_tol);
      a.resolve_pending(y.data());
      b.resolve_pending(y.data());
    } else {
      a.observe(idx.data(), y.data());
      b.observe(idx.data(), y.data());
    }
    expect_same(a, b, R, "observe", mean_tol);
  }
  const std::vector<int> at{0, n / 2, n - 1};
  EXPECT_TRUE(a.rows_at(1, at) == b.rows_at(1, at));
  const Eigen::MatrixXd B = Eigen::MatrixXd::Random(a.rows(), 2);
  EXPECT_LT((a.apply_rows(0, B) - b.apply_rows(0, B)).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(SpaceStreaming, StreamedDomainHoldsNoPointsAndComputesAnyRange) {
  const auto sp = space(1);
  const gpb::Domain held = gpb::Domain::from_space(sp);
  const gpb::Domain streamed = gpb::Domain::streamed_space(sp);
  EXPECT_EQ(streamed.dim(), held.dim());
  EXPECT_FALSE(streamed.is_slice());
  EXPECT_EQ(streamed.slice_end(), held.size());
  EXPECT_TRUE(streamed.points_of(3, 40) == held.points().middleCols(3, 37));
  EXPECT_TRUE(contains(error_of([&] { (void)streamed.points(); }), "streamed parameter-space"));
  EXPECT_TRUE(contains(error_of([&] { (void)streamed.point(0); }), "points_of"));
}

TEST(SpaceStreaming, PosteriorEqualsTheMaterialisedIncrementalOne) {
  compare_posteriors(1, gpb::PosteriorMode::Incremental);
}

TEST(SpaceStreaming, PosteriorEqualsTheMaterialisedRecomputeOne) {
  compare_posteriors(1, gpb::PosteriorMode::Recompute);
}

TEST(SpaceStreaming, PosteriorEqualsAcrossStreamChunks) {
  // 360·k combinations before the constraints, about 96 000 feasible: three chunks of 32 768
  // whose encodings start mid-block of the space's feasible index.
  compare_posteriors(400, gpb::PosteriorMode::Recompute);
}

TEST(SpaceStreaming, StreamedPosteriorRefusesToRunIncrementally) {
  const gpb::Domain streamed = gpb::Domain::streamed_space(space(1));
  const gpb::Context ctx = cpu_context();
  gpb::PosteriorOptions po;
  po.mode = gpb::PosteriorMode::Incremental;
  EXPECT_TRUE(contains(
      error_of([&] { gpb::FinitePosterior p(ctx, gpb::Kernel::se(1.0), streamed, 1, po); }),
      "runs in recompute mode"));
}

/// A streamed posterior grown by points off the space (add_candidates) equals a materialised one
/// grown by the same points, bit for bit, before and after observations at the new points; over
/// space(extra) the last stream chunk holds the end of the space and the first extras.
void compare_grown(int extra) {
  const auto sp = space(extra);
  const gpb::Domain held = gpb::Domain::from_space(sp);
  const gpb::Domain streamed = gpb::Domain::streamed_space(sp);
  const gpb::Context ctx = cpu_context();
  const gpb::Kernel k = gpb::Kernel::matern(gpb::KernelType::Matern32, 0.7, 1.1);
  gpb::PosteriorOptions po;
  po.noise_variance = 0.05;
  po.capacity = 40;
  po.mode = gpb::PosteriorMode::Recompute;
  gpb::FinitePosterior a(ctx, k, held, 1, po);
  po.mode = gpb::PosteriorMode::Auto;
  gpb::FinitePosterior b(ctx, k, streamed, 1, po);
  const int n = held.size();
  for (int step = 0; step < 6; ++step) {
    // Two points off the space: combination j with its "x" value moved off the list.
    Eigen::MatrixXd off(held.dim(), 2);
    for (int c = 0; c < 2; ++c) {
      const int j = (step * 7919 + c * 104729) % n;
      off.col(c) = sp->encode(j);
      off(gpb::feature_offset(*sp, 2), c) = gpb::encode_value(*sp, 2, 0.2 + 0.3 * step + 0.1 * c);
    }
    a.add_candidates(off);
    b.add_candidates(off);
    ASSERT_EQ(a.size(), b.size());
    expect_same(a, b, 1, "grown");
    const int idx[1] = {n + 2 * step + step % 2};  // an extra, then a candidate
    const double y[1] = {0.3 * step - 0.5};
    a.observe(idx, y);
    b.observe(idx, y);
    const int c[1] = {(step * 31) % n};
    const double yc[1] = {reward(*sp, c[0])};
    a.observe(c, yc);
    b.observe(c, yc);
    expect_same(a, b, 1, "observe");
  }
  std::vector<gpb::Rng> ta{gpb::Rng(3, 0, 1)};
  std::vector<gpb::Rng> tb = ta;
  const double width[1] = {1.0};
  EXPECT_EQ(a.ucb_argmax(width, nullptr, &ta)[0].index, b.ucb_argmax(width, nullptr, &tb)[0].index);
}

TEST(SpaceStreaming, StreamedPosteriorGrowsAsTheMaterialisedOne) {
  compare_grown(1);
}

TEST(SpaceStreaming, StreamedPosteriorGrowsAcrossTheLastStreamChunk) {
  compare_grown(400);
}

/// The asks of an Optimizer over space(1) with the given memory budget: 12 single asks, then
/// two batches of 3, each told its reward; also its prediction over the candidates at the end.
std::vector<int> asks(std::size_t budget, bool& streams, Eigen::VectorXd& mean,
                      Eigen::VectorXd& var, bool off_space = false) {
  const auto sp = space(1);
  gpb::OptimizerOptions o;
  o.domain = gpb::DomainSpec::parameters(sp);
  o.context.backend = gpb::Backend::Cpu;
  o.context.threads = 2;
  o.context.memory_budget_bytes = budget;
  o.initial_points = 3;
  o.seed = 11;
  o.exclude_observed = true;
  o.fit.every = 4;
  gpb::Optimizer opt(o);
  streams = opt.streams();
  std::vector<int> out;
  if (off_space) {  // measured at "x" values off its list: extra observations
    Eigen::MatrixXd off(2, sp->encoded_dim());
    for (int c = 0; c < 2; ++c) {
      off.row(c) = sp->encode(17 + 40 * c).transpose();
      off(c, gpb::feature_offset(*sp, 2)) = gpb::encode_value(*sp, 2, 0.7 - 0.4 * c);
    }
    opt.tell(off, {2.5, -1.0});
  }
  for (int i = 0; i < 18; ++i) {
    const int q = i < 12 ? 1 : 3;
    const gpb::AskResult a = opt.ask(q);
    std::vector<double> y;
    for (const int j : a.indices) {
      out.push_back(j);
      y.push_back(reward(*sp, j));
    }
    if (i % 5 == 4) {
      opt.tell(a.points, y);  // by point: find_point decodes a streamed candidate
    } else {
      opt.tell(a.indices, y);
    }
    if (i == 13) break;
  }
  const gpb::Prediction p = opt.predict_candidates();
  mean = p.mean;
  var = p.variance;
  return out;
}

TEST(SpaceStreaming, OptimizerOverTheBudgetStreamsAndAsksTheSame) {
  bool held_streams = true, streamed_streams = false;
  Eigen::VectorXd m1, v1, m2, v2;
  const std::vector<int> held = asks(std::size_t{1} << 32, held_streams, m1, v1);
  const std::vector<int> streamed = asks(1, streamed_streams, m2, v2);  // 1 byte: must stream
  EXPECT_FALSE(held_streams);
  EXPECT_TRUE(streamed_streams);
  EXPECT_EQ(held, streamed);
  ASSERT_EQ(m1.size(), m2.size());
  EXPECT_LE((m1 - m2).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LE((v1 - v2).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(SpaceStreaming, OptimizerRefusesWhatStreamingCannotServe) {
  gpb::OptimizerOptions o;
  o.domain = gpb::DomainSpec::parameters(space(1));
  o.context.backend = gpb::Backend::Cpu;
  o.context.memory_budget_bytes = 1;
  o.acquisition.kind = gpb::AcquisitionKind::Thompson;
  EXPECT_TRUE(contains(error_of([&] { gpb::Optimizer opt(o); }), "acquisition.kind: thompson"));
}

TEST(SpaceStreaming, OffSpaceObservationsConditionTheStreamedOptimizerAsTheMaterialised) {
  // Two observations at "x" values off its list: both Optimizers condition on them (extras),
  // never propose them, and ask the same candidates; the prediction moved towards them.
  bool held_streams = true, streamed_streams = false, plain_streams = true;
  Eigen::VectorXd m1, v1, m2, v2, m0, v0;
  const std::vector<int> held = asks(std::size_t{1} << 32, held_streams, m1, v1, true);
  const std::vector<int> streamed = asks(1, streamed_streams, m2, v2, true);
  const std::vector<int> plain = asks(std::size_t{1} << 32, plain_streams, m0, v0, false);
  EXPECT_FALSE(held_streams);
  EXPECT_TRUE(streamed_streams);
  EXPECT_EQ(held, streamed);
  EXPECT_NE(held, plain);                        // the extra observations changed the choices
  for (const int j : streamed) EXPECT_GE(j, 0);  // an extra is never proposed
  ASSERT_EQ(m1.size(), m2.size());
  EXPECT_LE((m1 - m2).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LE((v1 - v2).cwiseAbs().maxCoeff(), 1e-12);
}

}  // namespace
