/// @file family.hpp
/// The seam between the experiment pipeline and the three families of algorithms (internal).
///
/// The pipeline (pipeline.cpp) owns everything the families share: the output-directory lock,
/// the checkpoint and --resume, the grouping of runs into lockstep groups (memory budget, about
/// two minutes of work per group), the progress line, the interrupt message, runs.csv,
/// summary.json's envelope and the plot. A Family only says how to step its runs: for one policy
/// and one group of runs it returns the runs.csv rows of those runs (run-major) and a JSON record
/// that its summarize() reads back, possibly from a checkpoint written by an earlier process.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "experiment/plot.hpp"
#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/experiment/experiment.hpp"

namespace gpb::detail {

/// What a family's steps may use of one invocation.
struct StepEnv {
  const Context* ctx = nullptr;        ///< engine backend and threads
  std::uint64_t seed = 0;              ///< master seed (config or --seed)
  int runs = 1;                        ///< R (config or --runs)
  const Communicator* comm = nullptr;  ///< ranks (MPI) or the one process
  bool mpi = false;                    ///< --mpi
  /// Progress: step `step` of `steps` of the current unit is done, worth `work` of
  /// Family::steps_per_run() (e.g. a round of q evaluations).
  std::function<void(int step, int steps, long long work)> tick;
};

/// A finished unit of work: one policy over one group of runs.
struct UnitOutput {
  std::string rows;                     ///< runs.csv rows of the group's runs, run-major
  std::vector<std::string> extra_rows;  ///< rows of each extra_csv() file, same order
  nlohmann::json record;                ///< what summarize() needs (per-run numbers, info)
};

/// A unit as the pipeline keeps it (in memory or read back from the checkpoint).
struct UnitRecord {
  int policy = 0;               ///< index into Family::labels()
  std::uint32_t first_run = 0;  ///< the group's runs are first_run .. first_run+count-1
  int count = 0;                ///< runs in the group
  double seconds = 0;           ///< wall-clock of the unit
  nlohmann::json record;        ///< UnitOutput::record
};

/// How much memory a lockstep group needs (finite-domain family; zeros elsewhere).
struct MemoryNeeds {
  double bytes_per_run = 0;  ///< incremental posterior buffers of one run (V = N·T·8 B)
  std::string model;         ///< the formula in words, e.g. "V = R·N·T·8 B (N = 1600, T = 200)"
};

/// What summarize() gives the pipeline.
struct FamilySummary {
  nlohmann::json fields = nlohmann::json::object();   ///< family fields of summary.json
  nlohmann::json policies = nlohmann::json::array();  ///< one object per label (config order)
  std::vector<PolicySummary> regret;                  ///< ExperimentResult::policies
  std::string table;                                  ///< the results table the CLI prints
};

/// A plot to draw after the outputs are written.
struct PlotRequest {
  std::string file;         ///< output file name in the output folder (regret.png, loss.png)
  PlotCall call;            ///< the script and its arguments
  std::string skip_reason;  ///< non-empty: no plot, and why (e.g. T too large)
};

/// One family of algorithms behind the one pipeline.
class Family {
 public:
  virtual ~Family() = default;
  /// The shared settings (name, seed, runs, lockstep, backend, budget, threads, config echo).
  virtual const ExperimentSettings& settings() const = 0;
  /// "finite", "dp-gibo" or "fed-pne" (summary.json's "experiment").
  virtual std::string kind() const = 0;
  /// Labels of the policies (methods), in config order; unique.
  virtual std::vector<std::string> labels() const = 0;
  /// Registry type of policy p (summary.json).
  virtual std::string type(int p) const = 0;
  /// runs.csv's header line, with the newline.
  virtual std::string runs_csv_header() const = 0;
  /// Further CSV files (name, header line with newline), e.g. fed-pne's phases.csv.
  virtual std::vector<std::pair<std::string, std::string>> extra_csv() const { return {}; }
  /// Work of one run of policy p, in the units of StepEnv::tick (the progress line's ETA).
  virtual long long steps_per_run(int p) const = 0;
  /// The progress line's name of a step ("round", "run").
  virtual const char* step_word() const { return "round"; }
  /// Memory a lockstep group needs per run and per rank (the finite-domain posterior, whose
  /// slice is about N/ranks candidates when sharded).
  virtual MemoryNeeds memory(int ranks) const {
    (void)ranks;
    return {};
  }
  /// Candidates of the finite domain (0 for a family without one): from 10^7 on, the pipeline
  /// reports the set-up of each group (the objective over every candidate, the posteriors) while
  /// it runs, instead of minutes without a word.
  virtual long long candidates() const { return 0; }
  /// Whether this rank steps policy p (MPI). Default: the writer only.
  virtual bool steps_on(int /*p*/, const StepEnv& env) const { return env.comm->rank() == 0; }
  /// Whether every rank steps every unit together over one sharded Context (--mpi): the pipeline
  /// then puts the communicator on the Context and bounds every collective by the run's MPI
  /// timeout (RunOptions::mpi_timeout_s). Default: no.
  virtual bool shards() const { return false; }
  /// @throws InvalidArgument when the config cannot run on `ranks` MPI ranks (a policy that
  /// cannot shard, more ranks than candidates). Default: any number.
  virtual void check_ranks(int ranks) const { (void)ranks; }
  /// Why each of `ranks` MPI ranks holds the whole domain (its points and f) instead of its slice,
  /// "" when the domain is sliced or the family has no finite domain. Default: "".
  virtual std::string whole_domain(int ranks) const {
    (void)ranks;
    return {};
  }
  /// State shared by every policy of a group of runs (e.g. the objective's values), or null.
  virtual std::shared_ptr<const void> prepare(const StepEnv& env,
                                              const std::vector<std::uint32_t>& runs) const {
    (void)env;
    (void)runs;
    return nullptr;
  }
  /// Steps policy p over `runs` to the end. `earlier` holds the finished units of this family
  /// (any policy, any group; e.g. dp-gibo's "match" reads the evaluation counts of an earlier
  /// method's same runs). Only called on ranks where steps_on(p) is true; the writer's output
  /// is the one recorded.
  virtual UnitOutput step(const StepEnv& env, const void* group, int p,
                          const std::vector<std::uint32_t>& runs,
                          const std::vector<UnitRecord>& earlier) const = 0;
  /// Summary of every unit, by policy (each policy's units ordered by first run).
  virtual FamilySummary summarize(const StepEnv& env,
                                  const std::vector<std::vector<const UnitRecord*>>& by_policy,
                                  const std::string& backend) const = 0;
  /// The plot of runs.csv, drawn after the outputs are in place.
  virtual PlotRequest plot(const std::string& runs_csv) const = 0;
};

/// Family::labels() of a family whose policies or methods are `specs` (each with a `label`).
template <class Specs>
std::vector<std::string> labels_of(const Specs& specs) {
  std::vector<std::string> out;
  for (const auto& s : specs) out.push_back(s.label);
  return out;
}

/// What a family builds once per master seed (a DP-GIBO task's data, a Fed-PNE objective's
/// perturbations) and shares between the threads stepping its units: the last seed's value,
/// rebuilt when another seed asks. Callers hold the returned pointer, so a rebuild never frees a
/// value still in use.
template <class T>
class PerSeed {
 public:
  /// The value for `seed`, built by `make(seed)` (returning a pointer to T) if not cached.
  template <class Make>
  std::shared_ptr<const T> get(std::uint64_t seed, const Make& make) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!value_ || seed_ != seed) {
      value_ = make(seed);
      seed_ = seed;
    }
    return value_;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const T> value_;
  mutable std::uint64_t seed_ = 0;
};

/// The finite-domain family (GP-UCB and the other policies over a finite domain).
std::shared_ptr<const Family> make_finite_family(ExperimentConfig config);

}  // namespace gpb::detail
