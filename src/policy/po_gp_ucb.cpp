// PO-GP-UCB modeler (Algorithm 2 of Kharkovskii et al. 2020; specs/po-gp-ucb.md §5): GP-UCB over
// the rows of the curator's Z, one posterior per run because every run has its own M.
#include "gpbandit/policy/po_gp_ucb.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cmath>
#include <iostream>
#include <vector>

#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/projection.hpp"
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

/// Stream of the initial design, shared by every po_gp_ucb policy of a run (spec D6).
constexpr std::uint32_t kInitStream = 31;

class PoGpUcb final : public Policy {
 public:
  PoGpUcb(const PolicyEnv& env, const PoGpUcbOptions& options)
      : n_init_(options.n_init), exclude_(options.exclude_queried) {
    GPB_EXPECTS(env.ctx != nullptr && env.domain != nullptr,
                "po_gp_ucb: PolicyEnv needs a context and a domain");
    GPB_EXPECTS(env.kernel.stationary(),
                "po_gp_ucb: the kernel must be stationary, got " << env.kernel.describe());
    const int n = env.domain->size();
    GPB_EXPECTS(options.n_init >= 0 && options.n_init <= n,
                "po_gp_ucb: n_init must lie in [0, N = " << n << "], got " << options.n_init);
    GPB_EXPECTS(options.calibrate_to >= 0 && std::isfinite(options.calibrate_to),
                "po_gp_ucb: calibrate_to must be >= 0, got " << options.calibrate_to);
    options.beta.validate();
    const Eigen::MatrixXd X = env.domain->points().transpose();  // n×d, one row per candidate
    privacy::PoCuratorOptions cur = options.curator;
    info_["curator"] = options.use_curator;
    info_["n_init"] = options.n_init;
    info_["exclude_queried"] = options.exclude_queried;
    info_["beta"] = options.beta.describe();
    if (options.use_curator) {
      print_caveat_once();
      if (options.calibrate_to > 0) {
        const double s_min = singular_spectrum(*env.ctx, privacy::centre_rows(X)).values.minCoeff();
        GPB_EXPECTS(s_min > 0, "po_gp_ucb: calibrate_to needs sigma_min(X) > 0");
        const double eps_low = 1.1 * privacy::po_omega(10, 1.0, cur.delta, cur.omega_form) / s_min;
        info_["epsilon_given"] = cur.epsilon;
        cur.epsilon *= eps_low / options.calibrate_to;
      }
      info_["epsilon_used"] = cur.epsilon;
      info_["delta"] = cur.delta;
    }
    for (std::uint32_t run : env.run_ids) {
      PolicyEnv sub = env;
      sub.run_ids = {run};
      if (options.use_curator) {
        const privacy::PoRelease rel = privacy::po_curate_seeded(*env.ctx, X, cur, env.seed, run,
                                                                 stream_of(StreamId::Projection));
        if (!info_.contains("branch")) {
          info_["r"] = rel.r;
          info_["omega"] = rel.omega;
          info_["sigma_min"] = rel.sigma_min;
          info_["branch"] = privacy::to_string(rel.branch);
          info_["omega_form"] =
              cur.omega_form == privacy::OmegaForm::Literal ? "literal" : "sqrt_r_log";
        }
        domains_.push_back(std::make_unique<Domain>(Domain::from_rows(rel.z)));
        sub.domain = domains_.back().get();
      }
      states_.emplace_back(sub, options.beta);
      Rng init(env.seed, run, kInitStream);
      std::vector<int> first;
      for (int i = 0; i < n_init_; ++i) first.push_back(static_cast<int>(init.below(n)));
      init_.push_back(std::move(first));
      if (exclude_) queried_.emplace_back(1);  // one run per posterior: one list
    }
  }

  std::string name() const override { return "po_gp_ucb"; }

  std::string info_json() const override { return info_.dump(); }

  Selection select(const Round& round) override {
    GPB_EXPECTS(round.q == 1, "po_gp_ucb selects one point per round, asked for " << round.q);
    Selection s;
    s.runs = static_cast<int>(states_.size());
    s.q = 1;
    for (std::size_t r = 0; r < states_.size(); ++r) {
      if (round.done < n_init_) {
        s.chosen.push_back(init_[r][static_cast<std::size_t>(round.done)]);
        continue;
      }
      const std::vector<std::vector<int>>* seen = exclude_ ? &queried_[r] : nullptr;
      s.chosen.push_back(states_[r].choose(round.done - n_init_ + 1, seen)[0]);
    }
    return s;
  }

  void observe(const Selection& selection, const Rewards& rewards) override {
    GPB_EXPECTS(selection.q == 1 && rewards.y.size() == selection.chosen.size() &&
                    selection.chosen.size() == states_.size(),
                "po_gp_ucb: rewards do not match the selection");
    for (std::size_t r = 0; r < states_.size(); ++r) {
      states_[r].posterior().observe(&selection.chosen[r], &rewards.y[r]);
      if (exclude_) queried_[r][0].push_back(selection.chosen[r]);
    }
  }

 private:
  int n_init_;
  bool exclude_;
  nlohmann::json info_ = nlohmann::json::object();
  std::vector<std::unique_ptr<Domain>> domains_;
  std::vector<detail::UcbState> states_;
  std::vector<std::vector<int>> init_;
  std::vector<std::vector<std::vector<int>>> queried_;  // per run: {the candidates queried}
};

}  // namespace

std::unique_ptr<Policy> make_po_gp_ucb(const PolicyEnv& env, const PoGpUcbOptions& options) {
  return std::make_unique<PoGpUcb>(env, options);
}

}  // namespace gpb
