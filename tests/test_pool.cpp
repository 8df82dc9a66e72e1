// The pool family: MolPAL's metrics (ties as its analysis counts them), the config's checks with
// their messages, the acquisitions (GP-BUCB's lazy picks equal the plain hallucinated ones;
// pathwise Thompson draws have the posterior's mean and variance), a synthetic protocol end to
// end, and the CI smoke test: MolPAL's protocol on a 1000-molecule subset of Enamine 10k.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <queue>
#include <sstream>
#include <vector>

#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "io/npy.hpp"
#include "pool/acquire.hpp"
#include "pool/config.hpp"
#include "test_support.hpp"

namespace {

using gpb::Domain;
using gpb::Fingerprints;
using gpb::pool::detail::AcquisitionSpec;
using gpb::pool::detail::Library;
using nlohmann::json;
namespace fs = std::filesystem;

TEST(PoolMetric, CountsTiesAsMolPalAndMoleculesExactly) {
  Library lib;
  lib.reward = {5, 4, 4, 4, 3, 2, 1};
  lib.k = 3;
  lib.top = {1, 1, 1, 0, 0, 0, 0};  // ties broken by row order
  lib.top_values = {5, 4, 4};
  auto f = gpb::pool::detail::found_fractions(lib, {3, 0, 6});
  EXPECT_DOUBLE_EQ(f.scores, 2.0 / 3);     // 5 and one 4
  EXPECT_DOUBLE_EQ(f.molecules, 1.0 / 3);  // only candidate 0 is a true top-3 molecule
  EXPECT_EQ(f.best, 5);
  f = gpb::pool::detail::found_fractions(lib, {1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(f.scores, 2.0 / 3);  // three 4s meet two 4s of the top 3
  EXPECT_DOUBLE_EQ(f.molecules, 2.0 / 3);
}

/// A synthetic library in `dir`: N random fingerprints and rewards that grow with the Tanimoto
/// similarity to a hidden target (plus a little noise); returns the config's domain/objective.
/// `counts`: the candidates are stored as count fingerprints, each set bit at a position
/// divisible by 3 counted twice (the rewards stay those of the bits).
json synthetic_library(const std::string& dir, long long n, std::uint64_t seed,
                       bool counts = false) {
  fs::create_directories(dir);
  // Eight random scaffolds (density 0.1), each candidate one of them with 1-6% of its bits
  // flipped; the target is a mutated scaffold 0, so the reward has structure a Tanimoto GP can
  // learn (similar candidates score alike) rather than hinging on a few chance bit overlaps.
  const int bits = 512, scaffolds = 8;
  gpb::Rng gen(seed, 0, 8);
  std::vector<std::int64_t> base(static_cast<std::size_t>(scaffolds) * bits), v, t;
  for (auto& x : base) x = gen.uniform() < 0.1 ? 1 : 0;
  const auto mutate = [&](int s, std::vector<std::int64_t>& out) {
    const double flip = 0.01 + 0.05 * gen.uniform();
    for (int b = 0; b < bits; ++b) {
      const std::int64_t x = base[static_cast<std::size_t>(s) * bits + b];
      out.push_back(gen.uniform() < flip ? 1 - x : x);
    }
  };
  for (long long i = 0; i < n; ++i) mutate(static_cast<int>(gen.below(scaffolds)), v);
  mutate(0, t);
  const Fingerprints fp = Fingerprints::from_dense(v.data(), n, bits, gpb::FingerprintKind::Bits);
  const Fingerprints target =
      Fingerprints::from_dense(t.data(), 1, bits, gpb::FingerprintKind::Bits);
  if (counts) {
    std::vector<std::int64_t> c = v;  // count fingerprints are read dense, one integer each
    for (std::size_t i = 0; i < c.size(); ++i) c[i] *= i % bits % 3 == 0 ? 2 : 1;
    gpb::test::write_file(dir + "/fp.npy", gpb::detail::npy_bytes_i64(c, n, bits));
  } else {
    gpb::test::write_file(dir + "/fp.npy", gpb::detail::npy_bytes_u64(fp.data(), n, fp.words()));
  }
  gpb::Rng rng(seed, 0, 9);
  std::string csv = "id,score\n";
  for (long long i = 0; i < n; ++i) {
    const double s =
        -10 * gpb::tanimoto(fp.row(i), target.row(0), fp.words()) + 0.05 * rng.normal();
    csv += std::to_string(i) + "," + std::to_string(s) + "\n";
  }
  gpb::test::write_file(dir + "/lib.csv", csv);
  return {{"domain",
           {{"type", "fingerprints"},
            {"path", "fp.npy"},
            {"bits", 512},
            {"kind", counts ? "counts" : "bits"}}},
          {"objective", {{"type", "lookup"}, {"file", "lib.csv"}, {"minimize", true}}}};
}

std::string config_error(const json& cfg, const std::string& dir) {
  return gpb::test::invalid_argument_of(
      [&] { gpb::parse_experiment(cfg.dump(), dir + "/c.json", dir); });
}

TEST(PoolConfig, ChecksNameTheField) {
  const std::string dir = testing::TempDir() + "/pool_cfg";
  json cfg = synthetic_library(dir, 300, 1);
  cfg["experiment"] = "pool";
  cfg["policies"] = json::array({{{"type", "greedy"}}});
  EXPECT_EQ(config_error(cfg, dir), "");
  json bad = cfg;
  bad["kernel"] = {{"type", "minmax"}};
  EXPECT_TRUE(gpb::test::contains(config_error(bad, dir), "kernel.type: minmax needs count"));
  bad = cfg;
  bad["batches"] = 100;
  bad["batch"] = 10;
  EXPECT_TRUE(gpb::test::contains(config_error(bad, dir), "batches: init + batches x batch"));
  bad = cfg;
  bad["policies"] = json::array({{{"type", "greedy"}}, {{"type", "greedy"}}});
  EXPECT_TRUE(gpb::test::contains(config_error(bad, dir), "policies[1].label: duplicate label"));
  bad = cfg;
  bad["policies"] = json::array({{{"type", "gp_ucb"}}});
  EXPECT_TRUE(gpb::test::contains(config_error(bad, dir), "unknown acquisition 'gp_ucb'"));
  bad = cfg;
  bad["objective"]["column"] = "dock";
  EXPECT_TRUE(gpb::test::contains(config_error(bad, dir), "lib.csv:1: no column 'dock'"));
  bad = cfg;
  bad["domain"] = {{"type", "molecules"}, {"file", "lib.csv"}};
  const std::string m = config_error(bad, dir);
  EXPECT_TRUE(gpb::test::contains(m, "domain: no fingerprint cache")) << m;
  EXPECT_TRUE(gpb::test::contains(m, "python3 -m gpbandit.chem featurize")) << m;
}

/// The model of one run over a synthetic library after `t` random observations.
struct Fixture {
  gpb::Context ctx = gpb::test::make_cpu_context(2);
  Library lib;
  std::unique_ptr<gpb::FinitePosterior> post;
  std::vector<int> hist;
  std::vector<double> yc;
  std::vector<unsigned char> evaluated;
  Eigen::MatrixXd prior;
  gpb::pool::detail::RunModel model(const gpb::Kernel& k, double lambda) {
    gpb::pool::detail::RunModel m;
    m.ctx = &ctx;
    m.lib = &lib;
    m.post = post.get();
    m.kernel = k;
    m.lambda = lambda;
    m.history = &hist;
    m.centred = &yc;
    m.evaluated = &evaluated;
    m.prior_factor = &prior;
    return m;
  }
  Fixture(long long n, int t, const gpb::Kernel& k, double lambda, std::uint64_t seed = 3) {
    lib.domain = Domain::fingerprints(Fingerprints::random(n, 256, 0.1, seed));
    gpb::Rng rng(seed + 2, 0, 1);
    evaluated.assign(static_cast<std::size_t>(n), 0);
    while (static_cast<int>(hist.size()) < t) {
      const int a = static_cast<int>(rng.below(n));
      if (evaluated[a] != 0) continue;
      evaluated[a] = 1;
      hist.push_back(a);
      yc.push_back(rng.normal());
    }
    gpb::PosteriorOptions o;
    o.noise_variance = lambda;
    post = std::make_unique<gpb::FinitePosterior>(ctx, k, lib.domain, 1, o);
    post->observe_batch(t, hist.data(), yc.data());
  }
};

TEST(PoolAcquisition, LazyGpBucbPicksTheHallucinatedUcbMaximisers) {
  const gpb::Kernel k = gpb::Kernel::tanimoto(1.0);
  Fixture fx(400, 30, k, 0.05);
  AcquisitionSpec spec;
  spec.type = "gp_bucb";
  spec.beta = 2.0;
  gpb::Rng rng(1, 0, 1);
  const std::vector<int> lazy = gpb::pool::detail::acquire(spec, fx.model(k, 0.05), 12, rng);
  // The plain algorithm: every score recomputed after each hallucinated pick.
  gpb::PosteriorOptions o;
  o.noise_variance = 0.05;
  gpb::FinitePosterior plain(fx.ctx, k, fx.lib.domain, 1, o);
  plain.observe_batch(30, fx.hist.data(), fx.yc.data());
  std::vector<unsigned char> taken = fx.evaluated;
  std::vector<int> picks;
  for (int i = 0; i < 12; ++i) {
    int best = -1;
    double score = -INFINITY;
    for (int a = 0; a < 400; ++a) {
      if (taken[a] != 0) continue;
      const double s = plain.mean(0)[a] + 2.0 * std::sqrt(std::max(plain.variance(0)[a], 0.0));
      if (s > score) {
        score = s;
        best = a;
      }
    }
    taken[best] = 1;
    picks.push_back(best);
    plain.add_pending(&best);
  }
  EXPECT_EQ(lazy, picks);
}

/// GP-BUCB as acquire() computed it before its pending variances were kept per candidate: the
/// same lazy heap, but every recomputation solves for all of L_P⁻¹ Σ(P, a) again (O(|P|·t)).
std::vector<int> gp_bucb_recomputing(const gpb::pool::detail::RunModel& m, double beta, int q) {
  const Domain& dom = m.lib->domain;
  const int n = dom.size(), d = dom.dim();
  const double* mu = m.post->mean(0);
  const double* s2 = m.post->variance(0);
  struct Entry {
    double score;
    int index, stamp;
    bool operator<(const Entry& o) const {
      return score < o.score || (score == o.score && index > o.index);
    }
  };
  std::priority_queue<Entry> heap;
  for (int a = 0; a < n; ++a) {
    if ((*m.evaluated)[a] == 0) heap.push({mu[a] + beta * std::sqrt(std::max(s2[a], 0.0)), a, 0});
  }
  std::vector<int> picks;
  Eigen::MatrixXd vp, lp = Eigen::MatrixXd::Zero(q, q);
  const auto pending_var = [&](int a, Eigen::VectorXd* w_out) {
    const int p = static_cast<int>(picks.size());
    Eigen::VectorXd w(p);
    if (p > 0) {
      const Eigen::MatrixXd va = m.post->rows_at(0, {a});
      for (int i = 0; i < p; ++i) {
        w[i] = m.kernel(dom.point(picks[i]), dom.point(a), d) - vp.col(i).dot(va.col(0));
      }
      lp.topLeftCorner(p, p).triangularView<Eigen::Lower>().solveInPlace(w);
    }
    if (w_out != nullptr) *w_out = w;
    return s2[a] - (p > 0 ? w.squaredNorm() : 0.0);
  };
  while (static_cast<int>(picks.size()) < q) {
    Entry e = heap.top();
    heap.pop();
    const int p = static_cast<int>(picks.size());
    if (e.stamp != p) {
      e.score = mu[e.index] + beta * std::sqrt(std::max(pending_var(e.index, nullptr), 0.0));
      e.stamp = p;
      heap.push(e);
      continue;
    }
    Eigen::VectorXd w;
    const double var = pending_var(e.index, &w);
    if (p > 0) lp.row(p).head(p) = w.transpose();
    lp(p, p) = std::sqrt(std::max(m.lambda + var, 1e-10 * m.kernel.variance()));
    const Eigen::MatrixXd va = m.post->rows_at(0, {e.index});
    vp.conservativeResize(va.rows(), p + 1);
    vp.col(p) = va.col(0);
    picks.push_back(e.index);
  }
  return picks;
}

TEST(PoolAcquisition, IncrementalGpBucbPicksAsRecomputingEveryEntry) {
  // Larger batches than above, where a candidate's score is recomputed many times: the kept
  // entries of L_P⁻¹ Σ(P, a) must give the picks of solving for all of them each time.
  // Deterministic (fixed seeds); four pools, two noise levels and widths.
  const gpb::Kernel k = gpb::Kernel::tanimoto(1.3);
  for (const std::uint64_t seed : {3, 11, 12, 13}) {
    const double lambda = seed % 2 == 0 ? 0.01 : 0.2;
    Fixture fx(3000, 150, k, lambda, seed);
    AcquisitionSpec spec;
    spec.type = "gp_bucb";
    spec.beta = seed == 13 ? 4.0 : 2.0;
    gpb::Rng rng(1, 0, 1);
    const std::vector<int> picks = gpb::pool::detail::acquire(spec, fx.model(k, lambda), 80, rng);
    EXPECT_EQ(picks, gp_bucb_recomputing(fx.model(k, lambda), spec.beta, 80)) << "seed " << seed;
  }
}

TEST(PoolAcquisition, PathwiseDrawsHaveThePosteriorMeanAndVariance) {
  const gpb::Kernel k = gpb::Kernel::tanimoto(1.5);
  Fixture fx(300, 40, k, 0.1);
  AcquisitionSpec spec;
  spec.type = "thompson";
  spec.prior = "exact";
  gpb::Rng rng(7, 0, 2);
  const int draws = 4000;
  const Eigen::MatrixXd f = gpb::pool::detail::posterior_draws(spec, fx.model(k, 0.1), draws, rng);
  for (int a = 0; a < 300; ++a) {
    const double mu = fx.post->mean(0)[a], s2 = fx.post->variance(0)[a];
    const double m = f.row(a).mean();
    const double v = (f.row(a).array() - m).square().sum() / (draws - 1);
    // Mean: 5 standard errors; variance: 6 standard errors of a Gaussian sample variance
    // (sqrt(2/(n−1))·σ²). Over 300 candidates the false-failure probability is below 3e-4.
    EXPECT_NEAR(m, mu, 5 * std::sqrt(s2 / draws) + 1e-12) << "candidate " << a;
    EXPECT_NEAR(v, s2, 6 * std::sqrt(2.0 / (draws - 1)) * s2 + 1e-9) << "candidate " << a;
  }
}

/// Mean of summary.json's found_scores per label.
std::map<std::string, double> found_means(const std::string& summary) {
  const json s = json::parse(gpb::test::read_file(summary));
  std::map<std::string, double> out;
  for (const json& p : s.at("policies")) {
    out[p.at("label").get<std::string>()] = p.at("found_scores").at("mean").get<double>();
  }
  return out;
}

/// A pool config over synthetic_library(dir, n, seed, counts): `runs` runs of 16 random
/// candidates and 4 batches of 16, the output scale and noise refitted before every batch (16
/// initial points alone leave the output scale poorly fitted).
json small_protocol(const std::string& dir, long long n, std::uint64_t seed, int runs, int top_k,
                    bool counts = false) {
  json cfg = synthetic_library(dir, n, seed, counts);
  cfg["experiment"] = "pool";
  cfg["runs"] = runs;
  cfg["init"] = 16;
  cfg["batch"] = 16;
  cfg["batches"] = 4;
  cfg["top_k"] = top_k;
  cfg["fit"] = "every_batch";
  return cfg;
}

TEST(PoolProtocol, SyntheticLibraryEndToEnd) {
  const std::string dir = testing::TempDir() + "/pool_e2e";
  json cfg = small_protocol(dir, 800, 21, 4, 16);
  cfg["policies"] = json::array(
      {{{"type", "greedy"}},
       {{"type", "thompson"}, {"label", "ts-features"}, {"prior", "features"}, {"features", 256}},
       {{"type", "random"}}});
  gpb::test::write_file(dir + "/c.json", cfg.dump());
  const auto r = gpb::test::run_cli("run " + dir + "/c.json --out " + dir + "/out --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string runs = gpb::test::read_file(dir + "/out/runs.csv");
  EXPECT_EQ(std::count(runs.begin(), runs.end(), '\n'), 1 + 3 * 4 * 5);  // header + rows
  // acquired.csv: per policy, run and batch the 16 candidates chosen, none twice within a run.
  std::istringstream acquired(gpb::test::read_file(dir + "/out/acquired.csv"));
  std::string line;
  std::getline(acquired, line);
  EXPECT_EQ(line, "policy,run,batch,indices");
  std::map<std::string, std::vector<int>> seen;  // "policy,run" → its candidates
  int lines = 0;
  while (std::getline(acquired, line)) {
    ++lines;
    const std::size_t c1 = line.find(','), c2 = line.find(',', c1 + 1), c3 = line.find(',', c2 + 1);
    ASSERT_NE(c3, std::string::npos) << line;
    std::istringstream idx(line.substr(c3 + 1));
    std::vector<int>& run = seen[line.substr(0, c2)];
    const std::size_t before = run.size();
    for (int a; idx >> a;) run.push_back(a);
    EXPECT_EQ(run.size() - before, 16u) << line;
  }
  EXPECT_EQ(lines, 3 * 4 * 5);
  for (auto& [key, run] : seen) {
    std::sort(run.begin(), run.end());
    EXPECT_EQ(std::adjacent_find(run.begin(), run.end()), run.end()) << key << ": a repeat";
    EXPECT_TRUE(run.front() >= 0 && run.back() < 800) << key;
  }
  const auto found = found_means(dir + "/out/summary.json");
  // The reward is a smooth function of the Tanimoto similarity to a target: the GP finds far
  // more of the top 16 than random's expected 96/800 = 12% (deterministic: fixed seeds).
  EXPECT_GT(found.at("greedy"), found.at("random") + 0.2);
  EXPECT_GT(found.at("ts-features"), found.at("random") + 0.2);
}

TEST(PoolProtocol, CountFingerprintsWithMinMaxAndFeatureDraws) {
  // MinMax on count fingerprints, Thompson sampling's prior drawn by MinHash features of MinMax
  // (refused before they existed): the protocol runs and learns (fixed seeds).
  const std::string dir = testing::TempDir() + "/pool_counts";
  json cfg = small_protocol(dir, 600, 22, 2, 12, true);
  cfg["policies"] = json::array(
      {{{"type", "thompson"}, {"label", "ts-features"}, {"prior", "features"}, {"features", 256}},
       {{"type", "random"}}});
  gpb::test::write_file(dir + "/c.json", cfg.dump());
  const auto r = gpb::test::run_cli("run " + dir + "/c.json --out " + dir + "/out --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json s = json::parse(gpb::test::read_file(dir + "/out/summary.json"));
  EXPECT_EQ(s.at("library").at("kernel"), "minmax");
  EXPECT_EQ(s.at("library").at("kind"), "counts");
  const auto found = found_means(dir + "/out/summary.json");
  EXPECT_GT(found.at("ts-features"), found.at("random") + 0.2);
}

TEST(PoolProtocol, MolPalOnA1000MoleculeSubset) {
  // CI smoke test: tests/data/pool/smoke.json, its fingerprint cache committed beside it
  // (python3 -m gpbandit.chem featurize tests/data/pool/smoke.json).
  const std::string out = testing::TempDir() + "/pool_smoke";
  const auto r =
      gpb::test::run_cli(std::string("run ") + GPB_SOURCE_DIR +
                         "/tests/data/pool/smoke.json --out " + out + " --quiet --force");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto found = found_means(out + "/summary.json");
  // Random finds 12% of the top 20 on average (120 of 1000 evaluated; sd 7% per run, 3.3% over
  // 5 runs); every GP acquisition on atom-pair fingerprints finds several times more (measured
  // with these seeds: greedy 60%, ucb 56%, thompson 49%, gp_bucb 61%, random 12%). Deterministic
  // (fixed seeds); the margin of 15 points is over 4 standard errors of the random mean.
  for (const char* label : {"greedy", "ucb", "thompson", "gp_bucb"}) {
    EXPECT_GT(found.at(label), found.at("random") + 0.15) << label;
  }
}

}  // namespace
