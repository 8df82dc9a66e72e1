/// @file recorder.hpp
/// Recording a finite-domain experiment: runs.csv rows and the per-run results (regret).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpbandit/experiment/experiment.hpp"

namespace gpb::detail {

/// Header line of runs.csv (with the newline).
std::string runs_csv_header();

/// Evaluation counts (1-based, increasing, at most ~100) at which the regret curve is sampled.
std::vector<int> curve_evaluations(int horizon);

/// Final numbers of one run of one policy.
struct RunRecord {
  std::uint32_t run = 0;
  double cumulative = 0;             ///< R_T
  double simple = 0;                 ///< simple regret after T evaluations
  std::vector<double> curve;         ///< cumulative regret at curve_evaluations(T)
  std::vector<double> simple_curve;  ///< simple regret at curve_evaluations(T)
  double f_sup = 0;                  ///< max |f| of the run's instance (B, specs/ldp-bo.md D12)
  int x_star = 0;                    ///< argmax f of the run's instance
};

/// Rows and records of one (policy, lockstep group) while it runs.
class GroupRecorder {
 public:
  /// @param fstar max f of each run; run_ids the global run numbers.
  GroupRecorder(std::string label, std::vector<std::uint32_t> run_ids, std::vector<double> fstar,
                int horizon);
  /// Records one evaluation of local run `r`: candidate j (true value fj), reward y, round.
  void record(int r, int round, int j, double fj, double y);
  /// CSV rows of the group, run-major (independent of how runs were grouped).
  std::string rows() const;
  std::vector<RunRecord> records() const;

 private:
  std::string label_;
  std::vector<std::uint32_t> run_ids_;
  std::vector<double> fstar_, best_, cumulative_;
  std::vector<int> count_;
  std::vector<std::string> rows_;
  std::vector<RunRecord> records_;
  std::vector<int> curve_at_;
};

/// Mean and sample standard deviation (n − 1; 0 for a single value).
std::pair<double, double> mean_sd(const std::vector<double>& x);

/// A run's record as JSON (checkpoint records) and back.
nlohmann::json to_json(const RunRecord& r);
/// @throws nlohmann::json::exception on a malformed record.
RunRecord run_record_from_json(const nlohmann::json& j);

}  // namespace gpb::detail
