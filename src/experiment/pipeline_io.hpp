/// @file pipeline_io.hpp
/// The pipeline's file handling (internal): output paths, the checkpoint decision of
/// --resume / --force, and the final outputs (runs.csv, extra CSV files, summary.json, the plot).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "experiment/checkpoint.hpp"
#include "experiment/family.hpp"
#include "gpbandit/experiment/experiment.hpp"

namespace gpb::detail {

/// Where an experiment's outputs go.
struct OutputPaths {
  /// The paths of `family`'s outputs in `out_dir`.
  OutputPaths(const std::string& out_dir, const Family& family);
  std::string dir;                 ///< the output folder
  std::string runs_csv;            ///< runs.csv
  std::vector<std::string> extra;  ///< one per Family::extra_csv()
  std::string summary_json;        ///< summary.json
};

/// Removes temporary files that a killed earlier run may have left.
void remove_stale_temporaries(const std::string& out_dir);

/// Decides what to do with the output folder's checkpoint: load it (--resume), delete it
/// (--force), refuse (an unfinished run's checkpoint and neither flag), or report a finished run
/// (--resume where summary.json holds this config's results: returns the report).
/// `hashes`: the run's identity hash, then the legacy hash of its config text (finished results
/// written before identities existed carry that one).
/// @throws InvalidArgument explaining --resume and --force; IoError for a damaged checkpoint.
std::optional<std::string> open_checkpoint(Checkpoint& cp, const RunOptions& options,
                                           const std::string& out_dir,
                                           const std::vector<std::string>& hashes,
                                           const OutputPaths& paths);

/// Test hooks, after `saved` units of this invocation (0: once the signal handler is installed,
/// before anything is written): exit(75) when GPB_TEST_STOP_AFTER_GROUPS equals `saved`; stop
/// the process (SIGSTOP) when GPB_TEST_PAUSE_AFTER_UNITS does, so that a test can send a signal at
/// exactly that point on a fast or a slow machine.
void test_stop_hook(int saved);

/// What finish_outputs needs of the invocation.
struct FinishInfo {
  std::uint64_t seed = 0;    ///< the seed used
  int runs = 1;              ///< R
  std::string hash;          ///< config hash (summary.json "config_hash", --resume check)
  double total_seconds = 0;  ///< run time over every invocation
  nlohmann::json memory;     ///< summary.json "memory"
};

/// The fields every summary.json starts with, for pipeline runs and command-objective runs
/// alike: name, experiment, version, build, backend, config (the config as given), config_hash
/// (the hash of the run's identity: what --resume compares), seed, runs, timings.total_seconds.
nlohmann::json summary_head(const std::string& name, const std::string& experiment,
                            const std::string& backend, const nlohmann::json& config,
                            const std::string& config_hash, std::uint64_t seed, int runs,
                            double total_seconds);

/// Writes runs.csv, the extra CSV files and summary.json atomically (all made durable first, then
/// renamed), draws the plot, and fills res (policies, report, plot fields).
void finish_outputs(const Family& f, const StepEnv& env, const Checkpoint& cp,
                    const OutputPaths& paths, const FinishInfo& info, const RunOptions& options,
                    ExperimentResult& res);

}  // namespace gpb::detail
