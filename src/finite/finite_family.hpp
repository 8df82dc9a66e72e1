/// @file finite_family.hpp
/// The finite-domain family (internal): every policy of the registry over a finite domain, R runs
/// in lockstep groups; a group's objective values are computed once and shared by its policies
/// (common random numbers).
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <string>
#include <vector>

#include "experiment/family.hpp"
#include "experiment/recorder.hpp"

namespace gpb::detail {

/// The objective over the domain for each run of a group.
struct FiniteGroup {
  std::vector<std::uint32_t> run_ids;  ///< global run numbers
  std::vector<Eigen::VectorXd> f;      ///< f over the domain, per run
  std::vector<double> fstar;           ///< max f per run
  std::vector<double> fsup;            ///< max |f| per run (B, specs/ldp-bo.md D12)
  std::vector<int> xstar;              ///< argmax f per run
};

/// The finite-domain family.
class FiniteFamily final : public Family {
 public:
  /// @param config a validated config (parse_experiment_config()).
  explicit FiniteFamily(ExperimentConfig config);
  const ExperimentSettings& settings() const override { return config_; }
  std::string kind() const override { return "finite"; }
  std::vector<std::string> labels() const override;
  std::string type(int p) const override;
  std::string runs_csv_header() const override { return detail::runs_csv_header(); }
  long long steps_per_run(int /*p*/) const override { return config_.horizon; }
  MemoryNeeds memory(int ranks) const override;
  /// Under --mpi every rank steps every policy: its posteriors hold the rank's slice.
  bool steps_on(int /*p*/, const StepEnv& /*env*/) const override { return true; }
  bool shards() const override { return true; }
  long long candidates() const override { return config_.domain.size(); }
  void check_ranks(int ranks) const override;
  std::string whole_domain(int ranks) const override;
  std::shared_ptr<const void> prepare(const StepEnv& env,
                                      const std::vector<std::uint32_t>& runs) const override;
  UnitOutput step(const StepEnv& env, const void* group, int p,
                  const std::vector<std::uint32_t>& runs,
                  const std::vector<UnitRecord>& earlier) const override;
  FamilySummary summarize(const StepEnv& env,
                          const std::vector<std::vector<const UnitRecord*>>& by_policy,
                          const std::string& backend) const override;
  PlotRequest plot(const std::string& runs_csv) const override;
  /// The parsed config.
  const ExperimentConfig& config() const { return config_; }

 private:
  ExperimentConfig config_;
};

/// Whether policy type `type` can run sharded over MPI ranks: its state is FinitePosteriors on
/// the step's Context (gp_ucb, batch_gp_ucb, tgp_ucb, ldp_tgp_ucb, po_gp_ucb) or nothing
/// N-sized (random). The Nyström policies (ata/moma, ± ldp_) hold a dictionary over the whole
/// domain on one process.
bool shardable_policy(const std::string& type);

/// R, c₀, v₀ of the instance: the data set's own, else from the noise model.
InstanceConstants instance_constants(const ExperimentConfig& cfg);

/// summary.json's family fields and policy objects, the regret table and PolicySummary list.
FamilySummary summarize_finite(const ExperimentConfig& cfg, int runs,
                               const std::vector<std::vector<const UnitRecord*>>& by_policy);

}  // namespace gpb::detail
