// `gpbandit run` on DP-GIBO configs: a small run writes runs.csv and summary.json with the privacy
// ledger; bad input (μ ≤ 0, B ≤ 0, n < 1, T < 1, b above the cap 2d, a request above the privacy
// budget) stops with one message naming the field, exit code 2, and nothing written. The SVR task
// loads libsvm when it runs (libgpbandit does not link it): a missing libsvm is one message.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace gpb {
namespace {
namespace fs = std::filesystem;

std::string config(const std::string& method, const std::string& task_extra = "",
                   const std::string& top_extra = "") {
  return R"({"experiment": "dp-gibo", "name": "t", "seed": 3, "runs": 2,
    "privacy_noise": "seeded", )" +
         top_extra + R"(
    "task": {"type": "normal_location", "d": 2, "n": 20)" +
         task_extra + R"(},
    "methods": [)" +
         method + R"(,
      {"type": "random_search", "label": "random", "match": "DP"}]})";
}

const std::string kGood = R"({"type": "dp_gibo", "label": "DP", "mu": 1, "B": 1, "T": 4, "b": 3,
                              "n_cand": 16})";

TEST(DpGiboCli, SmallRunWritesOutputsWithTheLedger) {
  test::TempDir dir;
  test::write_file(dir.file("c.json"), config(kGood, "", R"("privacy_budget_mu": 1,)"));
  const auto r = test::run_cli("run " + dir.file("c.json") + " --out " + dir.file("out") +
                               " --quiet --no-plot");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto sj = nlohmann::json::parse(test::read_file(dir.file("out/summary.json")));
  EXPECT_EQ(sj["privacy_noise"], "seeded simulation — not private");
  const auto& dp = sj["policies"][0];
  EXPECT_EQ(dp["label"], "DP");
  EXPECT_DOUBLE_EQ(dp["evaluations_mean"].get<double>(), 12.0);  // T·b
  EXPECT_NEAR(dp["privacy"]["mu_spent"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(dp["privacy"]["noise_std"].get<double>(), 2.0 * 1 * 2 / (20 * 1.0), 1e-12);
  EXPECT_NEAR(dp["privacy"]["delta_at_epsilon"]["1"].get<double>(), 0.126937, 1e-6);
  EXPECT_DOUBLE_EQ(sj["policies"][1]["evaluations_mean"].get<double>(), 12.0);  // matched
  const std::string csv = test::read_file(dir.file("out/runs.csv"));
  EXPECT_EQ(csv.rfind("method,run,t,b,evaluations,trace,loss", 0), 0u);
  // 2 runs × (T + 1) rows of DP + 2 runs × 12 rows of random search + header.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 5 + 2 * 12);
}

void expect_rejected(const std::string& cfg, const std::string& field) {
  test::TempDir dir;
  test::write_file(dir.file("c.json"), cfg);
  const auto r = test::run_cli("run " + dir.file("c.json") + " --out " + dir.file("out") +
                               " --quiet --no-plot");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(field), std::string::npos) << "wanted '" << field << "' in: " << r.output;
  EXPECT_FALSE(fs::exists(dir.file("out"))) << "output written for a rejected config";
}

TEST(DpGiboCli, BadInputExitsTwoNamingTheField) {
  auto with = [](const std::string& key, const std::string& value) {
    std::string m = kGood;
    const auto pos = m.find("\"" + key + "\": ");
    const auto end = m.find_first_of(",}", pos);
    return m.substr(0, pos) + "\"" + key + "\": " + value + m.substr(end);
  };
  expect_rejected(config(with("mu", "0")), "methods[0].mu");
  expect_rejected(config(with("mu", "-1")), "methods[0].mu");
  expect_rejected(config(with("B", "0")), "methods[0].B");
  expect_rejected(config(with("T", "0")), "methods[0].T");
  expect_rejected(config(with("b", "5")), "methods[0].b");  // cap 2d = 4
  expect_rejected(config(kGood, R"(, "n": 0)").replace(config(kGood).find("\"n\": 20"), 9, ""),
                  "task.n");
  expect_rejected(config(kGood, "", R"("privacy_budget_mu": 0.5,)"), "exceeds privacy_budget_mu");
  expect_rejected(config(R"({"type": "dp_gibo", "label": "DP", "mu": 1, "oops": 1})"),
                  "unknown key 'oops' in methods[0]");
  expect_rejected(config(kGood, "", R"("eval_noise": "shared",)"), "eval_noise: must be");
}

TEST(DpGiboCli, SharedPerPointNoiseIsRecorded) {
  // spec §7 decision 6's literal option: the summary says which noise ran (only when not the
  // default, so summaries of per-user runs are unchanged).
  test::TempDir dir;
  test::write_file(dir.file("c.json"),
                   config(kGood, "", R"("eval_noise_sd": 0.1, "eval_noise": "shared_per_point",)"));
  const auto r = test::run_cli("run " + dir.file("c.json") + " --out " + dir.file("out") +
                               " --quiet --no-plot");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto sj = nlohmann::json::parse(test::read_file(dir.file("out/summary.json")));
  EXPECT_EQ(sj["eval_noise"], "shared_per_point");
  test::write_file(dir.file("d.json"), config(kGood, "", R"("eval_noise_sd": 0.1,)"));
  const auto r2 = test::run_cli("run " + dir.file("d.json") + " --out " + dir.file("out2") +
                                " --quiet --no-plot");
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  EXPECT_FALSE(
      nlohmann::json::parse(test::read_file(dir.file("out2/summary.json"))).contains("eval_noise"));
}

TEST(DpGiboCli, TheSvrTaskLoadsLibsvmOnlyWhenItRuns) {
  // libgpbandit needs no libsvm (a wheel or a program that never runs this task works without
  // it); the task finds it at run time, or says what is missing.
  const std::string lib = fs::path(GPB_CLI_PATH).parent_path().string() + "/libgpbandit.so";
  const auto needed = test::run_command("readelf -d '" + lib + "'");
  ASSERT_EQ(needed.exit_code, 0) << needed.output;
  EXPECT_NE(needed.output.find("libgomp"), std::string::npos) << needed.output;  // it reads them
  EXPECT_EQ(needed.output.find("libsvm"), std::string::npos) << needed.output;
  test::TempDir dir;
  test::write_file(dir.file("c.json"), R"({"experiment": "dp-gibo", "name": "svr", "seed": 1,
    "runs": 1, "task": {"type": "svr_friedman", "p": 5, "n_train": 30, "n": 20},
    "methods": [{"type": "random_search", "label": "random", "evaluations": 2}]})");
  const std::string cli = "'" + std::string(GPB_CLI_PATH) + "' run '" + dir.file("c.json") +
                          "' --quiet --no-plot --out '";
#if GPB_HAS_LIBSVM
  auto r = test::run_command(cli + dir.file("ok") + "' 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
#endif
  auto r2 =
      test::run_command("GPB_LIBSVM=/nonexistent/libsvm.so.3 " + cli + dir.file("no") + "' 2>&1");
  EXPECT_EQ(r2.exit_code, 2) << r2.output;
  EXPECT_NE(r2.output.find("svr_friedman needs libsvm"), std::string::npos) << r2.output;
  EXPECT_EQ(std::count(r2.output.begin(), r2.output.end(), '\n'), 1) << r2.output;
  EXPECT_FALSE(fs::exists(dir.file("no/runs.csv")));
}

TEST(DpGiboCli, GpLengthscaleInputRangeKey) {
  // "input_range": "scaled" (default, √(15/d)) or a number > 0 (specs/dp-gibo.md §8).
  const std::string method =
      R"({"type": "gibo", "label": "DP", "B": 3, "T": 2, "b": 3, "n_cand": 8})";
  auto cfg = [&](const std::string& extra) {
    std::string c = config(method);
    const std::string task = R"("task": {"type": "normal_location", "d": 2, "n": 20)";
    c.replace(c.find(task), task.size(),
              R"("task": {"type": "gp_lengthscale", "d": 2, "n_train": 30, "n": 20)" + extra);
    return c;
  };
  auto task_of = [](const std::string& c) {
    test::TempDir dir;
    test::write_file(dir.file("c.json"), c);
    const auto r = test::run_cli("run " + dir.file("c.json") + " --out " + dir.file("out") +
                                 " --quiet --no-plot");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return nlohmann::json::parse(test::read_file(dir.file("out/summary.json")))["task"]
        .get<std::string>();
  };
  EXPECT_NE(task_of(cfg("")).find("U[0, 2.73861]^d"), std::string::npos);  // √(15/2)
  EXPECT_NE(task_of(cfg(R"(, "input_range": "scaled")")).find("U[0, 2.73861]^d"),
            std::string::npos);
  EXPECT_EQ(task_of(cfg(R"(, "input_range": 1)")), "gp_lengthscale(d=2, n_train=30, n=20)");
  EXPECT_NE(task_of(cfg(R"(, "input_range": 3)")).find("U[0, 3]^d"), std::string::npos);
  expect_rejected(cfg(R"(, "input_range": 0)"), "task.input_range");
  expect_rejected(cfg(R"(, "input_range": "wide")"), "task.input_range");
  expect_rejected(cfg(R"(, "input_range": [1, 2])"), "task.input_range");
}

TEST(DpGiboCli, PolynomialKernelAndJointDesignKeys) {
  const std::string poly = R"({"type": "dp_gibo", "label": "DP", "mu": 1, "B": 1, "T": 3,
    "b": 3, "n_cand": 8, "n_restart": 1, "n_steps": 3, "kernel": "polynomial", "acq": "joint",
    "sweeps": 1, "sigma2": 0)";
  test::TempDir dir;
  test::write_file(dir.file("c.json"), config(poly + "}"));
  const auto r = test::run_cli("run " + dir.file("c.json") + " --out " + dir.file("out") +
                               " --quiet --no-plot");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto sj = nlohmann::json::parse(test::read_file(dir.file("out/summary.json")));
  EXPECT_DOUBLE_EQ(sj["policies"][0]["evaluations_mean"].get<double>(), 9.0);
  EXPECT_GT(sj["policies"][0]["bias_norm_mean"].get<double>(), 0.0);  // normal location: ∇L_i known
  EXPECT_EQ(sj["policies"][0]["curve"]["bias_mean"].size(), 4u);
  expect_rejected(config(poly + R"(, "lengthscale": 0.5})"), "methods[0].lengthscale");
  expect_rejected(config(poly + R"(, "degree": 3})"), "methods[0].degree");
  expect_rejected(config(poly + R"(, "poly_impl": "dual"})"), "methods[0].poly_impl");
  expect_rejected(config(poly + R"(, "r_box": 0})"), "methods[0].r_box");
  expect_rejected(config(R"({"type": "dp_gibo", "label": "DP", "mu": 1, "degree": 2})"),
                  "methods[0].degree");
  expect_rejected(config(R"({"type": "dp_gibo", "label": "DP", "mu": 1, "sweeps": 2})"),
                  "methods[0].sweeps");
  expect_rejected(config(R"({"type": "dp_gibo", "label": "DP", "mu": 1, "acq": "best"})"),
                  "methods[0].acq");
}

}  // namespace
}  // namespace gpb
