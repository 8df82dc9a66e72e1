// Subcommands of the gpbandit CLI (tools/main.cpp wires them into CLI11).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "gpbandit/experiment/experiment.hpp"

namespace gpb::cli {

/// Flags of `gpbandit run`.
struct RunArgs {
  std::string config;  ///< the config's path, or "-" for stdin
  /// The config's text, read once by run_command (from the file, or stdin for "-").
  std::string config_text;
  std::string backend;
  int runs = 0;
  std::string seed;  ///< checked by run_command: an integer in [0, 2^64 − 1]
  int threads = 0;
  std::string out;
  bool resume = false;
  bool force = false;
  bool quiet = false;
  bool no_plot = false;
  bool mpi = false;  ///< run under mpirun (rank 0 writes)
  /// Seconds a sharded run's collective may wait (--mpi-timeout); 0: adaptive.
  double mpi_timeout = 0.0;
};

/// Declares `run` on `app`; `cmd` receives the parsed flags.
CLI::App* add_run_command(CLI::App& app, RunArgs& args);
/// Executes `run`; returns the exit code. Throws gpb errors for main() to map.
int run_command(const CLI::App& cmd, RunArgs& args);

/// "--seed" as an integer in [0, 2^64 − 1]: no sign, no overflow. @throws InvalidArgument.
std::uint64_t parse_seed(const std::string& s);

/// Flags of `init`, `ask`, `tell`, `best` and `forget` (tools/cmd_state.cpp).
struct StateArgs {
  std::string config;           ///< init: the optimizer config
  std::string state;            ///< the state file
  bool force = false;           ///< init: overwrite an existing state
  int q = 1;                    ///< ask: batch size
  std::string out;              ///< ask: CSV file (default stdout)
  std::string points;           ///< tell: CSV of the points
  std::string y;                ///< tell: CSV of the rewards
  std::string noise;            ///< tell: CSV of the known noise variances (optional)
  bool all = false;             ///< forget: every outstanding ask
  double lock_timeout_s = 600;  ///< seconds to wait for the state's lock
};
/// The state-file subcommands.
struct StateCommands {
  CLI::App* init = nullptr;
  CLI::App* ask = nullptr;
  CLI::App* tell = nullptr;
  CLI::App* best = nullptr;
  CLI::App* forget = nullptr;
  /// Whether one of them was given.
  bool parsed() const {
    return init->parsed() || ask->parsed() || tell->parsed() || best->parsed() || forget->parsed();
  }
};
/// Declares `init`, `ask`, `tell`, `best` and `forget` on `app`.
StateCommands add_state_commands(CLI::App& app, StateArgs& args);
/// Executes the one that was parsed; returns the exit code.
int state_command(const StateCommands& cmds, const StateArgs& args);

/// Executes `run` for an optimizer config with a command objective (config_kind "command";
/// tools/cmd_optimize.cpp).
int run_optimize_command(const CLI::App& cmd, const RunArgs& args);

/// Declares `list [what]`.
CLI::App* add_list_command(CLI::App& app, std::string& what);
/// Executes `list`; returns the exit code.
int list_command(const std::string& what);

}  // namespace gpb::cli
