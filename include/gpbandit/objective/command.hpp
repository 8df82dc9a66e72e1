/// @file command.hpp
/// A user's own program as the objective: each batch of candidates goes to the program's stdin as
/// CSV, and the program answers with one reward per candidate on its stdout. Used by
/// `gpbandit run` for configs whose objective is {"type": "command", "cmd": [...]}.
#pragma once

#include <Eigen/Core>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/error.hpp"

namespace gpb {

/// A failed evaluation by a command: the message names the round and what went wrong.
class CommandError : public Error {
 public:
  /// What went wrong.
  enum class Kind {
    Failed,         ///< could not start, exited with a non-zero status, or was killed by a signal
    TimedOut,       ///< still running after the timeout (then killed with its process group)
    Malformed,      ///< exited 0 but its output is not one finite number per candidate
    TooMuchOutput,  ///< printed more than CommandOptions::max_output_bytes (then killed)
  };
  /// @param kind what went wrong; @param round the round; @param what the message.
  CommandError(Kind kind, int round, const std::string& what)
      : Error(what), kind_(kind), round_(round) {}
  /// What went wrong.
  Kind kind() const { return kind_; }
  /// The round whose evaluation failed (1-based).
  int round() const { return round_; }

 private:
  Kind kind_;
  int round_;
};

/// How to run the command.
struct CommandOptions {
  /// The program and its arguments (argv; the program is looked up on PATH when it has no '/').
  std::vector<std::string> argv;
  /// Seconds one evaluation may take (0: no limit). The default, an hour, ends a program that
  /// hangs; raise it for longer evaluations.
  double timeout_s = kDefaultTimeout;
  /// The program's working directory ("": the caller's).
  std::string working_dir;
  /// Bytes of stdout one evaluation may print: max(max_output_bytes, 64·q) for q candidates.
  /// More stops the evaluation (the program is killed): a program that floods its output can
  /// never exhaust our memory.
  std::size_t max_output_bytes = kDefaultMaxOutput;
  /// The parameter space whose encodings the candidates are (a "parameters" domain), or null.
  /// When set, the program reads the candidates by label: a header of the parameter names, then
  /// each parameter's value or label per line (ParameterSpace::decode, Parameter::text).
  std::shared_ptr<const ParameterSpace> space{};
  /// The program prints, for each candidate, its reward and then the known variance of that
  /// reward's measurement error (≥ 0): 2q numbers (config "noise": "returned").
  bool returns_noise = false;

  /// Default timeout_s: one hour.
  static constexpr double kDefaultTimeout = 3600;
  /// Default max_output_bytes: 4 MiB.
  static constexpr std::size_t kDefaultMaxOutput = std::size_t{4} << 20;
};

/// Runs a program once per batch of candidates.
///
/// Protocol: the program gets on stdin a header line "x0,x1,...,x{d−1}" and one line per candidate
/// with its coordinates (17 significant digits, so they read back exactly); the environment adds
/// GPBANDIT_ROUND (the round, from 1) and GPBANDIT_Q (the number of candidates). It must exit with
/// status 0 after printing one reward per candidate on stdout, in the order given, separated by
/// newlines, commas or spaces (a first line whose first field is not a number is a header and is
/// skipped; "nan", "inf" or any other word is an error). Its stderr passes through to ours; only
/// its last 64 KiB are kept, and the last line is quoted when it fails.
///
/// Supervision: the program runs in a process group of its own. The evaluation ends when the
/// program itself exits, even if a background child of it still holds stdout open; whatever it
/// left running in its group is then killed (SIGKILL), as the whole group is on a timeout or when
/// stdout exceeds its cap. The program dies with the caller (PR_SET_PDEATHSIG), and a watcher
/// process kills its whole group if the caller dies, even by SIGKILL: no evaluation outlives
/// `gpbandit run`. (PR_SET_PDEATHSIG fires when the thread that called evaluate() ends; it waits
/// for the program, so this only matters if that thread is killed.)
class CommandObjective {
 public:
  /// @throws InvalidArgument if argv is empty, timeout_s is negative or not finite, or
  /// max_output_bytes is 0.
  explicit CommandObjective(CommandOptions options);

  /// Runs the program on the q×d `points` (one candidate per row) for round `round`; returns q
  /// rewards. Waits at most timeout_s seconds. With CommandOptions::returns_noise the program
  /// prints a reward and a variance per candidate; `noise` (which must then be given) receives
  /// the q variances.
  /// @throws CommandError (Failed, TimedOut, Malformed or TooMuchOutput), the message naming the
  /// round (and the limit it hit); Error if no process can be started (fork, pipe).
  std::vector<double> evaluate(const Eigen::Ref<const Eigen::MatrixXd>& points, int round,
                               std::vector<double>* noise = nullptr) const;

  /// The same for candidates named by index (a fingerprint domain, whose points are packed
  /// words): the program gets a header line "index" and one candidate index per line.
  std::vector<double> evaluate_indices(const std::vector<int>& indices, int round,
                                       std::vector<double>* noise = nullptr) const;

  /// The options.
  const CommandOptions& options() const { return options_; }
  /// The command as one line of text (arguments quoted where needed), for messages.
  std::string describe() const;

  /// Sends `sig` to the process group of the evaluation now running, if any (the program runs in
  /// a process group of its own, so a terminal's Ctrl-C does not reach it). Async-signal-safe: for
  /// the caller's SIGINT/SIGTERM handlers.
  static void signal_running(int sig);

 private:
  /// Runs the program once with `input` on stdin for q candidates (evaluate's protocol).
  std::vector<double> run(const std::string& input, int q, int round,
                          std::vector<double>* noise) const;

  CommandOptions options_;
};

}  // namespace gpb
