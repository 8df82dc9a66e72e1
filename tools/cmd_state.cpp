// `gpbandit init CONFIG.json STATE`, `gpbandit ask STATE [--q Q] [--out POINTS.csv]`,
// `gpbandit tell STATE POINTS.csv Y.csv` and `gpbandit best STATE`: an Optimizer kept in a state
// file, so that shell pipelines and job schedulers can drive it. Every command that changes the
// state holds an exclusive lock (flock on STATE.lock, a file that is never replaced) from loading
// to the atomic save, so concurrent asks and tells queue instead of losing each other's updates.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "state_lock.hpp"

namespace gpb::cli {

namespace {

void require_state(const std::string& state) {
  std::error_code ec;
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

/// The rewards of Y.csv: one column (optional header), or a single row.
std::vector<double> read_rewards(const std::string& path) {
  const Eigen::MatrixXd y = read_csv_matrix(path);
  if (y.cols() != 1 && y.rows() != 1) {
    throw InvalidArgument(path + ": expected one column of rewards (or one row), got " +
                          std::to_string(y.rows()) + " x " + std::to_string(y.cols()));
  }
  return std::vector<double>(y.data(), y.data() + y.size());
}

void write_text(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw IoError("cannot write '" + path + "': " + std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw IoError("cannot write '" + path + "'");
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
  c.best = app.add_subcommand("best", "print the best observation so far (CSV: x0.., y)");
  c.best->add_option("state", a.state, "state file")->required();
  for (CLI::App* s : {c.init, c.ask, c.tell, c.best}) {
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
    if (!std::filesystem::is_regular_file(a.config, ec)) {
      throw InvalidArgument(a.config + ": config file not found");
    }
    const OptimizerOptions options = load_optimizer_config(a.config);
    const StateLock lock(a.state, a.lock_timeout_s);
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
  }
  const StateLock lock(a.state, a.lock_timeout_s);
  Optimizer opt = Optimizer::load(a.state);
  if (c.ask->parsed()) {
    const AskResult r = opt.ask(a.q);
    opt.save(a.state);  // saved before printing: the asks are pending even if stdout breaks
    write_text(a.out, csv_text(r.points));
    return 0;
  }
  if (c.tell->parsed()) {
    const Eigen::MatrixXd points = read_csv_matrix(a.points);
    const std::vector<double> y = read_rewards(a.y);
    if (static_cast<std::size_t>(points.rows()) != y.size()) {
      throw InvalidArgument(a.points + " has " + std::to_string(points.rows()) + " points but " +
                            a.y + " has " + std::to_string(y.size()) + " rewards");
    }
    opt.tell(points, y);
    opt.save(a.state);
    return 0;
  }
  const BestObservation b = opt.best();
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
