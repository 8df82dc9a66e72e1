// Options of the X-armed suite (specs/fed-pne.md §7, §8 decisions 4, 6, 11): HCT's re-expansion
// rule (keep / PyXAB's rebuild), Fed-PNE's pull order and pull point, PyXAB's Garland f*.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"
#include "gpbandit/xarmed/baselines.hpp"
#include "gpbandit/xarmed/fed_pne.hpp"
#include "test_support.hpp"
#include "xarmed/config.hpp"

using namespace gpb::xarmed;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// PyXAB 0.3.0's HCT written the slow way, as its Python does it: every round the descent, then
/// U of every node at t = t⁺, then B of every node recomputed bottom-up after each reward, and a
/// node that reaches τ_h gets fresh children even if it had some (their statistics are dropped).
struct RefNode {
  int depth;
  std::uint64_t index;
  long long count = 0;
  double mean = 0, U = kInf, B = kInf;
  std::vector<std::unique_ptr<RefNode>> kids;
};

class RefHct {
 public:
  RefHct(const FedObjective& f, const HctParams& p) : f_(f), p_(p), part_(f.box(), p.k, 0) {
    root_.depth = 0;
    root_.index = 1;
    expand(root_);
    c1_ = std::pow(p.rho / (3 * p.nu), 1.0 / 8);
  }
  std::vector<double> run(long long T, double noise, std::uint64_t seed, std::uint32_t run) {
    gpb::Rng rng(seed, run, 0x6000000u);  // the centralised noise stream of baselines.cpp
    std::vector<double> regret;
    for (long long t = 1; t <= T; ++t) {
      const double tplus = std::exp2(std::ceil(std::log2(static_cast<double>(t))));
      RefNode* n = &root_;
      while (n->count >= tau(n->depth, tplus) && !n->kids.empty()) {
        RefNode* best = n->kids[0].get();
        for (std::size_t k = 1; k < n->kids.size(); ++k) {
          if (n->kids[k]->B >= best->B) best = n->kids[k].get();
        }
        n = best;
      }
      const std::vector<double> x = part_.centre(n->depth, n->index);
      const double fx = f_.mean_local(run, 1, x.data());
      regret.push_back(f_.fstar() - f_.global(run, 1, x.data()));
      const double y = fx + noise * (2 * rng.uniform() - 1);
      if (static_cast<double>(t) == tplus) {
        all_u(root_, tplus);
        all_b(root_);
      }
      n->count += 1;
      n->mean += (y - n->mean) / static_cast<double>(n->count);
      n->U = u_of(*n, tplus);
      all_b(root_);
      if (n->count >= tau(n->depth, tplus)) expand(*n);  // also when it has children
    }
    return regret;
  }

 private:
  double tau(int h, double tplus) const {
    if (h == 0) return 0;
    return std::ceil(p_.c * p_.c * std::log(1 / std::min(0.5, c1_ * p_.delta / tplus)) *
                     std::pow(p_.rho, -2.0 * h) / (p_.nu * p_.nu));
  }
  double u_of(const RefNode& n, double tplus) const {
    if (n.count == 0) return kInf;
    const double dt = std::min(1.0, c1_ * p_.delta / tplus);
    return n.mean + p_.nu * std::pow(p_.rho, n.depth) +
           std::sqrt(p_.c * p_.c * std::log(1 / dt) / static_cast<double>(n.count));
  }
  void all_u(RefNode& n, double tplus) {
    n.U = u_of(n, tplus);
    for (auto& k : n.kids) all_u(*k, tplus);
  }
  void all_b(RefNode& n) {
    if (n.kids.empty()) {
      n.B = n.U;
      return;
    }
    double mx = -kInf;
    for (auto& k : n.kids) {
      all_b(*k);
      mx = std::max(mx, k->B);
    }
    n.B = std::min(n.U, mx);
  }
  void expand(RefNode& n) {
    n.kids.clear();
    for (int s = 1; s <= p_.k; ++s) {
      auto kid = std::make_unique<RefNode>();
      kid->depth = n.depth + 1;
      kid->index = part_.child(n.index, s);
      n.kids.push_back(std::move(kid));
    }
  }
  const FedObjective& f_;
  HctParams p_;
  Partition part_;
  RefNode root_{};
  double c1_;
};

std::shared_ptr<const FedObjective> objective(const std::string& type) {
  ObjectiveSpec os;
  os.type = type;
  return make_objective(os);
}

}  // namespace

TEST(HctReexpand, RebuildMatchesPyxabsFullTreeAlgorithmRoundForRound) {
  for (const char* name : {"garland", "doublesine"}) {
    auto f = objective(name);
    HctParams p;
    p.rho = 0.5;
    p.rebuild = true;
    const long long T = 3000;
    const BaselineRun fast = run_hct(*f, p, 1, T, 0.1, 3, 0);
    const std::vector<double> ref = RefHct(*f, p).run(T, 0.1, 3, 0);
    ASSERT_EQ(fast.regret.size(), ref.size());
    for (std::size_t t = 0; t < ref.size(); ++t) {
      ASSERT_EQ(fast.regret[t], ref[t]) << name << ": first difference at round " << t + 1;
    }
    // The rule actually fired (otherwise this test could not tell the variants apart) …
    EXPECT_GT(fast.rebuilds, 0) << name;
    EXPECT_GT(fast.expansions, fast.rebuilds) << name;
    // … and the default ("keep") takes a different path.
    p.rebuild = false;
    const BaselineRun keep = run_hct(*f, p, 1, T, 0.1, 3, 0);
    EXPECT_EQ(keep.rebuilds, 0);
    EXPECT_NE(keep.regret, fast.regret) << name;
  }
}

TEST(HctReexpand, ConfigKeyAndMessage) {
  const std::string base =
      R"({"experiment": "fed-pne", "objective": {"type": "garland"}, "methods": [)";
  const XConfig c = parse_xarmed_config(
      base + R"({"type": "hct", "label": "a", "reexpand": "rebuild"}, {"type": "hct"}]})", "t");
  EXPECT_TRUE(c.methods[0].hct.rebuild);
  EXPECT_FALSE(c.methods[1].hct.rebuild);
  try {
    parse_xarmed_config(base + R"({"type": "hct", "reexpand": "often"}]})", "t.json");
    FAIL() << "accepted reexpand = often";
  } catch (const gpb::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("t.json: methods[0].reexpand"), std::string::npos)
        << e.what();
  }
}

namespace {
FedPneRun fed_run(const FedPneParams& p, const std::string& obj, int M, long long T) {
  ObjectiveSpec os;
  os.type = obj;
  auto f = make_objective(os);
  InProcessPool pool(p, f, M, 5, {0});
  return run_fed_pne(p, *f, M, T, {0}, pool).at(0);
}
}  // namespace

TEST(FedPneOptions, RoundRobinPlaysTheSameMultisetPerCompletedPhase) {
  FedPneParams nm, rr;
  rr.round_robin = true;
  const FedPneRun a = fed_run(nm, "garland", 10, 1000), b = fed_run(rr, "garland", 10, 1000);
  ASSERT_EQ(a.regret.size(), 1000u);
  ASSERT_EQ(b.regret.size(), 1000u);
  // Same phases (the means, hence eliminations, do not depend on the order) …
  ASSERT_EQ(a.phases.size(), b.phases.size());
  std::size_t start = 0;
  bool reordered = false;
  for (std::size_t i = 0; i < a.phases.size(); ++i) {
    EXPECT_EQ(a.phases[i].nodes, b.phases[i].nodes);
    EXPECT_EQ(a.phases[i].survivors, b.phases[i].survivors);
    const std::size_t len = a.phases[i].rounds;
    std::vector<double> x(a.regret.begin() + start, a.regret.begin() + start + len);
    std::vector<double> y(b.regret.begin() + start, b.regret.begin() + start + len);
    if (!a.phases[i].truncated) {
      // … round r of round-robin plays node r mod K: the t_m-th round of node n is node-major's.
      const std::size_t K = a.phases[i].nodes, tm = a.phases[i].t_m;
      for (std::size_t r = 0; r < len; ++r) EXPECT_EQ(y[r], x[(r % K) * tm + r / K]);
      reordered = reordered || x != y;
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      EXPECT_EQ(x, y);
    }
    start += len;
  }
  EXPECT_TRUE(reordered);
}

TEST(FedPneOptions, UniformPullPointStaysInTheCellAndIsReproducible) {
  Partition part(Box{{-5.0, -5.0}, {5.0, 5.0}}, 2, 0);
  const Box cell = part.cell(4, 7);
  for (std::uint64_t s = 0; s < 50; ++s) {
    const std::vector<double> x = fed_pne_pull_point(part, 4, 7, 1, 2, 3, 4, 5, s);
    for (int a = 0; a < 2; ++a) {
      EXPECT_GE(x[a], cell.lo[a]);
      EXPECT_LE(x[a], cell.hi[a]);
    }
    EXPECT_EQ(x, fed_pne_pull_point(part, 4, 7, 1, 2, 3, 4, 5, s));
  }
  EXPECT_NE(fed_pne_pull_point(part, 4, 7, 1, 2, 3, 4, 5, 0),
            fed_pne_pull_point(part, 4, 7, 1, 2, 4, 4, 5, 0));  // another client, another point
  // On the linear objective 1 − |x − 0.314|, a uniform point in a cell not containing the peak
  // has regret = its distance to the peak; its mean over the cell is the centre's regret, so
  // the total regret of a noiseless run stays close to the centre run's but is not identical.
  FedPneParams c, u;
  u.uniform_point = true;
  u.noise = c.noise = 0;
  const FedPneRun a = fed_run(c, "linear", 10, 1000), b = fed_run(u, "linear", 10, 1000);
  double ra = 0, rb = 0;
  for (double v : a.regret) ra += v;
  for (double v : b.regret) rb += v;
  EXPECT_NE(ra, rb);
  EXPECT_NEAR(rb, ra, 0.25 * ra);
  for (double v : b.regret) EXPECT_GE(v, 0.0);
}

TEST(FedPneOptions, ConfigKeysAndPyxabFstar) {
  const std::string base = R"({"experiment": "fed-pne", "objective": {"type": "garland")";
  const XConfig c = parse_xarmed_config(
      base +
          R"(, "fstar": "pyxab"}, "methods": [{"type": "fed-pne", "order": "round_robin",
             "pull_point": "uniform"}]})",
      "t");
  EXPECT_TRUE(c.methods[0].fed.round_robin);
  EXPECT_TRUE(c.methods[0].fed.uniform_point);
  EXPECT_EQ(make_objective(c.objective)->fstar(), 1.0);
  ObjectiveSpec os;
  os.type = "doublesine";
  os.fstar_pyxab = true;
  EXPECT_EQ(make_objective(os)->fstar(), 0.0);
  for (const std::string bad :
       {R"(, "fstar": "one"}, "methods": [{"type": "fed-pne"}]})",
        R"(}, "methods": [{"type": "fed-pne", "order": "random"}]})",
        R"(}, "methods": [{"type": "fed-pne", "pull_point": "corner"}]})"}) {
    EXPECT_THROW(parse_xarmed_config(base + bad, "t"), gpb::InvalidArgument) << bad;
  }
}
