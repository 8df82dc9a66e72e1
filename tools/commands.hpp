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
  std::string seed;  ///< checked by run_command: an integer in [0, 2^64 − 1]
  int threads = 0;
  std::string out;
  bool resume = false;
  bool force = false;
  bool quiet = false;
  bool no_plot = false;
  bool mpi = false;            ///< run under mpirun (rank 0 writes)
  double mpi_timeout = 600.0;  ///< seconds a sharded run's collective may wait (--mpi-timeout)
};

/// Declares `run` on `app`; `cmd` receives the parsed flags.
CLI::App* add_run_command(CLI::App& app, RunArgs& args);
/// Executes `run`; returns the exit code. Throws gpb errors for main() to map.
int run_command(const CLI::App& cmd, const RunArgs& args);

/// Declares `list [what]`.
CLI::App* add_list_command(CLI::App& app, std::string& what);
/// Executes `list`; returns the exit code.
int list_command(const std::string& what);

}  // namespace gpb::cli
