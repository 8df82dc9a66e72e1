// `gpbandit run CONFIG.json` for configs with "experiment": "dp-gibo": same flags as any run,
// a results table of final noise-free losses and the privacy level of each method.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "commands.hpp"
#include "gpbandit/dpgibo/experiment.hpp"
#include "gpbandit/error.hpp"

namespace gpb::cli {

int run_dpgibo_command(const CLI::App& cmd, const RunArgs& args) {
  const RunOptions opt = run_options(cmd, args);
  const dpgibo::DpGiboResult res = dpgibo::run_dpgibo_experiment(args.config, opt);
  std::size_t w = 6;
  for (const auto& m : res.methods) w = std::max(w, m.label.size());
  const int width = static_cast<int>(w);
  std::printf("%-*s  %-28s  %12s  %8s  %10s  %9s\n", width, "method", "final loss (mean ± sd)",
              "evaluations", "mu", "noise std", "seconds");
  for (const auto& m : res.methods) {
    char loss[64];
    std::snprintf(loss, sizeof loss, "%.5g ± %.3g", m.loss_mean, m.loss_sd);
    std::printf("%-*s  %-29s  %12.1f  %8.3g  %10.4g  %9.2f\n", width, m.label.c_str(), loss,
                m.evaluations_mean, m.mu, m.noise_std, m.seconds);
  }
  if (!std::isnan(res.optimum_loss)) std::printf("\noptimum loss: %.6g\n", res.optimum_loss);
  std::printf("\nbackend:      %s\n", res.backend.c_str());
  std::printf("runs.csv:     %s\n", res.runs_csv.c_str());
  std::printf("summary.json: %s\n", res.summary_json.c_str());
  std::printf("loss.png:     %s\n", res.plotted ? res.plot_png.c_str() : res.plot_message.c_str());
  return 0;
}

}  // namespace gpb::cli
