/// @file experiment.hpp
/// Experiments: a JSON config → a validated Experiment → R runs of every policy → runs.csv,
/// summary.json and a plot, for all three families (finite-domain policies, DP-GIBO local search,
/// X-armed trees): one reader, one pipeline (checkpoint, --resume, progress, lock; see
/// docs/pipeline.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
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

/// The settings every family shares: the top-level config keys name, seed, runs, lockstep,
/// backend, memory_budget_mb and threads, and the config echo.
struct ExperimentSettings {
  std::string family = "finite";    ///< "finite", "dp-gibo" or "fed-pne" (config key "experiment")
  std::string name = "experiment";  ///< output folder name: results/\<name\>
  std::string source;               ///< file the config came from (for messages)
  std::uint64_t seed = 0;           ///< master seed of every simulation stream
  int runs = 10;                    ///< independent runs R per policy (≥ 1)
  /// Runs advanced together; 0 = chosen by the pipeline (memory budget, ~2 minutes of work per
  /// group, so that a checkpoint follows at least that often).
  int lockstep = 0;
  Backend backend = Backend::Auto;  ///< backend of the engine ops
  /// Budget of the posterior buffers, bytes (ContextOptions::memory_budget_bytes; 0 = automatic:
  /// 4 GiB on the CPU, kCudaBudgetFraction of the free device memory on CUDA).
  std::size_t memory_budget_bytes = 0;
  int threads = 0;  ///< CPU threads (0 = the idle cores)
  /// Storage of the posterior's V ("precision": "double" | "mixed"; finite and pool families):
  /// Mixed keeps V in float with double accumulation (the CPU block update's GEMM and triangular
  /// solve then run in single precision); μ and σ² stay within about 1e-5·v of Double.
  Precision precision = Precision::Double;
  /// Source of privacy noise ("privacy_noise"): false = secure (default), true = seeded Philox
  /// simulation (reproducible, NOT private; summary.json says so).
  bool privacy_seeded = false;
  std::string config_json;  ///< the config as given
};

/// A parsed and validated finite-domain experiment config (see README "Config format"): the
/// shared settings (name, source, seed, runs, lockstep, backend, memory budget, threads,
/// privacy_seeded, config_json) and the finite domain's own keys.
struct ExperimentConfig : ExperimentSettings {
  int horizon = 100;  ///< T, evaluations per run
  /// Break exact argmax ties at random (true) or by lowest index.
  bool random_ties = true;
  double noise_variance = 1e-2;  ///< λ of the surrogate GP
  /// The finite domain (N candidates), or this rank's slice of a grid (see DomainShard).
  Domain domain = Domain::indices(1);
  /// With DomainShard::ranks > 1, why the domain was built whole on every rank (empty when it is
  /// a slice, or on one rank), e.g. "policy po_gp_ucb projects every candidate".
  std::string whole_domain_reason;
  /// Kernel of the surrogate GP (and of RKHS / GP-sample objectives).
  Kernel kernel = Kernel::se(1.0);
  /// The unknown function f.
  std::shared_ptr<const Objective> objective;
  /// Observation noise added to f.
  NoiseModel noise;
  /// The policies to run, in order (labels unique).
  std::vector<PolicySpec> policies;
  /// CTL's Laplace sampler: false = snapping (default), true = the paper's inverse CDF
  /// (reproduction runs). Config key "laplace_sampler".
  bool laplace_inverse_cdf = false;
};

/// Which part of a finite domain this process builds: rank `rank` of `ranks` MPI ranks (the CLI's
/// `--mpi` under mpirun). With ranks > 1 a grid domain whose objective and policies work on a
/// slice is built as the rank's slice [⌊N·rank/ranks⌋, ⌊N·(rank+1)/ranks⌋) only
/// (Domain::grid_slice, O(N·d/ranks)); with `communicator` set, a CSV domain under the same
/// conditions is read once, by rank 0, and scattered (loading is then a collective of those
/// ranks). Every other config is built whole and ExperimentConfig::whole_domain_reason says why.
/// The default is one process, the whole domain.
struct DomainShard {
  int rank = 0;   ///< this process's rank
  int ranks = 1;  ///< number of ranks
  /// The ranks' communicator (its rank() and size() must be rank and ranks), made only when a CSV
  /// domain is to be scattered; empty: a CSV domain is read whole by every process.
  std::function<Communicator()> communicator;
};

/// Reads and validates a config file. Every problem throws InvalidArgument with one line naming
/// the file and the field path (e.g. "cfg.json: policies[1].q: must be ≤ N = 100, got 200"), or a
/// data file's file:line. @throws IoError if the file cannot be read.
ExperimentConfig load_experiment_config(const std::string& path, DomainShard shard = {});
/// Same from JSON text; `source` names it in messages and `base_dir` resolves relative paths.
ExperimentConfig parse_experiment_config(const std::string& json_text, const std::string& source,
                                         const std::string& base_dir, DomainShard shard = {});

/// Builds the policy a spec names. @throws InvalidArgument on a bad parameter.
std::unique_ptr<Policy> make_policy(const PolicySpec& spec, const PolicyEnv& env);

/// Options of one invocation (the CLI's flags).
struct RunOptions {
  std::string out_dir;                ///< default results/\<name\>
  bool resume = false;                ///< continue from the checkpoint in out_dir
  bool force = false;                 ///< delete an unfinished run's checkpoint and start over
  bool progress = true;               ///< progress line on stderr
  bool plot = true;                   ///< draw regret.png
  std::optional<Backend> backend;     ///< overrides the config
  std::optional<int> runs;            ///< overrides the config
  std::optional<std::uint64_t> seed;  ///< overrides the config
  std::optional<int> threads;         ///< overrides the config's "threads" (0 = idle cores)
  bool mpi = false;                   ///< run under MPI (rank 0 writes; families that support it)
  /// Seconds a collective of a sharded run (finite-domain family under MPI) may wait for the
  /// other ranks before the live ranks name the silent one (RankFailure); 0 (the default):
  /// adaptive, max(60 s, 20 × the slowest round so far), 600 s before the first
  /// (Communicator::adaptive_timeout).
  double mpi_timeout_s = 0.0;
  /// Install SIGINT/SIGTERM handlers for the run (the CLI): on a signal, print what the
  /// checkpoint holds and how to resume, then exit 130 (SIGINT) or 143 (SIGTERM).
  bool handle_signals = false;
  /// The command that resumes this run, for that message (default: "... --resume").
  std::string resume_command;
  std::string python;  ///< interpreter for the plot (default: build's)
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
  /// The family ("finite", "dp-gibo", "fed-pne").
  std::string family;
  /// One regret summary per policy, in config order (finite-domain family; empty otherwise).
  std::vector<PolicySummary> policies;
  /// The results table and the output paths, as the CLI prints them.
  std::string report;
  /// --resume found the finished results of this config: nothing was run (report says so).
  bool already_finished = false;
  /// Runs advanced together, as chosen (memory budget, config) for the first group.
  int lockstep = 0;
  ///@{
  /// Output folder and the paths of runs.csv, summary.json and regret.png in it.
  std::string out_dir, runs_csv, summary_json, plot_png;
  ///@}
  /// Whether regret.png was drawn.
  bool plotted = false;
  std::string plot_message;  ///< why there is no plot, when plotted is false
  std::string backend;       ///< resolved backend description
};

namespace detail {
class Family;
}

/// A validated experiment of any family, ready to run (config → Experiment).
///
/// Thread safety: immutable once built (its instance data are computed once, behind a lock);
/// several threads may run_experiment() one Experiment at once into different output folders
/// (one folder holds one run: a second one on it is refused).
class Experiment {
 public:
  /// Wraps a family (see load_experiment()).
  explicit Experiment(std::shared_ptr<const detail::Family> family);
  /// A finite-domain experiment from its parsed config.
  explicit Experiment(ExperimentConfig config);
  /// The settings every family shares.
  const ExperimentSettings& settings() const;
  /// The family behind it (internal interface).
  const detail::Family& family() const { return *family_; }
  /// @throws InvalidArgument naming the reason when the experiment cannot run sharded over
  /// `ranks` MPI ranks (a policy whose state is not a FinitePosterior, more ranks than
  /// candidates); run_experiment() checks it on every rank too.
  void check_ranks(int ranks) const;
  /// Why each of `ranks` MPI ranks would hold the whole finite domain (its points and f: d·N + N
  /// doubles) instead of its slice; "" when it is sliced (or the family has no finite domain).
  /// The CLI warns with it under --mpi.
  std::string whole_domain(int ranks) const;

 private:
  std::shared_ptr<const detail::Family> family_;
};

/// Reads and validates a config of any family ("experiment": absent or "finite", "dp-gibo",
/// "fed-pne") with the one validator: every problem throws InvalidArgument with one line naming
/// the file and the field path, or a data file's file:line. @throws IoError if unreadable.
/// `shard`: the part of a finite domain this process builds (see DomainShard).
Experiment load_experiment(const std::string& path, DomainShard shard = {});
/// Same from JSON text; `source` names it in messages and `base_dir` resolves relative paths.
Experiment parse_experiment(const std::string& json_text, const std::string& source,
                            const std::string& base_dir, DomainShard shard = {});

/// Runs every policy for every run through the one pipeline: takes the output folder's lock
/// (another run there: InvalidArgument "output directory X is in use by pid N"), checkpoints
/// after every group of runs, and writes the outputs atomically into out_dir.
/// @throws InvalidArgument for bad options, a busy output folder, an unfinished checkpoint
/// without resume or force, or --resume with nothing to resume; IoError if out_dir is unwritable.
ExperimentResult run_experiment(const Experiment& experiment, const RunOptions& options);
/// run_experiment(Experiment(config), options).
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
