/// @file process.hpp
/// Running a user's program under supervision (internal; CommandObjective's engine): its stdin
/// fed, its stdout captured up to a cap, the tail of its stderr kept (and passed through), a
/// deadline, and no process left behind:
///
/// - the program runs in a process group of its own, with PR_SET_PDEATHSIG = SIGKILL (it dies
///   with the thread that started it, however that thread's process dies);
/// - a watcher process in the same group (forked, never exec'd, a few pages of memory) holds one
///   end of a pipe whose other end only this process holds: when this process dies, even by
///   SIGKILL, the watcher reads EOF and kills the whole group, grandchildren included;
/// - the run ends when the program itself exits, even if a background child of it still holds
///   stdout or stderr open; whatever it left running in its group is then killed (SIGKILL), as
///   on a timeout or an output over the cap.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpb::detail {

/// What to run and how.
struct ProcessSpec {
  std::vector<std::string> argv;        ///< program (looked up on PATH without '/') and arguments
  std::vector<std::string> env;         ///< "NAME=value" entries added to (replacing) ours
  std::string working_dir;              ///< "" for ours
  double timeout_s = 0;                 ///< 0: no limit
  std::size_t max_stdout = 4u << 20;    ///< bytes of stdout kept; more kills the program
  std::size_t stderr_tail = 64u << 10;  ///< bytes of the end of stderr kept for messages
  bool pass_stderr = true;              ///< copy the program's stderr to ours as it comes
};

/// How it ended.
struct ProcessOutcome {
  std::string out;          ///< stdout (at most max_stdout bytes)
  std::string err_tail;     ///< the last ≤ stderr_tail bytes of stderr (at a line start)
  int status = 0;           ///< waitpid status of the program (when it exited by itself)
  int exec_errno = 0;       ///< errno of a failed start (0: it started)
  bool timed_out = false;   ///< killed at the deadline
  bool over_limit = false;  ///< killed for printing more than max_stdout bytes
};

/// Runs spec.argv with `input` on its stdin and waits for it (see the file comment).
/// @throws Error when a pipe or a process cannot be created (the message says which call failed).
ProcessOutcome run_process(const ProcessSpec& spec, const std::string& input);

/// Sends `sig` to the process group of the program now running, if any. Async-signal-safe.
void signal_running_process(int sig);

}  // namespace gpb::detail
