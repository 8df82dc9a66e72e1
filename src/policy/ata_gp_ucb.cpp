// ATA-GP-UCB (Chowdhury & Gopalan 2019, Alg. 2) and LDP-ATA-GP-UCB (Zhou & Tan 2021, Alg. 1):
// specs/ldp-bo.md §3.6. Every round: Nyström embedding over the distinct played arms (D4),
// approximate posterior with per-arm play counts, and the whole history re-truncated along the
// rows of G = Ṽ^{−1/2}Φ at the current level b_t (D5; option per_sample uses b_τ).
#include <cmath>

#include "gpbandit/engine/features.hpp"
#include "gpbandit/error.hpp"
#include "policy/ldp_presets.hpp"

namespace gpb {
namespace {

using detail::ApproxRunState;
using detail::RunConstants;

class AtaGpUcb final : public Policy {
 public:
  AtaGpUcb(const PolicyEnv& env, const HeavyTailedOptions& options) : env_(env), options_(options) {
    GPB_EXPECTS(env.ctx != nullptr && env.domain != nullptr && !env.run_ids.empty(),
                "ata_gp_ucb: PolicyEnv needs a context, a domain and at least one run");
    detail::validate_options(options_);
    kdiag_ = detail::kernel_diagonal(env_);
    q_ = detail::nystrom_q(options_.preset, env_.horizon, options_.delta, options_.eps_nys);
    const int n = env_.domain->size();
    for (int r = 0; r < env_.runs(); ++r) {
      constants_.push_back(detail::run_constants(env_, options_, r));
      states_.push_back(detail::initial_approx_state(env_, r, kdiag_));
      history_.emplace_back(n);
      counts_.push_back(Eigen::VectorXd::Zero(n));
    }
  }

  std::string name() const override { return options_.ldp ? "ldp_ata_gp_ucb" : "ata_gp_ucb"; }

  Selection select(const Round& round) override {
    GPB_EXPECTS(round.q == 1, name() << " selects one point per round, asked for " << round.q);
    const int t = round.done + 1;
    Selection s;
    s.runs = env_.runs();
    s.q = 1;
    for (int r = 0; r < env_.runs(); ++r) {
      auto& st = states_[static_cast<std::size_t>(r)];
      const double beta = detail::ata_width(options_, constants_[static_cast<std::size_t>(r)],
                                            env_.noise_variance, env_.horizon, t - 1, st.m);
      s.chosen.push_back(detail::approx_ucb_choice(env_, st, beta));
    }
    return s;
  }

  void observe(const Selection& selection, const Rewards& rewards) override {
    GPB_EXPECTS(selection.q == 1 && rewards.y.size() == selection.chosen.size(),
                name() << ": rewards do not match the selection");
    ++t_;
    for (int r = 0; r < env_.runs(); ++r)
      update(r, selection.chosen[static_cast<std::size_t>(r)],
             rewards.y[static_cast<std::size_t>(r)]);
  }

  std::optional<LdpRequest> ldp_request(int run) const override {
    if (!options_.ldp) return std::nullopt;
    const RunConstants& k = constants_[static_cast<std::size_t>(run)];
    return LdpRequest{k.B, k.R, options_.epsilon, options_.clip};
  }

 private:
  /// Lines 3–8 of §3.6 for run r after playing arm a and seeing y.
  void update(int r, int a, double y) {
    const auto ru = static_cast<std::size_t>(r);
    ApproxRunState& st = states_[ru];
    Eigen::VectorXd& n = counts_[ru];
    n(a) += 1.0;
    const auto [emb, apx] = detail::embed_played(env_, st, n, kdiag_, q_);
    const double b = detail::ata_level(options_, constants_[ru], env_.horizon, t_, st.m);
    history_[ru].add(a, y, b);
    if (st.m == 0) {
      st.mean.setZero();
    } else {
      const Eigen::VectorXd rhat = options_.ata_per_sample ? history_[ru].rhat_per_sample(apx.g)
                                                           : history_[ru].rhat(apx.g, b);
      const Eigen::VectorXd theta = apx.v_inv_sqrt * rhat;
      st.mean.noalias() = emb.phi.transpose() * theta;
    }
    st.variance = apx.variance;
  }

  PolicyEnv env_;
  HeavyTailedOptions options_;
  Eigen::VectorXd kdiag_;
  double q_ = 1;
  int t_ = 0;
  std::vector<RunConstants> constants_;
  std::vector<ApproxRunState> states_;
  std::vector<detail::AtaHistory> history_;
  std::vector<Eigen::VectorXd> counts_;
};

}  // namespace

std::unique_ptr<Policy> make_ata_gp_ucb(const PolicyEnv& env, const HeavyTailedOptions& options) {
  return std::make_unique<AtaGpUcb>(env, options);
}

}  // namespace gpb
