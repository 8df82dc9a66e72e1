// CommandObjective: the program run under supervision (objective/process.hpp), then strict
// parsing of the rewards (see command.hpp for the protocol).
#include "gpbandit/objective/command.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "gpbandit/engine/space_values.hpp"
#include "gpbandit/objective/objective.hpp"
#include "objective/process.hpp"

namespace gpb {

namespace {

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

/// A byte count for messages: "4 MiB (4194304 bytes)" or "1000 bytes".
std::string bytes_text(std::size_t n) {
  if (n < (std::size_t{1} << 20)) return std::to_string(n) + " bytes";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g MiB (%zu bytes)", static_cast<double>(n) / (1 << 20), n);
  return buf;
}

/// The q rewards in `out` (numbers separated by newlines, commas, spaces or tabs; a first line
/// whose first field is not a number is a header), or with `with_noise` the 2q numbers reward,
/// variance per candidate (variances ≥ 0), or a CommandError::Malformed naming the round and the
/// line.
std::vector<double> parse_rewards(const std::string& out, int q, int round, bool with_noise) {
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
  const int per = with_noise ? 2 : 1;
  if (static_cast<int>(y.size()) != per * q) {
    throw CommandError(CommandError::Kind::Malformed, round,
                       "round " + std::to_string(round) + ": the command printed " +
                           std::to_string(y.size()) + (with_noise ? " number(s)" : " reward(s)") +
                           " for " + std::to_string(q) + " candidate(s) (expected " +
                           (with_noise ? "a reward and its noise variance" : "one number") +
                           " per candidate)");
  }
  if (with_noise) {
    for (int i = 0; i < q; ++i) {
      if (y[static_cast<std::size_t>(2 * i + 1)] < 0) {
        throw CommandError(CommandError::Kind::Malformed, round,
                           "round " + std::to_string(round) + ": candidate " +
                               std::to_string(i + 1) + "'s noise variance is negative");
      }
    }
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
  GPB_EXPECTS(options_.max_output_bytes > 0, "objective: the output limit must be > 0 bytes");
}

void CommandObjective::signal_running(int sig) {
  detail::signal_running_process(sig);
}

std::string CommandObjective::describe() const {
  std::string s;
  for (const std::string& a : options_.argv) {
    const bool plain = !a.empty() && a.find_first_of(" \t\"'\\$`") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return s;
}

namespace {

/// The candidates by label: a header of the parameter names, then one line per candidate.
std::string labelled_text(const ParameterSpace& space, const Eigen::Ref<const Eigen::MatrixXd>& x) {
  const auto& ps = space.parameters();
  std::string out;
  for (std::size_t p = 0; p < ps.size(); ++p) out += (p ? "," : "") + ps[p].name;
  out += "\n";
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const Eigen::VectorXd row = x.row(i).transpose();
    const std::vector<int> lv = space.decode(row.data());
    for (std::size_t p = 0; p < ps.size(); ++p)  // a refined continuous value as it is
      out += (p ? "," : "") + value_text(space, static_cast<int>(p), row.data(), lv[p]);
    out += "\n";
  }
  return out;
}

}  // namespace

std::vector<double> CommandObjective::evaluate(const Eigen::Ref<const Eigen::MatrixXd>& points,
                                               int round, std::vector<double>* noise) const {
  return run(options_.space ? labelled_text(*options_.space, points) : csv_text(points),
             static_cast<int>(points.rows()), round, noise);
}

std::vector<double> CommandObjective::evaluate_indices(const std::vector<int>& indices, int round,
                                                       std::vector<double>* noise) const {
  std::string text = "index\n";
  for (const int i : indices) text += std::to_string(i) + "\n";
  return run(text, static_cast<int>(indices.size()), round, noise);
}

std::vector<double> CommandObjective::run(const std::string& input, int q, int round,
                                          std::vector<double>* noise) const {
  detail::ProcessSpec spec;
  spec.argv = options_.argv;
  spec.env = {"GPBANDIT_ROUND=" + std::to_string(round), "GPBANDIT_Q=" + std::to_string(q)};
  spec.working_dir = options_.working_dir;
  spec.timeout_s = options_.timeout_s;
  spec.max_stdout = std::max(options_.max_output_bytes, std::size_t{64} * std::max(q, 1));
  const detail::ProcessOutcome o = detail::run_process(spec, input);
  const std::string head = "round " + std::to_string(round) + ": the command '" + describe() + "' ";
  if (o.exec_errno != 0) {
    throw CommandError(CommandError::Kind::Failed, round,
                       head + "could not be started: " + std::strerror(o.exec_errno));
  }
  if (o.timed_out) {
    std::ostringstream os;
    os << head << "did not finish within timeout_s = " << options_.timeout_s
       << " s and was killed (raise objective.timeout_s for longer evaluations)";
    throw CommandError(CommandError::Kind::TimedOut, round, os.str());
  }
  if (o.over_limit) {
    throw CommandError(CommandError::Kind::TooMuchOutput, round,
                       head + "printed more than " + bytes_text(spec.max_stdout) +
                           " on stdout, the limit for " + std::to_string(q) +
                           " candidate(s), and was killed (one reward per candidate expected)");
  }
  const std::string tail =
      last_line(o.err_tail).empty() ? "" : "; its last error line: " + last_line(o.err_tail);
  if (WIFSIGNALED(o.status)) {
    throw CommandError(CommandError::Kind::Failed, round,
                       head + "was killed by signal " + std::to_string(WTERMSIG(o.status)) + " (" +
                           strsignal(WTERMSIG(o.status)) + ")" + tail);
  }
  if (WEXITSTATUS(o.status) != 0) {
    throw CommandError(CommandError::Kind::Failed, round,
                       head + "exited with status " + std::to_string(WEXITSTATUS(o.status)) + tail);
  }
  const std::vector<double> numbers = parse_rewards(o.out, q, round, options_.returns_noise);
  if (!options_.returns_noise) return numbers;
  GPB_EXPECTS(noise != nullptr, "objective: the command returns noise variances; pass `noise`");
  std::vector<double> y(static_cast<std::size_t>(q));
  noise->resize(static_cast<std::size_t>(q));
  for (std::size_t i = 0; i < y.size(); ++i) {
    y[i] = numbers[2 * i];
    (*noise)[i] = numbers[2 * i + 1];
  }
  return y;
}

}  // namespace gpb
