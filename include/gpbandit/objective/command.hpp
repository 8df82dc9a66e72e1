/// @file command.hpp
/// A user's own program as the objective: each batch of candidates goes to the program's stdin as
/// CSV, and the program answers with one reward per candidate on its stdout. Used by
/// `gpbandit run` for configs whose objective is {"type": "command", "cmd": [...]}.
#pragma once

#include <Eigen/Core>

#include <string>
#include <vector>

#include "gpbandit/error.hpp"

namespace gpb {

/// A failed evaluation by a command: the message names the round and what went wrong.
class CommandError : public Error {
 public:
  /// What went wrong.
  enum class Kind {
    Failed,     ///< could not start, exited with a non-zero status, or was killed by a signal
    TimedOut,   ///< still running after the timeout (then killed with its process group)
    Malformed,  ///< exited 0 but its output is not one finite number per candidate
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
  /// Seconds one evaluation may take (0: no limit).
  double timeout_s = 0;
  /// The program's working directory ("": the caller's).
  std::string working_dir;
};

/// Runs a program once per batch of candidates.
///
/// Protocol: the program gets on stdin a header line "x0,x1,...,x{d−1}" and one line per candidate
/// with its coordinates (17 significant digits, so they read back exactly); the environment adds
/// GPBANDIT_ROUND (the round, from 1) and GPBANDIT_Q (the number of candidates). It must exit with
/// status 0 after printing one reward per candidate on stdout, in the order given, separated by
/// newlines, commas or spaces (a first line whose first field is not a number is a header and is
/// skipped; "nan", "inf" or any other word is an error). Its stderr passes through to ours; the
/// last line of it is quoted when it fails. On a timeout the program's whole process group is
/// killed (SIGKILL).
class CommandObjective {
 public:
  /// @throws InvalidArgument if argv is empty or timeout_s is negative or not finite.
  explicit CommandObjective(CommandOptions options);

  /// Runs the program on the q×d `points` (one candidate per row) for round `round`; returns q
  /// rewards. Waits at most timeout_s seconds.
  /// @throws CommandError (Failed, TimedOut or Malformed), the message naming the round.
  std::vector<double> evaluate(const Eigen::Ref<const Eigen::MatrixXd>& points, int round) const;

  /// The options.
  const CommandOptions& options() const { return options_; }
  /// The command as one line of text (arguments quoted where needed), for messages.
  std::string describe() const;

  /// Sends `sig` to the process group of the evaluation now running, if any (the program runs in
  /// a process group of its own, so a terminal's Ctrl-C does not reach it). Async-signal-safe: for
  /// the caller's SIGINT/SIGTERM handlers.
  static void signal_running(int sig);

 private:
  CommandOptions options_;
};

}  // namespace gpb
