// Shared pieces of the UCB policies: the posterior they drive and their per-run tie-break streams.
#pragma once

#include <cstdint>
#include <vector>

#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::detail {

/// The posterior and tie-break streams a UCB policy advances for its runs.
class UcbState {
 public:
  UcbState(const PolicyEnv& env, const BetaSchedule& beta);

  /// One UCB choice per run for the t-th evaluation (t ≥ 1); `excluded`: per run, the candidates
  /// it may not choose (FinitePosterior::ucb_argmax's lists), or null.
  std::vector<int> choose(int t, const std::vector<std::vector<int>>* excluded);

  FinitePosterior& posterior() { return posterior_; }
  const PolicyEnv& env() const { return env_; }

 private:
  PolicyEnv env_;
  BetaSchedule beta_;
  FinitePosterior posterior_;
  std::vector<Rng> tiebreak_;
  std::vector<double> width_;
};

}  // namespace gpb::detail
