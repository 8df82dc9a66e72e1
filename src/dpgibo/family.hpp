/// @file family.hpp
/// The DP-GIBO family (internal): DP-GIBO, GIBO, DP-GD, GD, random search and UCB-BO on a task
/// over a box, stepped run by run through the one experiment pipeline.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dpgibo/config.hpp"
#include "experiment/family.hpp"

namespace gpb::dpgibo::detail {

/// The DP-GIBO family.
class DpGiboFamily final : public gpb::detail::Family {
 public:
  /// @param config a validated config (parse_config()).
  explicit DpGiboFamily(Config config);
  const ExperimentSettings& settings() const override { return config_.settings; }
  std::string kind() const override { return "dp-gibo"; }
  std::vector<std::string> labels() const override;
  std::string type(int p) const override;
  std::string runs_csv_header() const override;
  long long steps_per_run(int /*p*/) const override { return 1; }
  const char* step_word() const override { return "run"; }
  gpb::detail::UnitOutput step(const gpb::detail::StepEnv& env, const void* group, int p,
                               const std::vector<std::uint32_t>& runs,
                               const std::vector<gpb::detail::UnitRecord>& earlier) const override;
  gpb::detail::FamilySummary summarize(
      const gpb::detail::StepEnv& env,
      const std::vector<std::vector<const gpb::detail::UnitRecord*>>& by_policy,
      const std::string& backend) const override;
  gpb::detail::PlotRequest plot(const std::string& runs_csv) const override;

 private:
  /// The task of `seed` (its data are drawn once per seed; built on first use).
  std::shared_ptr<const Task> task(std::uint64_t seed) const;
  Config config_;
  gpb::detail::PerSeed<Task> tasks_;
};

/// summary.json's family fields and method objects, and the results table.
gpb::detail::FamilySummary summarize_dpgibo(
    const Config& c, const Task& task,
    const std::vector<std::vector<const gpb::detail::UnitRecord*>>& by_policy);

}  // namespace gpb::dpgibo::detail
