/// @file command_run.hpp
/// Runs an optimizer config whose objective is a user's program (a "command-objective config",
/// `gpbandit list optimizer`): what `gpbandit run CONFIG.json` does for such a config and what
/// Python's `gpbandit.run(config)` calls, one implementation for both.
///
///   {"name": "tune", "T": 50, "q": 1, <optimizer config keys, see gpb::parse_optimizer_config>,
///    "objective": {"type": "command", "cmd": ["python3", "f.py"], "timeout_s": 600}}
///
/// Each round asks the optimizer for q candidates, runs the program on them in the config's folder
/// (CSV on its stdin, one reward per candidate on its stdout: gpb::CommandObjective), tells the
/// rewards and saves the state atomically. The output folder (default `results/NAME`) holds
/// state.json (the optimizer, resumable), run.json (what the run was started with),
/// evaluations.csv and, at the end, summary.json.
///
/// Thread safety: one call per output folder at a time (a second one on the same folder, in this
/// process or another, throws InvalidArgument naming the first one's pid).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "gpbandit/engine/context.hpp"

namespace gpb {

/// How run_command_config runs (the flags of `gpbandit run` that apply to a command objective).
struct CommandRunOptions {
  /// Output folder; empty: `results/NAME` (name from the config, else the config file's stem).
  std::string out;
  /// Continue the run in `out` (same optimizer identity; T, name, cmd, timeout_s may change).
  bool resume = false;
  /// Discard a previous run in `out` instead of refusing to overwrite it.
  bool force = false;
  /// No progress lines on stderr.
  bool quiet = false;
  /// Overrides the config's seed.
  std::optional<std::uint64_t> seed;
  /// Overrides the backend (a resumed run otherwise keeps the one it was saved with).
  std::optional<Backend> backend;
  /// Overrides the CPU threads (as backend).
  std::optional<int> threads;
  /// Called once the run is open, with the path of its state.json (the CLI installs its signal
  /// handlers there, naming the file in its "interrupted" message).
  std::function<void(const std::string& state)> on_open;
  /// Called between rounds (after a round is saved); may throw to stop the run, which then keeps
  /// every saved round (Python checks for Ctrl-C there).
  std::function<void()> between_rounds;
};

/// What run_command_config wrote.
struct CommandRunResult {
  std::string out_dir;       ///< the output folder
  std::string summary_json;  ///< the text of out_dir/summary.json
  std::string best_line;     ///< "best y = … at (…) (evaluation i of n)", as the CLI prints it
};

/// Runs the command-objective config `text` read from `config_path` ("-" for stdin, "<python
/// dict>" etc. for text without a file: relative paths then resolve from `base_dir`).
/// @throws InvalidArgument for a bad config (naming file and key), a refused resume (naming the
///   differing key), a busy output folder or a malformed/oversized answer of the program;
///   Error when the program fails, hangs past timeout_s or is killed (naming the round); IoError
///   when an output cannot be written. Every completed round stays saved in state.json.
CommandRunResult run_command_config(const std::string& config_path, const std::string& text,
                                    const CommandRunOptions& options,
                                    const std::string& base_dir = "");

}  // namespace gpb
