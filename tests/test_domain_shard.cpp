// One rank's part of a finite domain (issue #19): Domain::points_of, objectives evaluated on a
// slice bit for bit as on the whole domain (also where the slice cuts an evaluation block), and
// the config building a grid as the rank's slice only when everything can work on one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/objective/objective.hpp"
#include "slice_check.hpp"

namespace {

using gpb::test::expect_slices_match;

using nlohmann::json;

gpb::Context cpu_context() {
  gpb::ContextOptions opt;
  opt.backend = gpb::Backend::Cpu;
  opt.threads = 1;
  return gpb::Context(opt);
}

TEST(DomainShard, PointsOfComputesAnyGridRangeAndCopiesHeldOnes) {
  const std::vector<double> lo{-1.0, 0.0}, hi{1.0, 3.0};
  const std::vector<int> counts{7, 5};
  const gpb::Domain whole = gpb::Domain::grid(lo, hi, counts);
  const gpb::Domain s = gpb::Domain::grid_slice(lo, hi, counts, 10, 20);
  EXPECT_TRUE(s.is_grid());
  const Eigen::MatrixXd outside = s.points_of(2, 30);  // straddles the slice on both sides
  ASSERT_EQ(outside.cols(), 28);
  EXPECT_TRUE(outside == whole.points().middleCols(2, 28));
  EXPECT_TRUE(s.slice(12, 15).points_of(0, 35) == whole.points());  // a slice of a slice too
  EXPECT_THROW(s.points_of(30, 36), gpb::InvalidArgument);          // beyond N
  EXPECT_THROW(s.points_of(4, 4), gpb::InvalidArgument);            // empty
  const gpb::Domain pts = gpb::Domain::from_slice(Eigen::MatrixXd::Constant(2, 3, 0.5), 4, 10);
  EXPECT_FALSE(pts.is_grid());
  EXPECT_EQ(pts.points_of(5, 7).cols(), 2);
  EXPECT_THROW(pts.points_of(0, 5), gpb::InvalidArgument);  // not held, not a grid
}

// kBlockDoubles / support = 8 Mi / 5 = 1677721 candidates per block (odd, so blocks start at
// every alignment); the cuts straddle the block boundaries 1677721 and 3355442.
TEST(DomainShard, RkhsAndRandomFourierFeaturesOnSlicesAcrossBlocks) {
  const std::vector<double> lo{0.0}, hi{1.0};
  const std::vector<int> counts{3400000};
  const std::vector<long long> cuts{0, 1000000, 1677720, 1677722, 3355442, 3355443, 3400000};
  const gpb::Kernel k = gpb::Kernel::matern(gpb::KernelType::Matern52, 0.05, 1.3);
  expect_slices_match(cpu_context(), *gpb::make_rkhs_objective(k, 5, false), lo, hi, counts, cuts,
                      "rkhs m=5");
  expect_slices_match(cpu_context(), *gpb::make_gp_sample_objective(k, 5, false), lo, hi, counts,
                      cuts, "rff M=5");
}

TEST(DomainShard, PointwiseAndBlockObjectivesOnSmallSlices) {
  const std::vector<long long> cuts{0, 1, 145, 291, 436, 437};
  const gpb::Kernel k = gpb::Kernel::se(0.3, 1.0);
  expect_slices_match(cpu_context(), *gpb::make_rkhs_objective(k, 30, true), {0, 0}, {1, 1},
                      {23, 19}, cuts, "rkhs m=30");
  expect_slices_match(cpu_context(), *gpb::make_gp_sample_objective(k, 64, false), {0, 0}, {1, 1},
                      {23, 19}, cuts, "rff M=64");
  expect_slices_match(cpu_context(), *gpb::make_branin_objective(), {-5, 0}, {10, 15}, {23, 19},
                      cuts, "branin");
  std::vector<double> lo6(6, 0.0), hi6(6, 1.0);
  expect_slices_match(cpu_context(), *gpb::make_hartmann6_objective(), lo6, hi6, {3, 3, 3, 2, 2, 2},
                      {0, 50, 216}, "hartmann6");
}

TEST(DomainShard, AnExactDrawRefusesASlice) {
  const gpb::Context ctx = cpu_context();
  const auto f = gpb::make_gp_sample_objective(gpb::Kernel::se(0.3, 1.0), 0, false);
  const gpb::Domain s = gpb::Domain::grid_slice({0.0}, {1.0}, {40}, 10, 20);
  EXPECT_THROW(f->values(ctx, s, 1, 0), gpb::InvalidArgument);
}

json sharded_config() {
  return json::parse(R"({
    "name": "shard", "seed": 1, "runs": 1, "T": 5, "backend": "cpu",
    "domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [10, 7]},
    "kernel": {"type": "se", "lengthscale": 0.3},
    "objective": {"type": "rkhs", "support": 4},
    "policies": [{"type": "gp_ucb", "label": "GP-UCB"}, {"type": "random", "label": "random"}]
  })");
}

// Parsed as rank `rank` of `ranks` (1 rank: the whole domain).
gpb::ExperimentConfig parse(const json& j, int rank = 0, int ranks = 1) {
  gpb::DomainShard s;
  s.rank = rank;
  s.ranks = ranks;
  return gpb::parse_experiment_config(j.dump(), "cfg.json", ".", s);
}

TEST(DomainShard, ConfigBuildsTheRanksSliceOfAGrid) {
  const json j = sharded_config();
  const gpb::ExperimentConfig one = parse(j);
  EXPECT_FALSE(one.domain.is_slice());
  for (int q = 0; q < 3; ++q) {
    const gpb::ExperimentConfig c = parse(j, q, 3);
    EXPECT_EQ(c.domain.size(), 70);
    EXPECT_EQ(c.domain.slice_begin(), 70 * q / 3);
    EXPECT_EQ(c.domain.slice_end(), 70 * (q + 1) / 3);
    EXPECT_TRUE(c.whole_domain_reason.empty()) << c.whole_domain_reason;
    EXPECT_TRUE(c.domain.points() ==
                one.domain.points().middleCols(c.domain.slice_begin(), c.domain.points().cols()));
  }
  EXPECT_FALSE(parse(j, 0, 71).domain.is_slice());  // more ranks than N: check_ranks refuses
}

TEST(DomainShard, ConfigKeepsTheWholeDomainAndSaysWhy) {
  json po = sharded_config();
  po["policies"].push_back({{"type", "po_gp_ucb"}, {"label", "PO"}, {"curator", false}});
  gpb::ExperimentConfig c = parse(po, 1, 2);
  EXPECT_FALSE(c.domain.is_slice());
  EXPECT_NE(c.whole_domain_reason.find("po_gp_ucb projects every candidate"), std::string::npos)
      << c.whole_domain_reason;
  json exact = sharded_config();
  exact["objective"] = {{"type", "gp_sample"}};
  c = parse(exact, 1, 2);
  EXPECT_FALSE(c.domain.is_slice());
  EXPECT_NE(c.whole_domain_reason.find("objective 'gp_sample'"), std::string::npos);
  json kron = sharded_config();
  kron["objective"] = {{"type", "gp_sample"}, {"features", 50}, {"kronecker", true}};
  EXPECT_THROW(parse(kron, 1, 2), gpb::InvalidArgument);  // invalid either way: features > 0
  json idx = sharded_config();
  idx["domain"] = {{"type", "indices"}, {"n", 9}};
  c = parse(idx, 0, 2);
  EXPECT_FALSE(c.domain.is_slice());
  EXPECT_NE(c.whole_domain_reason.find("not a grid"), std::string::npos);
  EXPECT_TRUE(parse(idx).whole_domain_reason.empty());  // one rank: nothing to say
}

}  // namespace
