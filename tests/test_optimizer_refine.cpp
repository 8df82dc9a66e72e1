// Continuous refinement on a box (RefineOptions): the acquisition's derivatives against finite
// differences, refined asks whose acquisition beats every candidate's, integer axes, log-integer
// axes and one-hot groups, coordinate candidates, the pull from the faces (face_tolerance) and the
// shifted prior mean (fit.mean_shift), batches, failed evaluations, save/load with grown candidate
// sets, and finite domains that are never left.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "gpbandit/optimizer/optimizer.hpp"
#include "log_ei.hpp"
#include "optimizer/surrogate.hpp"
#include "test_support.hpp"

namespace {

using gpb::AcquisitionKind;
using gpb::DomainSpec;
using gpb::Optimizer;
using gpb::OptimizerOptions;

double branin(const Eigen::VectorXd& x) {
  const double pi = 3.14159265358979323846;
  const double b = 5.1 / (4 * pi * pi), c = 5 / pi, t = 1 / (8 * pi);
  const double u = x[1] - b * x[0] * x[0] + c * x[0] - 6;
  return u * u + 10 * (1 - t) * std::cos(x[0]) + 10;
}

OptimizerOptions box_options(int candidates, std::uint64_t seed) {
  OptimizerOptions o;
  o.domain = DomainSpec::box({-5, 0}, {10, 15}, candidates, seed);
  o.kernel = gpb::Kernel::ard(gpb::KernelType::Matern52, Eigen::Vector2d(3, 3));
  o.acquisition.kind = AcquisitionKind::ExpectedImprovement;
  o.minimize = true;
  o.initial_points = 5;
  o.seed = seed;
  o.context.backend = gpb::Backend::Cpu;
  o.context.threads = 1;
  return o;
}

using gpb::test::log_ei;

TEST(AcquisitionRule, DerivativesMatchFiniteDifferences) {
  for (const AcquisitionKind kind :
       {AcquisitionKind::ExpectedImprovement, AcquisitionKind::ProbabilityOfImprovement,
        AcquisitionKind::Ucb}) {
    gpb::detail::AcquisitionRule r{kind, 0.3, 1.7};
    // z from about +3 to −40: the direct formula, the continued fraction, the far tail.
    for (const double m : {1.5, 0.2, -0.9, -2.7, -6.0, -12.0}) {
      for (const double v : {0.09, 0.3, 1.2}) {
        double dm = 0, dv = 0;
        const double a = r.value(m, v, &dm, &dv);
        const double h = 1e-6;
        const double fm = (r.value(m + h, v) - r.value(m - h, v)) / (2 * h);
        const double fv = (r.value(m, v + h) - r.value(m, v - h)) / (2 * h);
        EXPECT_NEAR(dm, fm, 1e-6 * (1 + std::abs(fm))) << int(kind) << " m " << m << " v " << v;
        EXPECT_NEAR(dv, fv, 1e-6 * (1 + std::abs(fv))) << int(kind) << " m " << m << " v " << v;
        EXPECT_TRUE(std::isfinite(a));
      }
    }
  }
  // log EI agrees with the direct formula where that one is accurate, and stays finite far out.
  gpb::detail::AcquisitionRule ei{AcquisitionKind::ExpectedImprovement, 0.0, 0.0};
  for (const double m : {0.5, -0.5, -2.0, -4.0}) {
    EXPECT_NEAR(ei.value(m, 0.25), log_ei(m, 0.25, 0.0),
                1e-12 * (1 + std::abs(log_ei(m, 0.25, 0))));
  }
  EXPECT_TRUE(std::isfinite(ei.value(-1e3, 1e-4)));  // z = −1e5: EI underflows, log EI does not
  EXPECT_LT(ei.value(-1e3, 1e-4), ei.value(-1e2, 1e-4));
}

TEST(Surrogate, GradientsOfMeanVarianceAndAcquisitionMatchFiniteDifferences) {
  OptimizerOptions o = box_options(64, 1);
  o.fit.every = 0;  // keep the kernel as given
  Optimizer opt(o);
  gpb::Rng rng(4, 0, 1);
  Eigen::MatrixXd X(12, 2);
  std::vector<double> y;
  for (int i = 0; i < 12; ++i) {
    X(i, 0) = -5 + 15 * rng.uniform();
    X(i, 1) = 15 * rng.uniform();
    y.push_back(branin(X.row(i).transpose()) / 50.0);
  }
  opt.tell(X, y);
  for (const gpb::KernelType type :
       {gpb::KernelType::SE, gpb::KernelType::Matern32, gpb::KernelType::Matern52}) {
    const gpb::Kernel k = gpb::Kernel::ard(type, Eigen::Vector2d(2.5, 4.0), 1.3);
    const gpb::Context ctx = gpb::test::make_cpu_context(1);
    Eigen::MatrixXd L = gpb::kernel_matrix(ctx, k, X.transpose(), X.transpose());
    L.diagonal().array() += 1e-3;
    gpb::PosteriorFactor f;
    f.L = Eigen::LLT<Eigen::MatrixXd>(L).matrixL();
    f.alpha =
        f.L.triangularView<Eigen::Lower>().solve(Eigen::Map<const Eigen::VectorXd>(y.data(), 12));
    const gpb::detail::Surrogate s(ctx, k, f, 12, X.transpose());
    const gpb::detail::AcquisitionRule rule{AcquisitionKind::ExpectedImprovement, -0.2, 0.0};
    for (int trial = 0; trial < 5; ++trial) {
      Eigen::VectorXd x(2);
      x << -5 + 15 * rng.uniform(), 15 * rng.uniform();
      double m = 0, v = 0;
      Eigen::VectorXd gm, gv;
      s.at(x, m, v, gm, gv);
      Eigen::VectorXd pm, pv;
      s.predict(x, pm, pv);
      EXPECT_NEAR(m, pm[0], 1e-10);
      EXPECT_NEAR(v, pv[0], 1e-10);
      double dm = 0, dv = 0;
      rule.value(m, v, &dm, &dv);
      const Eigen::VectorXd ga = dm * gm + dv * gv;
      for (int a = 0; a < 2; ++a) {
        const double h = 1e-5;
        Eigen::VectorXd xp = x, xm = x;
        xp[a] += h;
        xm[a] -= h;
        double mp = 0, vp = 0, mm = 0, vm = 0;
        Eigen::VectorXd g1, g2;
        s.at(xp, mp, vp, g1, g2);
        s.at(xm, mm, vm, g1, g2);
        EXPECT_NEAR(gm[a], (mp - mm) / (2 * h), 1e-6 * (1 + std::abs(gm[a])));
        EXPECT_NEAR(gv[a], (vp - vm) / (2 * h), 1e-6 * (1 + std::abs(gv[a])));
        const double fa = (rule.value(mp, vp) - rule.value(mm, vm)) / (2 * h);
        EXPECT_NEAR(ga[a], fa, 1e-5 * (1 + std::abs(fa))) << k.describe();
      }
    }
  }
}

TEST(OptimizerRefine, RefinedAsksBeatEveryCandidateOnTheAcquisition) {
  OptimizerOptions o = box_options(128, 3);  // a coarse candidate set: refinement must matter
  Optimizer opt(o);
  int refined = 0;
  for (int call = 0; call < 25; ++call) {
    const gpb::AskResult a = opt.ask();
    if (call >= o.initial_points && opt.num_observations() >= 5) {
      // The acquisition (log EI for minimisation, in the model's units) on one footing: the
      // posterior at the asked point and at every candidate, from the public predict().
      const Eigen::MatrixXd cand = opt.domain().points().transpose();
      const gpb::Prediction pc = opt.predict(cand);
      const gpb::Prediction pa = opt.predict(a.points);
      const gpb::Prediction po = opt.predict(opt.observed_points());
      const double best = -po.mean.minCoeff();  // maximise −f: the incumbent's −μ
      double top = -std::numeric_limits<double>::infinity();
      for (Eigen::Index j = 0; j < cand.rows(); ++j) {
        if (pc.variance[j] > 1e-12) top = std::max(top, log_ei(-pc.mean[j], pc.variance[j], best));
      }
      const double got = log_ei(-pa.mean[0], pa.variance[0], best);
      if (a.indices[0] < 0) {
        ++refined;
        // Not a candidate, and at least as good as the best candidate (tolerance: the two
        // evaluations round differently; the scale of y enters the log only additively).
        EXPECT_GE(got, top - 1e-6) << "call " << call;
        bool on_set = false;
        for (Eigen::Index j = 0; j < cand.rows(); ++j) on_set |= cand.row(j) == a.points.row(0);
        EXPECT_FALSE(on_set);
      }
    }
    opt.tell(a.points, {branin(a.points.row(0).transpose())});
  }
  EXPECT_GE(refined, 10);  // most asks after the design leave the 128 candidates
}

TEST(OptimizerRefine, IntegerAxesAndOneHotGroupsHoldInEveryAsk) {
  OptimizerOptions o;
  o.domain = DomainSpec::box({-2, 1, 0, 0, 0}, {2, 8, 1, 1, 1}, 512, 2);
  o.domain.integer_axes = {1};
  o.domain.onehot_groups = {{2, 3}};
  o.acquisition.kind = AcquisitionKind::ExpectedImprovement;
  o.minimize = true;
  o.initial_points = 4;
  Optimizer opt(o);
  for (int call = 0; call < 20; ++call) {
    const gpb::AskResult a = opt.ask(call % 3 == 0 ? 2 : 1);
    for (Eigen::Index i = 0; i < a.points.rows(); ++i) {
      const Eigen::VectorXd x = a.points.row(i).transpose();
      EXPECT_EQ(x[1], std::round(x[1]));
      EXPECT_GE(x[1], 1);
      EXPECT_LE(x[1], 8);
      EXPECT_EQ(x[2] + x[3] + x[4], 1.0);
      EXPECT_TRUE((x.segment(2, 3).array() == 0 || x.segment(2, 3).array() == 1).all());
      const double cat = x[3] * 1.0 + x[4] * 2.0;  // category 0, 1, 2
      const double y = (x[0] - 0.5) * (x[0] - 0.5) + std::abs(x[1] - 5) + (cat == 1 ? 0 : 1);
      opt.tell(a.points.row(i), {y});
    }
  }
  EXPECT_NEAR(opt.best().value, 0.0, 0.1);  // x0 ≈ 0.5, x1 = 5, the second category
}

TEST(OptimizerRefine, LogIntegerAxesHoldLnOfAnIntegerInEveryAskAndSurviveSaveLoad) {
  OptimizerOptions o;
  o.domain = DomainSpec::box({-1, 0}, {1, std::log(1000.0)}, 512, 4);
  o.domain.log_integer_axes = {1};
  o.acquisition.kind = AcquisitionKind::ExpectedImprovement;
  o.minimize = true;
  o.initial_points = 4;
  Optimizer opt(o);
  bool small = false;  // the design reaches the low decades (log-uniform), not only 100..1000
  for (int call = 0; call < 20; ++call) {
    const gpb::AskResult a = opt.ask();
    const Eigen::VectorXd x = a.points.row(0).transpose();
    const double v = std::round(std::exp(x[1]));
    EXPECT_EQ(x[1], std::log(v)) << "call " << call;  // exactly ln of an integer
    EXPECT_GE(v, 1);
    EXPECT_LE(v, 1000);
    small |= call < 4 && v < 30;
    opt.tell(a.points, {x[0] * x[0] + std::pow(std::log(v / 40.0), 2)});
  }
  EXPECT_TRUE(small);
  EXPECT_NEAR(opt.best().value, 0.0, 0.05);  // x0 ≈ 0, v ≈ 40
  EXPECT_NEAR(std::exp(opt.best().point[1]), 40.0, 8.0);
  Optimizer copy = Optimizer::loads(opt.dumps());
  EXPECT_EQ(copy.options().domain.log_integer_axes, std::vector<int>{1});
  EXPECT_EQ(copy.ask().points, opt.ask().points);

  OptimizerOptions bad = o;  // bounds that are not ln of integers
  bad.domain.upper[1] = std::log(1000.5);
  EXPECT_THROW(
      {
        try {
          Optimizer{bad};
        } catch (const gpb::InvalidArgument& e) {
          EXPECT_NE(std::string(e.what()).find("domain.log_integer"), std::string::npos);
          throw;
        }
      },
      gpb::InvalidArgument);
}

TEST(OptimizerRefine, CoordinatePointsMoveOneToThreeAxesOfAnObservedPoint) {
  // Only coordinate candidates (no trust region, no polishing): every refined ask keeps at least
  // d − 3 = 1 coordinate of an observed point exactly and stays in the box.
  OptimizerOptions o;
  o.domain = DomainSpec::box({0, 0, 0, 0}, {1, 1, 1, 1}, 64, 3);
  o.acquisition.kind = AcquisitionKind::ExpectedImprovement;
  o.minimize = true;
  o.initial_points = 5;
  o.refine.local_points = 0;
  o.refine.centres = 0;
  o.refine.starts = 0;
  o.refine.coordinate_points = 256;
  Optimizer opt(o);
  int refined = 0;
  for (int call = 0; call < 25; ++call) {
    const gpb::AskResult a = opt.ask();
    const Eigen::VectorXd x = a.points.row(0).transpose();
    EXPECT_TRUE((x.array() >= 0).all() && (x.array() <= 1).all());
    if (a.indices[0] < 0) {
      ++refined;
      const Eigen::MatrixXd seen = opt.observed_points();
      int shared = 0;
      for (Eigen::Index i = 0; i < seen.rows(); ++i) {
        shared = std::max<int>(
            shared, static_cast<int>((seen.row(i).transpose().array() == x.array()).count()));
      }
      EXPECT_GE(shared, 1) << "call " << call;
    }
    opt.tell(a.points, {(x.array() - 0.3).square().sum()});
  }
  EXPECT_GE(refined, 5);
  o.refine.coordinate_points = -1;
  EXPECT_THROW(Optimizer{o}, gpb::InvalidArgument);
}

/// Asks after the initial design with a coordinate within 1 % of a face of the unit box, over 40
/// calls minimising a bowl centred in the box (d = 6).
int face_asks(double face_tolerance) {
  OptimizerOptions o;
  o.domain = DomainSpec::box(std::vector<double>(6, 0.0), std::vector<double>(6, 1.0), 512, 4);
  o.acquisition.kind = AcquisitionKind::ExpectedImprovement;
  o.minimize = true;
  o.initial_points = 7;
  o.seed = 4;
  o.context.backend = gpb::Backend::Cpu;
  o.context.threads = 1;
  o.refine.face_tolerance = face_tolerance;
  Optimizer opt(o);
  int faces = 0;
  for (int call = 0; call < 40; ++call) {
    const gpb::AskResult a = opt.ask();
    const Eigen::ArrayXd x = a.points.row(0).transpose().array();
    EXPECT_TRUE((x >= 0).all() && (x <= 1).all());
    if (call >= o.initial_points && ((x < 0.01) || (x > 0.99)).any()) ++faces;
    opt.tell(a.points, {(x - 0.5).square().sum()});
  }
  return faces;
}

TEST(OptimizerRefine, FaceTolerancePullsAsksFromTheFaces) {
  const int off = face_asks(0.0), on = face_asks(1.0);
  RecordProperty("face_asks_without", off);
  RecordProperty("face_asks_with", on);
  EXPECT_GE(off, 5);  // without it EI's maximum drifts to the faces
  EXPECT_LT(on, off);
  OptimizerOptions o = box_options(64, 1);
  o.refine.face_tolerance = -0.1;
  EXPECT_THROW(Optimizer{o}, gpb::InvalidArgument);
  o.refine.face_tolerance = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(Optimizer{o}, gpb::InvalidArgument);
}

TEST(OptimizerFit, MeanShiftMakesFarPointsWorseAndKeepsTheObservations) {
  // Twelve observations of a bowl in the middle of [0, 1]^3 (minimised): with fit.mean_shift = 2
  // the prediction at a far corner is about 2 sd of y worse (higher) than without; at the
  // observations the GP still interpolates.
  const auto predictions = [](double shift, const Eigen::MatrixXd& at) {
    OptimizerOptions o;
    o.domain = DomainSpec::box({0, 0, 0}, {1, 1, 1}, 64, 2);
    o.minimize = true;
    o.fit.mean_shift = shift;
    o.context.backend = gpb::Backend::Cpu;
    o.context.threads = 1;
    Optimizer opt(o);
    Eigen::MatrixXd X(12, 3);
    std::vector<double> y;
    for (int i = 0; i < 12; ++i) {
      X.row(i) << 0.35 + 0.3 * std::fmod(0.618 * i, 1.0), 0.35 + 0.3 * std::fmod(0.414 * i, 1.0),
          0.35 + 0.3 * std::fmod(0.732 * i, 1.0);
      y.push_back((X.row(i).array() - 0.5).square().sum());
    }
    opt.tell(X, y);
    Eigen::MatrixXd points(at.rows() + X.rows(), 3);
    points << at, X;
    return std::make_pair(opt.predict(points).mean, y);
  };
  const Eigen::MatrixXd corner = Eigen::RowVector3d(1, 1, 1);
  const auto [plain, y] = predictions(0.0, corner);
  const auto [shifted, y2] = predictions(2.0, corner);
  double mean = 0, ss = 0;
  for (double v : y) mean += v / 12;
  for (double v : y) ss += (v - mean) * (v - mean) / 12;
  const double sd = std::sqrt(ss);
  EXPECT_GT(shifted[0] - plain[0], 1.0 * sd);
  for (int i = 0; i < 12; ++i)
    EXPECT_NEAR(shifted[1 + i], y[static_cast<std::size_t>(i)], 0.1 * sd);
  OptimizerOptions bad = box_options(64, 1);
  bad.fit.mean_shift = -1;
  EXPECT_THROW(Optimizer{bad}, gpb::InvalidArgument);
}

TEST(OptimizerRefine, BatchesAreDistinctAndHallucinated) {
  Optimizer opt(box_options(256, 5));
  for (int round = 0; round < 6; ++round) {
    const gpb::AskResult a = opt.ask(4);
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < i; ++j) EXPECT_GT((a.points.row(i) - a.points.row(j)).norm(), 1e-3);
    }
    std::vector<double> y;
    for (int i = 0; i < 4; ++i) y.push_back(branin(a.points.row(i).transpose()));
    opt.tell(a.points, y);
    EXPECT_TRUE(opt.pending().empty());
  }
  EXPECT_EQ(opt.num_observations(), 24);
}

TEST(OptimizerRefine, FiniteDomainsAreNeverLeft) {
  OptimizerOptions o = box_options(0, 1);
  o.domain = DomainSpec::sobol({-5, 0}, {10, 15}, 128, 1);
  Optimizer opt(o);
  for (int call = 0; call < 15; ++call) {
    const gpb::AskResult a = opt.ask();
    ASSERT_GE(a.indices[0], 0);
    EXPECT_EQ(a.points.row(0), opt.domain().points().col(a.indices[0]).transpose());
    opt.tell(a.indices, {branin(a.points.row(0).transpose())});
  }
}

TEST(OptimizerRefine, SaveLoadContinuesWithTheSameRefinedAsks) {
  Optimizer opt(box_options(128, 7));
  for (int call = 0; call < 12; ++call) {
    const gpb::AskResult a = opt.ask();
    opt.tell(a.points, {branin(a.points.row(0).transpose())});
  }
  const gpb::AskResult pending = opt.ask(2);  // refined points outstanding across the save
  Optimizer copy = Optimizer::loads(opt.dumps());
  for (int call = 0; call < 6; ++call) {
    const gpb::AskResult a = opt.ask(call == 0 ? 1 : 2);
    const gpb::AskResult b = copy.ask(call == 0 ? 1 : 2);
    ASSERT_EQ(a.points, b.points) << "call " << call;
    std::vector<double> y;
    for (Eigen::Index i = 0; i < a.points.rows(); ++i)
      y.push_back(branin(a.points.row(i).transpose()));
    opt.tell(a.points, y);
    copy.tell(b.points, y);
  }
  std::vector<double> y{branin(pending.points.row(0).transpose()),
                        branin(pending.points.row(1).transpose())};
  opt.tell(pending.points, y);
  copy.tell(pending.points, y);
  EXPECT_EQ(opt.ask().points, copy.ask().points);
}

TEST(OptimizerRefine, FailedEvaluationsAreNeverAskedAgainAndStayOutOfTheModel) {
  OptimizerOptions o = box_options(64, 2);
  o.refine.enabled = false;  // on the candidates: a failed one must never come back
  o.initial_points = 3;
  Optimizer opt(o);
  std::vector<int> failed;
  for (int call = 0; call < 40; ++call) {
    const gpb::AskResult a = opt.ask();
    for (const int f : failed) ASSERT_NE(a.indices[0], f);
    if (call % 4 == 1) {  // every fourth evaluation "crashes"
      opt.tell_failed(a.indices);
      failed.push_back(a.indices[0]);
    } else {
      opt.tell(a.indices, {branin(a.points.row(0).transpose())});
    }
  }
  EXPECT_EQ(opt.num_observations(), 30);
  EXPECT_EQ(opt.failed_points().rows(), 10);
  EXPECT_TRUE(opt.pending().empty());
  // A failed refined point (off the set) releases its pending row: the next batch is unaffected.
  Optimizer box(box_options(64, 2));
  for (int call = 0; call < 8; ++call) {
    const gpb::AskResult a = box.ask();
    box.tell(a.points, {branin(a.points.row(0).transpose())});
  }
  const gpb::AskResult a = box.ask(2);
  box.tell_failed(a.points);
  EXPECT_TRUE(box.pending().empty());
  EXPECT_EQ(box.num_observations(), 8);
  const Optimizer again = Optimizer::loads(box.dumps());
  EXPECT_EQ(again.failed_points(), box.failed_points());
}

}  // namespace
