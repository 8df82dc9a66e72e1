/// @file ldp_presets.hpp
/// Internal pieces of the heavy-tailed / LDP family (specs/ldp-bo.md §3.5–3.7, §4): the per-run
/// instance constants, the §4 parameter presets (widths, truncation levels, k, q), MoMA's
/// median-of-means selection, ATA's history truncation, and the Nyström state ATA and MoMA share.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <utility>
#include <vector>

#include "gpbandit/engine/features.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::detail {

using Preset = HeavyTailedOptions::Preset;

/// The constants one run's widths and levels use (after overrides and the LDP conversion).
struct RunConstants {
  double B = 0;  ///< bound on |f| (D12: max_𝒟|f|)
  double R = 0;  ///< bound on |η| (LDP; +∞ when unknown and not needed)
  double L = 0;  ///< Laplace scale 𝓛 = 2(B+R)/ϵ (LDP), else 0
  double v = 0;  ///< (1+α)-th moment bound of y (TGP, ATA)
  double c = 0;  ///< (1+α)-th moment bound of η (MoMA)
  double K = 0;  ///< 𝖪 = B² + R² + 2𝓛² (LDP-TGP)
};

/// Resolves run r's constants from the environment and the overrides (§4 rows "v, c").
/// @throws InvalidArgument if B or R is needed but unknown or not > 0.
RunConstants run_constants(const PolicyEnv& env, const HeavyTailedOptions& o, int r);
/// Checks option ranges (ϵ > 0, δ ∈ (0,1), ε_nys ∈ (0,1), α ∈ (0,1], overrides > 0).
void validate_options(const HeavyTailedOptions& o);

/// x^{1/(1+α)}: sqrt for α = 1 (exact under power-of-two scaling, spec F9).
double root_1pa(double x, double alpha);
/// x^{α/(1+α)}: sqrt for α = 1.
double root_a_1pa(double x, double alpha);
/// x^e with the conventions of §4: 1 when e = 0, 0 when x ≤ 0 < e; t^{1/4} by two sqrt.
double power_or_zero(double x, double e);
/// ln(max(x, 1)).
double log1(double x);

/// MoMA's k (`k_groups`): theory ⌈24 ln(4eT/δ)⌉, practical ⌈ln(4eT/δ)⌉ (§4, D7).
int moma_groups(Preset preset, int horizon, double delta);
/// Nyström oversampling q: theory 6ρ ln(4T/δ)/ε², practical ln(T)/ε², ρ = (1+ε)/(1−ε).
double nystrom_q(Preset preset, int horizon, double delta, double eps_nys);

/// TGP truncation level b_t (t ≥ 1; t = 0 gives b₀ of the conventions).
double tgp_level(const HeavyTailedOptions& o, const RunConstants& k, int t);
/// True when tgp_width reads its γ̂_{t−1} argument: theory preset with `gamma = info_gain`.
/// Otherwise the width ignores it and callers skip the O(t) information-gain sum.
bool tgp_width_uses_gamma(const HeavyTailedOptions& o);
/// TGP / LDP-TGP confidence width β_t for round t ≥ 1, from γ̂_{t−1} (ignored unless
/// tgp_width_uses_gamma(o)).
double tgp_width(const HeavyTailedOptions& o, const RunConstants& k, double lambda, int t,
                 double gamma_prev);
/// ATA truncation level b_t with Nyström dimension m (m = 0 read as 1).
double ata_level(const HeavyTailedOptions& o, const RunConstants& k, int horizon, int t, int m);
/// ATA width: β_{t+1} evaluated at (t, m_t); call with (t−1, m_{t−1}) for round t.
double ata_width(const HeavyTailedOptions& o, const RunConstants& k, double lambda, int horizon,
                 int t, int m);
/// MoMA width β_{n+1} at (n, m_n); call with (n−1, m_{n−1}) for epoch n.
double moma_width(const HeavyTailedOptions& o, const RunConstants& k, double lambda, int n, int m);

/// Lower median (the ⌈n/2⌉-th smallest) or, with midpoint, the mean of the two middle values.
/// @throws InvalidArgument if `values` is empty.
double median_of(std::vector<double> values, bool midpoint);
/// MoMA line 7–8: W (m×k, column j = Ṽ^{−1/2}S_j); d_js = ‖W_j − W_s‖; r_j = median over s ≠ j;
/// returns the smallest j (0-based) with minimal r_j. k = 1 returns 0.
int moma_select(const Eigen::MatrixXd& w, bool midpoint);

/// ATA's reward history of one run, kept per arm sorted by |y| with prefix sums, so that line 7
/// of §3.6, r̂_i = Σ_a G[i,a]·Σ_{y ∈ H_a} y·1{|G[i,a]·y| ≤ b}, costs O(m·N·log t).
class AtaHistory {
 public:
  explicit AtaHistory(int n) : abs_(n), y_(n), prefix_(n) {}
  /// Appends reward y of arm a (with its level b_τ for the per-sample option).
  void add(int arm, double y, double level);
  /// r̂ (length m) for G (m×N) and the common level b (§3.6 line 7). Inclusion is decided by
  /// |G[i,a]|·|y| ≤ b, which equals |G[i,a]·y| ≤ b exactly in IEEE arithmetic.
  Eigen::VectorXd rhat(const Eigen::MatrixXd& g, double b) const;
  /// r̂ with each sample truncated at its own stored level b_τ (option ata_level = per_sample).
  Eigen::VectorXd rhat_per_sample(const Eigen::MatrixXd& g) const;
  int size() const { return static_cast<int>(arm_.size()); }
  const std::vector<int>& arms() const { return arm_; }
  const std::vector<double>& rewards() const { return all_y_; }

 private:
  std::vector<std::vector<double>> abs_, y_, prefix_;  // per arm, sorted by |y|
  std::vector<int> arm_;                               // in play order
  std::vector<double> all_y_, level_;
};

/// Brute force line 7 of §3.6 over the history in play order (tests and the per-sample option).
/// `levels` empty: one level b for every sample.
Eigen::VectorXd ata_rhat_naive(const Eigen::MatrixXd& g, const std::vector<int>& arms,
                               const std::vector<double>& y, double b,
                               const std::vector<double>& levels = {});

/// The approximate posterior state of one run of ATA or MoMA: μ̃, σ̃², m, and its streams.
struct ApproxRunState {
  Eigen::VectorXd mean, variance;
  int m = 0;
  Rng nystrom;
  Rng tiebreak;
};

/// Initial state of run r of env (μ̃ = 0, σ̃² = kdiag, m = 0; its Nyström and tie-break streams).
ApproxRunState initial_approx_state(const PolicyEnv& env, int r, const Eigen::VectorXd& kdiag);

/// NYS over the candidates with positive weight (ascending) from the run's σ̃² and Nyström stream,
/// then APX with those weights; sets st.m to the dictionary size (spec §3.2–3.3).
std::pair<NystromEmbedding, ApproxPosterior> embed_played(const PolicyEnv& env, ApproxRunState& st,
                                                          const Eigen::VectorXd& weights,
                                                          const Eigen::VectorXd& kdiag, double q);

/// UCB argmax of μ̃ + β·σ̃ for one run with the run's tie-break policy (spec §2.3).
int approx_ucb_choice(const PolicyEnv& env, ApproxRunState& s, double width);

/// diag K over the domain (length N).
Eigen::VectorXd kernel_diagonal(const PolicyEnv& env);

}  // namespace gpb::detail
