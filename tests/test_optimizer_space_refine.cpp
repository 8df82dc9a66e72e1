// Continuous refinement on a parameter space (DomainSpec::refinable_axes): the continuous
// parameters of an ask move between their grid values while every other parameter keeps a level
// (one-hot rows stay one-hot), refined asks beat every candidate on the acquisition, the
// optimum between grid values is found, refined points satisfy the space's constraints, and a
// space without a refinable continuous parameter is never left.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/engine/space_values.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "log_ei.hpp"

namespace {

using gpb::Parameter;

/// cat ∈ {a, b, c} (one-hot, features 0..2) × T ∈ [20, 80] (4 grid values, feature 3) ×
/// p ∈ [0, 1] (3 grid values, feature 4).
std::shared_ptr<const gpb::ParameterSpace> space(std::vector<gpb::Constraint> cons = {},
                                                 int t_count = 4) {
  return std::make_shared<const gpb::ParameterSpace>(
      std::vector<Parameter>{Parameter::categorical("cat", {"a", "b", "c"}),
                             Parameter::continuous("T", 20, 80, t_count),
                             Parameter::continuous("p", 0, 1, 3)},
      std::move(cons));
}

gpb::OptimizerOptions options(std::shared_ptr<const gpb::ParameterSpace> s) {
  gpb::OptimizerOptions o;
  o.domain = gpb::DomainSpec::parameters(std::move(s));
  o.acquisition.kind = gpb::AcquisitionKind::ExpectedImprovement;
  o.minimize = true;
  o.initial_points = 5;
  o.seed = 4;
  o.context.backend = gpb::Backend::Cpu;
  o.context.threads = 1;
  return o;
}

double value(const gpb::ParameterSpace& s, const Eigen::VectorXd& x, int p) {
  return gpb::value_of_feature(s, p, x[gpb::feature_offset(s, p)]);
}

/// The objective to minimise: smallest at cat = b, T = 47.3, p = 0.61 (between grid values; the
/// best grid combination, T = 40 and p = 0.5, has 0.594).
double objective(const gpb::ParameterSpace& s, const Eigen::VectorXd& x) {
  const double t = value(s, x, 1), p = value(s, x, 2);
  return (t - 47.3) * (t - 47.3) / 100 + 5 * (p - 0.61) * (p - 0.61) + (x[1] == 1.0 ? 0.0 : 1.0);
}

using gpb::test::log_ei;

TEST(OptimizerSpaceRefine, ContinuousParametersMoveOffTheirGridAndTheOthersKeepLevels) {
  const auto s = space();
  EXPECT_EQ(gpb::DomainSpec::parameters(s).refinable_axes(), (std::vector<int>{3, 4}));
  gpb::Optimizer opt(options(s));
  const Eigen::MatrixXd cand = opt.domain().points().transpose();  // 36 × 5
  int refined = 0;
  for (int call = 0; call < 30; ++call) {
    const gpb::AskResult a = opt.ask();
    const Eigen::VectorXd x = a.points.row(0).transpose();
    // The categorical stays a one-hot row; the continuous features stay in their boxes.
    EXPECT_EQ(x.head(3).sum(), 1.0) << "call " << call;
    EXPECT_TRUE((x.head(3).array() == 0 || x.head(3).array() == 1).all()) << "call " << call;
    EXPECT_TRUE((x.tail(2).array() >= 0 && x.tail(2).array() <= 1).all()) << "call " << call;
    if (a.indices[0] < 0) {
      ++refined;
      bool on_set = false;
      for (Eigen::Index j = 0; j < cand.rows(); ++j) on_set |= cand.row(j) == a.points.row(0);
      EXPECT_FALSE(on_set) << "call " << call;
      // At least as good as every candidate on the acquisition (log EI of −f; tolerance: the
      // two evaluations round differently).
      const gpb::Prediction pc = opt.predict(cand);
      const gpb::Prediction pa = opt.predict(a.points);
      const double best = -opt.predict(opt.observed_points()).mean.minCoeff();
      double top = -std::numeric_limits<double>::infinity();
      for (Eigen::Index j = 0; j < cand.rows(); ++j) {
        if (pc.variance[j] > 1e-12) top = std::max(top, log_ei(-pc.mean[j], pc.variance[j], best));
      }
      EXPECT_GE(log_ei(-pa.mean[0], pa.variance[0], best), top - 1e-6) << "call " << call;
    }
    opt.tell(a.points, {objective(*s, x)});
  }
  EXPECT_GE(refined, 10);
  // The grid's best combination has 0.594: refinement goes well below it.
  EXPECT_LT(opt.best().value, 0.05);
  EXPECT_EQ(opt.best().point[1], 1.0);  // cat = b
}

TEST(OptimizerSpaceRefine, RefinedPointsSatisfyTheSpacesConstraints) {
  // T + 100·p ≤ 100: the unconstrained optimum (47.3 + 61 = 108.3) lies outside, so the refined
  // asks press against the constraint.
  const auto s = space({gpb::Constraint::linear({1, 2}, {1.0, 100.0}, 100.0)});
  gpb::Optimizer opt(options(s));
  int refined = 0;
  for (int call = 0; call < 30; ++call) {
    const gpb::AskResult a = opt.ask();
    const Eigen::VectorXd x = a.points.row(0).transpose();
    EXPECT_LE(value(*s, x, 1) + 100 * value(*s, x, 2), 100.0 + 1e-9) << "call " << call;
    EXPECT_TRUE(gpb::feasible_at(*s, x.data())) << "call " << call;
    refined += a.indices[0] < 0;
    opt.tell(a.points, {objective(*s, x)});
  }
  EXPECT_GE(refined, 5);
  // Grid's best feasible: T = 40, p = 0.5 (0.594); on the constraint the optimum is about 0.033.
  EXPECT_LT(opt.best().value, 0.3);
}

TEST(OptimizerSpaceRefine, MixtureFractionsAreRefinedOnTheSimplex) {
  // Three continuous fractions summing to one (5 grid values each: the grid's mixtures are the
  // 15 with quarters) and a categorical; the best mixture, (0.23, 0.41, 0.36) for label b, lies
  // off the grid: the refinement keeps every ask on the simplex and goes below the grid's best.
  const auto s = std::make_shared<const gpb::ParameterSpace>(
      std::vector<Parameter>{
          Parameter::categorical("cat", {"a", "b"}), Parameter::continuous("u", 0, 1, 5),
          Parameter::continuous("v", 0, 1, 5), Parameter::continuous("w", 0, 1, 5)},
      std::vector<gpb::Constraint>{gpb::Constraint::mixture({1, 2, 3}, 1.0, 1e-6)});
  ASSERT_EQ(s->size(), 30);
  const double best[3] = {0.23, 0.41, 0.36};
  const auto f = [&](const Eigen::VectorXd& x) {
    double d = x[1] == 1.0 ? 0.0 : 1.0;
    for (int p = 1; p <= 3; ++p) d += 10 * std::pow(value(*s, x, p) - best[p - 1], 2);
    return d;
  };
  double grid_best = std::numeric_limits<double>::infinity();
  const Eigen::MatrixXd cand = gpb::Optimizer(options(s)).domain().points();
  for (Eigen::Index j = 0; j < cand.cols(); ++j) grid_best = std::min(grid_best, f(cand.col(j)));
  gpb::Optimizer opt(options(s));
  int refined = 0;
  for (int call = 0; call < 30; ++call) {
    const gpb::AskResult a = opt.ask();
    const Eigen::VectorXd x = a.points.row(0).transpose();
    EXPECT_NEAR(value(*s, x, 1) + value(*s, x, 2) + value(*s, x, 3), 1.0, 1e-6) << call;
    EXPECT_TRUE(gpb::feasible_at(*s, x.data())) << "call " << call;
    refined += a.indices[0] < 0;
    opt.tell(a.points, {f(x)});
  }
  EXPECT_GE(refined, 5);
  EXPECT_LT(opt.best().value, 0.5 * grid_best);  // the grid's best: 0.206 at (¼, ½, ¼)
}

TEST(OptimizerSpaceRefine, ASpaceWithoutARefinableParameterIsNeverLeft) {
  const auto s = std::make_shared<const gpb::ParameterSpace>(
      std::vector<Parameter>{Parameter::categorical("cat", {"a", "b", "c"}),
                             Parameter::continuous("T", 20, 80, 1), Parameter::integer("n", 1, 6)});
  const gpb::DomainSpec spec = gpb::DomainSpec::parameters(s);
  EXPECT_TRUE(spec.refinable_axes().empty());  // one grid value: nothing to move
  EXPECT_FALSE(spec.continuous());
  gpb::Optimizer opt(options(s));
  for (int call = 0; call < 12; ++call) {
    const gpb::AskResult a = opt.ask();
    ASSERT_GE(a.indices[0], 0);
    const Eigen::VectorXd x = a.points.row(0).transpose();
    opt.tell(a.indices, {std::abs(value(*s, x, 2) - 4) + (x[0] == 1.0 ? 0.0 : 1.0)});
  }
}

}  // namespace
