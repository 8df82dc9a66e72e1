/// @file tgp_ucb.hpp
/// TGP-UCB / LDP-TGP-UCB as a concrete class, so tests can inspect what was fed to the GP.
#pragma once

#include <vector>

#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"
#include "policy/ldp_presets.hpp"

namespace gpb::detail {

/// specs/ldp-bo.md §3.5 for R runs in lockstep.
class TgpUcb final : public Policy {
 public:
  /// @throws InvalidArgument for bad options or missing B / R.
  TgpUcb(const PolicyEnv& env, const HeavyTailedOptions& options);
  std::string name() const override;
  Selection select(const Round& round) override;
  /// Truncates y at b_t (t = this observation's round) to ŷ ∈ {y, 0}, then observes ŷ.
  void observe(const Selection& selection, const Rewards& rewards) override;
  std::optional<LdpRequest> ldp_request(int run) const override;

  /// ŷ_1..ŷ_t fed to run r's GP so far.
  const std::vector<double>& fed(int run) const { return fed_[static_cast<std::size_t>(run)]; }
  const RunConstants& constants(int run) const { return constants_[static_cast<std::size_t>(run)]; }
  const FinitePosterior& posterior() const { return posterior_; }
  /// How many times select() asked the posterior for γ̂ (one per run and round with the theory
  /// width, none otherwise: the information-gain sum is O(t), so asking every round is O(T²)).
  long gamma_evaluations() const { return gamma_evaluations_; }

 private:
  PolicyEnv env_;
  HeavyTailedOptions options_;
  FinitePosterior posterior_;
  std::vector<RunConstants> constants_;
  std::vector<Rng> tiebreak_;
  std::vector<std::vector<double>> fed_;
  long gamma_evaluations_ = 0;
};

}  // namespace gpb::detail
