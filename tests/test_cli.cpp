// The gpbandit CLI end to end: outputs, exit codes, one-line errors, --resume, atomic outputs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "gpbandit/build_config.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpb::test::read_file;
using gpb::test::TempDir;
using gpb::test::write_file;
using nlohmann::json;

/// Exit code, stdout and stderr of one CLI invocation (stderr kept apart).
struct Cli {
  int code = -1;
  std::string out, err;
};

Cli cli(const TempDir& dir, const std::string& args, const std::string& env = "") {
  const std::string o = dir.file(".stdout"), e = dir.file(".stderr");
  const auto r = gpb::test::run_command("{ " + env + " '" + std::string(GPB_CLI_PATH) + "' " +
                                        args + " >'" + o + "' 2>'" + e + "'; }");
  Cli c{r.exit_code, read_file(o), read_file(e)};
  fs::remove(o);
  fs::remove(e);
  return c;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// A tiny experiment: N = 50, T = 20, 3 runs, 3 policies.
json tiny() {
  return json::parse(R"({
    "name": "tiny", "seed": 7, "runs": 3, "T": 20, "backend": "cpu",
    "domain": {"type": "grid", "lower": [0], "upper": [1], "counts": [50]},
    "kernel": {"type": "se", "lengthscale": 0.2},
    "objective": {"type": "rkhs", "support": 10},
    "noise": {"type": "gaussian", "sd": 0.1},
    "policies": [{"type": "gp_ucb", "label": "GP-UCB"},
                 {"type": "batch_gp_ucb", "label": "BUCB", "q": 3},
                 {"type": "random"}]
  })");
}

std::string write_config(const TempDir& dir, const json& j, const std::string& name = "cfg.json") {
  write_file(dir.file(name), j.dump(2));
  return dir.file(name);
}

bool matplotlib_available() {
  return gpb::test::run_command(std::string("'") + GPB_PYTHON_DEFAULT + "' -c 'import matplotlib'")
             .exit_code == 0;
}

/// Names in `dir` that look like temporary files of an atomic write.
std::vector<std::string> temp_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (contains(e.path().filename().string(), ".tmp-")) out.push_back(e.path().string());
  }
  return out;
}

void expect_finite_numbers(const json& j, const std::string& where) {
  if (j.is_number()) {
    EXPECT_TRUE(std::isfinite(j.get<double>())) << where;
  } else if (j.is_structured()) {
    for (const auto& [k, v] : j.items()) expect_finite_numbers(v, where + "." + k);
  } else {
    EXPECT_FALSE(j.is_null()) << where;
  }
}

TEST(Cli, RunWritesCsvSummaryAndPlot) {
  TempDir dir;
  const std::string cfg = write_config(dir, tiny());
  const std::string out = dir.file("out");
  const Cli c = cli(dir, "run '" + cfg + "' --out '" + out + "' --quiet");
  ASSERT_EQ(c.code, 0) << c.out << c.err;
  EXPECT_EQ(c.err, "");
  EXPECT_TRUE(contains(c.out, "GP-UCB")) << c.out;
  EXPECT_TRUE(contains(c.out, out + "/runs.csv")) << c.out;
  EXPECT_TRUE(contains(c.out, out + "/summary.json")) << c.out;

  const std::string csv = read_file(out + "/runs.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "run,policy,round,chosen,reward,instant_regret,cumulative_regret,simple_regret");
  EXPECT_EQ(lines(csv), 1 + 3 * 20 * 3);
  EXPECT_TRUE(contains(csv, "\n0,BUCB,7,")) << "rounds of q = 3: 7 rounds for T = 20";
  EXPECT_FALSE(contains(csv, "\n0,BUCB,8,"));

  const json s = json::parse(read_file(out + "/summary.json"));
  for (const char* key : {"name", "version", "backend", "config", "seed", "runs", "T", "N", "d",
                          "timings", "curve_evaluations", "policies"}) {
    EXPECT_TRUE(s.contains(key)) << key;
  }
  EXPECT_EQ(s["name"], "tiny");
  EXPECT_EQ(s["version"], GPB_VERSION);
  EXPECT_EQ(s["runs"], 3);
  EXPECT_EQ(s["T"], 20);
  EXPECT_EQ(s["N"], 50);
  EXPECT_EQ(s["d"], 1);
  EXPECT_EQ(s["seed"], 7);
  EXPECT_EQ(s["config"], tiny());
  EXPECT_TRUE(s["timings"].contains("total_seconds"));
  ASSERT_EQ(s["policies"].size(), 3u);
  for (const auto& p : s["policies"]) {
    for (const char* key : {"label", "cumulative_regret", "simple_regret", "seconds",
                            "mean_cumulative_regret_curve"}) {
      EXPECT_TRUE(p.contains(key)) << key;
    }
    EXPECT_TRUE(p["cumulative_regret"].contains("mean"));
    EXPECT_TRUE(p["cumulative_regret"].contains("sd"));
    EXPECT_EQ(p["mean_cumulative_regret_curve"].size(), s["curve_evaluations"].size());
    ASSERT_EQ(p["sd_cumulative_regret_curve"].size(), s["curve_evaluations"].size());
    EXPECT_EQ(s["curve_evaluations"].back(), 20);  // the last curve point is R_T
    EXPECT_NEAR(p["sd_cumulative_regret_curve"].back().get<double>(),
                p["cumulative_regret"]["sd"].get<double>(), 1e-9);
    EXPECT_NEAR(p["mean_cumulative_regret_curve"].back().get<double>(),
                p["cumulative_regret"]["mean"].get<double>(), 1e-9);
    ASSERT_EQ(p["mean_simple_regret_curve"].size(), s["curve_evaluations"].size());
    EXPECT_NEAR(p["mean_simple_regret_curve"].back().get<double>(),
                p["simple_regret"]["mean"].get<double>(), 1e-9);
    EXPECT_NEAR(p["sd_simple_regret_curve"].back().get<double>(),
                p["simple_regret"]["sd"].get<double>(), 1e-9);
    ASSERT_EQ(p["simple_regret_per_run"].size(), p["cumulative_regret_per_run"].size());
    double simple_sum = 0;  // the per-run values behind simple_regret.mean (paired verdicts)
    for (const auto& v : p["simple_regret_per_run"]) simple_sum += v.get<double>();
    EXPECT_NEAR(simple_sum / p["simple_regret_per_run"].size(),
                p["simple_regret"]["mean"].get<double>(), 1e-9);
    for (std::size_t k = 1; k < p["mean_simple_regret_curve"].size(); ++k) {  // non-increasing
      EXPECT_LE(p["mean_simple_regret_curve"][k].get<double>(),
                p["mean_simple_regret_curve"][k - 1].get<double>());
    }
    EXPECT_GE(p["cumulative_regret"]["mean"].get<double>(), 0.0);
  }
  expect_finite_numbers(s, "summary");

  if (matplotlib_available()) {
    const std::string png = read_file(out + "/regret.png");
    ASSERT_GE(png.size(), 8u);
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_TRUE(contains(c.out, out + "/regret.png")) << c.out;
  } else {
    EXPECT_TRUE(contains(c.out, "no plot")) << c.out;
  }
  EXPECT_FALSE(fs::exists(out + "/.checkpoint"));
  EXPECT_TRUE(temp_files(out).empty());
}

TEST(Cli, NoPlotWithoutMatplotlib) {
  TempDir dir;
  const std::string cfg = write_config(dir, tiny());
  // An interpreter that cannot see matplotlib (site-packages disabled).
  write_file(dir.file("py"), "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n");
  fs::permissions(dir.file("py"), fs::perms::owner_all);
  const std::string out = dir.file("out");
  const Cli c = cli(dir, "run '" + cfg + "' --out '" + out + "' --quiet",
                    "GPB_PYTHON='" + dir.file("py") + "'");
  ASSERT_EQ(c.code, 0) << c.out << c.err;
  EXPECT_TRUE(contains(c.out, "no plot: matplotlib is not installed")) << c.out;
  EXPECT_FALSE(fs::exists(out + "/regret.png"));
  EXPECT_TRUE(fs::exists(out + "/runs.csv"));
  const Cli d = cli(dir, "run '" + cfg + "' --out '" + out + "' --quiet --no-plot");
  ASSERT_EQ(d.code, 0);
  EXPECT_TRUE(contains(d.out, "no plot")) << d.out;
}

TEST(Cli, BadInputExitsTwoWithOneLineNamingTheField) {
  TempDir dir;
  struct Case {
    std::string name;
    json config;
    std::string field;
  };
  std::vector<Case> cases;
  json j = tiny();
  j["bogus"] = 1;
  cases.push_back({"unknown top key", j, "unknown key 'bogus' at top level"});
  j = tiny();
  j["kernel"]["lenghtscale"] = 1;
  cases.push_back({"unknown nested key", j, "unknown key 'lenghtscale' in kernel"});
  j = tiny();
  j["runs"] = "3";
  cases.push_back({"wrong type", j, "runs: expected an integer, got string"});
  j = tiny();
  j["T"] = 0;
  cases.push_back({"T = 0", j, "T: must be >= 1"});
  j = tiny();
  j["kernel"]["lengthscale"] = -0.5;
  cases.push_back({"lengthscale", j, "kernel.lengthscale: must be > 0, got -0.5"});
  j = tiny();
  j["noise_variance"] = 0;
  cases.push_back({"noise_variance", j, "noise_variance: must be > 0"});
  j = tiny();
  j["domain"]["counts"] = json::array({0});
  cases.push_back({"N = 0", j, "domain.counts[0]"});
  j = tiny();
  j["policies"][1]["q"] = 51;
  j["policies"][1]["distinct"] = true;
  cases.push_back({"q > N", j, "policies[1].q: must be <= N = 50"});
  j = tiny();
  j["policies"][2]["label"] = "GP-UCB";
  cases.push_back({"duplicate label", j, "policies[2].label: duplicate label"});
  j = tiny();
  j["domain"] = {{"type", "csv"}, {"path", "missing.csv"}};
  cases.push_back({"missing data file", j, "domain.path: data file not found"});
  for (const auto& c : cases) {
    const std::string cfg = write_config(dir, c.config);
    const Cli r = cli(dir, "run '" + cfg + "' --out '" + dir.file("o") + "'");
    EXPECT_EQ(r.code, 2) << c.name << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1) << c.name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("gpbandit: error: ", 0), 0u) << c.name << ": " << r.err;
    EXPECT_TRUE(contains(r.err, c.field)) << c.name << ": " << r.err;
    EXPECT_TRUE(contains(r.err, cfg)) << c.name << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(dir.file("o")));
}

TEST(Cli, BadFlagsAndFilesExitTwo) {
  TempDir dir;
  const std::string cfg = write_config(dir, tiny());
  write_file(dir.file("broken.json"), "{\n \"runs\": 3,\n \"T\" 20\n}\n");
  for (const std::string& args : std::vector<std::string>{
           "run '" + dir.file("nope.json") + "'", "run '" + cfg + "' --bogus",
           "run '" + cfg + "' --backend gpu", "run '" + cfg + "' --runs 0", "run",
           "run '" + dir.file("broken.json") + "'", "list widgets", "frobnicate"}) {
    const Cli r = cli(dir, args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("gpbandit: error: ", 0), 0u) << args << ": " << r.err;
  }
  const Cli r = cli(dir, "run '" + dir.file("broken.json") + "'");
  EXPECT_TRUE(contains(r.err, "broken.json:3:")) << r.err;
}

TEST(Cli, CudaWithoutDeviceExitsTwo) {
  if (gpb::Context::cuda_compiled() && gpb::Context::cuda_device_count() > 0) {
    GTEST_SKIP() << "a CUDA device is present";
  }
  TempDir dir;
  const std::string cfg = write_config(dir, tiny());
  const Cli r = cli(dir, "run '" + cfg + "' --backend cuda --out '" + dir.file("o") + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_TRUE(contains(r.err, "CUDA")) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("o")));
}

TEST(Cli, ListMentionsEveryPolicyAndType) {
  TempDir dir;
  const Cli all = cli(dir, "list");
  ASSERT_EQ(all.code, 0) << all.err;
  for (const auto& e : gpb::registry()) {
    EXPECT_TRUE(contains(all.out, e.name)) << e.kind << " " << e.name;
    for (const auto& p : e.params) EXPECT_TRUE(contains(all.out, p.name)) << p.name;
  }
  const Cli pol = cli(dir, "list policies");
  ASSERT_EQ(pol.code, 0);
  for (const char* name : {"gp_ucb", "batch_gp_ucb", "random", "srinivas", "igp_ucb"}) {
    EXPECT_TRUE(contains(pol.out, name)) << name;
  }
  EXPECT_FALSE(contains(pol.out, "matern52"));
  for (const char* what : {"objectives", "kernels", "noise", "domains"}) {
    EXPECT_EQ(cli(dir, std::string("list ") + what).code, 0) << what;
  }
}

TEST(Cli, ListDocumentsOptimizerAndCommandConfigs) {
  TempDir dir;
  const Cli opt = cli(dir, "list optimizer");
  ASSERT_EQ(opt.code, 0) << opt.err;
  for (const char* key : {"domain", "acquisition", "goal", "allow_outside", "match_tolerance",
                          "ucb", "ts", "ei", "min_observations", "sobol", "npy"}) {
    EXPECT_TRUE(contains(opt.out, key)) << key;
  }
  const Cli cmd = cli(dir, "list command");
  ASSERT_EQ(cmd.code, 0) << cmd.err;
  for (const char* key : {"T", "q", "objective", "cmd", "timeout_s"}) {
    EXPECT_TRUE(contains(cmd.out, key)) << key;
  }
  EXPECT_FALSE(contains(cmd.out, "acquisition"));
}

TEST(Cli, RunDashReadsTheConfigFromStdin) {
  TempDir dir;
  const std::string cfg = write_config(dir, tiny());
  const Cli piped =
      cli(dir, "run - --quiet --no-plot --out '" + dir.file("a") + "' < '" + cfg + "'");
  ASSERT_EQ(piped.code, 0) << piped.err;
  ASSERT_EQ(cli(dir, "run '" + cfg + "' --quiet --no-plot --out '" + dir.file("b") + "'").code, 0);
  EXPECT_EQ(read_file(dir.file("a") + "/runs.csv"), read_file(dir.file("b") + "/runs.csv"));
  const Cli empty = cli(dir, "run - < /dev/null");
  EXPECT_EQ(empty.code, 2);
  EXPECT_EQ(empty.err, "gpbandit: error: run -: no config on stdin\n");
}

TEST(Cli, Version) {
  TempDir dir;
  const Cli r = cli(dir, "--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, std::string("gpbandit ") + GPB_VERSION + " (" +
                       (GPB_HAS_CUDA ? "cuda+cpu" : "cpu") + " build)\n");
}

TEST(Cli, ResumeAfterInterruptionIsByteIdentical) {
  TempDir dir;
  json j = tiny();
  j["lockstep"] = 1;  // 3 groups × 3 policies = 9 checkpoints
  const std::string cfg = write_config(dir, j);
  const std::string ref = dir.file("ref"), out = dir.file("out");
  ASSERT_EQ(cli(dir, "run '" + cfg + "' --out '" + ref + "' --quiet --no-plot").code, 0);

  const Cli stopped = cli(dir, "run '" + cfg + "' --out '" + out + "' --quiet --no-plot",
                          "GPB_TEST_STOP_AFTER_GROUPS=4");
  ASSERT_EQ(stopped.code, 75) << stopped.err;
  EXPECT_TRUE(fs::exists(out + "/.checkpoint/state.json"));
  EXPECT_FALSE(fs::exists(out + "/runs.csv"));  // nothing final, nothing half-written
  EXPECT_FALSE(fs::exists(out + "/summary.json"));
  EXPECT_TRUE(temp_files(out).empty());

  // A different config (seed override) must not pick up this checkpoint.
  const Cli other = cli(dir, "run '" + cfg + "' --out '" + out + "' --quiet --resume --seed 8");
  EXPECT_EQ(other.code, 2);
  EXPECT_TRUE(contains(other.err, "belongs to a different experiment: seed")) << other.err;
  EXPECT_EQ(lines(other.err), 1);

  // Stop once more part-way through the resumed run, then finish.
  ASSERT_EQ(cli(dir, "run '" + cfg + "' --out '" + out + "' --quiet --no-plot --resume",
                "GPB_TEST_STOP_AFTER_GROUPS=2")
                .code,
            75);
  const Cli resumed = cli(dir, "run '" + cfg + "' --out '" + out + "' --quiet --no-plot --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(read_file(out + "/runs.csv"), read_file(ref + "/runs.csv"));
  const json a = json::parse(read_file(ref + "/summary.json"));
  const json b = json::parse(read_file(out + "/summary.json"));
  EXPECT_EQ(a["policies"][0]["cumulative_regret"], b["policies"][0]["cumulative_regret"]);
  EXPECT_FALSE(fs::exists(out + "/.checkpoint"));
}

TEST(Cli, ResultsDoNotDependOnLockstepGrouping) {
  TempDir dir;
  json j = tiny();
  j["policies"] = json::array({{{"type", "random"}}});
  const std::string all = write_config(dir, j, "all.json");
  j["lockstep"] = 2;
  const std::string two = write_config(dir, j, "two.json");
  ASSERT_EQ(cli(dir, "run '" + all + "' --out '" + dir.file("a") + "' --quiet --no-plot").code, 0);
  ASSERT_EQ(cli(dir, "run '" + two + "' --out '" + dir.file("b") + "' --quiet --no-plot").code, 0);
  EXPECT_EQ(read_file(dir.file("a/runs.csv")), read_file(dir.file("b/runs.csv")));
}

TEST(Cli, UnwritableOutputDirectory) {
  TempDir dir;
  const std::string cfg = write_config(dir, tiny());
  write_file(dir.file("file.txt"), "x");
  const std::string out = dir.file("file.txt") + "/sub/out";
  const Cli r = cli(dir, "run '" + cfg + "' --out '" + out + "' --quiet");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_TRUE(contains(r.err, out)) << r.err;
  EXPECT_EQ(read_file(dir.file("file.txt")), "x");
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(dir.path())) entries.push_back(e.path().filename());
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"cfg.json", "file.txt"}));
}

TEST(Cli, DefaultOutputIsResultsName) {
  TempDir dir;
  const std::string cfg = write_config(dir, tiny());
  const Cli r =
      cli(dir, "run '" + cfg + "' --quiet --no-plot --runs 1", "cd '" + dir.path() + "' &&");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir.file("results/tiny/runs.csv")));
  EXPECT_EQ(lines(read_file(dir.file("results/tiny/runs.csv"))), 1 + 1 * 20 * 3);
}

}  // namespace
