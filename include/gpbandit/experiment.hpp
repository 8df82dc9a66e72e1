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
  /// Registry name of the policy, e.g. "gp_ucb" (see `gpbandit list policies`).
  std::string type;
  /// Unique label of the policy in runs.csv and summary.json.
  std::string label;
  /// The policy's parameters as a JSON object text.
  std::string params_json;
};

/// A parsed and validated experiment config (see README "Config format").
struct ExperimentConfig {
  /// Name of the experiment; default output folder results/\<name\>.
  std::string name = "experiment";
  std::string source;  ///< file the config came from (for messages)
  /// Master seed of every simulation stream (objective, noise, ties, policies).
  std::uint64_t seed = 0;
  /// Independent runs R per policy (≥ 1).
  int runs = 10;
  int horizon = 100;  ///< T, evaluations per run
  int lockstep = 0;   ///< runs advanced together (0 = all); a checkpoint follows each group
  /// Backend of the engine ops.
  Backend backend = Backend::Auto;
  /// Memory budget of the posterior buffers, bytes (ContextOptions::memory_budget_bytes; 0 =
  /// automatic: 4 GiB on the CPU, kCudaBudgetFraction of the free device memory on CUDA).
  std::size_t memory_budget_bytes = 0;
  /// CPU threads for the engine ops (0 = all cores).
  int threads = 0;
  /// Break exact argmax ties at random (true) or by lowest index.
  bool random_ties = true;
  double noise_variance = 1e-2;  ///< λ of the surrogate GP
  /// The finite domain (N candidates).
  Domain domain = Domain::indices(1);
  /// Kernel of the surrogate GP (and of RKHS / GP-sample objectives).
  Kernel kernel = Kernel::se(1.0);
  /// The unknown function f.
  std::shared_ptr<const Objective> objective;
  /// Observation noise added to f.
  NoiseModel noise;
  /// The policies to run, in order (labels unique).
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
  std::string out_dir;                ///< default results/\<name\>
  bool resume = false;                ///< continue from the checkpoint in out_dir
  bool progress = true;               ///< progress line on stderr
  bool plot = true;                   ///< draw regret.png
  std::optional<Backend> backend;     ///< overrides the config
  std::optional<int> runs;            ///< overrides the config
  std::optional<std::uint64_t> seed;  ///< overrides the config
  std::optional<int> threads;         ///< overrides the config's "threads" (0 = idle cores)
  std::string python;                 ///< interpreter for the plot (default: build's)
};

/// Final statistics of one policy over its runs.
struct PolicySummary {
  /// Label of the policy.
  std::string label;
  ///@{
  double cumulative_mean = 0, cumulative_sd = 0;  ///< R_T over runs (sample sd, n−1)
  ///@}
  ///@{
  double simple_mean = 0, simple_sd = 0;  ///< simple regret at T
  ///@}
  double seconds = 0;  ///< wall-clock for all its runs
};

/// What run_experiment() produced: per-policy summaries and the paths of the outputs.
struct ExperimentResult {
  /// One summary per policy, in config order.
  std::vector<PolicySummary> policies;
  ///@{
  /// Output folder and the paths of runs.csv, summary.json and regret.png in it.
  std::string out_dir, runs_csv, summary_json, plot_png;
  ///@}
  /// Whether regret.png was drawn.
  bool plotted = false;
  std::string plot_message;  ///< why there is no plot, when plotted is false
  std::string backend;       ///< resolved backend description
};

/// Runs every policy for every run and writes the outputs atomically into out_dir.
/// @throws InvalidArgument for bad options; IoError if out_dir is unwritable.
ExperimentResult run_experiment(const ExperimentConfig& config, const RunOptions& options);

/// A parameter as documented by `gpbandit list`.
struct ParamDoc {
  ///@{
  /// Parameter name, JSON type, default (JSON text or a phrase), description.
  std::string name, type, default_value, doc;
  ///@}
};
/// A policy, objective, kernel or noise model as documented by `gpbandit list`.
struct RegistryEntry {
  std::string kind;  ///< "policy", "objective", "kernel", "noise", "domain"
  ///@{
  /// Name used in configs and its one-line description.
  std::string name, doc;
  ///@}
  /// Its parameters.
  std::vector<ParamDoc> params;
};
/// Everything a config can name.
std::vector<RegistryEntry> registry();

}  // namespace gpb
