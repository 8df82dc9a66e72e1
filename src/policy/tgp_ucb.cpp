// TGP-UCB (Chowdhury & Gopalan 2019, Alg. 1) and LDP-TGP-UCB (Zhou & Tan 2021, Alg. 2):
// specs/ldp-bo.md §3.5. Exact GP posterior (FinitePosterior) fed the truncated rewards
// ŷ_t = y_t·1{|y_t| ≤ b_t}; a zeroed reward is never revisited.
#include "policy/tgp_ucb.hpp"

#include <cmath>

#include "gpbandit/error.hpp"
#include "policy/ldp_presets.hpp"

namespace gpb::detail {

namespace {
PosteriorOptions tgp_posterior_options(const PolicyEnv& env) {
  GPB_EXPECTS(env.ctx != nullptr && env.domain != nullptr,
              "tgp_ucb: PolicyEnv needs a context and a domain");
  GPB_EXPECTS(!env.run_ids.empty(), "tgp_ucb: PolicyEnv needs at least one run");
  PosteriorOptions p;
  p.noise_variance = env.noise_variance;
  p.capacity = env.horizon;
  return p;
}
}  // namespace

TgpUcb::TgpUcb(const PolicyEnv& env, const HeavyTailedOptions& options)
    : env_(env),
      options_(options),
      posterior_(*env.ctx, env.kernel, *env.domain, env.runs(), tgp_posterior_options(env)) {
  validate_options(options_);
  for (int r = 0; r < env_.runs(); ++r) {
    constants_.push_back(run_constants(env_, options_, r));
    tiebreak_.emplace_back(env_.seed, env_.run_ids[static_cast<std::size_t>(r)],
                           stream_of(StreamId::TieBreak, env_.policy_index));
  }
  fed_.resize(static_cast<std::size_t>(env_.runs()));
}

std::string TgpUcb::name() const {
  return options_.ldp ? "ldp_tgp_ucb" : "tgp_ucb";
}

Selection TgpUcb::select(const Round& round) {
  GPB_EXPECTS(round.q == 1, name() << " selects one point per round, asked for " << round.q);
  const int t = round.done + 1;
  std::vector<double> width(static_cast<std::size_t>(env_.runs()));
  const bool need_gamma = tgp_width_uses_gamma(options_);
  for (int r = 0; r < env_.runs(); ++r) {
    // γ̂_{t−1} is an O(t) sum: only the theory width with gamma = info_gain reads it.
    double gamma = 0.0;
    if (need_gamma) {
      gamma = posterior_.info_gain(r);
      ++gamma_evaluations_;
    }
    width[static_cast<std::size_t>(r)] =
        tgp_width(options_, constants_[static_cast<std::size_t>(r)], env_.noise_variance, t, gamma);
  }
  const auto picks =
      posterior_.ucb_argmax(width.data(), nullptr, env_.random_ties ? &tiebreak_ : nullptr);
  Selection s;
  s.runs = env_.runs();
  s.q = 1;
  for (const auto& p : picks) s.chosen.push_back(p.index);
  return s;
}

void TgpUcb::observe(const Selection& selection, const Rewards& rewards) {
  GPB_EXPECTS(selection.q == 1 && rewards.y.size() == selection.chosen.size(),
              name() << ": rewards do not match the selection");
  const int t = posterior_.rows() + 1;
  std::vector<double> yhat(rewards.y.size());
  for (std::size_t r = 0; r < yhat.size(); ++r) {
    const double b = tgp_level(options_, constants_[r], t);
    yhat[r] = std::abs(rewards.y[r]) <= b ? rewards.y[r] : 0.0;
    fed_[r].push_back(yhat[r]);
  }
  posterior_.observe(selection.chosen.data(), yhat.data());
}

std::optional<LdpRequest> TgpUcb::ldp_request(int run) const {
  if (!options_.ldp) return std::nullopt;
  const RunConstants& k = constants_[static_cast<std::size_t>(run)];
  return LdpRequest{k.B, k.R, options_.epsilon, options_.clip};
}

}  // namespace gpb::detail

namespace gpb {

std::unique_ptr<Policy> make_tgp_ucb(const PolicyEnv& env, const HeavyTailedOptions& options) {
  return std::make_unique<detail::TgpUcb>(env, options);
}

}  // namespace gpb
