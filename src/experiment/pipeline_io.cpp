// The pipeline's file handling: paths, --resume / --force, the final outputs.
#include "experiment/pipeline_io.hpp"

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>

#include "experiment/plot.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/error.hpp"
#include "io/atomic_file.hpp"

namespace gpb::detail {
namespace fs = std::filesystem;
using nlohmann::json;

OutputPaths::OutputPaths(const std::string& out_dir, const Family& family) : dir(out_dir) {
  const fs::path out(out_dir);
  runs_csv = (out / "runs.csv").string();
  summary_json = (out / "summary.json").string();
  for (const auto& [name, header] : family.extra_csv()) extra.push_back((out / name).string());
}

void remove_stale_temporaries(const std::string& out_dir) {
  std::error_code ec;
  for (const fs::path& dir : {fs::path(out_dir), fs::path(out_dir) / ".checkpoint"}) {
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      if (name.size() > 1 && name[0] == '.' && name.find(".tmp-") != std::string::npos) {
        fs::remove(e.path(), ec);
      }
    }
  }
}

namespace {

/// The config hash recorded in a finished run's summary.json ("" when none or unreadable).
std::string finished_hash(const std::string& summary_json) {
  std::error_code ec;
  if (!fs::exists(summary_json, ec)) return "";
  try {
    const json j = json::parse(read_whole_file(summary_json));
    return j.value("config_hash", std::string());
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace

std::optional<std::string> open_checkpoint(Checkpoint& cp, const RunOptions& options,
                                           const std::string& out_dir,
                                           const std::vector<std::string>& hashes,
                                           const OutputPaths& paths) {
  if (cp.exists()) {
    if (options.resume) {
      cp.load();
      return std::nullopt;
    }
    if (options.force) {
      cp.clear();
      return std::nullopt;
    }
    const int units = cp.peek_units();
    throw InvalidArgument("output directory " + out_dir +
                          " holds the checkpoint of an unfinished run" +
                          (units >= 0 ? " (" + std::to_string(units) + " units saved)" : "") +
                          ": continue it with --resume, or delete it and start over with --force");
  }
  if (!options.resume) return std::nullopt;
  const std::string done = finished_hash(paths.summary_json);
  if (!done.empty() && std::find(hashes.begin(), hashes.end(), done) != hashes.end()) {
    return "nothing to resume: " + out_dir +
           " already holds the finished results of this config (" + paths.summary_json +
           "); run without --resume to run it again\n";
  }
  std::error_code ec;
  throw InvalidArgument("--resume: nothing to resume in " + out_dir + ": it holds no checkpoint" +
                        (fs::exists(paths.summary_json, ec)
                             ? std::string(" (its summary.json is of another config or flags)")
                             : std::string()) +
                        "; run without --resume");
}

void test_stop_hook(int saved) {
  const auto at = [saved](const char* name) {
    const char* s = std::getenv(name);
    return s != nullptr && *s != '\0' && saved == std::atoi(s);
  };
  if (at("GPB_TEST_STOP_AFTER_GROUPS") && saved > 0) std::exit(75);
  if (at("GPB_TEST_PAUSE_AFTER_UNITS")) ::raise(SIGSTOP);
}

namespace {

/// Each policy's units in order of their first run.
std::vector<std::vector<const UnitRecord*>> by_policy(const Family& f, const Checkpoint& cp) {
  std::vector<std::vector<const UnitRecord*>> out(f.labels().size());
  for (const UnitRecord& u : cp.units()) out[static_cast<std::size_t>(u.policy)].push_back(&u);
  for (auto& v : out) {
    std::sort(v.begin(), v.end(),
              [](const UnitRecord* a, const UnitRecord* b) { return a->first_run < b->first_run; });
  }
  return out;
}

/// Writes stream `s` of every unit, policy-major then by run, after `header`.
void assemble(const Checkpoint& cp, const std::vector<std::vector<const UnitRecord*>>& units, int s,
              const std::string& header, AtomicFile& out) {
  out.write(header);
  for (const auto& policy : units) {
    for (const UnitRecord* u : policy) out.append_file(cp.file(s, u->policy, u->first_run));
  }
  out.finish();
}

}  // namespace

json summary_head(const std::string& name, const std::string& experiment,
                  const std::string& backend, const json& config, const std::string& config_hash,
                  std::uint64_t seed, int runs, double total_seconds) {
  return {{"name", name},
          {"experiment", experiment},
          {"version", GPB_VERSION},
          {"build", GPB_HAS_CUDA ? "cuda+cpu" : "cpu"},
          {"backend", backend},
          {"config", config},
          {"config_hash", config_hash},
          {"seed", seed},
          {"runs", runs},
          {"timings", {{"total_seconds", total_seconds}}}};
}

namespace {

json envelope(const Family& f, const FamilySummary& fs_, const std::string& backend,
              const FinishInfo& info, const std::vector<std::vector<const UnitRecord*>>& units) {
  const ExperimentSettings& s = f.settings();
  json per_policy = json::object();
  json policies = fs_.policies;
  for (std::size_t p = 0; p < units.size(); ++p) {
    double seconds = 0;
    for (const UnitRecord* u : units[p]) seconds += u->seconds;
    per_policy[f.labels()[p]] = seconds;
    if (p < policies.size()) {
      policies[p]["label"] = f.labels()[p];
      policies[p]["type"] = f.type(static_cast<int>(p));
      policies[p]["seconds"] = seconds;
    }
  }
  json j = summary_head(s.name, f.kind(), backend, json::parse(s.config_json), info.hash, info.seed,
                        info.runs, info.total_seconds);
  j["timings"]["per_policy"] = per_policy;
  j["memory"] = info.memory;
  j["policies"] = policies;
  for (const auto& [k, v] : fs_.fields.items()) j[k] = v;
  return j;
}

std::string padded(const std::string& name) {
  std::string s = name + ":";
  while (s.size() < 14) s += ' ';
  return s;
}

}  // namespace

void finish_outputs(const Family& f, const StepEnv& env, const Checkpoint& cp,
                    const OutputPaths& paths, const FinishInfo& info, const RunOptions& options,
                    ExperimentResult& res) {
  const auto units = by_policy(f, cp);
  const FamilySummary sum = f.summarize(env, units, res.backend);
  AtomicFile runs_csv(paths.runs_csv);
  assemble(cp, units, 0, f.runs_csv_header(), runs_csv);
  std::vector<std::unique_ptr<AtomicFile>> extra;
  const auto extra_csv = f.extra_csv();
  for (std::size_t i = 0; i < extra_csv.size(); ++i) {
    extra.push_back(std::make_unique<AtomicFile>(paths.extra[i]));
    assemble(cp, units, static_cast<int>(i) + 1, extra_csv[i].second, *extra.back());
  }
  AtomicFile summary(paths.summary_json);
  summary.write(envelope(f, sum, res.backend, info, units).dump(2) + "\n");
  summary.finish();
  runs_csv.commit();  // every file complete on disk: only the renames remain
  for (auto& e : extra) e->commit();
  summary.commit();

  const PlotRequest plot = f.plot(paths.runs_csv);
  res.plot_png = (fs::path(paths.dir) / plot.file).string();
  if (!options.plot) {
    res.plot_message = "no plot: disabled (--no-plot)";
  } else if (!plot.skip_reason.empty()) {
    res.plot_message = "no plot: " + plot.skip_reason;
  } else {
    const PlotOutcome out = draw_plot(plot.call, res.plot_png, options.python);
    res.plotted = out.plotted;
    res.plot_message = out.message;
  }
  std::error_code ec;
  if (!res.plotted) fs::remove(res.plot_png, ec);  // never leave a stale plot of another run

  res.policies = sum.regret;
  std::ostringstream os;
  os << sum.table << "\n"
     << padded("backend") << res.backend << "\n"
     << padded("runs.csv") << paths.runs_csv << "\n";
  for (std::size_t i = 0; i < extra_csv.size(); ++i) {
    os << padded(extra_csv[i].first) << paths.extra[i] << "\n";
  }
  os << padded("summary.json") << paths.summary_json << "\n"
     << padded(plot.file) << (res.plotted ? res.plot_png : res.plot_message) << "\n";
  res.report = os.str();
}

}  // namespace gpb::detail
