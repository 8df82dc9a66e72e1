// Composite kernels in the experiment config of `gpbandit run` (the optimizer config's parser,
// experiment/kernel_config.hpp): "kernel": {"combine", "parts": [{"features": [b, e), ...}]} on
// any finite domain; the refusals name the field (exit code 2 in the CLI); a product of SE parts,
// one per axis, runs like the equal SE ARD kernel; gp_sample objectives draw from a sum kernel by
// random Fourier features.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "shell_quote.hpp"
#include "test_support.hpp"

namespace {

using gpb::KernelType;
using gpb::test::contains;
using gpb::test::q;
const auto& error_of = gpb::test::invalid_argument_of;

/// A 2-d grid experiment (GP-UCB and random search) with `kernel` and `objective`.
std::string config(const std::string& kernel,
                   const std::string& objective = R"({"type": "rkhs", "support": 20})") {
  return R"({"name": "parts", "seed": 3, "runs": 2, "T": 15, "backend": "cpu", "threads": 1,
    "domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [15, 15]},
    "noise": {"type": "gaussian", "sd": 0.05}, "objective": )" +
         objective + R"(, "kernel": )" + kernel + R"(,
    "policies": [{"type": "gp_ucb", "label": "GP-UCB"}, {"type": "random", "label": "random"}]})";
}

gpb::ExperimentConfig parse(const std::string& kernel) {
  return gpb::parse_experiment_config(config(kernel), "cfg.json", ".");
}

TEST(ExperimentKernelParts, ConfigTakesPartsByFeatureRange) {
  const gpb::ExperimentConfig p = parse(R"({"combine": "product", "variance": 1.5,
      "parts": [{"features": [0, 1], "type": "se", "lengthscale": 0.2},
                {"features": [1, 2], "lengthscale": 0.3}]})");
  ASSERT_EQ(p.kernel.type(), KernelType::Product);
  ASSERT_EQ(p.kernel.parts().size(), 2u);
  EXPECT_EQ(p.kernel.parts()[0].type, KernelType::SE);
  EXPECT_EQ(p.kernel.parts()[1].type, KernelType::Matern52);  // kernel.type's default
  EXPECT_EQ(p.kernel.parts()[1].begin, 1);
  EXPECT_EQ(p.kernel.parts()[1].lengthscales[0], 0.3);
  EXPECT_EQ(p.kernel.variance(), 1.5);
  const gpb::ExperimentConfig s = parse(R"({"combine": "sum", "type": "matern32",
      "parts": [{"features": [0, 1], "variance": 0.25}, {"features": [1, 2]}]})");
  ASSERT_EQ(s.kernel.type(), KernelType::Sum);
  EXPECT_EQ(s.kernel.parts()[0].type, KernelType::Matern32);
  EXPECT_EQ(s.kernel.parts()[0].variance, 0.25);
  EXPECT_EQ(s.kernel.parts()[1].variance, 0.5);  // 1 / number of parts
}

TEST(ExperimentKernelParts, RefusalsNameTheField) {
  const auto err = [](const std::string& kernel) { return error_of([&] { parse(kernel); }); };
  EXPECT_TRUE(contains(err(R"({"combine": "max", "parts": [{"features": [0, 2]}]})"),
                       "cfg.json: kernel.combine: must be \"product\" or \"sum\", got \"max\""));
  EXPECT_TRUE(contains(err(R"({"combine": "sum", "parts": [{"parameters": ["x"]}]})"),
                       "kernel.parts[0].parameters: the domain has no named parameters"));
  EXPECT_TRUE(
      contains(err(R"({"parts": [{"features": [0, 1]}, {"features": [1, 3]}]})"),
               "kernel.parts[1].features: must be [begin, end) with 0 <= begin < end <= 2"));
  EXPECT_TRUE(contains(err(R"({"parts": [{"features": [0, 1]}]})"),
                       "kernel.parts: cover features [0, 1) but the domain has dimension 2"));
  EXPECT_TRUE(
      contains(err(R"({"parts": [{"features": [0, 2], "type": "tanimoto"}]})"), "kernel.parts[0]"));
  EXPECT_TRUE(contains(err(R"({"parts": [{"features": [0, 2], "lenghtscale": 1}]})"),
                       "unknown key 'lenghtscale' in kernel.parts[0]"));
  EXPECT_TRUE(contains(err(R"({"combine": "sum", "variance": 2, "parts": [{"features": [0, 2]}]})"),
                       "kernel.variance: a sum has one variance per part"));
}

// PO-GP-UCB's curator keeps distances, not coordinates: a composite kernel is refused naming the
// policy's entry, not deep inside the run.
TEST(ExperimentKernelParts, PoGpUcbRefusesACompositeKernelNamingItsEntry) {
  std::string cfg = config(R"({"combine": "product", "parts": [{"features": [0, 1]},
                                                                {"features": [1, 2]}]})");
  const std::string gp = R"({"type": "gp_ucb", "label": "GP-UCB"})";
  cfg.replace(cfg.find(gp), gp.size(), R"({"type": "po_gp_ucb", "label": "PO", "epsilon": 1})");
  const std::string err = error_of([&] { gpb::parse_experiment_config(cfg, "cfg.json", "."); });
  EXPECT_TRUE(contains(err, "cfg.json: policies[0].type: po_gp_ucb needs a stationary kernel"))
      << err;
  EXPECT_TRUE(contains(err, "product(")) << err;
}

/// Runs `cfg` with the CLI into dir/out; the summary.
nlohmann::json run(const gpb::test::TempDir& dir, const std::string& name, const std::string& cfg) {
  gpb::test::write_file(dir.file(name + ".json"), cfg);
  const auto r = gpb::test::run_cli("run " + q(dir.file(name + ".json")) + " --out " +
                                    q(dir.file(name)) + " --quiet --no-plot");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return nlohmann::json::parse(gpb::test::read_file(dir.file(name + "/summary.json")));
}

std::vector<double> regrets(const nlohmann::json& summary, const std::string& label) {
  for (const auto& p : summary.at("policies")) {
    if (p.at("label") == label) return p.at("cumulative_regret_per_run").get<std::vector<double>>();
  }
  ADD_FAILURE() << "no policy " << label;
  return {};
}

// SE(x; l_0)·SE(y; l_1) is the SE ARD kernel with lengthscales (l_0, l_1): the same objective,
// the same posterior, so the same choices and regrets (to rounding: the two formulas sum the
// scaled distance in different pieces).
TEST(ExperimentKernelParts, ProductOfSeAxesRunsLikeSeArd) {
  gpb::test::TempDir dir;
  const nlohmann::json ard =
      run(dir, "ard", config(R"({"type": "se", "lengthscale": [0.2, 0.35], "variance": 1.2})"));
  const nlohmann::json prod =
      run(dir, "prod", config(R"({"combine": "product", "type": "se", "variance": 1.2,
          "parts": [{"features": [0, 1], "lengthscale": 0.2},
                    {"features": [1, 2], "lengthscale": 0.35}]})"));
  EXPECT_TRUE(contains(prod.dump(), "product(se[0:1](l=0.2), se[1:2](l=0.35), v=1.2)"));
  for (const std::string label : {"GP-UCB", "random"}) {
    const std::vector<double> a = regrets(ard, label), b = regrets(prod, label);
    ASSERT_EQ(a.size(), 2u);
    ASSERT_EQ(b.size(), 2u);
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-9 * a[i]) << label;
  }
}

// gp_sample with features > 0 draws f by random Fourier features, now also from a sum kernel.
TEST(ExperimentKernelParts, GpSampleDrawsFromASumByRandomFeatures) {
  gpb::test::TempDir dir;
  const nlohmann::json s =
      run(dir, "sum",
          config(R"({"combine": "sum", "parts": [{"features": [0, 1], "type": "se",
          "lengthscale": 0.2}, {"features": [1, 2], "type": "matern32", "lengthscale": 0.4}]})",
                 R"({"type": "gp_sample", "features": 256})"));
  EXPECT_TRUE(contains(s.dump(), "sum(se[0:1]"));
  EXPECT_EQ(regrets(s, "GP-UCB").size(), 2u);
}

TEST(ExperimentKernelParts, CliRefusesABadPartWithExitCode2) {
  gpb::test::TempDir dir;
  gpb::test::write_file(dir.file("cfg.json"),
                        config(R"({"combine": "sum", "parts": [{"features": [0, 1]},
                                   {"features": [0, 2]}]})"));
  const auto r = gpb::test::run_cli("run " + q(dir.file("cfg.json")) + " --out " +
                                    q(dir.file("out")) + " --quiet --no-plot");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "kernel.parts[1] overlaps kernel.parts[0] at feature 0"))
      << r.output;
}

}  // namespace
