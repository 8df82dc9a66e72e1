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
  std::string label, type;
  double loss_mean = 0, loss_sd = 0;  ///< final noise-free loss over runs (sample sd)
  double evaluations_mean = 0;        ///< evaluations per run
  double mu = 0;                      ///< GDP level per run (+∞ when non-private)
  double noise_std = 0;               ///< ν
  double seconds = 0;
};

/// What run_dpgibo_experiment wrote.
struct DpGiboResult {
  std::vector<MethodSummary> methods;
  std::string out_dir, runs_csv, summary_json, plot_png;
  bool plotted = false;
  std::string plot_message, backend;
  double optimum_loss = 0;  ///< f(θ*) when the task knows its optimum (NaN otherwise)
};

/// Loads, validates (every problem: InvalidArgument naming file and field, nothing written),
/// checks the privacy budget, runs and writes the outputs atomically.
/// options.resume is refused (InvalidArgument): DP-GIBO runs are short and not checkpointed.
DpGiboResult run_dpgibo_experiment(const std::string& config_path, const RunOptions& options);

}  // namespace gpb::dpgibo
