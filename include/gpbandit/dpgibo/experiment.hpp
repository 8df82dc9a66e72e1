/// @file experiment.hpp
/// DP-GIBO experiments: a JSON config with "experiment": "dp-gibo" → R runs of every method on a
/// continuous task → runs.csv, summary.json (with the GDP privacy ledger) and loss.png.
/// Reached from `gpbandit run CONFIG.json` (tools/cmd_dpgibo.cpp). Config format: the comment at
/// the top of src/dpgibo/config.cpp.
#pragma once

#include <string>
#include <vector>

#include "gpbandit/experiment.hpp"

namespace gpb::dpgibo {

/// True when the file parses as JSON with "experiment": "dp-gibo" (false for any other file, which
/// the regular loader then reports on).
bool is_dpgibo_config(const std::string& path);

/// Final numbers of one method.
struct MethodSummary {
  std::string label;            ///< the method's label in the config
  std::string type;             ///< dp_gibo | gibo | dp_gd | gd | random_search | ucb_bo
  double loss_mean = 0;         ///< mean final noise-free loss over runs
  double loss_sd = 0;           ///< sample sd of the final noise-free loss over runs
  double evaluations_mean = 0;  ///< evaluations per run
  double mu = 0;                ///< GDP level per run (+∞ when non-private)
  double noise_std = 0;         ///< ν
  double seconds = 0;           ///< wall-clock seconds, summed over runs
};

/// What run_dpgibo_experiment wrote.
struct DpGiboResult {
  std::vector<MethodSummary> methods;  ///< one per method, in config order
  std::string out_dir;                 ///< output folder (options.out_dir, else results/NAME)
  std::string runs_csv;                ///< path of runs.csv
  std::string summary_json;            ///< path of summary.json
  std::string plot_png;                ///< path of loss.png (removed when not plotted)
  bool plotted = false;                ///< whether loss.png was written
  std::string plot_message;            ///< the plotter's message, or why no plot was drawn
  std::string backend;                 ///< description of the engine Context the runs used
  double optimum_loss = 0;             ///< f(θ*) when the task knows its optimum (NaN otherwise)
};

/// Loads, validates (every problem: InvalidArgument naming file and field, nothing written),
/// checks the privacy budget, runs and writes the outputs atomically.
/// options.resume is refused (InvalidArgument): DP-GIBO runs are short and not checkpointed.
DpGiboResult run_dpgibo_experiment(const std::string& config_path, const RunOptions& options);

}  // namespace gpb::dpgibo
