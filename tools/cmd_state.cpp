// `gpbandit init CONFIG.json STATE`, `gpbandit ask STATE [--q Q] [--out POINTS.csv]`,
// `gpbandit tell STATE POINTS.csv Y.csv`, `gpbandit best STATE` and
// `gpbandit forget STATE (--all | POINTS.csv)`: an Optimizer kept in a state file, so that shell
// pipelines and job schedulers can drive it. Every command that changes the state holds an
// exclusive lock (flock on STATE.lock, a file that is never replaced) from loading to the atomic
// save, so concurrent asks and tells queue instead of losing each other's updates. `ask` commits
// its asks (saves the state) only once the points are written, so a failed write leaves nothing
// outstanding.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "io/atomic_file.hpp"
#include "optimizer/space_config.hpp"
#include "optimizer/state_lock.hpp"

namespace gpb::cli {

namespace {

void require_state(const std::string& state) {
  std::error_code ec;
  if (std::filesystem::is_directory(state, ec)) {
    throw InvalidArgument(state + ": is a directory, expected a state file (gpbandit init)");
  }
  if (!std::filesystem::is_regular_file(state, ec)) {
    throw InvalidArgument(state + ": state file not found (create it with gpbandit init)");
  }
}

/// A data file a command reads: missing, a directory or unreadable is bad input (exit 2), named
/// with the system's reason.
void require_input(const std::string& path, const char* what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InvalidArgument(path + ": " + what + " file is a directory");
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    throw InvalidArgument(path + ": cannot read the " + what + " file: " + std::strerror(errno));
  }
  std::fclose(f);
}

/// The values of a CSV of one column (optional header) or a single row: Y.csv's rewards or, with
/// `missing_as_nan`, NOISE.csv's known noise variances (an empty cell, nan or na: not known; the
/// values themselves are checked by Optimizer::tell). `what` names them in messages.
std::vector<double> read_column(const std::string& path, const char* what,
                                bool missing_as_nan = false) {
  require_input(path, what);
  const Eigen::MatrixXd y = read_csv_matrix(path, nullptr, 0, missing_as_nan);
  if (y.cols() != 1 && y.rows() != 1) {
    throw InvalidArgument(path + ": expected one column of " + what + " (or one row), got " +
                          std::to_string(y.rows()) + " x " + std::to_string(y.cols()));
  }
  return std::vector<double>(y.data(), y.data() + y.size());
}

/// Writes `text` to stdout ("" or "-") or atomically to `path`. @throws IoError naming the path
/// and the reason (a full disk, a closed stdout).
void write_text(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) throw IoError("cannot write the points to stdout (closed or full)");
    return;
  }
  detail::write_file_atomic(path, text);
}

/// The rows of a points CSV, with a clear message when it is missing or a directory; on a
/// parameter space, by label (a header naming the parameters).
Eigen::MatrixXd read_points(const std::string& path, const ParameterSpace* space) {
  require_input(path, "points");
  return space ? detail::read_labelled_points(*space, path) : read_csv_matrix(path);
}

/// A fingerprint domain's candidates named by index: one column "index" (optional header), each
/// an integer in [0, n). @throws InvalidArgument naming the file and the bad value.
std::vector<int> read_indices(const std::string& path, long long n) {
  std::vector<int> out;
  const std::vector<double> v = read_column(path, "candidate indices");
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!(v[i] >= 0 && v[i] < static_cast<double>(n) && v[i] == std::floor(v[i]))) {
      std::ostringstream os;
      os << path << ": value " << i + 1 << " (" << v[i]
         << ") is not a candidate index: the domain is fingerprints, told by index in [0, " << n
         << ")";
      throw InvalidArgument(os.str());
    }
    out.push_back(static_cast<int>(v[i]));
  }
  return out;
}

/// The CSV of candidate indices (header "index"), with `y` as a second column when given.
std::string index_csv(const std::vector<int>& idx, const std::vector<double>* y = nullptr) {
  Eigen::MatrixXd m(static_cast<Eigen::Index>(idx.size()), y ? 2 : 1);
  for (std::size_t i = 0; i < idx.size(); ++i) {
    m(static_cast<Eigen::Index>(i), 0) = idx[i];
    if (y) m(static_cast<Eigen::Index>(i), 1) = (*y)[i];
  }
  return csv_text(m,
                  y ? std::vector<std::string>{"index", "y"} : std::vector<std::string>{"index"});
}

}  // namespace

StateCommands add_state_commands(CLI::App& app, StateArgs& a) {
  StateCommands c;
  c.init = app.add_subcommand("init", "create an optimizer state file from a config");
  c.init->add_option("config", a.config, "optimizer config (JSON)")->required();
  c.init->add_option("state", a.state, "state file to create")->required();
  c.init->add_flag("--force", a.force, "overwrite an existing state file");
  c.ask = app.add_subcommand("ask", "suggest candidates to evaluate next (CSV on stdout)");
  c.ask->add_option("state", a.state, "state file")->required();
  c.ask->add_option("--q", a.q, "how many candidates (a batch)")->check(CLI::Range(1, 1 << 30));
  c.ask->add_option("--out", a.out, "write the CSV to this file instead of stdout");
  c.tell = app.add_subcommand("tell", "report evaluated points and their rewards");
  c.tell->add_option("state", a.state, "state file")->required();
  c.tell->add_option("points", a.points, "CSV of the evaluated points (one per row)")->required();
  c.tell->add_option("y", a.y, "CSV of the rewards, one per point")->required();
  c.tell->add_option("--noise", a.noise,
                     "CSV of the known noise variance of each reward (nan where not known)");
  c.best = app.add_subcommand("best", "print the best observation so far (CSV: x0.., y)");
  c.best->add_option("state", a.state, "state file")->required();
  c.forget = app.add_subcommand("forget", "release asks that will not be told (failed runs)");
  c.forget->add_option("state", a.state, "state file")->required();
  c.forget->add_option("points", a.points, "CSV of the asked points to release (one per row)");
  c.forget->add_flag("--all", a.all, "release every outstanding ask");
  for (CLI::App* s : {c.init, c.ask, c.tell, c.best, c.forget}) {
    s->add_option("--lock-timeout", a.lock_timeout_s, "seconds to wait for the state's lock")
        ->check(CLI::Range(0.0, 1e7));
  }
  return c;
}

int state_command(const StateCommands& c, const StateArgs& a) {
  if (c.init->parsed()) {
    std::error_code ec;
    if (std::filesystem::exists(a.state, ec) && !a.force) {
      throw InvalidArgument(a.state + ": state file exists (use --force to overwrite it)");
    }
    require_input(a.config, "optimizer config");
    const OptimizerOptions options = load_optimizer_config(a.config);
    const detail::StateLock lock(a.state, a.lock_timeout_s);
    Optimizer opt(options);
    opt.save(a.state);
    std::cerr << "gpbandit: " << a.state << ": " << opt.domain().size() << " candidates in "
              << opt.domain().dim() << " dimensions\n";
    return 0;
  }
  require_state(a.state);
  if (c.tell->parsed()) {  // before the state's lock is taken and the state loaded
    require_input(a.points, "points");
    require_input(a.y, "rewards");
    if (!a.noise.empty()) require_input(a.noise, "noise variances");
  }
  const detail::StateLock lock(a.state, a.lock_timeout_s);
  Optimizer opt = Optimizer::load(a.state);
  if (c.ask->parsed()) {
    const AskResult r = opt.ask(a.q);
    try {
      const ParameterSpace* space = opt.domain().space();
      write_text(a.out, opt.domain().is_fingerprint() ? index_csv(r.indices)
                        : space                       ? detail::labelled_csv(*space, r.points)
                                : csv_text(r.points));  // first: a failed write commits no ask
    } catch (const IoError& e) {
      throw IoError(std::string(e.what()) + "; nothing was asked (the state is unchanged)");
    }
    try {
      opt.save(a.state);
    } catch (const std::exception&) {
      std::error_code ec;
      if (!a.out.empty() && a.out != "-") std::filesystem::remove(a.out, ec);  // not asked
      throw;
    }
    return 0;
  }
  if (c.forget->parsed()) {
    if (a.all == !a.points.empty()) {
      throw InvalidArgument("forget: give either --all or a CSV of the points to release");
    }
    const int released = a.all ? opt.forget_all()
                         : opt.domain().is_fingerprint()
                             ? opt.forget(read_indices(a.points, opt.domain().size()))
                             : opt.forget(read_points(a.points, opt.domain().space()));
    opt.save(a.state);
    std::cerr << "gpbandit: " << a.state << ": released " << released
              << (released == 1 ? " ask" : " asks") << " (" << opt.pending().size()
              << " still outstanding)\n";
    return 0;
  }
  if (c.tell->parsed()) {
    const bool by_index = opt.domain().is_fingerprint();
    const std::vector<int> idx =
        by_index ? read_indices(a.points, opt.domain().size()) : std::vector<int>{};
    const Eigen::MatrixXd points =
        by_index ? Eigen::MatrixXd() : read_points(a.points, opt.domain().space());
    const std::vector<double> y = read_column(a.y, "rewards");
    const std::size_t m = by_index ? idx.size() : static_cast<std::size_t>(points.rows());
    if (m != y.size()) {
      throw InvalidArgument(a.points + " has " + std::to_string(m) + " points but " + a.y +
                            " has " + std::to_string(y.size()) + " rewards");
    }
    const std::vector<double> noise =
        a.noise.empty() ? std::vector<double>{} : read_column(a.noise, "noise variances", true);
    if (!noise.empty() && noise.size() != y.size()) {
      throw InvalidArgument(a.noise + " has " + std::to_string(noise.size()) +
                            " noise variances but " + a.y + " has " + std::to_string(y.size()) +
                            " rewards");
    }
    if (by_index) {
      opt.tell(idx, y, noise);
    } else {
      opt.tell(points, y, noise);
    }
    opt.save(a.state);
    return 0;
  }
  const BestObservation b = opt.best();
  if (opt.domain().is_fingerprint()) {  // by index
    const std::vector<double> y{b.value};
    write_text("", index_csv({b.index}, &y));
    return 0;
  }
  if (const ParameterSpace* space = opt.domain().space()) {  // by label
    const std::vector<double> y{b.value};
    write_text("", detail::labelled_csv(*space, b.point.transpose(), &y));
    return 0;
  }
  Eigen::MatrixXd row(1, b.point.size() + 1);
  row.leftCols(b.point.size()) = b.point.transpose();
  row(0, b.point.size()) = b.value;
  std::vector<std::string> header;
  for (Eigen::Index j = 0; j < b.point.size(); ++j) header.push_back("x" + std::to_string(j));
  header.push_back("y");
  write_text("", csv_text(row, header));
  return 0;
}

}  // namespace gpb::cli
