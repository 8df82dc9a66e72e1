// run_command_config (include/gpbandit/optimizer/command_run.hpp): `gpbandit run` and Python's
// gpbandit.run() for an optimizer config whose objective is a user's program.
//
// A failing, hanging or malformed evaluation stops the run with one message naming the round
// (Error, or InvalidArgument for a malformed or oversized answer: the CLI's exit 1 or 2); every
// earlier round is kept and a resume continues with the same candidates the failed round was
// given; `force` discards a previous run in the folder instead.
//
// Locks: the run holds the folder's output lock (DIR/.lock, as every `gpbandit run`: a second run
// on DIR is refused naming the first one's pid) for its whole life, and the state file's lock
// (state.json.lock, as init/ask/tell/best) only while it reads or writes state.json, so that
// `gpbandit best/ask/tell` work on the state during a run. Before it asks and before it tells, the
// run reloads state.json if another process changed it since its own last save, so their tells
// (and asks) are kept and count toward T.
#include "gpbandit/optimizer/command_run.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "experiment/checkpoint.hpp"
#include "experiment/config_checker.hpp"
#include "experiment/config_common.hpp"
#include "experiment/config_identity.hpp"
#include "experiment/output_lock.hpp"
#include "experiment/pipeline_io.hpp"
#include "experiment/registry_internal.hpp"
#include "gpbandit/engine/space_values.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/objective/command.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "io/atomic_file.hpp"
#include "optimizer/config.hpp"
#include "optimizer/space_config.hpp"
#include "optimizer/state_lock.hpp"

namespace gpb {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// What a command-objective config asks for, besides the optimizer.
struct CommandRun {
  std::string name = "optimize";
  int T = 1;
  int q = 1;
  CommandOptions command;
  OptimizerOptions options;
};

/// `base_dir`: the folder relative paths start from (empty: the config file's folder).
CommandRun parse_run(const std::string& path, const std::string& text, std::string base_dir = "") {
  if (base_dir.empty()) {
    const fs::path base = fs::path(path).parent_path();
    base_dir = base.empty() ? "." : base.string();
  }
  const json root = detail::parse_json_text(text, path);
  const detail::Checker c(path, base_dir);
  CommandRun r;
  r.options = detail::parse_optimizer_json(root, path, base_dir,
                                           detail::registry_keys("optimizer", "command"));
  const bool no_file = path == "-" || path.rfind("<", 0) == 0;  // stdin, or a Python dict
  r.name = root.value("name", no_file ? "optimize" : fs::path(path).stem().string());
  if (!root.contains("T")) c.fail("T", "required (evaluations of the command)");
  c.check_type(root["T"], "integer", "T");
  r.T = static_cast<int>(c.integer(root, "T", "T", 1, INT_MAX));
  if (root.contains("q")) {
    c.check_type(root["q"], "integer", "q");
    r.q = static_cast<int>(c.integer(root, "q", "q", 1, INT_MAX));
  }
  const json& o = root.at("objective");
  if (!o.is_object()) c.fail("objective", "expected an object, got " + detail::describe_value(o));
  const std::string type =
      o.contains("type") && o["type"].is_string() ? o["type"].get<std::string>() : "";
  if (type != "command") {
    c.fail("objective.type", "must be \"command\" (a program that prints the rewards), got " +
                                 (o.contains("type") ? o["type"].dump() : std::string("nothing")));
  }
  const std::set<std::string> allowed = detail::registry_keys("optimizer_objective", "command");
  for (const auto& [key, value] : o.items()) {
    (void)value;
    if (allowed.count(key) == 0) {
      c.fail_plain("unknown key '" + key + "' in objective (allowed: " +
                   detail::join({allowed.begin(), allowed.end()}) + ")");
    }
  }
  if (!o.contains("cmd") || !o["cmd"].is_array() || o["cmd"].empty()) {
    c.fail("objective.cmd", "required: a non-empty array of strings (the program and arguments)");
  }
  for (std::size_t i = 0; i < o["cmd"].size(); ++i) {
    c.check_type(o["cmd"][i], "string", "objective.cmd[" + std::to_string(i) + "]");
    r.command.argv.push_back(o["cmd"][i].get<std::string>());
  }
  r.command.working_dir = base_dir;          // relative paths in cmd: from the config's folder
  r.command.space = r.options.domain.space;  // a parameters domain: candidates by label
  if (o.contains("timeout_s")) {
    c.check_type(o["timeout_s"], "number", "objective.timeout_s");
    r.command.timeout_s = o["timeout_s"].get<double>();
  }
  if (o.contains("noise")) {  // "returned": a reward and its known noise variance per candidate
    c.check_type(o["noise"], "string", "objective.noise");
    const std::string n = o["noise"].get<std::string>();
    if (n != "returned" && n != "gaussian") {
      c.fail("objective.noise",
             "must be \"gaussian\" (fitted) or \"returned\" (the program "
             "prints a reward and its noise variance per candidate), got \"" +
                 n + "\"");
    }
    r.command.returns_noise = n == "returned";
  }
  c.guarded("objective", [&] { return CommandObjective(r.command).describe(); });
  return r;
}

/// evaluations.csv of a parameter space: evaluation, round, index, one column per parameter
/// (its value or label, as `gpbandit ask` writes them), y.
std::string labelled_evaluations_csv(const ParameterSpace& space, const Eigen::MatrixXd& x,
                                     const std::vector<double>& y, const std::vector<int>& idx,
                                     int q) {
  const auto& ps = space.parameters();
  std::string out = "evaluation,round,index";
  for (const Parameter& p : ps) out += "," + p.name;
  out += ",y\n";
  char buf[32];
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    out += std::to_string(i + 1) + "," + std::to_string(i / q + 1) + "," +
           std::to_string(idx[static_cast<std::size_t>(i)]);
    const Eigen::VectorXd xi = x.row(i).transpose();
    const std::vector<int> lv = space.decode(xi.data());
    for (std::size_t p = 0; p < ps.size(); ++p)
      out += "," + value_text(space, static_cast<int>(p), xi.data(), lv[p]);
    std::snprintf(buf, sizeof buf, "%.17g", y[static_cast<std::size_t>(i)]);
    out += "," + std::string(buf) + "\n";
  }
  return out;
}

/// A parameter space's point as JSON: {name: value (a number) or label (a string)}.
json labelled_point(const ParameterSpace& space, const Eigen::VectorXd& x) {
  const std::vector<int> lv = space.decode(x.data());
  json out = json::object();
  for (std::size_t p = 0; p < space.parameters().size(); ++p) {
    const Parameter& par = space.parameters()[p];
    const auto l = static_cast<std::size_t>(lv[p]);
    const int ip = static_cast<int>(p);
    const double v = par.numeric() ? value_of_feature(space, ip, x[feature_offset(space, ip)])
                                   : 0.0;  // a value off the list for a point told off the space
    if (par.type == Parameter::Type::Categorical) {
      out[par.name] = par.labels[l];
    } else if (par.type == Parameter::Type::Integer && v == std::round(v)) {
      out[par.name] = static_cast<long long>(v);
    } else {
      out[par.name] = v;
    }
  }
  return out;
}

/// evaluations.csv: evaluation, round, candidate index (−1 off the set), x0.., y; on a parameter
/// space the parameters by name instead of x0...
std::string evaluations_csv(const Optimizer& opt, int q) {
  const Eigen::MatrixXd x = opt.observed_points();
  const std::vector<double> y = opt.observed_values();
  const std::vector<int> idx = opt.observed_indices();
  if (const ParameterSpace* space = opt.domain().space())
    return labelled_evaluations_csv(*space, x, y, idx, q);
  if (opt.domain().is_fingerprint()) {  // candidates by index: their words say nothing
    Eigen::MatrixXd rows(x.rows(), 4);
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      rows.row(i) << static_cast<double>(i + 1), static_cast<double>(i / q + 1),
          idx[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(i)];
    }
    return csv_text(rows, {"evaluation", "round", "index", "y"});
  }
  Eigen::MatrixXd rows(x.rows(), x.cols() + 4);
  std::vector<std::string> header{"evaluation", "round", "index"};
  for (Eigen::Index j = 0; j < x.cols(); ++j) header.push_back("x" + std::to_string(j));
  header.push_back("y");
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    rows(i, 0) = static_cast<double>(i + 1);
    rows(i, 1) = static_cast<double>(i / q + 1);
    rows(i, 2) = idx[static_cast<std::size_t>(i)];
    rows.block(i, 3, 1, x.cols()) = x.row(i);
    rows(i, x.cols() + 3) = y[static_cast<std::size_t>(i)];
  }
  return csv_text(rows, header);
}

/// summary.json's best "x": the coordinates, or on a parameter space {name: value or label}.
json best_x(const Optimizer& opt, const Eigen::VectorXd& x) {
  if (opt.domain().is_fingerprint()) return nullptr;  // packed words: the index names it
  if (const ParameterSpace* space = opt.domain().space()) return labelled_point(*space, x);
  return std::vector<double>(x.data(), x.data() + x.size());
}

/// A point as text: its coordinates, or on a parameter space its values and labels by name.
std::string point_text(const Eigen::VectorXd& x, const ParameterSpace* space) {
  std::string s = "(";
  if (space) {
    const std::vector<int> lv = space->decode(x.data());
    const auto& ps = space->parameters();
    for (std::size_t p = 0; p < ps.size(); ++p)
      s += (p > 0 ? ", " : "") + ps[p].name + "=" +
           value_text(*space, static_cast<int>(p), x.data(), lv[p]);
    return s + ")";
  }
  char buf[32];
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    std::snprintf(buf, sizeof buf, "%.6g", x[j]);
    s += (j > 0 ? ", " : "") + std::string(buf);
  }
  return s + ")";
}

/// The best observation's point as text: point_text, or a fingerprint's candidate index.
std::string best_text(const Optimizer& opt, const BestObservation& b) {
  if (opt.domain().is_fingerprint()) return "(candidate " + std::to_string(b.index) + ")";
  return point_text(b.point, opt.domain().space());
}

/// q ≤ N, checked before anything is written (a refused run leaves no state behind).
void check_batch(const std::string& config, const CommandRun& r, const Optimizer& opt) {
  const int n = opt.domain().size();
  if (r.q > n) {
    throw InvalidArgument(config + ": q: must be <= N = " + std::to_string(n) +
                          " (the number of candidates), got " + std::to_string(r.q));
  }
}

/// What run.json records: the run's identity (the keys that define it: the optimizer and q, not
/// name, T, cmd or timeout_s), and the config text for reference.
json run_record(const CommandRun& r, const std::string& text) {
  return {{"identity", {{"optimizer", detail::optimizer_identity(r.options)}, {"q", r.q}}},
          {"T", r.T},
          {"config", text}};
}

/// The identity an existing run.json records (also one written before identities existed: then
/// its config text is parsed again), or null when unreadable.
json recorded_identity(const std::string& run_json, const std::string& config_path) {
  const json before = json::parse(run_json, nullptr, false);
  if (before.is_discarded() || !before.is_object()) return nullptr;
  if (before.contains("identity")) return before["identity"];
  try {
    CommandRun old = parse_run(config_path, before.at("config").get<std::string>());
    old.options.seed = before.at("seed").get<std::uint64_t>();
    return run_record(old, "").at("identity");
  } catch (const std::exception&) {
    return nullptr;
  }
}

/// Opens (or, on --resume, reopens) the run in `dir`; the caller holds the state's lock.
Optimizer open_run(const std::string& dir, const std::string& text, const CommandRun& r,
                   const std::string& config, const CommandRunOptions& args,
                   const std::optional<ContextOptions>& ctx) {
  const std::string state = dir + "/state.json", run = dir + "/run.json";
  const json started = run_record(r, text);
  std::error_code ec;
  const bool exists = fs::exists(state, ec);
  if (!args.resume) {
    if (exists && !args.force) {
      throw InvalidArgument(state +
                            " exists: use --resume to continue that run, --force to start over, "
                            "or another --out");
    }
    Optimizer opt(r.options);
    check_batch(config, r, opt);
    for (const char* f : {"state.json", "evaluations.csv", "summary.json"}) {  // --force
      fs::remove(fs::path(dir) / f, ec);
    }
    detail::write_file_atomic(run, started.dump(2) + "\n");
    opt.save(state);
    return opt;
  }
  if (!exists) throw InvalidArgument("--resume: no run to resume in " + dir + " (no state.json)");
  const std::string recorded = detail::read_whole_file(run);
  const json before = recorded_identity(recorded, config);
  if (before.is_null()) {
    throw InvalidArgument("--resume: " + run + " is unreadable; start over with --force");
  }
  if (const auto d = detail::first_difference(before, started["identity"])) {
    detail::IdentityDifference shown = *d;
    if (shown.key.rfind("optimizer.", 0) == 0) shown.key = shown.key.substr(10);
    if (shown.key == "seed") shown.key = "seed (the config's seed or --seed)";
    throw InvalidArgument("--resume: " + dir + " was started with another optimizer: " +
                          detail::describe_difference(shown, run) +
                          "; resume with the same settings, or start over with --force (T, name, "
                          "description, objective.cmd, objective.timeout_s, backend, threads, "
                          "comments and whitespace may change)");
  }
  Optimizer opt = Optimizer::load(state, ctx);
  check_batch(config, r, opt);
  json now = started;  // the config it now runs with, and the time of the earlier invocations
  now["elapsed_seconds"] = json::parse(recorded).value("elapsed_seconds", 0.0);
  detail::write_file_atomic(run, now.dump(2) + "\n");
  if (!args.quiet) {
    std::cerr << "gpbandit: restored " << opt.num_observations() << " evaluations from " << state
              << "; continuing to T = " << r.T << "\n";
  }
  return opt;
}

/// The run's view of state.json, shared with `gpbandit ask/tell/best` (see the file comment).
class SharedState {
 public:
  SharedState(std::string state, std::optional<ContextOptions> ctx)
      : state_(std::move(state)), ctx_(std::move(ctx)) {}
  /// The state's lock, for one read or write (other processes wait at most this long for it).
  detail::StateLock lock() const { return detail::StateLock(state_, kLockTimeout); }
  /// Remembers the file as it is now (after open_run wrote or read it).
  void mark() { saved_ = detail::read_whole_file(state_); }
  /// Under lock(): `opt` becomes the file's state if another process changed it.
  void refresh(Optimizer& opt) {
    std::string now = detail::read_whole_file(state_);
    if (now == saved_) return;
    opt = Optimizer::loads(now, ctx_);
    saved_ = std::move(now);
  }
  /// Under lock(): writes `opt` (atomically).
  void save(const Optimizer& opt) {
    std::string text = opt.dumps();
    detail::write_file_atomic(state_, text);
    saved_ = std::move(text);
  }

 private:
  static constexpr double kLockTimeout = 600;
  std::string state_;
  std::optional<ContextOptions> ctx_;
  std::string saved_;  ///< the file's text after our last read or write
};

}  // namespace

CommandRunResult run_command_config(const std::string& config, const std::string& text,
                                    const CommandRunOptions& args, const std::string& base_dir) {
  CommandRun r = parse_run(config, text, base_dir);
  if (args.seed) r.options.seed = *args.seed;
  std::optional<ContextOptions> ctx;  // a resumed run keeps its saved backend unless overridden
  if (args.backend) r.options.context.backend = *args.backend;
  if (args.threads) r.options.context.threads = *args.threads;
  if (args.backend || args.threads) ctx = r.options.context;
  const std::string dir = args.out.empty() ? (fs::path("results") / r.name).string() : args.out;
  detail::ensure_writable_directory(dir);
  const std::string state = dir + "/state.json";
  const detail::OutputLock busy(dir);  // "output directory DIR is in use by pid N"
  SharedState shared(state, ctx);
  Optimizer opt = [&] {
    const detail::StateLock lock = shared.lock();
    Optimizer o = open_run(dir, text, r, config, args, ctx);
    shared.mark();
    return o;
  }();
  if (args.on_open) args.on_open(state);
  const CommandObjective objective(r.command);
  const auto t0 = std::chrono::steady_clock::now();
  json record = json::parse(detail::read_whole_file(dir + "/run.json"));
  const double earlier_seconds = record.value("elapsed_seconds", 0.0);
  const auto total_seconds = [&] {
    return earlier_seconds +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  if (opt.num_observations() >= r.T && !args.quiet) {
    std::cerr << "gpbandit: the run in " << dir << " is complete (" << opt.num_observations()
              << " of T = " << r.T << " evaluations)\n";
  }
  while (opt.num_observations() < r.T) {
    AskResult a;
    {
      const detail::StateLock lock = shared.lock();
      shared.refresh(opt);
      if (opt.num_observations() >= r.T) break;  // others' tells completed it
      a = opt.ask(std::min(r.q, r.T - opt.num_observations()));
    }
    const int done = opt.num_observations();
    const int round = done / r.q + 1;
    std::vector<double> y, noise;
    try {
      y = opt.domain().is_fingerprint() ? objective.evaluate_indices(a.indices, round, &noise)
                                        : objective.evaluate(a.points, round, &noise);
    } catch (const CommandError& e) {
      const std::string msg = std::string(e.what()) + "; the " + std::to_string(done) +
                              " earlier evaluations are saved in " + state +
                              " (fix the command, then run again with --resume)";
      if (e.kind() == CommandError::Kind::Malformed) throw InvalidArgument(msg);
      throw Error(msg);
    }
    {
      const detail::StateLock lock = shared.lock();
      shared.refresh(opt);
      if (opt.domain().is_fingerprint()) {
        opt.tell(a.indices, y, noise);  // fingerprints: by index (their words are no coordinates)
      } else {
        opt.tell(a.points, y, noise);  // by point: a box's refined points are off the candidates
      }
      shared.save(opt);
    }
    detail::write_file_atomic(dir + "/evaluations.csv", evaluations_csv(opt, r.q));
    record["elapsed_seconds"] = total_seconds();
    detail::write_file_atomic(dir + "/run.json", record.dump(2) + "\n");
    if (!args.quiet) {
      const BestObservation b = opt.best();
      std::cerr << "gpbandit: round " << round << ": " << opt.num_observations() << "/" << r.T
                << " evaluations, best y = " << b.value << " at " << best_text(opt, b) << "\n";
    }
    if (args.between_rounds && opt.num_observations() < r.T) args.between_rounds();
  }
  const BestObservation b = opt.best();
  json summary = detail::summary_head(
      r.name, "command", opt.context().describe(), detail::parse_json_text(text, config),
      detail::fnv1a_hex(record.at("identity").dump()), r.options.seed, 1, total_seconds());
  summary["timings"]["this_invocation_seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  summary.update(json{{"command", objective.describe()},
                      {"evaluations", opt.num_observations()},
                      {"goal", r.options.minimize ? "minimize" : "maximize"},
                      {"best",
                       {{"y", b.value},
                        {"x", best_x(opt, b.point)},
                        {"index", b.index},
                        {"evaluation", b.observation + 1}}},
                      {"kernel", opt.options().kernel.describe()},
                      {"streamed", opt.streams()},
                      {"fits", opt.fits()}});
  CommandRunResult result;
  result.out_dir = dir;
  result.summary_json = summary.dump(2) + "\n";
  detail::write_file_atomic(dir + "/summary.json", result.summary_json);
  char line[64];
  std::snprintf(line, sizeof line, "best y = %.10g at ", b.value);
  result.best_line = line + best_text(opt, b) + " (evaluation " +
                     std::to_string(b.observation + 1) + " of " +
                     std::to_string(opt.num_observations()) + ")";
  return result;
}

}  // namespace gpb
