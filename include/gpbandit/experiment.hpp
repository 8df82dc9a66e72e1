/// @file experiment.hpp
/// Experiments: a JSON config → R runs of every policy → runs.csv, summary.json, regret.png.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpbandit/context.hpp"
#include "gpbandit/domain.hpp"
#include "gpbandit/kernel.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/policy/policy.hpp"

namespace gpb {

/// One policy entry of a config: its registry type, its label in outputs, and its parameters
/// (the JSON object text, already validated against the registry).
struct PolicySpec {
  std::string type;
  std::string label;
  std::string params_json;
};

/// A parsed and validated experiment config (see README "Config format").
struct ExperimentConfig {
  std::string name = "experiment";
  std::string source;  ///< file the config came from (for messages)
  std::uint64_t seed = 0;
  int runs = 10;
  int horizon = 100;  ///< T, evaluations per run
  int lockstep = 0;   ///< runs advanced together (0 = all); a checkpoint follows each group
  Backend backend = Backend::Auto;
  std::size_t memory_budget_bytes = std::size_t{4} << 30;
  int threads = 0;
  bool random_ties = true;
  double noise_variance = 1e-2;  ///< λ of the surrogate GP
  Domain domain = Domain::indices(1);
  Kernel kernel = Kernel::se(1.0);
  std::shared_ptr<const Objective> objective;
  NoiseModel noise;
  std::vector<PolicySpec> policies;
  /// Source of LDP (CTL) noise: false = secure (default), true = seeded Philox simulation
  /// (reproducible, NOT private; summary.json says so). Config key "privacy_noise".
  bool privacy_seeded = false;
  /// CTL's Laplace sampler: false = snapping (default), true = the paper's inverse CDF
  /// (reproduction runs). Config key "laplace_sampler".
  bool laplace_inverse_cdf = false;
  std::string config_json;  ///< the config as given (echoed in summary.json)
};

/// Reads and validates a config file. Every problem throws InvalidArgument with one line naming
/// the file and the field path (e.g. "cfg.json: policies[1].q: must be ≤ N = 100, got 200"), or a
/// data file's file:line. @throws IoError if the file cannot be read.
ExperimentConfig load_experiment_config(const std::string& path);
/// Same from JSON text; `source` names it in messages and `base_dir` resolves relative paths.
ExperimentConfig parse_experiment_config(const std::string& json_text, const std::string& source,
                                         const std::string& base_dir);

/// Builds the policy a spec names. @throws InvalidArgument on a bad parameter.
std::unique_ptr<Policy> make_policy(const PolicySpec& spec, const PolicyEnv& env);

/// Options of one invocation (the CLI's flags).
struct RunOptions {
  std::string out_dir;                ///< default results/<name>
  bool resume = false;                ///< continue from the checkpoint in out_dir
  bool progress = true;               ///< progress line on stderr
  bool plot = true;                   ///< draw regret.png
  std::optional<Backend> backend;     ///< overrides the config
  std::optional<int> runs;            ///< overrides the config
  std::optional<std::uint64_t> seed;  ///< overrides the config
  std::string python;                 ///< interpreter for the plot (default: build's)
};

/// Final statistics of one policy over its runs.
struct PolicySummary {
  std::string label;
  double cumulative_mean = 0, cumulative_sd = 0;  ///< R_T over runs (sample sd, n−1)
  double simple_mean = 0, simple_sd = 0;          ///< simple regret at T
  double seconds = 0;                             ///< wall-clock for all its runs
};

struct ExperimentResult {
  std::vector<PolicySummary> policies;
  std::string out_dir, runs_csv, summary_json, plot_png;
  bool plotted = false;
  std::string plot_message;  ///< why there is no plot, when plotted is false
  std::string backend;       ///< resolved backend description
};

/// Runs every policy for every run and writes the outputs atomically into out_dir.
/// @throws InvalidArgument for bad options; IoError if out_dir is unwritable.
ExperimentResult run_experiment(const ExperimentConfig& config, const RunOptions& options);

/// A parameter as documented by `gpbandit list`.
struct ParamDoc {
  std::string name, type, default_value, doc;
};
/// A policy, objective, kernel or noise model as documented by `gpbandit list`.
struct RegistryEntry {
  std::string kind;  ///< "policy", "objective", "kernel", "noise", "domain"
  std::string name, doc;
  std::vector<ParamDoc> params;
};
/// Everything a config can name.
std::vector<RegistryEntry> registry();

}  // namespace gpb
