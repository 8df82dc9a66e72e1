/// @file gdp.hpp
/// Gaussian differential privacy (μ-GDP, Dong, Roth & Su 2022): the Gaussian mechanism,
/// composition, conversion to (ε, δ)-DP, and a Gaussian sampler on the privacy NoiseSource
/// (specs/dp-gibo.md §5).
#pragma once

#include <string>
#include <vector>

#include "gpbandit/privacy/noise_source.hpp"

namespace gpb::privacy {

/// Standard normal CDF Φ(x) = ½·erfc(−x/√2).
double normal_cdf(double x);
/// log Φ(x), accurate for very negative x (asymptotic series of log erfc once erfc underflows).
double log_normal_cdf(double x);

/// Composition of μ_t-GDP mechanisms: √(Σ μ_t²)-GDP (Dong et al., Cor. 3.3).
/// @throws InvalidArgument if a μ_t is negative or NaN (+∞ is allowed and gives +∞).
double gdp_compose(const std::vector<double>& mus);

/// μ-GDP ⇒ (ε, δ(ε))-DP for every ε ≥ 0 with
/// δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2) (Dong et al., Cor. 2.13); e^εΦ(·) is evaluated as
/// exp(ε + log Φ(·)). Values: μ=1, ε=1 → 0.1269; μ=0.5, ε=1 → 0.006830.
/// @throws InvalidArgument if μ ≤ 0, μ is NaN, or ε < 0 / NaN. μ = +∞ gives δ = 1.
double gdp_delta(double mu, double epsilon);

/// The smallest ε ≥ 0 with δ(ε) ≤ δ for a μ-GDP mechanism (δ(ε) is decreasing): bracket found by
/// doubling, then bisection to 1e-10. Returns 0 when δ(0) ≤ δ already.
/// @throws InvalidArgument if μ ≤ 0 or not finite, or δ ∉ (0, 1).
double gdp_epsilon(double mu, double delta);

/// Noise std that makes the Gaussian mechanism with ℓ2-sensitivity Δ μ-GDP: Δ/μ (Dong et al.,
/// Thm 2.7). @throws InvalidArgument if Δ ≤ 0 or μ ≤ 0 (or either is not finite).
double gaussian_mechanism_std(double sensitivity, double mu);

/// One N(0, std²) draw from `source` by Box–Muller on two source.uniform() values
/// (√(−2 ln u₁)·cos(2π u₂)). std = 0 returns 0 without drawing.
/// Floating-point caveat (DESIGN §5): this is the textbook continuous sampler. Unlike Laplace
/// (Mironov's snapping, laplace.hpp) no snapping-style treatment is applied, so the μ-GDP guarantee
/// of a mechanism using it holds in exact real arithmetic; the low-order bits of a released
/// double could in principle leak information about the input (the Gaussian analogue of
/// Mironov 2012 is not addressed here). Tests: tests/test_gdp.cpp (GaussianNoise*).
/// @throws InvalidArgument if std < 0 or not finite.
double gaussian_noise(double std, NoiseSource& source);

/// The privacy ledger of a T-step algorithm whose steps are each (μ/√T)-GDP
/// (specs/dp-gibo.md §5): after t steps the release is μ√(t/T)-GDP.
class GdpLedger {
 public:
  /// @throws InvalidArgument if μ ≤ 0 or NaN (μ = +∞ is the non-private case) or T < 1.
  GdpLedger(double mu, int T);
  /// μ of the whole T-step release (+∞ when non-private).
  double mu() const { return mu_; }
  /// T, the number of steps.
  int steps() const { return T_; }
  /// μ of one step: μ/√T.
  double per_step_mu() const;
  /// μ spent after t steps (0 ≤ t ≤ T): √(t·(μ/√T)²), by gdp_compose.
  /// @throws InvalidArgument if t ∉ [0, T].
  double spent(int t) const;

 private:
  double mu_;
  int T_;
};

}  // namespace gpb::privacy
