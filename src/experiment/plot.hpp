/// @file plot.hpp
/// Drawing the plots of an experiment (tools/plot_regret.py, tools/plot_dpgibo.py).
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

/// A plot script and its arguments: `python <script> <before…> <temporary png> <after…>`.
struct PlotCall {
  std::string script;               ///< file name beside the plot scripts (plot_regret.py, …)
  std::vector<std::string> before;  ///< arguments before the output path
  std::vector<std::string> after;   ///< arguments after it
};

/// Runs the script (beside the executable, else beside GPB_PLOT_SCRIPT_SOURCE) with `python`
/// (empty → env GPB_PYTHON, else GPB_PYTHON_DEFAULT) and renames the PNG atomically onto
/// out_png. Never throws for a missing interpreter or matplotlib (the script exits 3): the
/// outcome says why there is no plot.
PlotOutcome draw_plot(const PlotCall& call, const std::string& out_png, const std::string& python);

}  // namespace gpb::detail
