// gpb::Optimizer over parameter spaces and finite candidate sets: a space too big for memory even
// when streamed is refused before anything is allocated, and exclude_observed (never ask a
// candidate already told) — its choices equal those of telling every measured candidate as failed,
// bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/io/log.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "test_support.hpp"

namespace {

using gpb::Optimizer;
using gpb::OptimizerOptions;
using gpb::test::contains;
const auto& error_of = gpb::test::invalid_argument_of;

/// A smooth function of candidate j's point with one broad peak.
double f(const Eigen::VectorXd& x) {
  return std::exp(-4.0 * (x.array() - 0.6).square().sum()) + 0.3 * std::sin(7.0 * x[0]);
}

OptimizerOptions grid_options() {
  OptimizerOptions o;
  o.domain = gpb::DomainSpec::grid({0, 0}, {1, 1}, {6, 5});  // 30 candidates
  o.context.backend = gpb::Backend::Cpu;
  o.context.threads = 1;
  o.seed = 3;
  return o;
}

TEST(OptimizerSpace, ASpaceTooBigForMemoryIsRefusedBeforeItIsBuilt) {
  std::vector<gpb::Parameter> ps;
  std::vector<std::string> labels;
  for (int l = 0; l < 14; ++l) labels.push_back("L" + std::to_string(l));
  for (int p = 0; p < 8; ++p)
    ps.push_back(gpb::Parameter::categorical("s" + std::to_string(p), labels));
  const auto space = std::make_shared<const gpb::ParameterSpace>(ps);
  ASSERT_EQ(space->size(), 1475789056LL);  // 14^8, one-hot: 112 features
  EXPECT_DOUBLE_EQ(Optimizer::space_bytes(*space), 1475789056.0 * (16.0 * 112 + 33.0));
  // Far over any memory budget, so the Optimizer would stream it: 33 bytes per combination.
  const double need = Optimizer::streamed_space_bytes(*space);
  EXPECT_DOUBLE_EQ(need, 1475789056.0 * 33.0 + static_cast<double>(space->index_bytes()));
  const std::size_t avail = gpb::available_host_memory();
  if (avail == 0 || need <= static_cast<double>(avail))
    GTEST_SKIP() << "this machine has " << avail << " bytes available (the check needs < 48.7 GB)";
  OptimizerOptions o;
  o.domain = gpb::DomainSpec::parameters(space);
  o.context.backend = gpb::Backend::Cpu;
  const std::string msg = error_of([&] { Optimizer opt(o); });
  EXPECT_TRUE(contains(msg,
                       "domain.parameters: the space has 1475789056 feasible combinations "
                       "of 112 encoded features"))
      << msg;
  EXPECT_TRUE(contains(msg, "even streamed")) << msg;
  EXPECT_TRUE(contains(msg, "GB of memory available")) << msg;
  EXPECT_TRUE(contains(msg, "Shrink the space")) << msg;
}

TEST(OptimizerSpace, ASmallSpaceStillBuilds) {
  const auto space = std::make_shared<const gpb::ParameterSpace>(std::vector<gpb::Parameter>{
      gpb::Parameter::categorical("a", {"x", "y", "z"}), gpb::Parameter::integer("n", 1, 4)});
  OptimizerOptions o;
  o.domain = gpb::DomainSpec::parameters(space);
  o.context.backend = gpb::Backend::Cpu;
  Optimizer opt(o);
  EXPECT_EQ(opt.domain().size(), 12);
  EXPECT_DOUBLE_EQ(Optimizer::space_bytes(*space), 12.0 * (16.0 * 4 + 33.0));
}

/// The candidates a greedy, noisy model asks one at a time over 20 asks (each told f), and the
/// number of warnings that a suggestion repeats an observed candidate.
std::vector<int> greedy_asks(bool exclude_observed, int& repeat_warnings) {
  repeat_warnings = 0;
  const gpb::WarningHandler previous =
      gpb::set_warning_handler([&](gpb::WarningKind, const std::string& text) {
        repeat_warnings += contains(text, "already observed") ? 1 : 0;
      });
  OptimizerOptions o = grid_options();
  o.acquisition.kind = gpb::AcquisitionKind::Ucb;
  o.acquisition.beta.kind = gpb::BetaSchedule::Kind::Constant;
  o.acquisition.beta.value = 1e-6;  // the mean alone: the best observed point is asked again
  o.noise_variance = 0.5;
  o.fit.every = 0;
  o.exclude_observed = exclude_observed;
  Optimizer opt(o);
  std::vector<int> asked;
  for (int i = 0; i < 20; ++i) {
    const gpb::AskResult a = opt.ask(1);
    asked.push_back(a.indices[0]);
    opt.tell(a.points, {f(a.points.row(0).transpose())});
  }
  gpb::set_warning_handler(previous);
  return asked;
}

TEST(OptimizerSpace, ExcludeObservedNeverAsksAToldCandidate) {
  int warned = 0;
  const std::vector<int> plain = greedy_asks(false, warned);
  EXPECT_LT(std::set<int>(plain.begin(), plain.end()).size(), plain.size())
      << "the model should repeat without the option (else this test shows nothing)";
  EXPECT_GT(warned, 0);
  const std::vector<int> fresh = greedy_asks(true, warned);
  EXPECT_EQ(std::set<int>(fresh.begin(), fresh.end()).size(), fresh.size());
  EXPECT_EQ(warned, 0);
}

TEST(OptimizerSpace, ExcludeObservedRunsOutWithOneClearError) {
  OptimizerOptions o = grid_options();
  o.exclude_observed = true;
  o.fit.every = 0;
  Optimizer opt(o);
  std::vector<int> all(30);
  for (int j = 0; j < 30; ++j) all[static_cast<std::size_t>(j)] = j;
  opt.tell(std::vector<int>(all.begin(), all.begin() + 28), std::vector<double>(28, 1.0));
  opt.tell_failed(std::vector<int>{28});
  const gpb::AskResult a = opt.ask(1);
  EXPECT_EQ(a.indices[0], 29);                            // the one left
  const std::string msg = error_of([&] { opt.ask(1); });  // 29 is outstanding
  EXPECT_TRUE(contains(msg, "only 0 of the 30 candidates are neither observed")) << msg;
}

TEST(OptimizerSpace, ExcludeObservedEqualsTellingMeasuredCandidatesFailed) {
  // examples/spaces/run_campaigns.py told every measured reaction as failed to keep it from
  // being asked again; the option must choose exactly the same batches (default EI, refits).
  Eigen::MatrixXd rows(60, 3);
  for (int i = 0; i < 60; ++i) {
    for (int k = 0; k < 3; ++k) rows(i, k) = std::fmod(0.618034 * (i + 1) * (k + 2), 1.0);
  }
  OptimizerOptions o;
  o.domain = gpb::DomainSpec::from_rows(rows);
  o.acquisition.kind = gpb::AcquisitionKind::ExpectedImprovement;
  o.context.backend = gpb::Backend::Cpu;
  o.context.threads = 1;
  o.seed = 7;
  Optimizer failed(o);
  o.exclude_observed = true;
  Optimizer option(o);
  std::vector<int> batch{0, 11, 22, 33, 44};
  for (int round = 0; round < 6; ++round) {
    std::vector<double> y;
    for (int j : batch) y.push_back(f(rows.row(j).transpose()));
    failed.tell(batch, y);
    failed.tell_failed(batch);
    option.tell(batch, y);
    const std::vector<int> a = failed.ask(5).indices;
    const std::vector<int> b = option.ask(5).indices;
    ASSERT_EQ(a, b) << "round " << round;
    batch = b;
  }
  // The option is saved with the state.
  const Optimizer loaded = Optimizer::loads(option.dumps());
  EXPECT_TRUE(loaded.options().exclude_observed);
}

}  // namespace
