#include "policy/ucb_common.hpp"

#include "gpbandit/error.hpp"

namespace gpb::detail {

namespace {
PosteriorOptions posterior_options(const PolicyEnv& env) {
  PosteriorOptions o;
  o.noise_variance = env.noise_variance;
  o.capacity = env.horizon;
  return o;
}

const Context& checked_context(const PolicyEnv& env) {
  GPB_EXPECTS(env.ctx != nullptr && env.domain != nullptr,
              "policy: PolicyEnv needs a context and a domain");
  GPB_EXPECTS(!env.run_ids.empty(), "policy: PolicyEnv needs at least one run");
  GPB_EXPECTS(env.horizon >= 1, "policy: horizon T must be >= 1, got " << env.horizon);
  return *env.ctx;
}
}  // namespace

UcbState::UcbState(const PolicyEnv& env, const BetaSchedule& beta)
    : env_(env),
      beta_(beta),
      posterior_(checked_context(env), env.kernel, *env.domain, env.runs(), posterior_options(env)),
      width_(env.run_ids.size()) {
  beta_.validate();
  for (std::uint32_t run : env_.run_ids) {
    tiebreak_.emplace_back(env_.seed, run, stream_of(StreamId::TieBreak, env_.policy_index));
  }
}

std::vector<int> UcbState::choose(int t, const std::vector<std::vector<int>>* excluded) {
  const int n = posterior_.size();
  const bool need_gamma = beta_.uses_gamma();  // γ̂ is an O(t) sum: skip it when unused
  for (int r = 0; r < env_.runs(); ++r) {
    width_[r] = beta_.width(t, n, need_gamma ? posterior_.info_gain(r) : 0.0);
  }
  std::vector<Rng>* ties = env_.random_ties ? &tiebreak_ : nullptr;
  const auto picks = excluded != nullptr ? posterior_.ucb_argmax(width_.data(), *excluded, ties)
                                         : posterior_.ucb_argmax(width_.data(), nullptr, ties);
  std::vector<int> out(picks.size());
  for (std::size_t r = 0; r < picks.size(); ++r) out[r] = picks[r].index;
  return out;
}

}  // namespace gpb::detail
