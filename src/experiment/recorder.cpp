// Recording a finite-domain experiment: runs.csv rows and per-run results.
#include "experiment/recorder.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <tuple>

#include "gpbandit/build_config.hpp"
#include "gpbandit/error.hpp"
#include "io/atomic_file.hpp"

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

// ---------------------------------------------------------------- records

json to_json(const RunRecord& r) {
  return {{"run", r.run},      {"cumulative", r.cumulative},     {"simple", r.simple},
          {"curve", r.curve},  {"simple_curve", r.simple_curve}, {"f_sup", r.f_sup},
          {"x_star", r.x_star}};
}

RunRecord run_record_from_json(const json& j) {
  RunRecord rec;
  rec.run = j.at("run").get<std::uint32_t>();
  rec.cumulative = j.at("cumulative").get<double>();
  rec.simple = j.at("simple").get<double>();
  rec.curve = j.at("curve").get<std::vector<double>>();
  if (j.contains("simple_curve")) {  // absent in checkpoints of older versions
    rec.simple_curve = j.at("simple_curve").get<std::vector<double>>();
  }
  rec.f_sup = j.at("f_sup").get<double>();
  rec.x_star = j.at("x_star").get<int>();
  return rec;
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

}  // namespace gpb::detail
