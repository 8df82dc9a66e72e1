// Experiment config validation: every bad input throws InvalidArgument with one line naming the
// file and the field (or the data file's file:line); a good config parses with its defaults.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "io/npy.hpp"
#include "test_support.hpp"

namespace {

using gpb::test::TempDir;
using gpb::test::write_file;
using nlohmann::json;

/// A small valid config: 1-d grid of 50 points, RKHS objective, two policies.
json base() {
  return json::parse(R"({
    "name": "t", "runs": 2, "T": 5,
    "domain": {"type": "grid", "lower": [0], "upper": [1], "counts": [50]},
    "kernel": {"type": "se", "lengthscale": 0.2, "variance": 1},
    "objective": {"type": "rkhs", "support": 10},
    "noise": {"type": "gaussian", "sd": 0.1},
    "policies": [{"type": "gp_ucb", "label": "GP-UCB"},
                 {"type": "batch_gp_ucb", "q": 3, "beta": {"type": "constant", "value": 2}}]
  })");
}

gpb::ExperimentConfig parse(const json& j, const std::string& dir = ".") {
  return gpb::parse_experiment_config(j.dump(), "cfg.json", dir);
}

/// The InvalidArgument message of parsing `text` ("" when it parses).
std::string error_of_text(const std::string& text, const std::string& dir = ".") {
  try {
    gpb::parse_experiment_config(text, "cfg.json", dir);
  } catch (const gpb::InvalidArgument& e) {
    return e.what();
  }
  return "";
}
std::string error_of(const json& j, const std::string& dir = ".") {
  return error_of_text(j.dump(), dir);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

#define EXPECT_ONE_LINE_NAMING(msg, part)                             \
  do {                                                                \
    const std::string m_ = (msg);                                     \
    EXPECT_TRUE(contains(m_, part)) << "message: " << m_;             \
    EXPECT_EQ(m_.find('\n'), std::string::npos) << "message: " << m_; \
    EXPECT_EQ(m_.rfind("cfg.json", 0), 0u) << "message: " << m_;      \
  } while (0)

TEST(Config, ParsesValidConfigWithDefaults) {
  const auto cfg = parse(base());
  EXPECT_EQ(cfg.name, "t");
  EXPECT_EQ(cfg.runs, 2);
  EXPECT_EQ(cfg.horizon, 5);
  EXPECT_EQ(cfg.lockstep, 0);
  EXPECT_EQ(cfg.backend, gpb::Backend::Auto);
  EXPECT_TRUE(cfg.random_ties);
  EXPECT_DOUBLE_EQ(cfg.noise_variance, 0.01);
  EXPECT_EQ(cfg.domain.size(), 50);
  EXPECT_EQ(cfg.kernel.type(), gpb::KernelType::SE);
  EXPECT_DOUBLE_EQ(cfg.kernel.lengthscale(), 0.2);
  EXPECT_EQ(cfg.noise.kind, gpb::NoiseModel::Kind::Gaussian);
  ASSERT_NE(cfg.objective, nullptr);
  ASSERT_EQ(cfg.policies.size(), 2u);
  EXPECT_EQ(cfg.policies[0].label, "GP-UCB");
  EXPECT_EQ(cfg.policies[1].label, "batch_gp_ucb");  // default label = type
  const json p1 = json::parse(cfg.policies[1].params_json);
  EXPECT_EQ(p1.at("q"), 3);
  EXPECT_EQ(p1.at("distinct"), false);
  EXPECT_EQ(p1.at("beta").at("scale"), 1);
  EXPECT_EQ(json::parse(cfg.config_json), base());
}

TEST(Config, GpSampleKroneckerNeedsAGridAndTheSeKernel) {
  json j = base();
  j["objective"] = {{"type", "gp_sample"}, {"kronecker", true}, {"fixed", true}};
  EXPECT_EQ(error_of(j), "");
  TempDir dir;
  write_file(dir.file("pts.csv"), "0,0\n1,0\n0,1\n");  // not a Cartesian product
  j["domain"] = {{"type", "csv"}, {"path", "pts.csv"}};
  EXPECT_ONE_LINE_NAMING(error_of(j, dir.path()), "objective.kronecker");
  j = base();
  j["objective"] = {{"type", "gp_sample"}, {"kronecker", true}, {"features", 50}};
  EXPECT_ONE_LINE_NAMING(error_of(j), "objective.kronecker");
  j["objective"] = {{"type", "gp_sample"}, {"kronecker", true}};
  j["kernel"] = {{"type", "matern52"}, {"lengthscale", 0.2}};
  EXPECT_ONE_LINE_NAMING(error_of(j), "objective.kronecker");
}

TEST(Config, DefaultsForOmittedKeys) {
  json j = base();
  j.erase("kernel");
  j.erase("noise");
  j.erase("name");
  j.erase("runs");
  j.erase("T");
  const auto cfg = gpb::parse_experiment_config(j.dump(), "dir/my-exp.json", ".");
  EXPECT_EQ(cfg.name, "my-exp");  // the file stem
  EXPECT_EQ(cfg.runs, 10);
  EXPECT_EQ(cfg.horizon, 100);
  EXPECT_EQ(cfg.kernel.type(), gpb::KernelType::SE);
  EXPECT_DOUBLE_EQ(cfg.kernel.lengthscale(), 1.0);
  EXPECT_EQ(cfg.noise.kind, gpb::NoiseModel::Kind::None);
}

TEST(Config, UnknownKeyAtTopLevel) {
  json j = base();
  j["runz"] = 3;
  EXPECT_ONE_LINE_NAMING(error_of(j), "unknown key 'runz' at top level");
}

TEST(Config, UnknownKeyNested) {
  json j = base();
  j["kernel"].erase("lengthscale");
  j["kernel"]["lenghtscale"] = 0.2;
  EXPECT_EQ(error_of(j),
            "cfg.json: unknown key 'lenghtscale' in kernel (allowed: type, lengthscale, variance)");
  j = base();
  j["policies"][1]["beta"]["vlaue"] = 2;
  EXPECT_ONE_LINE_NAMING(error_of(j), "unknown key 'vlaue' in policies[1].beta");
  j = base();
  j["domain"]["count"] = 3;
  EXPECT_ONE_LINE_NAMING(error_of(j), "in domain");
}

TEST(Config, WrongTypes) {
  json j = base();
  j["runs"] = "ten";
  EXPECT_EQ(error_of(j), "cfg.json: runs: expected an integer, got string");
  j = base();
  j["T"] = 2.5;
  EXPECT_EQ(error_of(j), "cfg.json: T: expected an integer, got number 2.5");
  j = base();
  j["kernel"]["lengthscale"] = "0.2";
  EXPECT_ONE_LINE_NAMING(
      error_of(j), "kernel.lengthscale: expected a number or an array of numbers, got string");
  j = base();
  j["policies"][1]["distinct"] = 1;
  EXPECT_ONE_LINE_NAMING(error_of(j), "policies[1].distinct: expected a boolean");
  j = base();
  j["domain"]["counts"] = json::array({"50"});
  EXPECT_ONE_LINE_NAMING(error_of(j), "domain.counts[0]: expected an integer, got string");
  j = base();
  j["policies"] = json::object();
  EXPECT_ONE_LINE_NAMING(error_of(j), "policies: expected an array");
}

TEST(Config, JsonSyntaxErrorHasLineAndColumn) {
  const std::string text = "{\n  \"runs\": 2,\n  \"T\": ,\n}";
  const std::string m = error_of_text(text);
  EXPECT_TRUE(contains(m, "cfg.json:3:")) << m;
  EXPECT_TRUE(contains(m, "JSON syntax error")) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

TEST(Config, DuplicateKey) {
  EXPECT_ONE_LINE_NAMING(error_of_text(R"({"runs": 2, "runs": 3})"), "duplicate key 'runs'");
}

TEST(Config, MissingDataFile) {
  json j = base();
  j["domain"] = {{"type", "csv"}, {"path", "nope.csv"}};
  const std::string m = error_of(j);
  EXPECT_ONE_LINE_NAMING(m, "domain.path: data file not found");
  EXPECT_TRUE(contains(m, "nope.csv")) << m;
}

TEST(Config, NaNInDataFileNamesFileAndLine) {
  TempDir dir;
  write_file(dir.file("pts.csv"), "x\n0.1\n0.2\nnan\n0.4\n");
  json j = base();
  j["domain"] = {{"type", "csv"}, {"path", "pts.csv"}};  // relative to the config's directory
  const std::string m = error_of(j, dir.path());
  EXPECT_ONE_LINE_NAMING(m, "domain.path: ");
  EXPECT_TRUE(contains(m, "pts.csv:4")) << m;
}

TEST(Config, NpyDomainsAreReadAndCheckedBeforeTheirMemoryIsTaken) {
  TempDir dir;
  Eigen::MatrixXd pts(4, 2);
  pts << 0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.7, 0.6;
  write_file(dir.file("pts.npy"), gpb::detail::npy_bytes(pts));
  json j = base();
  j["domain"] = {{"type", "npy"}, {"path", "pts.npy"}};
  const gpb::ExperimentConfig cfg = parse(j, dir.path());
  EXPECT_EQ(cfg.domain.size(), 4);
  EXPECT_TRUE(cfg.domain.points() == pts.transpose());
  pts(2, 1) = NAN;
  write_file(dir.file("nan.npy"), gpb::detail::npy_bytes(pts));
  j["domain"]["path"] = "nan.npy";
  EXPECT_ONE_LINE_NAMING(error_of(j, dir.path()), "domain.path: ");
  EXPECT_TRUE(contains(error_of(j, dir.path()), "nan.npy: row 2, column 1 is not finite"));
  // A file whose N exceeds the memory budget is refused from its header, naming N: 40000 points
  // need 40000 · (8·2 + 40) B = 2.2 MB, over memory_budget_mb = 1.
  write_file(dir.file("big.npy"), gpb::detail::npy_bytes(Eigen::MatrixXd::Constant(40000, 2, 0.5)));
  j["domain"]["path"] = "big.npy";
  j["memory_budget_mb"] = 1;
  const std::string m = error_of(j, dir.path());
  EXPECT_ONE_LINE_NAMING(m, "domain.path: N = 40000 candidates need at least");
}

TEST(Config, RelativeDataPathResolvesAgainstConfigDir) {
  TempDir dir;
  write_file(dir.file("pts.csv"), "0.1,0.2\n0.3,0.4\n0.5,0.9\n");
  json j = base();
  j["domain"] = {{"type", "csv"}, {"path", "pts.csv"}};
  write_file(dir.file("exp.json"), j.dump());
  const auto cfg = gpb::load_experiment_config(dir.file("exp.json"));
  EXPECT_EQ(cfg.domain.size(), 3);
  EXPECT_EQ(cfg.domain.dim(), 2);
  EXPECT_EQ(cfg.source, dir.file("exp.json"));
}

TEST(Config, NonPositiveLengthscale) {
  json j = base();
  j["kernel"]["lengthscale"] = -0.5;
  EXPECT_EQ(error_of(j), "cfg.json: kernel.lengthscale: must be > 0, got -0.5");
  j["kernel"]["lengthscale"] = 0;
  EXPECT_ONE_LINE_NAMING(error_of(j), "kernel.lengthscale: must be > 0");
}

TEST(Config, NonPositiveNoiseVariance) {
  json j = base();
  j["noise_variance"] = 0;
  EXPECT_EQ(error_of(j), "cfg.json: noise_variance: must be > 0, got 0");
  j["noise_variance"] = -1e-3;
  EXPECT_ONE_LINE_NAMING(error_of(j), "noise_variance: must be > 0");
}

TEST(Config, EmptyDomain) {
  json j = base();
  j["domain"]["counts"] = json::array({0});
  EXPECT_ONE_LINE_NAMING(error_of(j), "domain.counts[0]: must be >= 1");
  j = base();
  j["domain"] = {{"type", "indices"}, {"n", 0}};
  EXPECT_ONE_LINE_NAMING(error_of(j), "domain.n: must be >= 1");
}

TEST(Config, BatchLargerThanDomainWithDistinct) {
  json j = base();
  j["policies"][1]["q"] = 200;
  j["policies"][1]["distinct"] = true;
  EXPECT_EQ(error_of(j), "cfg.json: policies[1].q: must be <= N = 50 when distinct, got 200");
  j["policies"][1]["distinct"] = false;  // with replacement: allowed
  EXPECT_EQ(error_of(j), "");
  j["policies"][1]["q"] = 0;
  EXPECT_ONE_LINE_NAMING(error_of(j), "policies[1].q: must be >= 1");
}

TEST(Config, HorizonAndRuns) {
  json j = base();
  j["T"] = 0;
  EXPECT_EQ(error_of(j), "cfg.json: T: must be >= 1, got 0");
  j = base();
  j["runs"] = 0;
  EXPECT_ONE_LINE_NAMING(error_of(j), "runs: must be >= 1");
  j = base();
  j["lockstep"] = -1;
  EXPECT_ONE_LINE_NAMING(error_of(j), "lockstep: must be >= 0");
}

TEST(Config, DuplicateLabels) {
  json j = base();
  j["policies"][1]["label"] = "GP-UCB";
  EXPECT_ONE_LINE_NAMING(error_of(j), "policies[1].label: duplicate label 'GP-UCB'");
  j = base();
  j["policies"].push_back({{"type", "random"}});
  j["policies"].push_back({{"type", "random"}});
  EXPECT_ONE_LINE_NAMING(error_of(j), "policies[3].label: duplicate label 'random'");
  j = base();
  j["policies"][0]["label"] = "a,b";
  EXPECT_ONE_LINE_NAMING(error_of(j), "policies[0].label");
}

TEST(Config, DatasetObjective) {
  TempDir dir;
  write_file(dir.file("data.csv"), "a,b,c\n1,2,3\n2,1,5\n0,4,4\n3,3,1\n");
  json j = base();
  j["objective"] = {{"type", "dataset"}, {"path", "data.csv"}};
  EXPECT_EQ(error_of(j, dir.path()),
            "cfg.json: domain: must be absent for a dataset objective (the data set prescribes "
            "its domain)");
  j.erase("domain");
  EXPECT_ONE_LINE_NAMING(error_of(j, dir.path()), "kernel: must be absent");
  j.erase("kernel");
  EXPECT_ONE_LINE_NAMING(error_of(j, dir.path()), "noise: must be absent");
  j["noise"] = {{"type", "none"}};
  const auto cfg = parse(j, dir.path());
  EXPECT_EQ(cfg.domain.size(), 3);
  EXPECT_EQ(cfg.kernel.type(), gpb::KernelType::Precomputed);
  j["policies"][1]["q"] = 4;
  j["policies"][1]["distinct"] = true;
  EXPECT_ONE_LINE_NAMING(error_of(j, dir.path()), "policies[1].q: must be <= N = 3");
}

TEST(Config, RequiredSections) {
  json j = base();
  j.erase("objective");
  EXPECT_EQ(error_of(j), "cfg.json: objective: required");
  j = base();
  j.erase("domain");
  EXPECT_EQ(error_of(j), "cfg.json: domain: required");
  j = base();
  j["policies"] = json::array();
  EXPECT_ONE_LINE_NAMING(error_of(j), "policies: must list at least one policy");
  j = base();
  j["policies"][0].erase("type");
  EXPECT_ONE_LINE_NAMING(error_of(j), "policies[0].type: required");
  j = base();
  j["domain"].erase("upper");
  EXPECT_EQ(error_of(j), "cfg.json: domain.upper: required");
}

TEST(Config, UnknownTypes) {
  json j = base();
  j["policies"][0]["type"] = "gp_ucbb";
  EXPECT_ONE_LINE_NAMING(error_of(j), "policies[0].type: unknown policy 'gp_ucbb'");
  j = base();
  j["kernel"]["type"] = "rbf";
  EXPECT_ONE_LINE_NAMING(error_of(j), "kernel.type: unknown kernel 'rbf'");
  j = base();
  j["backend"] = "gpu";
  EXPECT_ONE_LINE_NAMING(error_of(j), "backend: must be one of auto, cpu, cuda");
  j = base();
  j["tie_break"] = "first";
  EXPECT_ONE_LINE_NAMING(error_of(j), "tie_break");
  j = base();
  j["name"] = "a b";
  EXPECT_ONE_LINE_NAMING(error_of(j), "name: must match");
}

TEST(Config, ParameterRanges) {
  json j = base();
  j["noise"]["sd"] = -1;
  EXPECT_ONE_LINE_NAMING(error_of(j), "noise.sd: must be >= 0");
  j = base();
  j["noise"] = {{"type", "pareto"}, {"alpha", 1}};
  EXPECT_ONE_LINE_NAMING(error_of(j), "noise.alpha: must be > 1");
  j = base();
  j["policies"][0]["beta"] = {{"type", "srinivas"}, {"delta", 1.5}};
  EXPECT_ONE_LINE_NAMING(error_of(j), "policies[0].beta.delta: must be in (0, 1)");
  j = base();
  j["objective"]["support"] = 0;
  EXPECT_ONE_LINE_NAMING(error_of(j), "objective.support: must be >= 1");
  j = base();
  j["objective"] = {{"type", "branin"}};
  EXPECT_ONE_LINE_NAMING(error_of(j), "objective: branin needs a 2-d domain");
  j = base();
  j["domain"]["upper"] = json::array({-1});
  EXPECT_ONE_LINE_NAMING(error_of(j), "domain.upper[0]");
}

TEST(Config, PrecomputedKernelNeedsMatchingIndices) {
  TempDir dir;
  write_file(dir.file("K.csv"), "2,1,0\n1,2,1\n0,1,2\n");
  json j = base();
  j["kernel"] = {{"type", "precomputed"}, {"path", "K.csv"}};
  EXPECT_ONE_LINE_NAMING(error_of(j, dir.path()), "domain.type: must be 'indices'");
  j["domain"] = {{"type", "indices"}, {"n", 4}};
  EXPECT_ONE_LINE_NAMING(error_of(j, dir.path()), "domain.n: must equal the size");
  j["domain"]["n"] = 3;
  EXPECT_EQ(parse(j, dir.path()).domain.size(), 3);
}

TEST(Config, MissingConfigFileIsIoError) {
  EXPECT_THROW(gpb::load_experiment_config("/nonexistent/cfg.json"), gpb::IoError);
}

TEST(Registry, EveryPolicyTypeIsAcceptedAndBuilt) {
  gpb::ContextOptions o;
  o.backend = gpb::Backend::Cpu;
  const gpb::Context ctx(o);
  for (const auto& e : gpb::registry()) {
    if (e.kind != "policy") continue;
    json j = base();
    json pol = {{"type", e.name}};
    // The LDP-BO family needs B (here no runner fills PolicyEnv::f_sup), ε and, on Gaussian
    // noise, R; MoMA needs T >= k.
    if (e.name.find("tgp_ucb") != std::string::npos || e.name.find("ata_") != std::string::npos ||
        e.name.find("moma_") != std::string::npos) {
      pol["B"] = 1.0;
      j["T"] = 50;
    }
    if (e.name.rfind("ldp_", 0) == 0) {
      pol["epsilon"] = 1.0;
      pol["R"] = 1.0;
    }
    if (e.name == "po_gp_ucb") pol["epsilon"] = 1.0;  // required (specs/po-gp-ucb.md)
    j["policies"] = json::array({pol});
    const auto cfg = parse(j);
    gpb::PolicyEnv env;
    env.ctx = &ctx;
    env.domain = &cfg.domain;
    env.kernel = cfg.kernel;
    env.run_ids = {0, 1};
    env.horizon = cfg.horizon;
    const auto policy = gpb::make_policy(cfg.policies[0], env);
    ASSERT_NE(policy, nullptr) << e.name;
  }
}

TEST(Registry, EveryEntryHasDocs) {
  for (const auto& e : gpb::registry()) {
    EXPECT_FALSE(e.doc.empty()) << e.kind << " " << e.name;
    for (const auto& p : e.params) {
      EXPECT_FALSE(p.type.empty()) << e.name << "." << p.name;
      EXPECT_FALSE(p.default_value.empty()) << e.name << "." << p.name;
      EXPECT_FALSE(p.doc.empty()) << e.name << "." << p.name;
    }
  }
}

/// The InvalidArgument message of gpb::parse_experiment (any family) on `j`.
std::string any_family_error(const json& j) {
  try {
    gpb::parse_experiment(j.dump(), "cfg.json", ".");
  } catch (const gpb::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(Config, OneReaderForEveryFamily) {
  const json fed = json::parse(R"({"experiment": "fed-pne", "runs": 2,
    "objective": {"type": "garland"}, "methods": [{"type": "hct"}]})");
  const json dp = json::parse(R"({"experiment": "dp-gibo", "task": {"type": "huber", "d": 2,
    "n": 10}, "methods": [{"type": "gd", "T": 3}]})");
  EXPECT_EQ(gpb::parse_experiment(fed.dump(), "dir/x1.json", ".").settings().family, "fed-pne");
  EXPECT_EQ(gpb::parse_experiment(fed.dump(), "dir/x1.json", ".").settings().name, "x1");
  EXPECT_EQ(gpb::parse_experiment(dp.dump(), "cfg.json", ".").settings().runs, 3);
  // The shared keys are read by one rule whatever the family …
  for (json j : {fed, dp}) {
    j["runs"] = 0;
    EXPECT_ONE_LINE_NAMING(any_family_error(j), "cfg.json: runs: must be >= 1, got 0");
    j["runs"] = 1;
    j["seed"] = -1;
    EXPECT_ONE_LINE_NAMING(any_family_error(j), "cfg.json: seed: must be >= 0, got -1");
    j.erase("seed");
    j["bogus"] = 1;
    EXPECT_ONE_LINE_NAMING(any_family_error(j), "unknown key 'bogus' at top level");
  }
  // … and each family's keys come from the registry, with the same messages.
  json bad = fed;
  bad["methods"][0]["rh0"] = 0.5;
  EXPECT_ONE_LINE_NAMING(any_family_error(bad), "unknown key 'rh0' in methods[0] (allowed: type");
  bad = dp;
  bad["task"]["type"] = "ackley";
  EXPECT_ONE_LINE_NAMING(any_family_error(bad), "cfg.json: task.type: must be one of");
  bad = dp;
  bad["experiment"] = "dpgibo";
  EXPECT_ONE_LINE_NAMING(any_family_error(bad),
                         "cfg.json: experiment: must be one of finite, pool, dp-gibo, fed-pne");
  // parse_experiment_config reads finite-domain configs only, and says where the others go.
  EXPECT_ONE_LINE_NAMING(error_of(fed), "cfg.json: experiment: a fed-pne config");
  bool fed_keys = false, dp_methods = false;
  for (const auto& e : gpb::registry()) {
    fed_keys = fed_keys || (e.kind == "experiment" && e.name == "fed-pne");
    dp_methods = dp_methods || (e.kind == "dpgibo_method" && e.name == "dp_gibo");
  }
  EXPECT_TRUE(fed_keys && dp_methods);
}

}  // namespace

TEST(Config, PrecisionIsDoubleOrMixed) {
  json j = base();
  EXPECT_EQ(parse(j).precision, gpb::Precision::Double);
  j["precision"] = "mixed";
  EXPECT_EQ(parse(j).precision, gpb::Precision::Mixed);
  j["precision"] = "single";
  EXPECT_ONE_LINE_NAMING(error_of(j), "precision: must be double or mixed, got \"single\"");
  j["precision"] = 32;
  EXPECT_ONE_LINE_NAMING(error_of(j), "precision: expected a string, got number 32");
}
