// A user's program under supervision (see process.hpp): fork/exec with three pipes, a watcher
// process that kills the program's group when we die, a poll loop that feeds stdin, drains stdout
// (capped) and stderr (tail kept) and watches the program's own exit under a deadline.
#include "objective/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>

#include "gpbandit/error.hpp"

extern char** environ;

namespace gpb::detail {

namespace {

using Clock = std::chrono::steady_clock;

/// Process group of the program now running (0: none), for signal_running_process().
std::atomic<pid_t> g_running{0};

[[noreturn]] void fail(const char* call) {
  throw Error(std::string(call) + ": " + std::strerror(errno));
}

/// A pipe whose ends close on exec; ends are −1 once closed.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe2(fd, O_CLOEXEC) != 0) fail("pipe");
  }
  ~Pipe() {
    close_end(0);
    close_end(1);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

/// argv and envp of the child, built before fork (after fork the child may only make
/// async-signal-safe calls: this process has other threads).
struct ChildArgs {
  std::vector<std::string> strings;
  std::vector<char*> argv, envp;
  ChildArgs(const std::vector<std::string>& args, const std::vector<std::string>& extra) {
    strings = args;
    const auto overridden = [&](const char* e) {
      for (const std::string& x : extra) {
        const std::size_t eq = x.find('=');
        if (std::strncmp(e, x.c_str(), eq + 1) == 0) return true;
      }
      return false;
    };
    for (char** e = environ; *e != nullptr; ++e) {
      if (!overridden(*e)) strings.emplace_back(*e);
    }
    strings.insert(strings.end(), extra.begin(), extra.end());
    for (std::size_t i = 0; i < strings.size(); ++i) {
      (i < args.size() ? argv : envp).push_back(strings[i].data());
    }
    argv.push_back(nullptr);
    envp.push_back(nullptr);
  }
};

/// Closes every descriptor from `first` on (close_range where the kernel has it).
void close_from(int first) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, static_cast<unsigned>(first), ~0U, 0U) == 0) return;
#endif
  rlimit rl{};
  const long top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                       ? static_cast<long>(std::min<rlim_t>(rl.rlim_cur, 1 << 16))
                       : 1 << 16;
  for (long fd = first; fd < top; ++fd) ::close(static_cast<int>(fd));
}

void default_signals() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) sigaction(s, &dfl, nullptr);  // fails harmlessly on KILL/STOP
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

/// In the child: sends errno to the parent through `status` and exits 127.
[[noreturn]] void report_errno(const Pipe& status) {
  const int e = errno;
  (void)!write(status.fd[1], &e, sizeof e);
  _exit(127);
}

[[noreturn]] void exec_child(const ChildArgs& a, const std::string& dir, pid_t parent, Pipe& in,
                             Pipe& out, Pipe& err, Pipe& status) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);     // dies with the thread that forked it
  if (getppid() != parent) _exit(127);  // that thread's process died before the prctl
  const auto report = [&] { report_errno(status); };
  if (!dir.empty() && chdir(dir.c_str()) != 0) report();
  default_signals();
  dup2(in.fd[0], 0);
  dup2(out.fd[1], 1);
  dup2(err.fd[1], 2);
  execvpe(a.argv[0], a.argv.data(), a.envp.data());
  report_errno(status);
}

/// The watcher: joins the program's group, keeps only `lifeline` open and waits for its EOF (our
/// death, or the end of the run), then kills the whole group, itself included. Ignores the
/// signals a program's cleanup sends to its own group (`kill 0`), so it outlives them.
[[noreturn]] void watch(int lifeline, pid_t group) {
  (void)setpgid(0, group);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM}) {
    sigaction(s, &ign, nullptr);
  }
  if (lifeline != 0) {
    dup2(lifeline, 0);
  }
  close_from(1);
  char c = 0;
  while (::read(0, &c, 1) < 0 && errno == EINTR) {
  }
  kill(-group, SIGKILL);
  _exit(0);
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

/// A pidfd for `pid` (readable once it exits), or −1 where the kernel has none.
int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

/// Whether `pid` has exited, without reaping it (its pid and group stay reserved).
bool has_exited(pid_t pid) {
  siginfo_t si{};
  si.si_pid = 0;
  return waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         si.si_pid == pid;
}

void reap(pid_t pid, int* status) {
  int s = 0;
  while (waitpid(pid, &s, 0) < 0 && errno == EINTR) {
  }
  if (status != nullptr) *status = s;
}

/// The program and its watcher, killed and reaped however the run ends (exceptions included).
struct Supervised {
  pid_t pid = -1, watcher = -1;
  int pidfd = -1;
  bool reaped = false;
  ~Supervised() {
    if (pid > 0 && !reaped) {
      kill(-pid, SIGKILL);
      reap(pid, nullptr);
    }
    if (watcher > 0) {
      kill(watcher, SIGKILL);
      reap(watcher, nullptr);
    }
    if (pidfd >= 0) ::close(pidfd);
    g_running.store(0);
  }
};

/// The run's streams: what was read so far and what is left to write.
struct Streams {
  const ProcessSpec& spec;
  Pipe &in, &out, &err;
  const std::string& input;
  std::size_t pos = 0;
  ProcessOutcome& o;

  /// Reads once from stream k (0: stdout, 1: stderr): the bytes read (0 at EOF or when nothing
  /// is there), or −1 once stdout exceeds its cap.
  long read_from(int k) {
    char buf[65536];
    Pipe& p = k == 0 ? out : err;
    const ssize_t n = ::read(p.fd[0], buf, sizeof buf);
    if (n > 0) {
      const auto len = static_cast<std::size_t>(n);
      if (k == 0) {
        if (o.out.size() + len > spec.max_stdout) {
          o.out.append(buf, spec.max_stdout - o.out.size());
          o.over_limit = true;
          return -1;
        }
        o.out.append(buf, len);
      } else {
        keep_tail(buf, len);
        if (spec.pass_stderr) (void)!::write(2, buf, len);
      }
      return static_cast<long>(n);
    }
    if (n == 0 || (errno != EINTR && errno != EAGAIN)) p.close_end(0);
    return 0;
  }
  void keep_tail(const char* buf, std::size_t len) {
    o.err_tail.append(buf, len);
    if (o.err_tail.size() > 2 * spec.stderr_tail) {
      std::size_t cut = o.err_tail.size() - spec.stderr_tail;
      const std::size_t nl = o.err_tail.find('\n', cut);
      if (nl != std::string::npos) cut = nl + 1;
      o.err_tail.erase(0, cut);
    }
  }
  /// After the program exited: what its pipes hold now, at most 64 reads each (a child it left
  /// may keep them open and write on).
  void drain() {
    for (int k = 0; k < 2; ++k) {
      Pipe& p = k == 0 ? out : err;
      if (p.fd[0] >= 0) fcntl(p.fd[0], F_SETFL, O_NONBLOCK);
      for (int i = 0; i < 64 && p.fd[0] >= 0; ++i) {
        const long n = read_from(k);
        if (n < 0) return;
        if (n == 0) break;
      }
    }
  }
};

/// Feeds stdin and drains stdout/stderr until the program exits, the deadline passes or stdout
/// exceeds its cap.
void pump(Streams& s, const Supervised& child, Clock::time_point deadline) {
  fcntl(s.in.fd[1], F_SETFL, O_NONBLOCK);
  if (s.input.empty()) s.in.close_end(1);
  for (;;) {
    pollfd fds[4] = {{s.out.fd[0], POLLIN, 0},
                     {s.err.fd[0], POLLIN, 0},
                     {s.in.fd[1], POLLOUT, 0},
                     {child.pidfd, POLLIN, 0}};
    int wait_ms = child.pidfd >= 0 ? -1 : 20;  // without a pidfd: look every 20 ms
    if (s.spec.timeout_s > 0) {
      const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      if (left <= 0) {
        s.o.timed_out = true;
        return;
      }
      const int left_ms = static_cast<int>(std::min(std::ceil(left * 1000.0), 1e9));
      wait_ms = wait_ms < 0 ? left_ms : std::min(wait_ms, left_ms);
    }
    const int r = poll(fds, 4, wait_ms);
    if (r < 0 && errno != EINTR) fail("poll");
    if (r > 0 && fds[2].revents != 0) {
      if (!feed(s.in.fd[1], s.input, s.pos) || s.pos == s.input.size()) s.in.close_end(1);
    }
    for (int k = 0; k < 2 && r > 0; ++k) {
      if (fds[k].revents != 0 && s.read_from(k) < 0) return;
    }
    const bool exited = child.pidfd >= 0 ? (r > 0 && fds[3].revents != 0) : has_exited(child.pid);
    if (exited) {
      s.drain();
      return;
    }
  }
}

}  // namespace

ProcessOutcome run_process(const ProcessSpec& spec, const std::string& input) {
  const ChildArgs args(spec.argv, spec.env);
  Pipe in, out, err, status, lifeline;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(std::min(spec.timeout_s, 1e9)));
  Supervised child;
  const pid_t me = getpid();
  child.pid = fork();
  if (child.pid < 0) fail("fork");
  if (child.pid == 0) exec_child(args, spec.working_dir, me, in, out, err, status);
  (void)setpgid(child.pid, child.pid);  // also from here, so that kill(-pid) finds the group
  g_running.store(child.pid);
  child.watcher = fork();
  if (child.watcher == 0) watch(lifeline.fd[0], child.pid);
  if (child.watcher > 0) (void)setpgid(child.watcher, child.pid);
  // Without a watcher (fork failed) the program still dies with us (PR_SET_PDEATHSIG); only its
  // own children could outlive a SIGKILL of this process.
  lifeline.close_end(0);
  in.close_end(0);
  out.close_end(1);
  err.close_end(1);
  status.close_end(1);
  ProcessOutcome o;
  if (::read(status.fd[0], &o.exec_errno, sizeof o.exec_errno) != sizeof o.exec_errno) {
    o.exec_errno = 0;  // the pipe closed on a successful exec
  }
  child.pidfd = open_pidfd(child.pid);
  if (o.exec_errno == 0) {
    Streams s{spec, in, out, err, input, 0, o};
    pump(s, child, deadline);
  }
  kill(-child.pid, SIGKILL);  // what it left running; all of it on a timeout or an overflow
  reap(child.pid, &o.status);
  child.reaped = true;
  return o;
}

void signal_running_process(int sig) {
  const pid_t group = g_running.load();
  if (group > 0) kill(-group, sig);
}

}  // namespace gpb::detail
