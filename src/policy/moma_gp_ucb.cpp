// MoMA-GP-UCB (Zhou & Tan 2021, Alg. 3) and LDP-MoMA-GP-UCB (Cor. 1): specs/ldp-bo.md §3.7.
// Epoch n plays x_n k times (one batch of k non-adaptive plays), then builds the Nyström
// approximation over the distinct epoch points (each counted once per epoch that chose it), the k
// least-squares estimates, one per replicate j, and keeps the one whose median Ṽ-distance to the
// others is smallest. The T − N_ep·k leftover rounds replay the final UCB choice (spec D9).
#include <cmath>

#include "gpbandit/engine/features.hpp"
#include "gpbandit/error.hpp"
#include "policy/ldp_presets.hpp"

namespace gpb {
namespace {

using detail::ApproxRunState;
using detail::RunConstants;

class MomaGpUcb final : public Policy {
 public:
  MomaGpUcb(const PolicyEnv& env, const HeavyTailedOptions& options)
      : env_(env), options_(options) {
    GPB_EXPECTS(env.ctx != nullptr && env.domain != nullptr && !env.run_ids.empty(),
                "moma_gp_ucb: PolicyEnv needs a context, a domain and at least one run");
    detail::validate_options(options_);
    k_ = options_.k_groups > 0 ? options_.k_groups
                               : detail::moma_groups(options_.preset, env_.horizon, options_.delta);
    GPB_EXPECTS(env_.horizon >= k_, "T = " << env_.horizon << " is smaller than MoMA's k = " << k_
                                           << " (one epoch needs k plays)");
    epochs_ = env_.horizon / k_;
    kdiag_ = detail::kernel_diagonal(env_);
    q_ = detail::nystrom_q(options_.preset, env_.horizon, options_.delta, options_.eps_nys);
    const int n = env_.domain->size();
    for (int r = 0; r < env_.runs(); ++r) {
      constants_.push_back(detail::run_constants(env_, options_, r));
      states_.push_back(detail::initial_approx_state(env_, r, kdiag_));
      epoch_counts_.push_back(Eigen::VectorXd::Zero(n));
      ysum_.push_back(Eigen::MatrixXd::Zero(n, k_));
    }
  }

  std::string name() const override { return options_.ldp ? "ldp_moma_gp_ucb" : "moma_gp_ucb"; }
  int batch_size() const override { return k_; }

  Selection select(const Round& round) override {
    const bool full = round.q == k_ && done_epochs_ < epochs_;
    GPB_EXPECTS(full || (round.q < k_ && round.q >= 1 && done_epochs_ == epochs_),
                name() << ": asked for " << round.q << " plays after " << done_epochs_
                       << " epochs of k = " << k_);
    Selection s;
    s.runs = env_.runs();
    s.q = round.q;
    for (int r = 0; r < env_.runs(); ++r) {
      auto& st = states_[static_cast<std::size_t>(r)];
      const double beta = detail::moma_width(options_, constants_[static_cast<std::size_t>(r)],
                                             env_.noise_variance, done_epochs_, st.m);
      const int x = detail::approx_ucb_choice(env_, st, beta);
      for (int i = 0; i < round.q; ++i) s.chosen.push_back(x);
    }
    return s;
  }

  void observe(const Selection& selection, const Rewards& rewards) override {
    GPB_EXPECTS(rewards.y.size() == selection.chosen.size(),
                name() << ": rewards do not match the selection");
    if (selection.q != k_) return;  // leftover plays: no update
    for (int r = 0; r < env_.runs(); ++r) {
      update(r, selection.at(r, 0), rewards.y.data() + static_cast<std::size_t>(r) * k_);
    }
    ++done_epochs_;
  }

  std::optional<LdpRequest> ldp_request(int run) const override {
    if (!options_.ldp) return std::nullopt;
    const RunConstants& k = constants_[static_cast<std::size_t>(run)];
    return LdpRequest{k.B, k.R, options_.epsilon, options_.clip};
  }

 private:
  /// Lines 4–9 of §3.7 for run r after epoch point x with rewards y[0..k).
  void update(int r, int x, const double* y) {
    const auto ru = static_cast<std::size_t>(r);
    ApproxRunState& st = states_[ru];
    Eigen::VectorXd& e = epoch_counts_[ru];
    Eigen::MatrixXd& ysum = ysum_[ru];
    e(x) += 1.0;
    for (int j = 0; j < k_; ++j) ysum(x, j) += y[j];
    const auto [emb, apx] = detail::embed_played(env_, st, e, kdiag_, q_);
    if (st.m == 0) {
      st.mean.setZero();
    } else {
      const Eigen::MatrixXd s = emb.phi * ysum;  // m×k
      const Eigen::MatrixXd theta = apx.v_inv * s;
      const Eigen::MatrixXd w = apx.v_inv_sqrt * s;
      const int best = detail::moma_select(w, options_.median_midpoint);
      st.mean.noalias() = emb.phi.transpose() * theta.col(best);
    }
    st.variance = apx.variance;
  }

  PolicyEnv env_;
  HeavyTailedOptions options_;
  int k_ = 1, epochs_ = 0, done_epochs_ = 0;
  Eigen::VectorXd kdiag_;
  double q_ = 1;
  std::vector<RunConstants> constants_;
  std::vector<ApproxRunState> states_;
  std::vector<Eigen::VectorXd> epoch_counts_;
  std::vector<Eigen::MatrixXd> ysum_;
};

/// Forwards to a policy and asks the runner to privatise its rewards (GP-UCB's "ldp" block).
class LdpWrapped final : public Policy {
 public:
  LdpWrapped(std::unique_ptr<Policy> inner, std::vector<LdpRequest> req)
      : inner_(std::move(inner)), req_(std::move(req)) {}
  std::string name() const override { return inner_->name(); }
  int batch_size() const override { return inner_->batch_size(); }
  Selection select(const Round& round) override { return inner_->select(round); }
  void observe(const Selection& s, const Rewards& y) override { inner_->observe(s, y); }
  std::optional<LdpRequest> ldp_request(int run) const override {
    return req_.at(static_cast<std::size_t>(run));
  }

 private:
  std::unique_ptr<Policy> inner_;
  std::vector<LdpRequest> req_;
};

}  // namespace

std::unique_ptr<Policy> make_moma_gp_ucb(const PolicyEnv& env, const HeavyTailedOptions& options) {
  return std::make_unique<MomaGpUcb>(env, options);
}

std::unique_ptr<Policy> make_ldp_wrapped(std::unique_ptr<Policy> inner,
                                         std::vector<LdpRequest> per_run) {
  GPB_EXPECTS(inner != nullptr, "make_ldp_wrapped: no policy");
  for (const auto& r : per_run) {
    GPB_EXPECTS(r.epsilon > 0 && std::isfinite(r.epsilon),
                "epsilon must be > 0, got " << r.epsilon);
    GPB_EXPECTS(r.B > 0 && std::isfinite(r.B), "B must be > 0, got " << r.B);
    GPB_EXPECTS(r.R > 0 && std::isfinite(r.R), "R must be > 0 and finite, got " << r.R);
  }
  return std::make_unique<LdpWrapped>(std::move(inner), std::move(per_run));
}

}  // namespace gpb
