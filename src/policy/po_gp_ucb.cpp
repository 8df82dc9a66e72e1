// PO-GP-UCB modeler (Algorithm 2 of Kharkovskii et al. 2020; specs/po-gp-ucb.md §5): GP-UCB over
// the rows of the curator's Z, one posterior per run because every run has its own M.
#include "gpbandit/policy/po_gp_ucb.hpp"

#include <atomic>
#include <iostream>
#include <vector>

#include "gpbandit/domain.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"
#include "policy/ucb_common.hpp"

namespace gpb {

namespace {

/// The spec §12 caveat, printed once per process (the CLI runs one config per process).
void print_caveat_once() {
  static std::atomic<bool> printed{false};
  if (printed.exchange(true)) return;
  std::cerr << "note: po_gp_ucb uses the PO-GP-UCB transform (Kharkovskii et al. 2020). It is NOT "
               "differentially private when N > d: a released row can be recovered exactly from "
               "Z and d+1 other domain points (specs/po-gp-ucb.md §12). epsilon and delta only "
               "set the threshold omega.\n";
}

class PoGpUcb final : public Policy {
 public:
  PoGpUcb(const PolicyEnv& env, const PoGpUcbOptions& options) {
    GPB_EXPECTS(env.ctx != nullptr && env.domain != nullptr,
                "po_gp_ucb: PolicyEnv needs a context and a domain");
    GPB_EXPECTS(env.kernel.stationary(),
                "po_gp_ucb: the kernel must be stationary, got " << env.kernel.describe());
    options.beta.validate();
    print_caveat_once();
    const Eigen::MatrixXd X = env.domain->points().transpose();  // n×d, one row per candidate
    for (std::uint32_t run : env.run_ids) {
      const privacy::PoRelease rel = privacy::po_curate_seeded(
          *env.ctx, X, options.curator, env.seed, run, stream_of(StreamId::Projection));
      releases_.push_back({rel.r, rel.omega, rel.sigma_min, rel.branch});
      domains_.push_back(std::make_unique<Domain>(Domain::from_rows(rel.z)));
      PolicyEnv sub = env;
      sub.domain = domains_.back().get();
      sub.run_ids = {run};
      states_.emplace_back(sub, options.beta);
    }
  }

  std::string name() const override { return "po_gp_ucb"; }

  Selection select(const Round& round) override {
    GPB_EXPECTS(round.q == 1, "po_gp_ucb selects one point per round, asked for " << round.q);
    Selection s;
    s.runs = static_cast<int>(states_.size());
    s.q = 1;
    for (auto& state : states_) s.chosen.push_back(state.choose(round.done + 1, nullptr)[0]);
    return s;
  }

  void observe(const Selection& selection, const Rewards& rewards) override {
    GPB_EXPECTS(selection.q == 1 && rewards.y.size() == selection.chosen.size() &&
                    selection.chosen.size() == states_.size(),
                "po_gp_ucb: rewards do not match the selection");
    for (std::size_t r = 0; r < states_.size(); ++r) {
      states_[r].posterior().observe(&selection.chosen[r], &rewards.y[r]);
    }
  }

 private:
  struct ReleaseInfo {
    int r;
    double omega, sigma_min;
    privacy::CuratorBranch branch;
  };
  std::vector<ReleaseInfo> releases_;
  std::vector<std::unique_ptr<Domain>> domains_;
  std::vector<detail::UcbState> states_;
};

}  // namespace

std::unique_ptr<Policy> make_po_gp_ucb(const PolicyEnv& env, const PoGpUcbOptions& options) {
  return std::make_unique<PoGpUcb>(env, options);
}

}  // namespace gpb
