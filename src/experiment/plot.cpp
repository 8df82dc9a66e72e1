// Drawing regret.png by running tools/plot_regret.py in a child process (fork/exec, no shell).
#include "experiment/plot.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "gpbandit/build_config.hpp"
#include "io/atomic_file.hpp"

namespace gpb::detail {
namespace fs = std::filesystem;

std::string find_plot_script() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = exe.parent_path() / "plot_regret.py";
    if (fs::exists(beside, ec)) return beside.string();
    // An installed CLI: <prefix>/bin/gpbandit and <prefix>/share/gpbandit/plot_regret.py.
    const fs::path shared =
        exe.parent_path().parent_path() / "share" / "gpbandit" / "plot_regret.py";
    if (fs::exists(shared, ec)) return shared.string();
  }
  return GPB_PLOT_SCRIPT_SOURCE;
}

namespace {

struct ChildResult {
  int exit_code = -1;  ///< -1: killed by a signal; 127: exec failed
  std::string err;     ///< its stderr
};

ChildResult run_child(const std::vector<std::string>& argv) {
  ChildResult res;
  int fds[2];
  if (::pipe(fds) != 0) {
    res.err = std::strerror(errno);
    return res;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    res.err = std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return res;
  }
  if (pid == 0) {
    ::dup2(fds[1], 2);
    const int devnull = ::open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      ::dup2(devnull, 0);
      ::dup2(devnull, 1);
    }
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    _exit(127);
  }
  ::close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) res.err.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  res.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return res;
}

std::string last_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  const auto pos = s.find_last_of('\n');
  return pos == std::string::npos ? s : s.substr(pos + 1);
}

}  // namespace

PlotOutcome draw_plot(const PlotCall& call, const std::string& out_png, const std::string& python) {
  PlotOutcome out;
  std::string py = python;
  if (py.empty()) {
    const char* env = std::getenv("GPB_PYTHON");
    py = (env != nullptr && *env != '\0') ? env : GPB_PYTHON_DEFAULT;
  }
  std::error_code ec;
  fs::path script = fs::path(find_plot_script()).parent_path() / call.script;
  if (!fs::exists(script, ec))
    script = fs::path(GPB_PLOT_SCRIPT_SOURCE).parent_path() / call.script;
  if (!fs::exists(script, ec)) {
    out.message = "no plot: plot script not found (" + script.string() + ")";
    return out;
  }
  const std::string tmp = temp_sibling(out_png);
  std::vector<std::string> argv{py, script.string()};
  argv.insert(argv.end(), call.before.begin(), call.before.end());
  argv.push_back(tmp);
  argv.insert(argv.end(), call.after.begin(), call.after.end());
  const ChildResult r = run_child(argv);
  if (r.exit_code == 0 && fs::exists(tmp, ec)) {
    if (std::rename(tmp.c_str(), out_png.c_str()) == 0) {
      sync_directory(fs::path(out_png).parent_path().string());
      out.plotted = true;
      return out;
    }
    const int e = errno;
    out.message = "no plot: cannot rename " + tmp + " to " + out_png + ": " + std::strerror(e);
  } else if (r.exit_code == 3) {
    out.message = "no plot: matplotlib is not installed for " + py;
  } else if (r.exit_code == 127) {
    out.message = "no plot: cannot run the Python interpreter '" + py + "'";
  } else {
    const std::string why = last_line(r.err);
    out.message = "no plot: plot script failed (exit " + std::to_string(r.exit_code) + ")" +
                  (why.empty() ? "" : ": " + why);
  }
  fs::remove(tmp, ec);
  return out;
}

}  // namespace gpb::detail
