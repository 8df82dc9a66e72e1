/// @file plot.hpp
/// Drawing regret.png with tools/plot_regret.py.
#pragma once

#include <string>
#include <vector>

namespace gpb::detail {

/// Outcome of drawing the plot.
struct PlotOutcome {
  bool plotted = false;
  std::string message;  ///< why there is no plot, when !plotted
};

/// The plot script: beside the executable (/proc/self/exe), else GPB_PLOT_SCRIPT_SOURCE.
std::string find_plot_script();

/// Runs `python script runs_csv <tmp png> --title title` and renames the PNG atomically onto
/// out_png. `python` empty → env GPB_PYTHON, else GPB_PYTHON_DEFAULT. Never throws for a
/// missing interpreter or matplotlib: the outcome says why there is no plot.
PlotOutcome draw_regret_plot(const std::string& runs_csv, const std::string& out_png,
                             const std::string& title, const std::string& python);

/// Runs `python <script_name> <args…> <tmp png>` (script beside the executable, else beside
/// GPB_PLOT_SCRIPT_SOURCE) and renames the PNG atomically onto out_png. Same outcomes as
/// draw_regret_plot (exit 3 = no matplotlib). Used by the DP-GIBO driver (tools/plot_dpgibo.py).
PlotOutcome draw_plot_with(const std::string& script_name, const std::vector<std::string>& args,
                           const std::string& out_png, const std::string& python);

}  // namespace gpb::detail
