// ParameterSpace: index <-> combination against a brute-force product, every constraint kind,
// encodings against direct formulas, the empty-feasible error, a 1e8-combination space.

#include "gpbandit/engine/parameter_space.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/error.hpp"

namespace gpb {
namespace {

using P = Parameter;
using C = Constraint;

std::vector<Parameter> small_params() {
  return {P::categorical("base", {"a", "b", "c"}), P::numerical_discrete("conc", {0.5, 0.1, 0.2}),
          P::integer("n", 1, 7, 3),  // 1, 4, 7
          P::categorical("solv", {"x", "b", "a", "y"},
                         (Eigen::MatrixXd(4, 2) << 1, 2, 3, 2, 5, 2, 7, 2).finished()),
          P::continuous("T", 20, 80, 4)};
}

/// Every raw combination in order (parameter 0 fastest), filtered by `ok`.
std::vector<std::vector<int>> brute(const std::vector<Parameter>& ps,
                                    const std::function<bool(const std::vector<int>&)>& ok) {
  std::vector<std::vector<int>> all;
  std::vector<int> lv(ps.size(), 0);
  for (;;) {
    if (ok(lv)) all.push_back(lv);
    std::size_t p = 0;
    for (; p < ps.size(); ++p) {
      if (++lv[p] < ps[p].size()) break;
      lv[p] = 0;
    }
    if (p == ps.size()) return all;
  }
}

void expect_matches(const ParameterSpace& s, const std::vector<std::vector<int>>& want) {
  ASSERT_EQ(s.size(), static_cast<long long>(want.size()));
  for (long long k = 0; k < s.size(); ++k) {
    ASSERT_EQ(s.combination(k), want[static_cast<std::size_t>(k)]) << "k = " << k;
    const long long r = s.raw_of(k);
    EXPECT_EQ(s.raw_of_levels(want[static_cast<std::size_t>(k)]), r);
    EXPECT_EQ(s.feasible_of(r), k);
  }
  // Every infeasible raw index maps to -1.
  std::set<long long> raws;
  for (long long k = 0; k < s.size(); ++k) raws.insert(s.raw_of(k));
  for (long long r = 0; r < s.raw_size(); ++r)
    if (!raws.count(r)) {
      EXPECT_EQ(s.feasible_of(r), -1) << "raw " << r;
    }
  // encode_range equals encode, column by column, for every start.
  const Eigen::MatrixXd all = s.encode_range(0, s.size());
  for (long long k = 0; k < s.size(); ++k) EXPECT_EQ(all.col(k), s.encode(k));
  if (s.size() > 3) {
    EXPECT_EQ(s.encode_range(2, s.size() - 1), all.middleCols(2, s.size() - 3));
  }
}

TEST(ParameterSpace, UnconstrainedIsTheMixedRadixProduct) {
  const auto ps = small_params();
  ParameterSpace s(ps);
  EXPECT_EQ(s.raw_size(), 3 * 3 * 3 * 4 * 4);
  expect_matches(s, brute(ps, [](const std::vector<int>&) { return true; }));
}

TEST(ParameterSpace, LinearConstraintMatchesBruteForce) {
  const auto ps = small_params();
  // conc*10 + n <= 6  (values: conc in {0.1, 0.2, 0.5}, n in {1, 4, 7}); over T too.
  ParameterSpace s(ps, {C::linear({1, 2}, {10, 1}, 6), C::linear({4, 2}, {1, 1}, 70)});
  expect_matches(s, brute(ps, [&](const std::vector<int>& l) {
                   return ps[1].values[l[1]] * 10 + ps[2].values[l[2]] <= 6 + 1e-9 &&
                          ps[4].values[l[4]] + ps[2].values[l[2]] <= 70 + 1e-9;
                 }));
}

TEST(ParameterSpace, ExclusionAndDistinctMatchBruteForce) {
  const auto ps = small_params();
  // Forbid base in {a, c} with solvent 'y'; base and solvent labels differ ('a', 'b' shared).
  ParameterSpace s(ps, {C::exclusion({0, 3}, {{0, 2}, {3}}), C::distinct({0, 3})});
  expect_matches(s, brute(ps, [&](const std::vector<int>& l) {
                   const bool excluded = (l[0] == 0 || l[0] == 2) && l[3] == 3;
                   return !excluded && ps[0].labels[l[0]] != ps[3].labels[l[3]];
                 }));
}

TEST(ParameterSpace, MixtureMatchesBruteForce) {
  std::vector<Parameter> ps{P::numerical_discrete("w1", {0, 0.25, 0.5, 0.75, 1}),
                            P::categorical("c", {"p", "q"}),
                            P::numerical_discrete("w2", {0, 0.25, 0.5, 0.75, 1}),
                            P::numerical_discrete("w3", {0, 0.25, 0.5, 0.75, 1})};
  ParameterSpace s(ps, {C::mixture({0, 2, 3}), C::exclusion({1, 3}, {{1}, {0}})});
  expect_matches(s, brute(ps, [&](const std::vector<int>& l) {
                   const double sum = ps[0].values[l[0]] + ps[2].values[l[2]] + ps[3].values[l[3]];
                   return std::abs(sum - 1) <= 1e-6 && !(l[1] == 1 && l[3] == 0);
                 }));
  EXPECT_EQ(s.size(), 15 * 2 - 5);  // 15 compositions of 4 quarters in 3 parts, ×2, minus w3 = 0
}

TEST(ParameterSpace, DistinctSlotsSharingLabels) {
  const std::vector<std::string> labels{"A", "B", "C", "D", "E"};
  std::vector<Parameter> ps{P::categorical("s1", labels), P::categorical("s2", labels),
                            P::categorical("s3", labels), P::integer("k", 0, 3)};
  ParameterSpace s(ps, {C::distinct({0, 1, 2})});
  EXPECT_EQ(s.size(), 5 * 4 * 3 * 4);
  expect_matches(s, brute(ps, [](const std::vector<int>& l) {
                   return l[0] != l[1] && l[0] != l[2] && l[1] != l[2];
                 }));
}

TEST(ParameterSpace, EncodingsFollowTheDirectFormulas) {
  const auto ps = small_params();
  ParameterSpace s(ps);
  EXPECT_EQ(s.encoded_dim(), 3 + 1 + 1 + 2 + 1);
  const std::vector<int> lv{1, 2, 0, 2, 3};  // b, 0.5, 1, 'a' (row 5 2), T = 80
  const Eigen::VectorXd x = s.encode(s.feasible_of(s.raw_of_levels(lv)));
  EXPECT_EQ(x(0), 0);
  EXPECT_EQ(x(1), 1);
  EXPECT_EQ(x(2), 0);
  EXPECT_DOUBLE_EQ(x(3), (0.5 - 0.1) / (0.5 - 0.1));
  EXPECT_DOUBLE_EQ(x(4), 0.0);
  // Descriptor column 0 = {1, 3, 5, 7}: mean 4, population sd sqrt(5); column 1 constant -> 0.
  EXPECT_DOUBLE_EQ(x(5), (5 - 4) / std::sqrt(5.0));
  EXPECT_EQ(x(6), 0);
  EXPECT_DOUBLE_EQ(x(7), 1.0);
  const Eigen::VectorXd y = s.encode(s.raw_of_levels({0, 1, 1, 0, 1}));
  EXPECT_DOUBLE_EQ(y(3), (0.2 - 0.1) / 0.4);
  EXPECT_DOUBLE_EQ(y(4), (4 - 1) / 6.0);
  EXPECT_DOUBLE_EQ(y(7), (40 - 20) / 60.0);
  EXPECT_EQ(ps[4].values, (std::vector<double>{20, 40, 60, 80}));
  // decode inverts encode.
  for (long long k = 0; k < s.size(); k += 7) {
    const Eigen::VectorXd e = s.encode(k);
    EXPECT_EQ(s.decode(e.data()), s.combination(k));
  }
}

TEST(ParameterSpace, NothingFeasibleIsOneErrorNamingTheConstraints) {
  std::vector<Parameter> ps{P::integer("a", 0, 3), P::integer("b", 0, 3)};
  try {
    ParameterSpace s(ps, {C::linear({0, 1}, {1, 1}, -1)});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no combination"), std::string::npos) << m;
    EXPECT_NE(m.find("constraints[0] (linear over 'a' 'b')"), std::string::npos) << m;
  }
}

TEST(ParameterSpace, BadInputNamesTheParameter) {
  EXPECT_THROW(P::categorical("lig", {"x", "x"}), InvalidArgument);
  EXPECT_THROW(P::numerical_discrete("t", {}), InvalidArgument);
  EXPECT_THROW(P::categorical("lig", {"x", "y"}, Eigen::MatrixXd::Ones(3, 1)), InvalidArgument);
  std::vector<Parameter> ps{P::categorical("c", {"x", "y"}), P::integer("k", 0, 2)};
  EXPECT_THROW(ParameterSpace(ps, {C::linear({0}, {1}, 1)}), InvalidArgument);  // categorical
  EXPECT_THROW(ParameterSpace(ps, {C::distinct({0, 1})}), InvalidArgument);     // numeric slot
  EXPECT_THROW(ParameterSpace(ps, {C::exclusion({5}, {{0}})}), InvalidArgument);
  EXPECT_THROW(ParameterSpace({P::integer("k", 0, 2), P::integer("k", 0, 1)}), InvalidArgument);
  try {
    P::categorical("ligand", {"x", "x"});
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'ligand'"), std::string::npos);
  }
}

TEST(ParameterSpace, DomainComputesAnyRangeFromTheSpace) {
  auto s = std::make_shared<const ParameterSpace>(small_params(),
                                                  std::vector<Constraint>{C::distinct({0, 3})});
  const Domain whole = Domain::from_space(s);
  EXPECT_EQ(whole.size(), s->size());
  EXPECT_EQ(whole.dim(), s->encoded_dim());
  const Domain part = Domain::space_slice(s, 10, 20);
  EXPECT_TRUE(part.is_slice());
  EXPECT_TRUE(part.computes_points());
  EXPECT_EQ(part.points(), whole.points().middleCols(10, 10));
  EXPECT_EQ(part.points_of(30, 45), whole.points().middleCols(30, 15));  // not held: computed
}

TEST(ParameterSpace, AWholeDomainTooBigForMemoryIsRefusedBeforeAllocating) {
  // 8 one-hot slots of 14 labels: 14^8 combinations × 112 features = 1.3 TB of encodings. The
  // whole domain is refused with one error; a slice, and any block of it, still works.
  std::vector<std::string> labels;
  for (int l = 0; l < 14; ++l) labels.push_back("L" + std::to_string(l));
  std::vector<Parameter> ps;
  for (int p = 0; p < 8; ++p) ps.push_back(P::categorical("s" + std::to_string(p), labels));
  auto s = std::make_shared<const ParameterSpace>(ps);
  const std::size_t avail = gpb::available_host_memory();
  if (avail == 0 || 8.0 * 112 * static_cast<double>(s->size()) <= static_cast<double>(avail))
    GTEST_SKIP() << "this machine has " << avail << " bytes available (the check needs < 1.3 TB)";
  try {
    (void)Domain::from_space(s);
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("(112 × 1475789056 doubles) need"), std::string::npos) << msg;
    EXPECT_NE(msg.find("GB of memory available"), std::string::npos) << msg;
  }
  const Domain part = Domain::space_slice(s, 1000, 3000);
  EXPECT_EQ(part.points_of(5'000'000, 5'000'010), s->encode_range(5'000'000, 5'000'010));
}

// 12 × 12 × 12 × 12 × 12 × 12 labels (≈ 3e6) × 6 × 5 values ≈ 9e7 → with 2 more integer
// levels ≈ 1.8e8 raw combinations; distinct slots plus a linear constraint. The index must stay
// O(sqrt(raw)) counts and indexing must agree with the feasibility of the combination.
TEST(ParameterSpace, HundredMillionCombinationsIndexInBoundedMemory) {
  std::vector<std::string> labels;
  for (int i = 0; i < 12; ++i) labels.push_back("L" + std::to_string(i));
  std::vector<Parameter> ps{P::numerical_discrete("conc", {0.05, 0.1, 0.2, 0.4, 0.8, 1.6}),
                            P::integer("temp", 20, 100, 20), P::integer("eq", 1, 2)};
  for (int i = 0; i < 6; ++i) {
    Eigen::MatrixXd table(12, 3);
    for (int r = 0; r < 12; ++r) table.row(r) << r, (r * r) % 7, i;
    ps.push_back(P::categorical("slot" + std::to_string(i), labels, table));
  }
  ParameterSpace s(ps, {C::distinct({3, 4, 5, 6, 7, 8}), C::linear({0, 1}, {100, 1}, 150),
                        C::exclusion({3, 4}, {{0}, {1, 2}})});
  EXPECT_GE(s.raw_size(), 100'000'000LL);
  // Exact count: distinct ordered 6-tuples of 12 labels minus those with slot3=L0, slot4∈{L1,L2}
  // (2 × 10·9·8·7 tuples) times the numeric combinations allowed by the linear rule.
  long long numeric = 0;
  for (double c : ps[0].values)
    for (double t : ps[1].values) numeric += (100 * c + t <= 150 + 1e-9) ? 2 : 0;
  const long long tuples = 12LL * 11 * 10 * 9 * 8 * 7 - 2LL * 10 * 9 * 8 * 7;
  EXPECT_EQ(s.size(), tuples * numeric);
  EXPECT_LE(s.index_bytes(), std::size_t{8} * 20'000);  // O(sqrt(raw)) counts, no N×d
  for (long long k : {0LL, 1LL, s.size() / 3, s.size() / 2 + 17, s.size() - 1}) {
    const std::vector<int> lv = s.combination(k);
    EXPECT_TRUE(s.feasible(lv.data()));
    EXPECT_EQ(s.feasible_of(s.raw_of_levels(lv)), k);
  }
  const Eigen::MatrixXd block = s.encode_range(s.size() - 1000, s.size());
  EXPECT_EQ(block.rows(), s.encoded_dim());
  EXPECT_EQ(block.col(999), s.encode(s.size() - 1));
}

}  // namespace
}  // namespace gpb
