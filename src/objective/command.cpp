// CommandObjective: fork/exec with three pipes, a poll loop feeding stdin and draining stdout and
// stderr under a deadline, and strict parsing of the rewards (see command.hpp for the protocol).
#include "gpbandit/objective/command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "gpbandit/objective/objective.hpp"

extern char** environ;

namespace gpb {

namespace {

using Clock = std::chrono::steady_clock;

/// Process group of the evaluation now running (0: none), for signal_running().
std::atomic<pid_t> g_running{0};

/// Publishes the running group for the life of one evaluation.
struct RunningGroup {
  explicit RunningGroup(pid_t pid) { g_running.store(pid); }
  ~RunningGroup() { g_running.store(0); }
  RunningGroup(const RunningGroup&) = delete;
  RunningGroup& operator=(const RunningGroup&) = delete;
};

/// The last non-empty line of `text`, at most 300 characters, for messages.
std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  const std::size_t start = text.find_last_of('\n', end);
  std::string line = text.substr(start == std::string::npos ? 0 : start + 1,
                                 end + 1 - (start == std::string::npos ? 0 : start + 1));
  if (line.size() > 300) line = "..." + line.substr(line.size() - 300);
  return line;
}

/// A pipe whose ends close on exec; ends are −1 once closed.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe2(fd, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  }
  ~Pipe() {
    close_end(0);
    close_end(1);
  }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

/// What the child process produced.
struct Outcome {
  std::string out, err;
  int status = 0;
  bool timed_out = false;
  int exec_errno = 0;  ///< errno of a failed exec, 0 if the program started
};

/// argv and envp of the child, built before fork (the child may only make async-signal-safe
/// calls: the parent has other threads).
struct ChildArgs {
  std::vector<std::string> strings;
  std::vector<char*> argv, envp;
  ChildArgs(const std::vector<std::string>& args, int round, int q) {
    strings = args;
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::strncmp(*e, "GPBANDIT_ROUND=", 15) != 0 &&
          std::strncmp(*e, "GPBANDIT_Q=", 11) != 0) {
        strings.emplace_back(*e);
      }
    }
    strings.push_back("GPBANDIT_ROUND=" + std::to_string(round));
    strings.push_back("GPBANDIT_Q=" + std::to_string(q));
    for (std::size_t i = 0; i < strings.size(); ++i) {
      (i < args.size() ? argv : envp).push_back(strings[i].data());
    }
    argv.push_back(nullptr);
    envp.push_back(nullptr);
  }
};

[[noreturn]] void exec_child(const ChildArgs& a, const std::string& dir, Pipe& in, Pipe& out,
                             Pipe& err, Pipe& status) {
  setpgid(0, 0);
  if (!dir.empty() && chdir(dir.c_str()) != 0) {
    const int e = errno;
    (void)!write(status.fd[1], &e, sizeof e);
    _exit(127);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);
  dup2(in.fd[0], 0);
  dup2(out.fd[1], 1);
  dup2(err.fd[1], 2);
  execvpe(a.argv[0], a.argv.data(), a.envp.data());
  const int e = errno;
  (void)!write(status.fd[1], &e, sizeof e);
  _exit(127);
}

/// Writes what it can of `data` from `pos` without blocking; false once the reader is gone.
bool feed(int fd, const std::string& data, std::size_t& pos) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  const ssize_t n = ::write(fd, data.data() + pos, data.size() - pos);
  const int e = errno;
  if (n < 0 && e == EPIPE) {  // consume the SIGPIPE this write raised, then restore the mask
    const timespec zero{0, 0};
    sigtimedwait(&pipe_set, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (n > 0) pos += static_cast<std::size_t>(n);
  return !(n < 0 && e != EAGAIN && e != EINTR);
}

/// Feeds stdin and drains stdout/stderr until both close, or until the deadline.
void pump(Pipe& in, Pipe& out, Pipe& err, const std::string& input, double timeout_s,
          Clock::time_point deadline, Outcome& o) {
  std::size_t pos = 0;
  fcntl(in.fd[1], F_SETFL, O_NONBLOCK);
  if (input.empty()) in.close_end(1);
  char buf[65536];
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    pollfd fds[3] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}, {in.fd[1], POLLOUT, 0}};
    int wait_ms = -1;
    if (timeout_s > 0) {
      const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      if (left <= 0) {
        o.timed_out = true;
        return;
      }
      wait_ms = static_cast<int>(std::ceil(left * 1000.0));
    }
    const int r = poll(fds, 3, wait_ms);
    if (r < 0 && errno != EINTR) throw Error(std::string("poll: ") + std::strerror(errno));
    if (r <= 0) continue;
    if (fds[2].revents != 0) {
      if (!feed(in.fd[1], input, pos) || pos == input.size()) in.close_end(1);
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].revents == 0) continue;
      Pipe& p = k == 0 ? out : err;
      const ssize_t n = ::read(p.fd[0], buf, sizeof buf);
      if (n > 0) {
        (k == 0 ? o.out : o.err).append(buf, static_cast<std::size_t>(n));
        if (k == 1) (void)!::write(2, buf, static_cast<std::size_t>(n));  // pass stderr through
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        p.close_end(0);
      }
    }
  }
}

/// Waits for the child until the deadline (none when timeout_s is 0); kills its group after it.
void reap(pid_t pid, double timeout_s, Clock::time_point deadline, Outcome& o) {
  for (;;) {
    const pid_t r = waitpid(pid, &o.status, timeout_s > 0 && !o.timed_out ? WNOHANG : 0);
    if (r == pid) return;
    if (r < 0 && errno != EINTR) throw Error(std::string("waitpid: ") + std::strerror(errno));
    if (r == 0) {
      if (Clock::now() >= deadline) {
        o.timed_out = true;
        kill(-pid, SIGKILL);
      } else {
        usleep(2000);
      }
    }
  }
}

Outcome run_once(const CommandOptions& c, const std::string& input, int round, int q) {
  const ChildArgs args(c.argv, round, q);
  const double timeout_s = c.timeout_s;
  Pipe in, out, err, status;
  const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(timeout_s));
  const pid_t pid = fork();
  if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) exec_child(args, c.working_dir, in, out, err, status);
  (void)setpgid(pid, pid);  // also from the parent, so that the kill below finds the group
  const RunningGroup running(pid);
  in.close_end(0);
  out.close_end(1);
  err.close_end(1);
  status.close_end(1);
  Outcome o;
  if (::read(status.fd[0], &o.exec_errno, sizeof o.exec_errno) != sizeof o.exec_errno) {
    o.exec_errno = 0;  // the pipe closed on a successful exec
  }
  if (o.exec_errno == 0) pump(in, out, err, input, timeout_s, deadline, o);
  if (o.timed_out) kill(-pid, SIGKILL);
  in.close_end(1);
  reap(pid, timeout_s, deadline, o);
  return o;
}

/// The q rewards in `out` (numbers separated by newlines, commas, spaces or tabs; a first line
/// whose first field is not a number is a header), or a CommandError::Malformed naming the round
/// and the line.
std::vector<double> parse_rewards(const std::string& out, int q, int round) {
  std::vector<double> y;
  std::istringstream lines(out);
  std::string line;
  bool first_line = true;
  for (int no = 1; std::getline(lines, line); ++no) {
    for (char& ch : line) {
      if (ch == ',' || ch == '\t' || ch == '\r') ch = ' ';
    }
    std::istringstream fields(line);
    std::string field;
    bool header = first_line;
    while (fields >> field) {
      double v = 0;
      const char* begin = field.data() + (field[0] == '+' ? 1 : 0);
      const auto res = std::from_chars(begin, field.data() + field.size(), v);
      const bool number = res.ec == std::errc() && res.ptr == field.data() + field.size();
      if (header && !number) break;  // a header line: skipped
      header = false;
      if (!number || !std::isfinite(v)) {
        throw CommandError(CommandError::Kind::Malformed, round,
                           "round " + std::to_string(round) + ": line " + std::to_string(no) +
                               " of the command's output has '" + last_line(field) +
                               "', not a finite number");
      }
      y.push_back(v);
    }
    if (line.find_first_not_of(' ') != std::string::npos) first_line = false;
  }
  if (static_cast<int>(y.size()) != q) {
    throw CommandError(CommandError::Kind::Malformed, round,
                       "round " + std::to_string(round) + ": the command printed " +
                           std::to_string(y.size()) + " reward(s) for " + std::to_string(q) +
                           " candidate(s) (expected one number per candidate)");
  }
  return y;
}

}  // namespace

CommandObjective::CommandObjective(CommandOptions options) : options_(std::move(options)) {
  GPB_EXPECTS(!options_.argv.empty() && !options_.argv[0].empty(),
              "objective.cmd must be a non-empty array of strings (the program and its arguments)");
  GPB_EXPECTS(
      std::isfinite(options_.timeout_s) && options_.timeout_s >= 0 && options_.timeout_s <= 1e8,
      "objective.timeout_s must be in [0, 1e8] (0: no limit), got " << options_.timeout_s);
}

void CommandObjective::signal_running(int sig) {
  const pid_t group = g_running.load();
  if (group > 0) kill(-group, sig);
}

std::string CommandObjective::describe() const {
  std::string s;
  for (const std::string& a : options_.argv) {
    const bool plain = !a.empty() && a.find_first_of(" \t\"'\\$`") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return s;
}

std::vector<double> CommandObjective::evaluate(const Eigen::Ref<const Eigen::MatrixXd>& points,
                                               int round) const {
  const int q = static_cast<int>(points.rows());
  const Outcome o = run_once(options_, csv_text(points), round, q);
  const std::string head = "round " + std::to_string(round) + ": the command '" + describe() + "' ";
  if (o.exec_errno != 0) {
    throw CommandError(CommandError::Kind::Failed, round,
                       head + "could not be started: " + std::strerror(o.exec_errno));
  }
  if (o.timed_out) {
    std::ostringstream os;
    os << head << "did not finish within timeout_s = " << options_.timeout_s << " s and was killed";
    throw CommandError(CommandError::Kind::TimedOut, round, os.str());
  }
  const std::string tail =
      last_line(o.err).empty() ? "" : "; its last error line: " + last_line(o.err);
  if (WIFSIGNALED(o.status)) {
    throw CommandError(CommandError::Kind::Failed, round,
                       head + "was killed by signal " + std::to_string(WTERMSIG(o.status)) + " (" +
                           strsignal(WTERMSIG(o.status)) + ")" + tail);
  }
  if (WEXITSTATUS(o.status) != 0) {
    throw CommandError(CommandError::Kind::Failed, round,
                       head + "exited with status " + std::to_string(WEXITSTATUS(o.status)) + tail);
  }
  return parse_rewards(o.out, q, round);
}

}  // namespace gpb
