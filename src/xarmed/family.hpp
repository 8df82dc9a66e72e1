/// @file family.hpp
/// The X-armed family (internal): Fed-PNE, DP-Fed-PNE and the HCT, Fed1-UCB, GP-UCB-on-a-mesh
/// and random baselines on a box, stepped through the one experiment pipeline, in process or
/// over MPI (server on rank 0, clients on the other ranks).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "experiment/family.hpp"
#include "xarmed/config.hpp"

namespace gpb::xarmed {

/// The X-armed family.
class XArmedFamily final : public gpb::detail::Family {
 public:
  /// @param config a validated config (parse_config()).
  explicit XArmedFamily(XConfig config);
  const ExperimentSettings& settings() const override { return config_.settings; }
  std::string kind() const override { return "fed-pne"; }
  std::vector<std::string> labels() const override;
  std::string type(int p) const override;
  std::string runs_csv_header() const override;
  std::vector<std::pair<std::string, std::string>> extra_csv() const override;
  long long steps_per_run(int /*p*/) const override { return 1; }
  const char* step_word() const override { return "run"; }
  bool steps_on(int p, const gpb::detail::StepEnv& env) const override;
  gpb::detail::UnitOutput step(const gpb::detail::StepEnv& env, const void* group, int p,
                               const std::vector<std::uint32_t>& runs,
                               const std::vector<gpb::detail::UnitRecord>& earlier) const override;
  gpb::detail::FamilySummary summarize(
      const gpb::detail::StepEnv& env,
      const std::vector<std::vector<const gpb::detail::UnitRecord*>>& by_policy,
      const std::string& backend) const override;
  gpb::detail::PlotRequest plot(const std::string& runs_csv) const override;

 private:
  /// The objective with the perturbations of `seed` (built on first use).
  std::shared_ptr<const FedObjective> objective(std::uint64_t seed) const;
  XConfig config_;
  gpb::detail::PerSeed<FedObjective> objectives_;
};

/// summary.json's family fields and method objects, and the results table.
gpb::detail::FamilySummary summarize_xarmed(
    const XConfig& c, const FedObjective& f, int ranks, bool mpi,
    const std::vector<std::vector<const gpb::detail::UnitRecord*>>& by_policy);

}  // namespace gpb::xarmed
