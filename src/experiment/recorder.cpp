// Recording an experiment: runs.csv rows, the checkpoint and summary.json.
#include "experiment/recorder.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <tuple>

#include "experiment/atomic_file.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/error.hpp"

namespace gpb::detail {
namespace fs = std::filesystem;
using nlohmann::json;

std::string runs_csv_header() {
  return "run,policy,round,chosen,reward,instant_regret,cumulative_regret,simple_regret\n";
}

std::vector<int> curve_evaluations(int horizon) {
  std::vector<int> at;
  const int points = std::min(horizon, 100);
  for (int k = 1; k <= points; ++k) {
    const int t = static_cast<int>((static_cast<long long>(k) * horizon + points - 1) / points);
    if (at.empty() || t > at.back()) at.push_back(t);
  }
  return at;
}

// ---------------------------------------------------------------- GroupRecorder

GroupRecorder::GroupRecorder(std::string label, std::vector<std::uint32_t> run_ids,
                             std::vector<double> fstar, int horizon)
    : label_(std::move(label)),
      run_ids_(std::move(run_ids)),
      fstar_(std::move(fstar)),
      best_(run_ids_.size(), -INFINITY),
      cumulative_(run_ids_.size(), 0.0),
      count_(run_ids_.size(), 0),
      rows_(run_ids_.size()),
      records_(run_ids_.size()),
      curve_at_(curve_evaluations(horizon)) {
  for (std::size_t r = 0; r < run_ids_.size(); ++r) records_[r].run = run_ids_[r];
}

void GroupRecorder::record(int r, int round, int j, double fj, double y) {
  const std::size_t i = static_cast<std::size_t>(r);
  const double instant = fstar_[i] - fj;
  cumulative_[i] += instant;
  best_[i] = std::max(best_[i], fj);
  const double simple = fstar_[i] - best_[i];
  ++count_[i];
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, "%u,%s,%d,%d,%.17g,%.17g,%.17g,%.17g\n",
                              static_cast<unsigned>(run_ids_[i]), label_.c_str(), round, j, y,
                              instant, cumulative_[i], simple);
  rows_[i].append(buf, static_cast<std::size_t>(std::min<int>(n, sizeof buf - 1)));
  RunRecord& rec = records_[i];
  rec.cumulative = cumulative_[i];
  rec.simple = simple;
  if (rec.curve.size() < curve_at_.size() && count_[i] == curve_at_[rec.curve.size()]) {
    rec.curve.push_back(cumulative_[i]);
    rec.simple_curve.push_back(simple);
  }
}

std::string GroupRecorder::rows() const {
  std::string out;
  for (const auto& r : rows_) out += r;
  return out;
}

std::vector<RunRecord> GroupRecorder::records() const {
  return records_;
}

// ---------------------------------------------------------------- Checkpoint

namespace {

json chunk_to_json(const Chunk& c) {
  json runs = json::array();
  for (const auto& r : c.runs) {
    runs.push_back({{"run", r.run},
                    {"cumulative", r.cumulative},
                    {"simple", r.simple},
                    {"curve", r.curve},
                    {"simple_curve", r.simple_curve},
                    {"f_sup", r.f_sup},
                    {"x_star", r.x_star}});
  }
  return {{"policy", c.policy}, {"group", c.group}, {"seconds", c.seconds}, {"runs", runs}};
}

Chunk chunk_from_json(const json& j) {
  Chunk c;
  c.policy = j.at("policy").get<int>();
  c.group = j.at("group").get<int>();
  c.seconds = j.at("seconds").get<double>();
  for (const auto& r : j.at("runs")) {
    RunRecord rec;
    rec.run = r.at("run").get<std::uint32_t>();
    rec.cumulative = r.at("cumulative").get<double>();
    rec.simple = r.at("simple").get<double>();
    rec.curve = r.at("curve").get<std::vector<double>>();
    if (r.contains("simple_curve")) {  // absent in checkpoints of older versions
      rec.simple_curve = r.at("simple_curve").get<std::vector<double>>();
    }
    rec.f_sup = r.at("f_sup").get<double>();
    rec.x_star = r.at("x_star").get<int>();
    c.runs.push_back(std::move(rec));
  }
  return c;
}

}  // namespace

Checkpoint::Checkpoint(std::string out_dir, std::string config_hash)
    : dir_((fs::path(out_dir) / ".checkpoint").string()), hash_(std::move(config_hash)) {}

std::string Checkpoint::rows_file(int policy, int group) const {
  return (fs::path(dir_) /
          ("rows-p" + std::to_string(policy) + "-g" + std::to_string(group) + ".csv"))
      .string();
}

bool Checkpoint::load() {
  const std::string state = (fs::path(dir_) / "state.json").string();
  std::error_code ec;
  if (!fs::exists(state, ec)) return false;
  json j;
  try {
    j = json::parse(read_whole_file(state));
    if (j.at("config_hash").get<std::string>() != hash_) {
      throw InvalidArgument("checkpoint in " + dir_ +
                            " belongs to a different config; remove it or drop --resume");
    }
    chunks_.clear();
    for (const auto& c : j.at("completed")) chunks_.push_back(chunk_from_json(c));
    elapsed_ = j.at("elapsed_seconds").get<double>();
  } catch (const json::exception& e) {
    throw IoError("checkpoint in " + dir_ + " is unreadable (" + e.what() +
                  "); remove it or drop --resume");
  }
  for (const auto& c : chunks_) {
    if (!fs::exists(rows_file(c.policy, c.group), ec)) {
      throw IoError("checkpoint in " + dir_ + " is incomplete (missing " +
                    rows_file(c.policy, c.group) + "); remove it or drop --resume");
    }
  }
  return true;
}

void Checkpoint::clear() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
  if (ec) throw IoError("cannot remove old checkpoint " + dir_ + ": " + ec.message());
  chunks_.clear();
  elapsed_ = 0;
}

void Checkpoint::save(const Chunk& chunk, const std::string& rows, double elapsed_seconds) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw IoError("cannot create checkpoint directory " + dir_ + ": " + ec.message());
  write_file_atomic(rows_file(chunk.policy, chunk.group), rows);
  chunks_.push_back(chunk);
  elapsed_ = elapsed_seconds;
  write_state();
}

bool Checkpoint::done(int policy, int group) const {
  return std::any_of(chunks_.begin(), chunks_.end(),
                     [&](const Chunk& c) { return c.policy == policy && c.group == group; });
}

void Checkpoint::write_state() const {
  json completed = json::array();
  for (const auto& c : chunks_) completed.push_back(chunk_to_json(c));
  const json j = {{"config_hash", hash_},
                  {"version", GPB_VERSION},
                  {"elapsed_seconds", elapsed_},
                  {"completed", completed}};
  write_file_atomic((fs::path(dir_) / "state.json").string(), j.dump(1) + "\n");
}

// ---------------------------------------------------------------- summaries

std::pair<double, double> mean_sd(const std::vector<double>& x) {
  if (x.empty()) return {0.0, 0.0};
  double m = 0;
  for (double v : x) m += v;
  m /= static_cast<double>(x.size());
  if (x.size() < 2) return {m, 0.0};
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return {m, std::sqrt(ss / static_cast<double>(x.size() - 1))};
}

namespace {

/// Records of policy p over all groups, ordered by run.
std::vector<RunRecord> policy_runs(const std::vector<Chunk>& chunks, int p, double* seconds) {
  std::vector<RunRecord> out;
  *seconds = 0;
  for (const auto& c : chunks) {
    if (c.policy != p) continue;
    *seconds += c.seconds;
    out.insert(out.end(), c.runs.begin(), c.runs.end());
  }
  std::sort(out.begin(), out.end(),
            [](const RunRecord& a, const RunRecord& b) { return a.run < b.run; });
  return out;
}

}  // namespace

std::vector<PolicySummary> summarize(const ExperimentConfig& config,
                                     const std::vector<Chunk>& chunks) {
  std::vector<PolicySummary> out;
  for (std::size_t p = 0; p < config.policies.size(); ++p) {
    PolicySummary s;
    s.label = config.policies[p].label;
    const auto runs = policy_runs(chunks, static_cast<int>(p), &s.seconds);
    std::vector<double> cum, simple;
    for (const auto& r : runs) {
      cum.push_back(r.cumulative);
      simple.push_back(r.simple);
    }
    std::tie(s.cumulative_mean, s.cumulative_sd) = mean_sd(cum);
    std::tie(s.simple_mean, s.simple_sd) = mean_sd(simple);
    out.push_back(s);
  }
  return out;
}

namespace {
/// Mean and sample sd (n−1; specs/ldp-bo.md §7) over the runs of one curve member, point by point.
std::pair<std::vector<double>, std::vector<double>> curve_mean_sd(
    const std::vector<RunRecord>& rs, std::vector<double> RunRecord::*member, std::size_t points) {
  std::vector<double> mean(points, 0.0), sd(points, 0.0);
  for (std::size_t k = 0; k < points; ++k) {
    std::vector<double> at;
    for (const auto& r : rs) {
      if (k < (r.*member).size()) at.push_back((r.*member)[k]);
    }
    std::tie(mean[k], sd[k]) = mean_sd(at);
  }
  return {mean, sd};
}
}  // namespace

std::string summary_json(const ExperimentConfig& config, int runs, std::uint64_t seed,
                         const std::string& backend, const std::vector<Chunk>& chunks,
                         double total_seconds, const std::string& extra_json) {
  const auto evals = curve_evaluations(config.horizon);
  json policies = json::array();
  json per_policy = json::object();
  const auto sums = summarize(config, chunks);
  for (std::size_t p = 0; p < config.policies.size(); ++p) {
    double seconds = 0;
    const auto rs = policy_runs(chunks, static_cast<int>(p), &seconds);
    const auto [curve, curve_sd] = curve_mean_sd(rs, &RunRecord::curve, evals.size());
    const auto [simple, simple_sd] = curve_mean_sd(rs, &RunRecord::simple_curve, evals.size());
    const PolicySummary& s = sums[p];
    json finals = json::array();
    for (const auto& r : rs) finals.push_back(r.cumulative);
    policies.push_back(
        {{"label", s.label},
         {"cumulative_regret_per_run", finals},
         {"type", config.policies[p].type},
         {"params", json::parse(config.policies[p].params_json)},
         {"cumulative_regret", {{"mean", s.cumulative_mean}, {"sd", s.cumulative_sd}}},
         {"simple_regret", {{"mean", s.simple_mean}, {"sd", s.simple_sd}}},
         {"seconds", s.seconds},
         {"mean_cumulative_regret_curve", curve},
         {"sd_cumulative_regret_curve", curve_sd},
         {"mean_simple_regret_curve", simple},
         {"sd_simple_regret_curve", simple_sd}});
    per_policy[s.label] = s.seconds;
  }
  json j = {{"name", config.name},
            {"version", GPB_VERSION},
            {"build", GPB_HAS_CUDA ? "cuda+cpu" : "cpu"},
            {"backend", backend},
            {"config", json::parse(config.config_json)},
            {"seed", seed},
            {"runs", runs},
            {"T", config.horizon},
            {"N", config.domain.size()},
            {"d", config.domain.dim()},
            {"noise", config.noise.describe()},
            {"kernel", config.kernel.describe()},
            {"timings", {{"total_seconds", total_seconds}, {"per_policy", per_policy}}},
            {"curve_evaluations", evals},
            {"policies", policies}};
  if (!extra_json.empty()) {
    const json extra = json::parse(extra_json);
    for (const auto& [k, v] : extra.items()) j[k] = v;
  }
  return j.dump(2) + "\n";
}

}  // namespace gpb::detail
