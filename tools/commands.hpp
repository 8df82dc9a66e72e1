// Subcommands of the gpbandit CLI (tools/main.cpp wires them into CLI11).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "gpbandit/experiment.hpp"

namespace gpb::cli {

/// Flags of `gpbandit run`.
struct RunArgs {
  std::string config;
  std::string backend;
  int runs = 0;
  std::uint64_t seed = 0;
  int threads = 0;
  std::string out;
  bool resume = false;
  bool quiet = false;
  bool no_plot = false;
  bool mpi = false;  ///< X-armed (fed-pne) configs: run over MPI (under mpirun)
};

/// Declares `run` on `app`; `cmd` receives the parsed flags.
CLI::App* add_run_command(CLI::App& app, RunArgs& args);
/// Executes `run`; returns the exit code. Throws gpb errors for main() to map.
int run_command(const CLI::App& cmd, const RunArgs& args);

/// Executes `run` for a config with "experiment": "dp-gibo" (tools/cmd_dpgibo.cpp).
int run_dpgibo_command(const CLI::App& cmd, const RunArgs& args);
/// The RunOptions the flags of `gpbandit run` ask for (unset flags keep the config's values).
RunOptions run_options(const CLI::App& cmd, const RunArgs& args);

/// Declares `list [what]`.
CLI::App* add_list_command(CLI::App& app, std::string& what);
/// Executes `list`; returns the exit code.
int list_command(const std::string& what);

}  // namespace gpb::cli
