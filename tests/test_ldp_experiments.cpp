// LDP-BO through the experiment layer: config validation of the new policies, privacy in the
// runner (secure by default, seeded on request), the real-data instances and their golden values
// (specs/ldp-bo.md §6.4), and sublinear regret of every policy on the synthetic instance.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "test_support.hpp"

namespace {

using gpb::test::TempDir;
using gpb::test::write_file;
using nlohmann::json;

/// The synthetic LDP instance of §6.1 on a smaller grid (N = 50) to keep the tests fast.
json synthetic(int T, const json& policies) {
  json j = json::parse(R"({
    "name": "ldp", "runs": 2, "seed": 0, "noise_variance": 1,
    "domain": {"type": "grid", "lower": [0.02], "upper": [1.0], "counts": [50]},
    "kernel": {"type": "se", "lengthscale": 0.2},
    "objective": {"type": "rkhs", "support": 50},
    "noise": {"type": "uniform", "R": 1}
  })");
  j["T"] = T;
  j["policies"] = policies;
  return j;
}

std::string error_of(const json& j, const std::string& dir = ".") {
  try {
    gpb::parse_experiment_config(j.dump(), "cfg.json", dir);
  } catch (const gpb::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

gpb::RunOptions quiet(const std::string& out) {
  gpb::RunOptions o;
  o.out_dir = out;
  o.progress = false;
  o.plot = false;
  return o;
}

// ------------------------------------------------------------------ config validation

TEST(LdpConfig, EveryNewPolicyTypeIsRegisteredWithItsParameters) {
  for (const char* t : {"tgp_ucb", "ldp_tgp_ucb", "ata_gp_ucb", "ldp_ata_gp_ucb", "moma_gp_ucb",
                        "ldp_moma_gp_ucb"}) {
    bool found = false;
    for (const auto& e : gpb::registry()) {
      if (e.kind != "policy" || e.name != t) continue;
      found = true;
      std::set<std::string> names;
      for (const auto& p : e.params) names.insert(p.name);
      EXPECT_TRUE(names.count("preset")) << t;
      EXPECT_EQ(names.count("epsilon"), std::string(t).rfind("ldp_", 0) == 0 ? 1u : 0u) << t;
    }
    EXPECT_TRUE(found) << t;
  }
}

TEST(LdpConfig, BadValuesNameTheField) {
  EXPECT_NE(error_of(synthetic(100, {{{"type", "ldp_tgp_ucb"}, {"epsilon", 0}}}))
                .find("policies[0].epsilon: must be > 0"),
            std::string::npos);
  EXPECT_NE(error_of(synthetic(100, {{{"type", "ldp_ata_gp_ucb"}}})).find("policies[0].epsilon"),
            std::string::npos);
  EXPECT_NE(error_of(synthetic(100, {{{"type", "tgp_ucb"}, {"B", -1}}})).find("policies[0].B"),
            std::string::npos);
  EXPECT_NE(error_of(synthetic(100, {{{"type", "ldp_moma_gp_ucb"}, {"epsilon", 1}, {"R", 0}}}))
                .find("policies[0].R: must be > 0"),
            std::string::npos);
  EXPECT_NE(error_of(synthetic(100, {{{"type", "moma_gp_ucb"}, {"width_scale", 0}}}))
                .find("policies[0].width_scale: must be > 0"),
            std::string::npos);
  EXPECT_NE(
      error_of(synthetic(100, {{{"type", "ldp_ata_gp_ucb"}, {"epsilon", 1}, {"level_scale", -2}}}))
          .find("policies[0].level_scale: must be > 0"),
      std::string::npos);
  EXPECT_NE(error_of(synthetic(100, {{{"type", "tgp_ucb"}, {"preset", "best"}}}))
                .find("policies[0].preset"),
            std::string::npos);
  EXPECT_NE(error_of(synthetic(100, {{{"type", "gp_ucb"}, {"ldp", {{"epsilon", -1}}}}}))
                .find("policies[0].ldp.epsilon"),
            std::string::npos);
  // T smaller than MoMA's k (practical k = ⌈ln(4e·5/0.1)⌉ = 7 at T = 5).
  const std::string e = error_of(synthetic(5, {{{"type", "random"}}, {{"type", "moma_gp_ucb"}}}));
  EXPECT_NE(e.find("policies[1]"), std::string::npos) << e;
  EXPECT_NE(e.find("MoMA's k = 7"), std::string::npos) << e;
  // LDP on unbounded noise needs an explicit R.
  json st = synthetic(100, {{{"type", "ldp_tgp_ucb"}, {"epsilon", 1}}});
  st["noise"] = {{"type", "student_t"}, {"nu", 3}};
  EXPECT_NE(error_of(st).find("policies[0].R: required"), std::string::npos);
  st["policies"][0]["R"] = 5;
  EXPECT_EQ(error_of(st), "");
}

TEST(LdpConfig, PrivacyNoiseKeysAreChecked) {
  json j = synthetic(10, {{{"type", "random"}}});
  j["privacy_noise"] = "weak";
  EXPECT_NE(error_of(j).find("privacy_noise: must be secure or seeded"), std::string::npos);
  j["privacy_noise"] = "seeded";
  j["laplace_sampler"] = "box_muller";
  EXPECT_NE(error_of(j).find("laplace_sampler"), std::string::npos);
}

TEST(LdpConfig, KernelFileOfTheWrongShapeIsRejected) {
  TempDir dir;
  write_file(dir.file("data.csv"), "a,b,c\n1,2,3\n2,3,5\n4,1,1\n");
  write_file(dir.file("train.csv"), "a,b\n1,2\n2,3\n4,1\n");
  json j = json::parse(R"({"T": 5, "policies": [{"type": "random"}],
    "objective": {"type": "dataset", "path": "data.csv", "kernel_path": "train.csv"}})");
  const std::string e = error_of(j, dir.path());
  EXPECT_NE(e.find("objective.kernel_path"), std::string::npos) << e;
  EXPECT_NE(e.find("2 columns"), std::string::npos) << e;
  write_file(dir.file("train.csv"), "a,b,c\n1,2,3\n2,3,3\n4,1,3\n");  // zero-variance column 3
  EXPECT_NE(error_of(j, dir.path()).find("zero variance"), std::string::npos);
  write_file(dir.file("train.csv"), "a,b,c\n1,2,3\n2,3\n");
  EXPECT_NE(error_of(j, dir.path()).find("train.csv:3"), std::string::npos);
}

TEST(LdpConfig, CliExitsWithTwoOnABadEpsilon) {
  TempDir dir;
  write_file(dir.file("bad.json"),
             synthetic(100, {{{"type", "ldp_moma_gp_ucb"}, {"epsilon", -0.5}}}).dump());
  const auto r = gpb::test::run_cli("run " + dir.file("bad.json") + " --out " + dir.file("o"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("policies[0].epsilon"), std::string::npos) << r.output;
}

// ------------------------------------------------------------------ privacy in the runner

/// The reward column of runs.csv.
std::vector<double> rewards_of(const std::string& csv_path) {
  std::ifstream in(csv_path);
  std::string line;
  std::getline(in, line);
  std::vector<double> out;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string cell;
    for (int i = 0; i < 5 && std::getline(ss, cell, ','); ++i) {
    }
    out.push_back(std::stod(cell));
  }
  return out;
}

TEST(LdpRunner, SecureByDefaultSeededOnRequestAndSaidSo) {
  TempDir dir;
  json j = synthetic(30, {{{"type", "ldp_tgp_ucb"}, {"epsilon", 1}}});
  const auto run = [&](const json& cfg, const std::string& out) {
    gpb::run_experiment(gpb::parse_experiment_config(cfg.dump(), "c.json", "."), quiet(out));
    return json::parse(gpb::test::read_file(out + "/summary.json"));
  };
  const json s1 = run(j, dir.file("a"));
  const json s2 = run(j, dir.file("b"));
  EXPECT_EQ(s1["privacy_noise"], "secure");
  EXPECT_NE(rewards_of(dir.file("a/runs.csv")), rewards_of(dir.file("b/runs.csv")));
  j["privacy_noise"] = "seeded";
  j["laplace_sampler"] = "inverse_cdf";
  const json s3 = run(j, dir.file("c"));
  run(j, dir.file("d"));
  EXPECT_EQ(s3["privacy_noise"], "seeded simulation \u2014 not private");
  EXPECT_EQ(rewards_of(dir.file("c/runs.csv")), rewards_of(dir.file("d/runs.csv")));
  // The learner saw privatised rewards: with 𝓛 = 2(B+1) ≥ 2 they are far from f + U[−1,1].
  double max_abs = 0;
  for (double y : rewards_of(dir.file("c/runs.csv"))) max_abs = std::max(max_abs, std::abs(y));
  EXPECT_GT(max_abs, 1.0 + s3["instance"]["B_per_run"][0].get<double>());
  EXPECT_TRUE(s3["privacy"].contains("ldp_tgp_ucb"));
  EXPECT_EQ(s3["instance"]["R"], 1.0);
}

// ------------------------------------------------------------------ real-data instances

#ifndef GPB_SHARED_DATA_DIR
#define GPB_SHARED_DATA_DIR ""
#endif

/// The §6.2/§6.3 instance from ../shared/data, or nullopt (test skipped) when absent.
std::optional<gpb::ExperimentConfig> real_instance(const std::string& which) {
  const std::string root = GPB_SHARED_DATA_DIR;
  json j = {{"T", 20}, {"policies", {{{"type", "random"}}}}};
  if (which == "light") {
    j["objective"] = {{"type", "dataset"},
                      {"path", root + "/light-sensor/test.csv"},
                      {"kernel_path", root + "/light-sensor/train.csv"},
                      {"correlation", true}};
  } else {
    j["objective"] = {{"type", "dataset"},
                      {"path", root + "/stock/prices.csv"},
                      {"skip_columns", 1},
                      {"correlation", true}};
  }
  if (!std::filesystem::exists(j["objective"]["path"].get<std::string>())) return std::nullopt;
  return gpb::parse_experiment_config(j.dump(), which, ".");
}

void expect_sig4(double got, double want, const std::string& what) {
  EXPECT_LE(std::abs(got - want), 5e-4 * std::abs(want)) << what << ": got " << got;
}

struct Golden {
  const char* name;
  int n, best;
  double fmin, fmax, runner_up, B, R, v_emp, c_emp, lmin;
  double eps[2], L[2], vb[2], cb[2], ve[2], ce[2];
};

TEST(LdpInstances, GoldenValuesOfSection64) {
  const Golden golden[] = {{"light",
                            41,
                            3,
                            164.23,
                            945.54,
                            912.93,
                            945.54,
                            835.28,
                            3.7742e5,
                            8.2954e4,
                            5.67e-5,
                            {0.5, 1},
                            {7123.3, 3561.6},
                            {1.0307e8, 2.6962e7},
                            {1.0218e8, 2.6068e7},
                            {1.0186e8, 2.5748e7},
                            {1.0157e8, 2.5454e7}},
                           {"stock",
                            29,
                            2,
                            20.04,
                            237.33,
                            205.08,
                            237.33,
                            203.29,
                            14437.9,
                            754.22,
                            2.23e-3,
                            {0.5, 1},
                            {1762.5, 881.2},
                            {6.3103e6, 1.6508e6},
                            {6.2540e6, 1.5945e6},
                            {6.2271e6, 1.5676e6},
                            {6.2134e6, 1.5539e6}}};
  bool any = false;
  for (const Golden& g : golden) {
    const auto cfg = real_instance(g.name);
    if (!cfg) continue;
    any = true;
    const gpb::Context ctx;
    const Eigen::VectorXd f = cfg->objective->values(ctx, cfg->domain, 0, 0);
    ASSERT_EQ(f.size(), g.n);
    Eigen::Index best = 0;
    f.maxCoeff(&best);
    EXPECT_EQ(best, g.best) << g.name;
    Eigen::VectorXd rest = f;
    rest(best) = -1e300;
    expect_sig4(f.minCoeff(), g.fmin, std::string(g.name) + " f min");
    expect_sig4(rest.maxCoeff(), g.runner_up, std::string(g.name) + " runner-up");
    const double B = f.cwiseAbs().maxCoeff();
    expect_sig4(B, g.B, std::string(g.name) + " B");
    const auto rc = cfg->objective->reward_constants();
    ASSERT_TRUE(rc.has_value());
    expect_sig4(rc->noise_bound, g.R, std::string(g.name) + " R");
    expect_sig4(rc->reward_moment, g.v_emp, std::string(g.name) + " v_emp");
    expect_sig4(rc->noise_moment, g.c_emp, std::string(g.name) + " c_emp");
    const Eigen::MatrixXd& K = *cfg->kernel.matrix();
    EXPECT_EQ(K.diagonal(), Eigen::VectorXd::Ones(g.n));
    const double lmin = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(K).eigenvalues()(0);
    EXPECT_NEAR(lmin, g.lmin, 0.006 * g.lmin) << g.name;  // 3 significant digits in §6.4
    for (int i = 0; i < 2; ++i) {
      const double R = rc->noise_bound, L = 2 * (B + R) / g.eps[i];
      const std::string w = std::string(g.name) + " eps " + std::to_string(g.eps[i]);
      EXPECT_LE(std::abs(L - g.L[i]), 0.06) << w;  // 𝓛 given to one decimal
      expect_sig4(B * B + R * R + 2 * L * L, g.vb[i], w + " v bound");
      expect_sig4(R * R + 2 * L * L, g.cb[i], w + " c bound");
      expect_sig4(rc->reward_moment + 2 * L * L, g.ve[i], w + " v empirical");
      expect_sig4(rc->noise_moment + 2 * L * L, g.ce[i], w + " c empirical");
    }
  }
  if (!any)
    GTEST_SKIP() << "../shared/data (light-sensor, stock) not found under " << GPB_SHARED_DATA_DIR
                 << "; golden values not checked";
}

// ------------------------------------------------------------------ sublinear regret

TEST(LdpRegret, EveryPolicyIsSublinearOnTheSyntheticInstance) {
  TempDir dir;
  const json policies = json::parse(R"([
    {"type": "gp_ucb", "label": "gp"},
    {"type": "tgp_ucb", "label": "tgp"},
    {"type": "ata_gp_ucb", "label": "ata"},
    {"type": "moma_gp_ucb", "label": "moma"},
    {"type": "ldp_tgp_ucb", "label": "ldp_tgp", "epsilon": 4},
    {"type": "ldp_ata_gp_ucb", "label": "ldp_ata", "epsilon": 4},
    {"type": "ldp_moma_gp_ucb", "label": "ldp_moma", "epsilon": 4}])");
  std::map<std::string, double> per_round[2];
  const int horizons[2] = {500, 4000};
  for (int h = 0; h < 2; ++h) {
    json j = synthetic(horizons[h], policies);
    j["runs"] = 3;
    j["privacy_noise"] = "seeded";
    j["objective"]["fixed"] = false;
    const auto res = gpb::run_experiment(gpb::parse_experiment_config(j.dump(), "c.json", "."),
                                         quiet(dir.file("T" + std::to_string(horizons[h]))));
    for (const auto& p : res.policies) per_round[h][p.label] = p.cumulative_mean / horizons[h];
  }
  for (const auto& [label, r500] : per_round[0]) {
    EXPECT_LT(per_round[1][label], r500)
        << label << ": R_T/T at T = 500 " << r500 << ", at T = 4000 " << per_round[1][label];
  }
}

}  // namespace
