/// @file recorder.hpp
/// Recording an experiment: runs.csv rows, per-run results, the checkpoint, summary.json.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpbandit/experiment.hpp"

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

/// One finished (policy, group).
struct Chunk {
  int policy = 0, group = 0;
  double seconds = 0;
  std::vector<RunRecord> runs;
};

/// The checkpoint in <out>/.checkpoint: one rows file per finished chunk plus state.json,
/// each written atomically (state.json last, so it only lists chunks that are complete).
class Checkpoint {
 public:
  Checkpoint(std::string out_dir, std::string config_hash);
  /// Loads an existing checkpoint. Returns false if there is none.
  /// @throws InvalidArgument if it belongs to a different config.
  bool load();
  /// Removes any existing checkpoint (a fresh start).
  void clear();
  /// Saves a finished chunk and its rows. @throws IoError.
  void save(const Chunk& chunk, const std::string& rows, double elapsed_seconds);
  bool done(int policy, int group) const;
  const std::vector<Chunk>& chunks() const { return chunks_; }
  /// Rows file of a finished chunk.
  std::string rows_file(int policy, int group) const;
  double elapsed_seconds() const { return elapsed_; }
  const std::string& dir() const { return dir_; }

 private:
  void write_state() const;
  std::string dir_, hash_;
  std::vector<Chunk> chunks_;
  double elapsed_ = 0;
};

/// Mean and sample standard deviation (n − 1; 0 for a single value).
std::pair<double, double> mean_sd(const std::vector<double>& x);

/// Per-policy summaries from the finished chunks (policies in config order).
std::vector<PolicySummary> summarize(const ExperimentConfig& config,
                                     const std::vector<Chunk>& chunks);

/// The text of summary.json.
std::string summary_json(const ExperimentConfig& config, int runs, std::uint64_t seed,
                         const std::string& backend, const std::vector<Chunk>& chunks,
                         double total_seconds, const std::string& extra_json = {});

}  // namespace gpb::detail
