/// @file family.hpp
/// The pool family (internal): MolPAL's protocol over a finite library, one run after the other
/// through the one experiment pipeline (checkpoint per group of runs, --resume, runs.csv,
/// summary.json, found.png).
#pragma once

#include <string>
#include <vector>

#include "experiment/family.hpp"
#include "pool/config.hpp"

namespace gpb::pool::detail {

/// One batch of one run, as runs.csv and the record hold it.
struct BatchRow {
  int batch = 0;                   ///< 0: the random initial batch
  int evaluated = 0;               ///< evaluations so far
  FoundFractions found;            ///< after this batch
  double fit_seconds = 0;          ///< marginal-likelihood fit before this batch's choice
  double acquire_seconds = 0;      ///< choosing the batch
  double update_seconds = 0;       ///< the block update of the posterior with the batch
  double acquire_cpu_seconds = 0;  ///< choosing the batch, CPU seconds of the process (clock())
};

/// One finished run.
struct RunResult {
  std::vector<BatchRow> rows;
  double signal_variance = 0, noise_variance = 0, mean = 0;  ///< the fitted model (last fit)
  bool recompute = false;     ///< the posterior ran in recompute mode (memory budget)
  std::vector<int> acquired;  ///< every candidate evaluated, in order (acquired.csv)
};

/// Runs MolPAL's protocol once: policy p, run r (seeded by (seed, r)).
RunResult run_protocol(const Config& c, const Context& ctx, int p, std::uint64_t seed, int run);

/// The pool family.
class PoolFamily final : public gpb::detail::Family {
 public:
  explicit PoolFamily(Config config) : config_(std::move(config)) {}
  const ExperimentSettings& settings() const override { return config_.settings; }
  std::string kind() const override { return "pool"; }
  std::vector<std::string> labels() const override;
  std::string type(int p) const override;
  std::string runs_csv_header() const override;
  std::vector<std::pair<std::string, std::string>> extra_csv() const override;
  long long steps_per_run(int /*p*/) const override { return config_.batches + 1; }
  const char* step_word() const override { return "batch"; }
  gpb::detail::MemoryNeeds memory(int ranks) const override;
  gpb::detail::UnitOutput step(const gpb::detail::StepEnv& env, const void* group, int p,
                               const std::vector<std::uint32_t>& runs,
                               const std::vector<gpb::detail::UnitRecord>& earlier) const override;
  gpb::detail::FamilySummary summarize(
      const gpb::detail::StepEnv& env,
      const std::vector<std::vector<const gpb::detail::UnitRecord*>>& by_policy,
      const std::string& backend) const override;
  gpb::detail::PlotRequest plot(const std::string& runs_csv) const override;

 private:
  Config config_;
};

}  // namespace gpb::pool::detail
